// The authoring panel's pure parts (static/surveys/epsilon_core.js).

import assert from "node:assert/strict";
import { test } from "node:test";

import { setLanguage } from "../../static/surveys/i18n.js";

import {
  budgetText,
  count,
  declineCostText,
  epsilonText,
  explainQuery,
  groupingTexts,
  marginHeading,
  marginLines,
  meanScoreText,
  oddsText,
  percent,
  planText,
  points,
  respondents,
  probabilityText,
  truthText,
} from "../../static/surveys/epsilon_core.js";

const base = {
  epsilon: 1, share: null, target_margin: 0.05, planner_limit: 1_000_000_000,
  margins: [{ n: 200, margin: 0.15, margin_at_share: null }, { n: 1000, margin: 1.5, margin_at_share: null }],
  n_for_5_points: 1799, n_for_5_points_at_share: null, grouping: null,
};
const grouping = {
  suggested_epsilon: 2, below_suggestion: true, advice: "A grouping question …",
  hint: "This epsilon (1) is below the 2 we suggest …", other_epsilon: 1, group_share: 0.2,
  margins: [{ n: 200, margin: 0.9 }, { n: 1000, margin: null }],
  n_for_5_points: 12345, n_for_5_points_at_suggestion: null,
};

test("it writes margins and the plan for this question", () => {
  assert.equal(points(0.136), "±13.6 points");
  assert.equal(points(1.5), "more than ±100 points");
  assert.deepEqual(marginLines(base), ["200 respondents: ±15.0 points", "1,000 respondents: more than ±100 points"]);
  assert.equal(marginHeading(base), "Expected margin of error (95%) for any estimated percentage:");
  assert.equal(planText(base), "For ±5 points: about 1,799 respondents.");
  const rare = { ...base, share: 0.05, n_for_5_points_at_share: 1488,
    margins: [{ n: 200, margin: 0.15, margin_at_share: 0.136 }] };
  assert.equal(planText(rare), "For ±5 points on a share near 5.0%: about 1,488 respondents. In the worst case: about 1,799 respondents.");
  assert.deepEqual(marginLines(rare), ["200 respondents: ±13.6 points (worst case ±15.0 points)"]);
  assert.equal(respondents(null, 1000), "more than 1,000 respondents, out of reach: raise epsilon or accept a wider margin");
});

test("it plans the mean score of a rating scale, and nothing for other kinds", () => {
  assert.equal(meanScoreText(base), null);
  const rating = { ...base, mean_score: { target_margin: 0.25, n_for_target_margin: 2345,
    margins: [{ n: 200, margin: 0.861 }, { n: 1000, margin: 0.385 }] } };
  assert.equal(meanScoreText(rating),
    "Mean score, whatever the answers: ±0.86 points of the scale with 200 respondents; " +
    "±0.39 points of the scale with 1,000 respondents. For ±0.25 points of the scale: about 2,345 respondents.");
  const unreachable = { ...rating, mean_score: { ...rating.mean_score, n_for_target_margin: null } };
  assert.match(meanScoreText(unreachable), /For ±0.25 points of the scale: more than 1,000,000,000 respondents, out of reach/);
});

