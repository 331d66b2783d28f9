// Live explanation of a question's epsilon on the authoring page.
// The numbers come from the server's planner (the same code that runs the estimates); the
// sentences are in epsilon_core.js.

import {
  budgetText,
  declineCostText,
  explainQuery,
  groupingTexts,
  marginHeading,
  marginLines,
  meanScoreText,
  numberTexts,
  oddsText,
  planText,
  truthText,
} from "./epsilon_core.js";
import { gettext, interpolate, loadPageCatalog } from "./i18n.js";

const panel = document.getElementById("epsilon-explain");
const body = document.getElementById("explain-body");
const budgetLine = document.getElementById("budget-line");
const budget = JSON.parse(document.getElementById("epsilon-budget").textContent);
const form = document.getElementById("question-form");
const field = (name) => form.elements.namedItem(name);
// Outside the form: planning aids, not part of the question.
const shareField = document.getElementById("expected-share");
const groupRow = document.getElementById("group-share-row");
const groupField = document.getElementById("group-share");
// What "Prefer not to say" costs in respondents, said after its box's help text.
const declineCost = element("span");
document.getElementById("id_offers_refusal_helptext")?.append(" ", declineCost);

function element(tag, text, className) {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

function list(lines) {
  const node = element("ul", "", "list-unstyled small mb-0");
  node.append(...lines.map((line) => element("li", line)));
  return node;
}

function groupingSection(data) {
  const texts = groupingTexts(data);
  const section = element("section", "", "mt-3");
  section.setAttribute("aria-labelledby", "grouping-title");
  const title = element("h3", gettext("For breakdowns by this question"), "h6");
  title.id = "grouping-title";
  section.append(title, element("p", texts.advice, "small"));
  if (texts.hint) section.append(element("p", texts.hint, "small fw-semibold text-warning-emphasis"));
  if (texts.heading) section.append(element("p", texts.heading, "mb-1 fw-semibold small"), list(texts.margins));
  section.append(element("p", texts.plan, "small mt-2 mb-0"));
  if (texts.assumption) section.append(element("p", texts.assumption, "small text-body-secondary mt-1 mb-0"));
  return section;
}

// The privacy box of the respondents' page, with this epsilon: the sentences they will read.
function respondentsSection(sentences) {
  const section = element("section", "", "mt-3");
  section.id = "respondents-read";
  section.setAttribute("aria-labelledby", "respondents-read-title");
  const title = element("h3", gettext("What respondents will read about the whole survey"), "h6");
  title.id = "respondents-read-title";
  section.append(title, list(sentences));
  return section;
}

function show(data) {
  const truth = truthText(data);
  const odds = interpolate(
    gettext("Any answer we receive is at most %(odds)s times more likely from someone with one true answer than from someone with another (odds ratio e^ε)."),
    { odds: oddsText(data.odds) },
  );
  const method = interpolate(gettext("Method: %(mechanism)s. %(reason)s"), {
    mechanism: data.mechanism,
    reason: data.reason,
  });
  const number = numberTexts(data);
  body.replaceChildren(
    element("p", truth),
    element("p", odds),
    element("p", method),
    element("p", number ? number.heading : marginHeading(data), "mb-1 fw-semibold small"),
    list(number ? number.lines : marginLines(data)),
    element("p", number ? number.plan : planText(data), "small mt-2 mb-0"),
  );
  const meanScore = meanScoreText(data);
  if (meanScore) body.append(element("p", meanScore, "small mt-2 mb-0"));
  body.append(respondentsSection(data.respondents_read));
  if (data.grouping) body.append(groupingSection(data));
  if (data.above_limit) body.prepend(element("p", data.above_limit, "text-danger fw-semibold"));
  declineCost.textContent = declineCostText(data) ?? "";
}

// The epsilon as the server last refused it, if it did: marked invalid until it is changed.
const refused = field("epsilon").classList.contains("is-invalid") ? field("epsilon").value : null;

// The survey's total, with this epsilon only if the question can be saved with it (the
// epsilon box's bounds); the box is marked invalid otherwise.
function showBudget(epsilon) {
  const box = field("epsilon");
  const { text, over, invalid } = budgetText(budget, epsilon, { min: Number(box.min), max: Number(box.max) });
  budgetLine.textContent = text;
  budgetLine.classList.toggle("text-danger", over || invalid);
  const marked = invalid || box.value === refused;
  box.classList.toggle("is-invalid", marked);
  if (marked) box.setAttribute("aria-invalid", "true");
  else box.removeAttribute("aria-invalid");
}

// What the chosen kind of question takes, as the site defines it (`QuestionKind.form_facts`).
const kindFacts = () => budget.kinds[field("kind").value] ?? {};
// Whether respondents may refuse or skip it (where its kind may be skipped): its extra
// answers are then "No answer", and "Not asked" if it is conditional.
const declinable = () =>
  Boolean(field("offers_refusal")?.checked || (kindFacts().skippable && field("optional")?.checked));
const extraAnswers = () => Number(declinable()) + Number(Boolean(field("condition")?.value));
const grouping = () => Boolean(field("used_for_breakdowns")?.checked) && Boolean(kindFacts().groups);

let pending;
async function update() {
  const epsilon = Number.parseFloat(field("epsilon").value);
  showBudget(epsilon);
  if (field("epsilon").value.trim() === "") {
    body.replaceChildren(element("p", gettext("Enter an epsilon, for example 1."), "text-body-secondary mb-0"));
    declineCost.textContent = "";
    return;
  }
  const params = explainQuery({
    epsilon: field("epsilon").value,
    kind: field("kind").value,
    facts: kindFacts(),
    choices: field("choices")?.value,
    scalePoints: field("scale_points")?.value,
    extras: extraAnswers(),
    declinable: declinable(),
    override: field("mechanism_override")?.value,
    share: shareField.value,
    grouping: grouping(),
    groupShare: groupField.value,
    survey: budget.survey,
    question: budget.question,
    fields: Object.fromEntries((kindFacts().fields ?? []).map((name) => [name, field(name)?.value])),
  });
  pending?.abort();
  pending = new AbortController();
  try {
    const response = await fetch(`${panel.dataset.url}?${params}`, { signal: pending.signal });
    const data = await response.json();
    if (response.ok) show(data);
    else {
      body.replaceChildren(element("p", data.error, "text-danger mb-0"));
      declineCost.textContent = "";
    }
  } catch (error) {
    if (error.name !== "AbortError") body.replaceChildren(element("p", gettext("Could not load the explanation."), "text-danger mb-0"));
  }
}

function toggleFields() {
  const facts = kindFacts();
  const show = (name, shown) => {
    const row = field(name)?.closest(".mb-3");
    if (row) row.hidden = !shown;
  };
  show("choices", facts.typed);
  // Every kind's own fields (a number question's range), shown for their kind only.
  for (const name of new Set(Object.values(budget.kinds).flatMap((kind) => kind.fields))) {
    show(name, facts.fields?.includes(name));
  }
  for (const name of ["scale_points", "scale_low", "scale_high"]) show(name, facts.scale);
  show("known_percent", facts.anchor);
  show("mechanism_override", facts.method_choice);
  show("used_for_breakdowns", facts.groups);
  for (const name of ["offers_refusal", "condition"]) show(name, facts.extras);
  show("optional", facts.skippable);
  shareField.closest(".mb-3").hidden = Boolean(facts.number); // a number has no answer's share
  groupRow.hidden = !grouping();
}

form.addEventListener("input", () => update());
shareField.addEventListener("input", () => update());
groupField.addEventListener("input", () => update());
form.addEventListener("change", () => { toggleFields(); update(); });
toggleFields();
await loadPageCatalog();
update();
