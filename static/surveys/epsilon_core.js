// The authoring panel's pure parts (see epsilon.js for the DOM glue): the sentences that put
// the server's planner numbers (the JSON of `epsilon_explain`) into words.

export const percent = (x) => `${(100 * x).toFixed(x >= 0.995 || x < 0.1 ? 1 : 0)}%`;

// Beyond ±100 points a margin only says that the reports tell next to nothing.
export const points = (m) => (m >= 1 ? "more than ±100 points" : `±${(100 * m).toFixed(1)} points`);

// An epsilon as people write it: 2, 0.5, 1.25 (no floating-point noise such as 0.30000000000000004).
export const epsilonText = (epsilon) => String(+Number(epsilon).toPrecision(6));

export const targetText = (data) => `±${Math.round(100 * data.target_margin)} points`;

// Respondents needed, or why there is no such number (null: beyond the planner's limit).
export function respondents(n, limit) {
  return n === null
    ? `more than ${limit.toLocaleString()} respondents, out of reach: raise epsilon or accept a wider margin`
    : `about ${n.toLocaleString()} respondents`;
}

// The margins of error list for this question: one line per planned number of respondents.
export function marginLines(data) {
  const atShare = data.share !== null;
  return data.margins.map(({ n, margin, margin_at_share }) => {
    const text = atShare ? `${points(margin_at_share)} (worst case ${points(margin)})` : points(margin);
    return `${n.toLocaleString()} respondents: ${text}`;
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
      `${n.toLocaleString()} respondents: ${margin === null ? "out of reach" : points(margin)}`),
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
