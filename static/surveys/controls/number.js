// A bounded number (templates/surveys/respond/controls/number.html): one number box, and for
// a question that offers it a "Prefer not to say" check box, which empties and disables the
// box. The answer is the number typed, if it lies in the question's range with at most its
// decimal places, or {extra: e} when "Prefer not to say" is ticked; otherwise there is none
// yet. It stays in the page: ldp.js randomizes it.

const input = (fieldset) => fieldset.querySelector("input[type=number]");
const refusal = (fieldset) => fieldset.querySelector("input[data-refusal]");

/** The number typed, {extra: e} for "Prefer not to say", or undefined while the box is
 * empty or holds no number of the range with at most its decimal places. */
export function read(fieldset) {
  const declined = refusal(fieldset);
  if (declined?.checked) return { extra: Number(declined.value) };
  const box = input(fieldset);
  const text = box.value.trim(); // the browser's own reading: "" when it is not a number
  const places = Number(box.dataset.decimals);
  const match = /^-?\d+(?:\.(\d+))?$/.exec(text);
  if (!match || (match[1] ?? "").replace(/0+$/, "").length > places) return undefined;
  const value = Number(text);
  if (!(value >= Number(box.dataset.low) && value <= Number(box.dataset.high))) return undefined;
  return value;
}

/** Forget the number and the refusal. */
export function clear(fieldset) {
  input(fieldset).value = "";
  const declined = refusal(fieldset);
  if (declined) declined.checked = false;
}

/** Show whether the box holds an answer: framed when it does, marked invalid when it holds
 * something that is not one; with "Prefer not to say" ticked, the box is emptied and
 * disabled. */
export function highlight(fieldset) {
  const box = input(fieldset);
  const declined = refusal(fieldset)?.checked ?? false;
  if (declined) box.value = "";
  box.disabled = declined;
  refusal(fieldset)?.closest(".answer-option").classList.toggle("border-primary", declined);
  const given = !declined && read(fieldset) !== undefined;
  box.classList.toggle("border-primary", given);
  box.classList.toggle("is-invalid", !declined && !given && (box.value !== "" || box.validity.badInput));
  box.setAttribute("aria-invalid", box.classList.contains("is-invalid") ? "true" : "false");
}
