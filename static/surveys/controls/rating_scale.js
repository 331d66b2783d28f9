// A rating scale (templates/surveys/respond/controls/rating_scale.html): one radio button per
// point, laid out as a row. The answer is the chosen point's index (point 1 is 0), read,
// cleared and shown exactly as one choice among options is.

export { clear, highlight, read } from "./one_choice.js";