test("it explains a grouping question within a group of the expected size", () => {
  const texts = groupingTexts({ ...base, grouping });
  assert.equal(texts.advice, grouping.advice);
  assert.equal(texts.hint, grouping.hint);
  assert.equal(texts.heading, "Expected margin of error (95%) for the share of an answer within a group of 20.0% of respondents:");
  assert.deepEqual(texts.margins, ["200 respondents: ±90.0 points", "1,000 respondents: out of reach"]);
  assert.equal(texts.plan,
    "For ±5 points on the share of an answer within a group of 20.0% of respondents: about 12,345 respondents. " +
    "At the suggested epsilon of 2: more than 1,000,000,000 respondents, out of reach: raise epsilon or accept a wider margin.");
  assert.match(texts.assumption, /yes\/no question at this site's default epsilon \(1\)/);
});

test("it leaves the suggestion out once the epsilon reaches it", () => {
  const texts = groupingTexts({ ...base, grouping: { ...grouping, below_suggestion: false, hint: null } });
  assert.equal(texts.hint, null);
  assert.equal(texts.plan, "For ±5 points on the share of an answer within a group of 20.0% of respondents: about 12,345 respondents.");
});

test("it asks for a group size when there is none", () => {
  const texts = groupingTexts({ ...base, grouping: { ...grouping, group_share: null, margins: [], n_for_5_points: null } });
  assert.equal(texts.heading, null);
  assert.deepEqual(texts.margins, []);
  assert.match(texts.plan, /^Enter the expected size of a group/);
  assert.equal(texts.assumption, null);
});

test("it writes epsilons as people do, with the digits they have", () => {
  assert.equal(epsilonText(0.1 + 0.2), "0.3");
  assert.equal(epsilonText(2), "2");
  // The same as surveys/helpers/numbers.py (tests/views/test_running_study.py):
  for (const [value, text] of [[0.0001, "0.0001"], [1, "1"], [0.5, "0.5"], [2.25, "2.25"], [1e-7, "0.0000001"], [12.5, "12.5"]]) {
    assert.equal(epsilonText(value), text);
  }
});

test("it writes counts and shares as the pages do", () => {
  assert.equal(count(1799000), "1,799,000");
  assert.equal(percent(0.1234), "12.3%");
  assert.equal(percent(0.05), "5.0%");
  assert.equal(oddsText(Math.E), "2.72");
  assert.equal(oddsText(1096.6), "1,097");
});

test("in the page's language, as the pages write them there", () => {
  setLanguage("de");
  try {
    assert.equal(count(1799000), "1.799.000");
    assert.equal(percent(0.1234), "12,3\u00a0%");
    assert.equal(oddsText(Math.E), "2,72");
    assert.equal(points(0.043), "±4,3 points"); // the words come from the catalogue
    assert.equal(probabilityText(0.731), "73,1\u00a0%");
    assert.equal(epsilonText(0.5), "0.5"); // as typed in the form's number box
  } finally {
    setLanguage("en");
  }
});

test("it says when the survey's total would be above the site's limit", () => {
  const budget = { others: 3.5, limit: 5 };
  const range = { min: 0.01, max: 3 };
  assert.deepEqual(budgetText(budget, 1.5, range), { text: "Survey total with this question: 5 of 5 allowed.", over: false, invalid: false });
  assert.deepEqual(budgetText(budget, Number.NaN, range), { text: "Survey total with this question: 3.5 of 5 allowed.", over: false, invalid: false });
  const over = budgetText(budget, 2, range);
  assert.equal(over.over, true);
  assert.equal(over.text, "Survey total with this question: 5.5, above this site's limit of 5 per survey: " +
    "the question cannot be saved with this value. Lower this or another question's epsilon.");
});

test("an epsilon the question cannot be saved with is not added to the total, and says so", () => {
  const budget = { others: 2.5, limit: 5 };
  const range = { min: 0.01, max: 3 };
  for (const epsilon of [-1, 0, 0.005, 3.5, Number.POSITIVE_INFINITY]) {
    assert.deepEqual(budgetText(budget, epsilon, range), {
      text: "This epsilon cannot be saved: enter a number from 0.01 to 3. Survey total without this question: 2.5 of 5 allowed.",
      over: false,
      invalid: true,
    });
  }
  // The bounds themselves are valid.
  assert.equal(budgetText(budget, 0.01, range).text, "Survey total with this question: 2.51 of 5 allowed.");
  assert.equal(budgetText(budget, 3, range).invalid, false);
});

test("it says what letting respondents decline costs in respondents", () => {
  assert.equal(declineCostText({ epsilon: 1, no_answer_cost: 2897 / 1799 }),
    "At epsilon 1, its “No answer” is one more answer to randomize: the question needs about 1.6 times the respondents for the same margin of error.");
  assert.equal(declineCostText({ epsilon: 5, no_answer_cost: 1.01 }),
    "At epsilon 5, its “No answer” costs next to nothing: about as many respondents for the same margin of error.");
  assert.equal(declineCostText({ epsilon: 1, no_answer_cost: null }), null);
  const query = (declinable, facts = FACTS.yesno) =>
    explainQuery({ epsilon: "1", kind: "yesno", facts, extras: Number(declinable), declinable });
  assert.equal(query(true).get("declinable"), "1");
  assert.equal(query(true).get("k"), "3");
  assert.equal(query(false).get("declinable"), null);
  assert.equal(query(true, { ...FACTS.yesno, extras: false }).get("declinable"), null);
});

const FACTS = { // as QuestionKind.form_facts gives them
  yesno: { fixed_answers: 2, typed: false, scale: false, groups: true, anchor: true, method_choice: false, extras: true },
  categorical: { fixed_answers: 0, typed: true, scale: false, groups: true, anchor: false, method_choice: true, extras: true },
  rating: { fixed_answers: 0, typed: false, scale: true, groups: true, anchor: false, method_choice: true, extras: true },
  checkall: { fixed_answers: 0, typed: true, scale: false, groups: false, anchor: false, method_choice: false, extras: true, skippable: false },
  number: { fixed_answers: 0, typed: false, scale: false, groups: false, anchor: false, method_choice: false, extras: false, skippable: false },
};

test("it asks the server about a grouping question only when the box is ticked", () => {
  const plain = explainQuery({ epsilon: "1", kind: "categorical", facts: FACTS.categorical, choices: "A\n\nB\n C ", override: "", share: "5",
    grouping: false, groupShare: "20" });
  assert.equal(plain.toString(), "epsilon=1&kind=categorical&k=3&override=&share=5");
  const grouped = explainQuery({ epsilon: "2", kind: "yesno", facts: FACTS.yesno, choices: "A\nB\nC", share: "", grouping: true, groupShare: "15" });
  assert.equal(grouped.get("k"), "2");
  assert.equal(grouped.get("grouping"), "1");
  assert.equal(grouped.get("group_share"), "15");
  assert.equal(grouped.get("override"), "");
  assert.equal(grouped.get("survey"), null);
  const edited = explainQuery({ epsilon: "1", kind: "yesno", facts: FACTS.yesno, survey: 7, question: 12 });
  assert.equal(edited.get("survey"), "7");
  assert.equal(edited.get("question"), "12");
  const added = explainQuery({ epsilon: "1", kind: "yesno", facts: FACTS.yesno, survey: 7, question: null });
  assert.equal(added.get("question"), "");
  const rating = explainQuery({ epsilon: "1", kind: "rating", facts: FACTS.rating, choices: "A\nB", scalePoints: "7" });
  assert.equal(rating.get("k"), "7");
});

test("extra answers, where the kind takes them, count among the answers randomized", () => {
  const count = (kind, extras, more = {}) =>
    explainQuery({ epsilon: "1", kind, facts: FACTS[kind], extras, ...more }).get("k");
  assert.equal(count("yesno", 1), "3"); // "Prefer not to say"
  assert.equal(count("yesno", 2), "4"); // and "Not asked"
  assert.equal(count("rating", 2, { scalePoints: "5" }), "7");
  assert.equal(count("categorical", 1, { choices: "A\nB\nC" }), "4");
  // A check-all question's extra answers are boxes its reports are about too.
  assert.equal(count("checkall", 2, { choices: "A\nB\nC" }), "5");
  assert.equal(explainQuery({ epsilon: "1", kind: "checkall", facts: { typed: true }, choices: "A\nB", extras: 2 }).get("k"), "2");
});

test("a probability never reads 100% or 0% when it is not", () => {
  assert.equal(probabilityText(0.7310585786300049), "73.1%");
  assert.equal(probabilityText(1 / (1 + Math.exp(-12))), "99.999%"); // yes/no at epsilon 12
  assert.equal(probabilityText(1 - 1e-9), "99.9999999%");
  assert.equal(probabilityText(0.00004), "0.004%");
  assert.equal(probabilityText(1), "100.0%");
});

test("the panel says what happens to a true answer in each report format", () => {
  assert.equal(truthText({ encoding: "bit", truth_probability: 0.7310585786300049 }),
    "We receive the respondent's true answer with probability 73.1%; otherwise the opposite answer.");
  assert.match(truthText({ encoding: "index", truth_probability: 0.5 }), /otherwise one of the other answers, picked at random\.$/);
  assert.match(truthText({ encoding: "unary", truth_probability: 0.5 }), /^Each choice is a separate box/);
  assert.match(truthText({ encoding: "sampled", truth_probability: 0.9 }), /picks one option at random/);
});

test("a number question's planner speaks in its own unit, and its range goes to the server", async () => {
  const { numberTexts } = await import("../../static/surveys/epsilon_core.js");
  const data = {
    planner_limit: 1e9,
    number: { low: 0, high: 200, decimals: 0, target_margin: 10, n_for_target_margin: 1234, margins: [{ n: 100, margin: 31.25 }] },
  };
  const texts = numberTexts(data);
  assert.match(texts.heading, /from 0 to 200/);
  assert.deepEqual(texts.lines, ["100 respondents: ±31.3"]);
  assert.match(texts.plan, /±10\.0 on the mean: .*1,234/);
  assert.equal(numberTexts({ number: null }), null);
  const facts = { number: true, fields: ["number_min", "number_max", "number_decimals", "number_bins"] };
  const query = explainQuery({ epsilon: "1", kind: "number", facts, fields: { number_min: "0", number_max: "200", number_decimals: "0" } });
  assert.equal(query.get("number_min"), "0");
  assert.equal(query.get("number_max"), "200");
  assert.equal(query.get("number_bins"), ""); // blank: equal bins
  // Its k counts only its extra answers ("No answer", "Not asked"): none here, two there.
  assert.equal(query.get("k"), "0");
  const extras = explainQuery({ epsilon: "1", kind: "number", facts: { ...facts, extras: true }, extras: 2 });
  assert.equal(extras.get("k"), "2");
});
