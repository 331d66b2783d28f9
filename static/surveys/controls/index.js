// The respondent page's answer controls, by the name a question's fieldset carries in its
// data-control attribute (its kind's answer_control, surveys/kinds/). Each module reads the
// true answer from its fieldset (read), forgets it (clear) and shows it (highlight); the
// answer never leaves the page: respond.js randomizes it (ldp.js) and sends only the report.

import * as checkAll from "./check_all.js";
import * as number from "./number.js";
import * as oneChoice from "./one_choice.js";
import * as ratingScale from "./rating_scale.js";

export const ANSWER_CONTROLS = {
  check_all: checkAll,
  number,
  one_choice: oneChoice,
  rating_scale: ratingScale,
};

/** The control of a question's fieldset. */
export function controlOf(fieldset) {
  const control = ANSWER_CONTROLS[fieldset.dataset.control];
  if (!control) throw new Error(`no answer control named ${fieldset.dataset.control}`);
  return control;
}
