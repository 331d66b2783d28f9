// Check all that apply (templates/surveys/respond/controls/check_all.html): one check box per
// option. The answer is the question's boxes (its options', then its extra answers' ones, as
// many as its mechanism's k, in the data-boxes attribute), 1 ticked and 0 not; ticking none
// is an answer too, so there is always one. A question that offers a refusal has one more
// box, "Prefer not to say", after the options: ticking it unticks and disables them, and the
// answer is then only its extra box ticked (the page's data calls it `declined`).

import { highlight as showChosen } from "./one_choice.js";

const boxes = (fieldset) => fieldset.querySelector("[data-boxes]");
const options = (fieldset) => boxes(fieldset).querySelectorAll("input");
const refusal = (fieldset) => fieldset.querySelector("input[data-refusal]");

/** The boxes, 1 for ticked and 0 for not: the options', then the extra answers'. */
export function read(fieldset) {
  const refused = refusal(fieldset)?.checked;
  const answer = new Array(Number(boxes(fieldset).dataset.boxes)).fill(0);
  options(fieldset).forEach((input, index) => {
    answer[index] = input.checked && !refused ? 1 : 0;
  });
  if (refused) answer[Number(refusal(fieldset).value)] = 1;
  return answer;
}

/** Forget the answer: untick every box. */
export function clear(fieldset) {
  for (const input of [...options(fieldset), refusal(fieldset)]) if (input) input.checked = false;
}

/** Show which boxes are ticked; while "Prefer not to say" is, the options are unticked and
 * disabled (so the keyboard skips them), and enabled again once it is not. */
export function highlight(fieldset) {
  const refused = Boolean(refusal(fieldset)?.checked);
  for (const input of options(fieldset)) {
    if (refused) input.checked = false;
    input.disabled = refused;
  }
  showChosen(fieldset);
}
