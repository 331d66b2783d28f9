// Check all that apply (templates/surveys/respond/controls/check_all.html): one check box per
// option. The answer is the boxes in the options' order, 1 ticked and 0 not; ticking none is
// an answer too, so there is always one.

const inputs = (fieldset) => fieldset.querySelectorAll("input[type=checkbox]");

/** The boxes, 1 for ticked and 0 for not, in the options' order. */
export function read(fieldset) {
  return Array.from(inputs(fieldset), (input) => (input.checked ? 1 : 0));
}

// Unticking every box and showing which are ticked work as for one choice among options.
export { clear, highlight } from "./one_choice.js";
