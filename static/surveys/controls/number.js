// A bounded number (templates/surveys/respond/controls/number.html): one number box. The
// answer is the number typed, if it lies in the question's range with at most its decimal
// places; otherwise there is none yet. It stays in the page: ldp.js randomizes it.

const input = (fieldset) => fieldset.querySelector("input[type=number]");

/** The number typed, or undefined while the box is empty or holds no number of the range
 * with at most its decimal places. */
export function read(fieldset) {
  const box = input(fieldset);
  const text = box.value.trim(); // the browser's own reading: "" when it is not a number
  const places = Number(box.dataset.decimals);
  const match = /^-?\d+(?:\.(\d+))?$/.exec(text);
  if (!match || (match[1] ?? "").replace(/0+$/, "").length > places) return undefined;
  const value = Number(text);
  if (!(value >= Number(box.dataset.low) && value <= Number(box.dataset.high))) return undefined;
  return value;
}

/** Forget the number. */
export function clear(fieldset) {
  input(fieldset).value = "";
}

/** Show whether the box holds an answer: framed when it does, marked invalid when it holds
 * something that is not one. */
export function highlight(fieldset) {
  const box = input(fieldset);
  const given = read(fieldset) !== undefined;
  box.classList.toggle("border-primary", given);
  box.classList.toggle("is-invalid", !given && (box.value !== "" || box.validity.badInput));
  box.setAttribute("aria-invalid", box.classList.contains("is-invalid") ? "true" : "false");
}
