// Check all that apply (templates/surveys/respond/controls/check_all.html): one check box per
// option. The answer is the boxes in the options' order, 1 ticked and 0 not; ticking none is
// an answer too, so there is always one.

const inputs = (fieldset) => fieldset.querySelectorAll("input[type=checkbox]");

/** The boxes, 1 for ticked and 0 for not, in the options' order. */
export function read(fieldset) {
  return Array.from(inputs(fieldset), (input) => (input.checked ? 1 : 0));
}

/** Untick every box. */
export function clear(fieldset) {
  for (const input of inputs(fieldset)) input.checked = false;
}

/** Show which boxes are ticked. */
export function highlight(fieldset) {
  for (const option of fieldset.querySelectorAll(".answer-option")) {
    const ticked = option.querySelector("input").checked;
    option.classList.toggle("border-primary", ticked);
    option.classList.toggle("bg-primary-subtle", ticked);
  }
}
