// The authoring panel's pure parts (see epsilon.js for the DOM glue): the sentences that put
// the server's planner numbers (the JSON of `epsilon_explain`) into words.

// The site's number formats, as surveys/templatetags/numbers.py writes them on the pages.
// A share in [0, 1] with one decimal: "12.3%".
export const percent = (x) => `${(100 * x).toFixed(1)}%`;

// A count with thousands separators, whatever the browser's language: "1,234".
export const count = (n) => n.toLocaleString("en-US");

// An epsilon with the digits it has (up to 6 significant ones), never in scientific notation
// nor with floating-point noise: "0.0001", "1", "0.5", "2.25", and 0.1 + 0.2 is "0.3".
export const epsilonText = (epsilon) =>
  Number(epsilon).toLocaleString("en-US", { maximumSignificantDigits: 6, useGrouping: false });

// Beyond ±100 points a margin only says that the reports tell next to nothing.
export const points = (m) => (m >= 1 ? "more than ±100 points" : `±${(100 * m).toFixed(1)} points`);

export const targetText = (data) => `±${Math.round(100 * data.target_margin)} points`;

// Respondents needed, or why there is no such number (null: beyond the planner's limit).
export function respondents(n, limit) {
  return n === null
    ? `more than ${count(limit)} respondents, out of reach: raise epsilon or accept a wider margin`
    : `about ${count(n)} respondents`;
}

// The margins of error list for this question: one line per planned number of respondents.
export function marginLines(data) {
  const atShare = data.share !== null;
  return data.margins.map(({ n, margin, margin_at_share }) => {
    const text = atShare ? `${points(margin_at_share)} (worst case ${points(margin)})` : points(margin);
    return `${count(n)} respondents: ${text}`;
  });
}

export function marginHeading(data) {
  const about = data.share !== null ? `a share near ${percent(data.share)}` : "any estimated percentage";
  return `Expected margin of error (95%) for ${about}:`;
}

// How many respondents give the target margin for this question on its own.
export function planText(data) {
  const target = targetText(data);
  const needed = (n) => respondents(n, data.planner_limit);
  return data.share !== null
    ? `For ${target} on a share near ${percent(data.share)}: ${needed(data.n_for_5_points_at_share)}. In the worst case: ${needed(data.n_for_5_points)}.`
    : `For ${target}: ${needed(data.n_for_5_points)}.`;
}

// The words for a grouping question ("used for breakdowns"), from `data.grouping`: the advice,
// the hint when its epsilon is below the suggestion (null otherwise), the margins within a group
// (heading and lines, none without a group size), the planner sentence and its assumption.
export function groupingTexts(data) {
  const g = data.grouping;
  const target = targetText(data);
  const needed = (n) => respondents(n, data.planner_limit);
  const suggested = epsilonText(g.suggested_epsilon);
  const assumption =
    `The question broken down is not known yet, so these figures assume a yes/no question at this site's default epsilon (${epsilonText(g.other_epsilon)}), ` +
    "and the least favourable share of its answers within the group.";
  if (g.group_share === null) {
    return {
      advice: g.advice,
      hint: g.hint,
      heading: null,
      margins: [],
      plan: "Enter the expected size of a group, in percent of all respondents, to see how many respondents a breakdown by this question needs.",
      assumption: null,
    };
  }
  const group = `a group of ${percent(g.group_share)} of respondents`;
  const atSuggestion = g.below_suggestion
    ? ` At the suggested epsilon of ${suggested}: ${needed(g.n_for_5_points_at_suggestion)}.`
    : "";
  return {
    advice: g.advice,
    hint: g.hint,
    heading: `Expected margin of error (95%) for the share of an answer within ${group}:`,
    margins: g.margins.map(({ n, margin }) =>
      `${count(n)} respondents: ${margin === null ? "out of reach" : points(margin)}`),
    plan: `For ${target} on the share of an answer within ${group}: ${needed(g.n_for_5_points)}.${atSuggestion}`,
    assumption,
  };
}

// The query for `epsilon_explain` from the form's values.
export function explainQuery({ epsilon, kind, choices, override, share, grouping, groupShare }) {
  const k = kind === "yesno" ? 2 : Math.max(2, (choices ?? "").split("\n").filter((line) => line.trim()).length);
  const query = { epsilon, kind, k: String(k), override: override ?? "", share: share ?? "" };
  if (grouping) Object.assign(query, { grouping: "1", group_share: groupShare ?? "" });
  return new URLSearchParams(query);
}

// The survey's total epsilon with this question's (`budget`: the others' sum and the site's
// limit per survey, from the page), and whether it is above that limit.
export function budgetText(budget, epsilon) {
  const total = budget.others + (Number.isFinite(epsilon) ? epsilon : 0);
  const over = total > budget.limit + 1e-9;
  const text = over
    ? `Survey total with this question: ${epsilonText(total)}, above this site's limit of ${epsilonText(budget.limit)} per survey: the question cannot be saved with this value. Lower this or another question's epsilon.`
    : `Survey total with this question: ${epsilonText(total)} of ${epsilonText(budget.limit)} allowed.`;
  return { text, over };
}

// The odds ratio e^ε, as the panel writes it: "2.72", "55", "1,097".
export const oddsText = (odds) => (odds < 10 ? odds.toFixed(2) : count(Math.round(odds)));
