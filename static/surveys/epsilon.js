// Live explanation of a question's epsilon on the authoring page.
// The numbers come from the server's planner (the same code that runs the estimates).

const panel = document.getElementById("epsilon-explain");
const body = document.getElementById("explain-body");
const budgetLine = document.getElementById("budget-line");
const budget = JSON.parse(document.getElementById("epsilon-budget").textContent);
const form = document.getElementById("question-form");
const field = (name) => form.elements.namedItem(name);
// Outside the form: a planning aid, not part of the question.
const shareField = document.getElementById("expected-share");

const percent = (x) => `${(100 * x).toFixed(x >= 0.995 || x < 0.1 ? 1 : 0)}%`;
// Beyond ±100 points a margin only says that the reports tell next to nothing.
const points = (m) => (m >= 1 ? "more than ±100 points" : `±${(100 * m).toFixed(1)} points`);

function choiceCount() {
  const text = field("choices")?.value ?? "";
  return Math.max(2, text.split("\n").filter((line) => line.trim()).length);
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

function show(data) {
  const odds = data.odds < 10 ? data.odds.toFixed(2) : Math.round(data.odds).toLocaleString();
  const truth =
    data.encoding === "unary"
      ? `Each choice is a separate box; the box of the true answer is ticked with probability ${percent(data.truth_probability)}, the others are ticked at random.`
      : `We receive the respondent's true answer with probability ${percent(data.truth_probability)}; otherwise a random one.`;
  const atShare = data.share !== null;
  const list = element("ul", "", "list-unstyled small mb-0");
  for (const { n, margin, margin_at_share } of data.margins) {
    const text = atShare ? `${points(margin_at_share)} (worst case ${points(margin)})` : points(margin);
    list.append(element("li", `${n.toLocaleString()} respondents: ${text}`));
  }
  const respondents = (n) =>
    n === null
      ? `more than ${data.planner_limit.toLocaleString()} respondents, out of reach: raise epsilon or accept a wider margin`
      : `about ${n.toLocaleString()} respondents`;
  const target = `±${Math.round(100 * data.target_margin)} points`;
  const plan = atShare
    ? `For ${target} on a share near ${percent(data.share)}: ${respondents(data.n_for_5_points_at_share)}. In the worst case: ${respondents(data.n_for_5_points)}.`
    : `For ${target}: ${respondents(data.n_for_5_points)}.`;
  const heading = atShare ? `a share near ${percent(data.share)}` : "any estimated percentage";
  body.replaceChildren(
    element("p", truth),
    element("p", `Any answer we receive is at most ${odds} times more likely from someone with one true answer than from someone with another (odds ratio e^ε).`),
    element("p", `Method: ${data.mechanism}. ${data.reason}`),
    element("p", `Expected margin of error (95%) for ${heading}:`, "mb-1 fw-semibold small"),
    list,
    element("p", plan, "small mt-2 mb-0"),
  );
}

function showBudget(epsilon) {
  const total = budget.others + (Number.isFinite(epsilon) ? epsilon : 0);
  const over = total > budget.limit + 1e-9;
  budgetLine.textContent = `Survey total with this question: ${+total.toFixed(3)} of ${budget.limit} allowed${over ? " — too high: lower this or another question's epsilon." : "."}`;
  budgetLine.classList.toggle("text-danger", over);
}

let pending;
async function update() {
  const epsilon = Number.parseFloat(field("epsilon").value);
  showBudget(epsilon);
  if (field("epsilon").value.trim() === "") {
    body.replaceChildren(element("p", "Enter an epsilon, for example 1.", "text-body-secondary mb-0"));
    return;
  }
  const params = new URLSearchParams({
    epsilon: field("epsilon").value,
    kind: field("kind").value,
    k: String(field("kind").value === "yesno" ? 2 : choiceCount()),
    override: field("mechanism_override")?.value ?? "",
    share: shareField.value,
  });
  pending?.abort();
  pending = new AbortController();
  try {
    const response = await fetch(`${panel.dataset.url}?${params}`, { signal: pending.signal });
    const data = await response.json();
    if (response.ok) show(data);
    else body.replaceChildren(element("p", data.error, "text-danger mb-0"));
  } catch (error) {
    if (error.name !== "AbortError") body.replaceChildren(element("p", "Could not load the explanation.", "text-danger mb-0"));
  }
}

function toggleChoices() {
  const row = field("choices").closest(".mb-3");
  if (row) row.hidden = field("kind").value === "yesno";
  const override = field("mechanism_override")?.closest(".mb-3");
  if (override) override.hidden = field("kind").value === "yesno";
}

form.addEventListener("input", () => update());
shareField.addEventListener("input", () => update());
form.addEventListener("change", () => { toggleChoices(); update(); });
toggleChoices();
update();
