// The authoring panel's pure parts (see epsilon.js for the DOM glue): the sentences that put
// the server's planner numbers (the JSON of `epsilon_explain`) into words.

import { gettext, interpolate, numberFormat } from "./i18n.js";

// The site's number formats, as surveys/helpers/numbers.py writes them on the pages, in the
// page's language (i18n.js, setLanguage).
// `x` with exactly `places` decimals: "4.3" ("4,3" in German).
export const decimal = (x, places) =>
  numberFormat({ minimumFractionDigits: places, maximumFractionDigits: places }).format(x);

// A share in [0, 1] with one decimal: "12.3%" ("12,3 %" in German).
export const percent = (x) =>
  numberFormat({ style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(x);

// A count with thousands separators: "1,234" ("1.234" in German).
export const count = (n) => numberFormat().format(n);

// An epsilon with the digits it has (up to 6 significant ones), never in scientific notation
// nor with floating-point noise: "0.0001", "1", "0.5", "2.25", and 0.1 + 0.2 is "0.3".
export const epsilonText = (epsilon) =>
  Number(epsilon).toLocaleString("en-US", { maximumSignificantDigits: 6, useGrouping: false });

// Beyond ±100 points a margin only says that the reports tell next to nothing.
export const points = (m) =>
  m >= 1
    ? gettext("more than ±100 points")
    : interpolate(gettext("±%(margin)s points"), { margin: decimal(100 * m, 1) });

export const targetText = (data) =>
  interpolate(gettext("±%(margin)s points"), { margin: Math.round(100 * data.target_margin) });

// Respondents needed, or why there is no such number (null: beyond the planner's limit).
export function respondents(n, limit) {
  return n === null
    ? interpolate(
        gettext("more than %(limit)s respondents, out of reach: raise epsilon or accept a wider margin"),
        { limit: count(limit) },
      )
    : interpolate(gettext("about %(n)s respondents"), { n: count(n) });
}

// The margins of error list for this question: one line per planned number of respondents.
export function marginLines(data) {
  const atShare = data.share !== null;
  return data.margins.map(({ n, margin, margin_at_share }) => {
    const text = atShare
      ? interpolate(gettext("%(margin)s (worst case %(worst)s)"), { margin: points(margin_at_share), worst: points(margin) })
      : points(margin);
    return interpolate(gettext("%(n)s respondents: %(margin)s"), { n: count(n), margin: text });
  });
}

export function marginHeading(data) {
  return data.share !== null
    ? interpolate(gettext("Expected margin of error (95%) for a share near %(share)s:"), { share: percent(data.share) })
    : gettext("Expected margin of error (95%) for any estimated percentage:");
}

// What letting respondents decline the question costs (`data.no_answer_cost`: how many times
// the respondents it needs for the same margin; null where the planner cannot say): its "No
// answer" is one more answer to randomize. Null for none.
export function declineCostText(data) {
  const cost = data.no_answer_cost;
  if (cost === null || cost === undefined) return null;
  const epsilon = epsilonText(data.epsilon);
  return cost < 1.05
    ? interpolate(gettext("At epsilon %(epsilon)s, its “No answer” costs next to nothing: about as many respondents for the same margin of error."), { epsilon })
    : interpolate(gettext("At epsilon %(epsilon)s, its “No answer” is one more answer to randomize: the question needs about %(ratio)s times the respondents for the same margin of error."), {
        epsilon,
        ratio: decimal(cost, 1),
      });
}

// How many respondents give the target margin for this question on its own.
export function planText(data) {
  const target = targetText(data);
  const needed = (n) => respondents(n, data.planner_limit);
  return data.share !== null
    ? interpolate(gettext("For %(target)s on a share near %(share)s: %(needed)s. In the worst case: %(worst)s."), {
        target,
        share: percent(data.share),
        needed: needed(data.n_for_5_points_at_share),
        worst: needed(data.n_for_5_points),
      })
    : interpolate(gettext("For %(target)s: %(needed)s."), { target, needed: needed(data.n_for_5_points) });
}

// For a rating scale (`data.mean_score`; null otherwise): the margin of error of its mean
// score, in points of the scale, and the respondents needed for the target, whatever the answers.
export function meanScoreText(data) {
  const plan = data.mean_score;
  if (!plan) return null;
  const scalePoints = (m) => interpolate(gettext("±%(margin)s points of the scale"), { margin: decimal(m, 2) });
  const margins = plan.margins
    .map(({ n, margin }) => interpolate(gettext("%(margin)s with %(n)s respondents"), { n: count(n), margin: scalePoints(margin) }))
    .join("; ");
  return interpolate(gettext("Mean score, whatever the answers: %(margins)s. For %(target)s: %(needed)s."), {
    margins,
    target: scalePoints(plan.target_margin),
    needed: respondents(plan.n_for_target_margin, data.planner_limit),
  });
}

// For a number question (`data.number`; null otherwise): the margin of error of its mean in
// the question's own unit, for each planning size, and the respondents needed for a margin of
// 5% of the range, whatever the answers.
export function numberTexts(data) {
  const plan = data.number;
  if (!plan) return null;
  const amount = (x) => `±${decimal(x, plan.decimals + 1)}`;
  return {
    heading: interpolate(gettext("Expected margin of error (95%) of the mean, on the range from %(low)s to %(high)s, whatever the answers:"), { low: plan.low, high: plan.high }),
    lines: plan.margins.map(({ n, margin }) => interpolate(gettext("%(n)s respondents: %(margin)s"), { n: count(n), margin: amount(margin) })),
    plan: interpolate(gettext("For a margin of %(target)s on the mean: %(needed)s."), {
      target: amount(plan.target_margin),
      needed: respondents(plan.n_for_target_margin, data.planner_limit),
    }),
  };
}

// The words for a grouping question ("used for breakdowns"), from `data.grouping`: the advice,
// the hint when its epsilon is below the suggestion (null otherwise), the margins within a group
// (heading and lines, none without a group size), the planner sentence and its assumption.
export function groupingTexts(data) {
  const g = data.grouping;
  const target = targetText(data);
  const needed = (n) => respondents(n, data.planner_limit);
  const assumption = interpolate(
    gettext("The question broken down is not known yet, so these figures assume a yes/no question at this site's default epsilon (%(epsilon)s), and the least favourable share of its answers within the group."),
    { epsilon: epsilonText(g.other_epsilon) },
  );
  if (g.group_share === null) {
    return {
      advice: g.advice,
      hint: g.hint,
      heading: null,
      margins: [],
      plan: gettext("Enter the expected size of a group, in percent of all respondents, to see how many respondents a breakdown by this question needs."),
      assumption: null,
    };
  }
  const group = percent(g.group_share);
  const plan = g.below_suggestion
    ? interpolate(
        gettext("For %(target)s on the share of an answer within a group of %(group)s of respondents: %(needed)s. At the suggested epsilon of %(suggested)s: %(at_suggestion)s."),
        {
          target,
          group,
          needed: needed(g.n_for_5_points),
          suggested: epsilonText(g.suggested_epsilon),
          at_suggestion: needed(g.n_for_5_points_at_suggestion),
        },
      )
    : interpolate(
        gettext("For %(target)s on the share of an answer within a group of %(group)s of respondents: %(needed)s."),
        { target, group, needed: needed(g.n_for_5_points) },
      );
  return {
    advice: g.advice,
    hint: g.hint,
    heading: interpolate(
      gettext("Expected margin of error (95%) for the share of an answer within a group of %(group)s of respondents:"),
      { group },
    ),
    margins: g.margins.map(({ n, margin }) =>
      interpolate(gettext("%(n)s respondents: %(margin)s"), {
        n: count(n),
        margin: margin === null ? gettext("out of reach") : points(margin),
      })),
    plan,
    assumption,
  };
}

// The number of answers of a question from the form's values and what its kind takes
// (`facts`, `QuestionKind.form_facts`): the site's own answers (yes/no: 2), the points of a
// rating scale, or the lines typed (none for a number question); then its extra answers, "No
// answer" and "Not asked" (`extras`: how many the form asks for), randomized like the others
// where the kind takes them.
export function answerCount({ facts, choices, scalePoints, extras = 0 }) {
  const more = facts?.extras ? extras : 0;
  if (facts?.number) return more;
  if (facts?.fixed_answers) return facts.fixed_answers + more;
  if (facts?.scale) return (Number(scalePoints) || 5) + more;
  return Math.max(2, (choices ?? "").split("\n").filter((line) => line.trim()).length) + more;
}

// The query for `epsilon_explain` from the form's values. `declinable`: whether respondents
// may decline the question ("Prefer not to say", or an optional question's skip), whose "No
// answer" is then one of its `extras`.
export function explainQuery({ epsilon, kind, facts, choices, scalePoints, extras, declinable, override, share, grouping, groupShare, survey, question, fields }) {
  const k = answerCount({ facts, choices, scalePoints, extras });
  const query = { epsilon, kind, k: String(k), override: override ?? "", share: share ?? "" };
  if (declinable && facts?.extras) query.declinable = "1";
  // The fields the kind takes besides its answers, by name (a number question's range: its
  // planner speaks in the question's own unit).
  for (const name of facts?.fields ?? []) query[name] = fields?.[name] ?? "";
  if (grouping) Object.assign(query, { grouping: "1", group_share: groupShare ?? "" });
  // The survey's other questions count in what respondents are told (the one edited does not).
  if (survey) Object.assign(query, { survey: String(survey), question: question ? String(question) : "" });
  return new URLSearchParams(query);
}

// The survey's total epsilon with this question's (`budget`: the others' sum and the site's
// limit per survey, from the page), and whether it is above that limit. Only an epsilon the
// question can be saved with counts: a number from `range.min` to `range.max` (the epsilon
// box's own bounds). Another (-1, 0, above the limit per question) is not added to the total,
// and `invalid` says it cannot be saved; a blank box adds nothing and is not invalid.
export function budgetText(budget, epsilon, range) {
  const blank = Number.isNaN(epsilon);
  const valid = !blank && epsilon >= range.min - 1e-9 && epsilon <= range.max + 1e-9;
  const total = budget.others + (valid ? epsilon : 0);
  const over = total > budget.limit + 1e-9;
  const values = { total: epsilonText(total), limit: epsilonText(budget.limit) };
  if (!valid && !blank) {
    const why = interpolate(gettext("This epsilon cannot be saved: enter a number from %(min)s to %(max)s."),
      { min: epsilonText(range.min), max: epsilonText(range.max) });
    const text = interpolate(gettext("Survey total without this question: %(total)s of %(limit)s allowed."), values);
    return { text: `${why} ${text}`, over, invalid: true };
  }
  const text = over
    ? interpolate(
        gettext("Survey total with this question: %(total)s, above this site's limit of %(limit)s per survey: the question cannot be saved with this value. Lower this or another question's epsilon."),
        values,
      )
    : interpolate(gettext("Survey total with this question: %(total)s of %(limit)s allowed."), values);
  return { text, over, invalid: false };
}

// A probability as a percentage with as many decimals as it takes (one at least) never to
// read 100% or 0% when it is not: "73.1%", "99.999%".
export function probabilityText(p) {
  for (let digits = 1; digits <= 12; digits++) {
    const shown = Number((100 * p).toFixed(digits));
    if ((shown < 100 || p >= 1) && (shown > 0 || p <= 0)) {
      return numberFormat({ style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits }).format(p);
    }
  }
  return numberFormat({ style: "percent", maximumFractionDigits: 20 }).format(p);
}

// What the authoring panel says the randomization does with one true answer, for the
// mechanism's report format (`encoding`) and its probability of keeping the truth.
export function truthText({ encoding, truth_probability: p }) {
  const probability = probabilityText(p);
  const sentences = {
    number: gettext("Each respondent's browser sends one cell of a grid over the range instead of the number: one of a window of cells around it with probability %(probability)s, any other cell otherwise."),
    sampled: gettext("Each respondent's browser picks one option at random and sends only its box, kept as the respondent set it with probability %(probability)s, flipped otherwise; each option's share rests on about one report in k."),
    unary: gettext("Each choice is a separate box; the box of the true answer is ticked with probability %(probability)s, the others are ticked at random."),
    bit: gettext("We receive the respondent's true answer with probability %(probability)s; otherwise the opposite answer."),
    index: gettext("We receive the respondent's true answer with probability %(probability)s; otherwise one of the other answers, picked at random."),
  };
  return interpolate(sentences[encoding] ?? sentences.index, { probability });
}

// The odds ratio e^ε, as the panel writes it: "2.72", "55", "1,097".
export const oddsText = (odds) => (odds < 10 ? decimal(odds, 2) : count(Math.round(odds)));
