// One answer among a question's options, as radio buttons
// (templates/surveys/respond/controls/one_choice.html): yes/no and multiple-choice questions.
// The answer is the chosen option's index into the question's labels.

const inputs = (fieldset) => fieldset.querySelectorAll(".answer-option input");

/** The chosen option's index, or undefined while none is chosen. */
export function read(fieldset) {
  const checked = fieldset.querySelector("input[type=radio]:checked");
  return checked ? Number(checked.value) : undefined;
}

/** Forget the answer. */
export function clear(fieldset) {
  for (const input of inputs(fieldset)) input.checked = false;
}

/** Show which option is chosen. */
export function highlight(fieldset) {
  for (const option of fieldset.querySelectorAll(".answer-option")) {
    const chosen = option.querySelector("input").checked;
    option.classList.toggle("border-primary", chosen);
    option.classList.toggle("bg-primary-subtle", chosen);
  }
}
