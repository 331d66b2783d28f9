// DOM glue for the respondent's pages (respond.html, respond_thanks.html). It randomizes
// every answer in this browser and sends only the reports; see respond_core.js for the
// pure parts and ldp.js for the randomizers.

import { randomize } from "./ldp.js";
import {
  describeReport,
  failureMessage,
  loadRecord,
  memoizedReports,
  memoryStorage,
  newIdempotencyKey,
  progressText,
  requestBody,
  saveRecord,
  unanswered,
} from "./respond_core.js";

const data = JSON.parse(document.getElementById("respond-data").textContent);
const storage = browserStorage();
const record = loadRecord(storage, data.publicId);

function browserStorage() {
  try {
    window.localStorage.getItem("private-surveys");
    return window.localStorage;
  } catch {
    // Storage blocked: memoization then lasts as long as this page.
    return memoryStorage();
  }
}

function save() {
  try {
    saveRecord(storage, data.publicId, record);
  } catch {
    // Storage full or refused: the record still lives in this page.
  }
}

function showSent(container) {
  for (const question of data.questions) {
    const slot = container.querySelector(`[data-sent-question="${question.id}"]`);
    if (slot) slot.textContent = describeReport(question, record.sent.reports[question.id]);
  }
  container.hidden = false;
}

function answers() {
  const given = {};
  for (const question of data.questions) {
    const checked = document.querySelector(`input[name="answer-${question.id}"]:checked`);
    if (checked) given[question.id] = Number(checked.value);
  }
  return given;
}

function updateProgress() {
  const text = document.getElementById("progress-text");
  if (!text) return;
  const count = Object.keys(answers()).length;
  text.textContent = progressText(count, data.questions.length);
  document.getElementById("progress-bar").value = count;
}

function markMissing(fieldset, missing) {
  fieldset.querySelector("[data-missing]").hidden = !missing;
  fieldset.classList.toggle("border-danger", missing);
}

function answered(event) {
  const fieldset = event.currentTarget;
  for (const option of fieldset.querySelectorAll(".answer-option")) {
    const chosen = option.querySelector("input").checked;
    option.classList.toggle("border-primary", chosen);
    option.classList.toggle("bg-primary-subtle", chosen);
  }
  markMissing(fieldset, false);
  updateProgress();
  const status = document.getElementById("respond-status");
  if (status.dataset.missing && !unanswered(data.questions, answers()).length) tell("", "");
}

function tell(message, kind, missing = false) {
  const status = document.getElementById("respond-status");
  status.className = message ? `alert alert-${kind} mb-3` : "mb-3";
  status.textContent = message;
  status.dataset.missing = missing ? "yes" : "";
}

async function send(button) {
  const given = answers();
  const missing = unanswered(data.questions, given);
  if (missing.length) {
    const names = missing.map((question) => `“${question.text}”`).join(", ");
    tell(`Please answer every question before sending. Still to answer: ${names}.`, "warning", true);
    for (const question of missing) {
      markMissing(document.getElementById(`question-${question.id}`), true);
    }
    const first = document.getElementById(`question-${missing[0].id}`);
    first.scrollIntoView({ block: "center" }); // not under the sticky progress bar
    first.querySelector("input").focus({ preventScroll: true });
    return;
  }
  record.key ??= newIdempotencyKey();
  const { reports, memo } = memoizedReports(data.questions, given, record.memo, randomize);
  record.memo = memo;
  save(); // before sending: a retry must reuse these draws and this key
  button.disabled = true;
  tell("Sending your randomized answers…", "info");
  let response = null;
  let result = null;
  try {
    response = await fetch(data.submitUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": data.csrfToken },
      body: JSON.stringify(requestBody(record.key, data.invitation, reports)),
      credentials: "same-origin",
    });
    result = await response.json().catch(() => null);
  } catch {
    response = null;
  }
  if (response?.ok && result?.ok) {
    record.sent = { reports: result.received };
    save();
    window.location.assign(data.thanksUrl);
    return;
  }
  tell(failureMessage(response?.status ?? 0, result?.error), "danger");
  button.disabled = false;
}

function setUpAnswering() {
  for (const fieldset of document.querySelectorAll("fieldset[data-question]")) {
    fieldset.disabled = false;
    fieldset.addEventListener("change", answered);
  }
  updateProgress();
  const notice = document.getElementById("already-answered");
  if (record.sent && notice && !data.preview) showSent(notice);
  if (data.preview) return; // the button stays disabled: a preview sends nothing
  const button = document.getElementById("send-answers");
  button.addEventListener("click", () => send(button));
  button.disabled = false;
}

if (document.getElementById("send-answers")) setUpAnswering();
const sent = document.getElementById("sent");
if (sent) {
  if (record.sent) showSent(sent);
  else document.getElementById("sent-missing").hidden = false;
}
