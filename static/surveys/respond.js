// DOM glue for the respondent's pages (respond.html, respond_thanks.html). It randomizes
// every answer in this browser and sends only the reports; see respond_core.js for the
// pure parts and ldp.js for the randomizers.
//
// True answers exist only in this page while it is open: in the answer controls (controls/). The
// browser's storage receives only what is sent (the key and the randomized reports), written
// just before the first attempt; from then on those reports are final. Every attempt sends
// exactly the same body, and nothing ever draws again for this survey in this browser.

import { controlOf } from "./controls/index.js";
import { gettext, loadPageCatalog } from "./i18n.js";
import { drawBlocks, randomize } from "./ldp.js";
import {
  answeredCount,
  blocksDrawn,
  describeReport,
  drawReports,
  failureMessage,
  finalAnswers,
  forgetTrueAnswers,
  leftOut,
  leftOutText,
  loadRecord,
  memoryStorage,
  missingText,
  newIdempotencyKey,
  pageAfterSending,
  progressText,
  questionNumberText,
  recordBody,
  retryDelay,
  retryingText,
  saveRecord,
  shownQuestions,
  unanswered,
} from "./respond_core.js";

// The page's data; none on respond_unavailable.html, where this script only cleans up.
const dataElement = document.getElementById("respond-data");
const data = dataElement ? JSON.parse(dataElement.textContent) : null;
// The page's language for messages written from here; awaited before answering starts.
const catalogLoaded = loadPageCatalog();
// A preview sends nothing, so it neither reads nor writes this browser's storage.
const storage = data?.preview ? memoryStorage() : browserStorage();
let { record, earlierDraws } = data
  ? loadRecord(storage, data.publicId)
  : { record: null, earlierDraws: {} };
if (!data?.preview) {
  try {
    forgetTrueAnswers(storage); // true answers an older version of this page kept
  } catch {
    // Storage refused: there is nothing this page can erase.
  }
}
let sending = false;
// The questions whose answer the respondent changed, for the progress (answeredCount): in
// this page's memory only, like the answers.
const touched = new Set();
let retryTimer = null; // the next attempt the page makes by itself, if any
// A design that asks each respondent a random few: the blocks drawn, once, before any answer,
// and kept with the record so that a reload shows the same questions; the questions left out.
let left = new Set();
if (data?.design && !record?.reports) {
  const drawn = blocksDrawn(data.design, record, drawBlocks);
  const fresh = { key: newIdempotencyKey(), reports: null, confirmed: false, wording: data.wording };
  record = { ...fresh, ...record, drawn };
  left = leftOut(data.design, drawn);
}

function browserStorage() {
  try {
    window.localStorage.getItem("private-surveys");
    return window.localStorage;
  } catch {
    // Storage blocked: the record then lasts as long as this page.
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

/** Fill `container`'s report slots from the record, and show its confirmed or unconfirmed
 * wording. */
function showSent(container) {
  for (const question of data.questions) {
    const slot = container.querySelector(`[data-sent-question="${question.id}"]`);
    if (slot) slot.textContent = describeReport(question, record.reports[question.id]);
  }
  for (const element of container.querySelectorAll("[data-sent-state]")) {
    element.hidden = element.dataset.sentState !== (record.confirmed ? "confirmed" : "unconfirmed");
  }
  container.hidden = false;
}

function fieldsets() {
  return document.querySelectorAll("fieldset[data-question]");
}

/** The true answers given so far: question id -> answer, read from the answer controls. */
function answers() {
  const given = {};
  for (const fieldset of fieldsets()) {
    const answer = controlOf(fieldset).read(fieldset);
    if (answer !== undefined) given[fieldset.dataset.question] = answer;
  }
  return given;
}

/** Forget the true answers: clear every answer control. */
function clearAnswers() {
  for (const fieldset of fieldsets()) {
    controlOf(fieldset).clear(fieldset);
    controlOf(fieldset).highlight(fieldset);
  }
  touched.clear();
  updateQuestions();
}

/** Show the conditional questions whose condition holds, hide the others (only this page
 * knows which were shown: every question gets a report), number the questions shown, and
 * count those answered. */
function updateQuestions() {
  const given = answers();
  const shown = shownQuestions(data.questions, given, left);
  for (const question of data.questions) {
    document.getElementById(`question-${question.id}`).hidden = !shown.includes(question);
  }
  shown.forEach((question, index) => {
    const number = document.querySelector(`#question-${question.id} [data-question-number]`);
    if (number) number.textContent = questionNumberText(index + 1, shown.length);
  });
  const text = document.getElementById("progress-text");
  if (!text) return;
  const count = answeredCount(data.questions, given, touched, left);
  text.textContent = progressText(count, shown.length);
  const bar = document.getElementById("progress-bar");
  bar.max = shown.length;
  bar.value = count;
}

function markMissing(fieldset, missing) {
  fieldset.querySelector("[data-missing]").hidden = !missing;
  fieldset.classList.toggle("border-danger", missing);
}

function answered(event) {
  const fieldset = event.currentTarget;
  touched.add(Number(fieldset.dataset.question));
  controlOf(fieldset).highlight(fieldset);
  markMissing(fieldset, false);
  updateQuestions();
  const status = document.getElementById("respond-status");
  if (status.dataset.missing && !unanswered(data.questions, answers(), left).length) {
    tell(status, "", "");
  }
}

function tell(status, message, kind, missing = false) {
  status.className = message ? `alert alert-${kind} mb-3` : "mb-3";
  status.textContent = message;
  status.dataset.missing = missing ? "yes" : "";
}

function setAnswering(enabled) {
  for (const fieldset of fieldsets()) {
    fieldset.disabled = !enabled;
  }
}

// The consent box, when the survey asks for one. Whether it is ticked stays in this page:
// it gates answering and sending, and nothing of it is ever sent or stored.
const consentBox = document.getElementById("consent-box");

function consented() {
  return !consentBox || consentBox.checked;
}

/** Answering (and, unless a preview, sending) open while the respondent agrees to take part. */
function allowAnswering() {
  const allowed = consented();
  setAnswering(allowed);
  if (consentBox) {
    consentBox.disabled = false;
    document.getElementById("consent-note").hidden = allowed;
  }
  document.getElementById("send-answers").disabled = !allowed;
}

/** The read-only view of what this browser sent: no question to answer, and a button only
 * to send the very same body again while the server has not confirmed it. */
function showAnswered() {
  clearAnswers();
  setAnswering(false);
  if (consentBox) consentBox.disabled = true;
  document.getElementById("answering").hidden = true;
  document.getElementById("send-answers").disabled = true;
  const notice = document.getElementById("already-answered");
  showSent(notice);
  document.getElementById("resend-answers").disabled = record.confirmed || sending;
}

/** Whether every question that needs an answer has one; if not, says which and shows the
 * first. */
function allAnswered(given) {
  const missing = unanswered(data.questions, given, left);
  const status = document.getElementById("respond-status");
  if (missing.length) {
    tell(status, missingText(missing), "warning", true);
    for (const question of missing) {
      markMissing(document.getElementById(`question-${question.id}`), true);
    }
    const first = document.getElementById(`question-${missing[0].id}`);
    first.scrollIntoView({ block: "center" }); // not under the sticky progress bar
    first.querySelector("input").focus({ preventScroll: true });
    return false;
  }
  return true;
}

/** Draw the reports, once: after the first attempt they are final. Returns false (having
 * drawn nothing) when a question is unanswered. */
function drawOnce() {
  // Another tab of this browser may have sent answers to this survey meanwhile.
  const latest = loadRecord(storage, data.publicId).record;
  if (latest?.reports) {
    record = latest;
    showAnswered();
    return false;
  }
  const given = answers();
  if (!allAnswered(given)) return false;
  const key = latest?.key ?? record?.key ?? newIdempotencyKey();
  const final = finalAnswers(data.questions, given);
  record = {
    key,
    reports: drawReports(data.questions, final, randomize, earlierDraws, left),
    confirmed: false,
    wording: data.wording, // the texts these answers were given to, kept with them
    drawn: record?.drawn ?? null,
  };
  earlierDraws = {};
  save(); // before sending: a retry, even after a reload, sends exactly this
  setAnswering(false); // the answers shown can no longer change what is sent
  document.getElementById("answers-fixed").hidden = false;
  return true;
}

async function send(button, status) {
  if (sending || record?.confirmed) return; // confirmed: there is nothing left to send
  if (!record?.reports && !drawOnce()) return;
  clearTimeout(retryTimer); // pressed while waiting to send again: now, once
  retryTimer = null;
  sending = true;
  button.disabled = true;
  tell(status, gettext("Sending your randomized answers…"), "info");
  let response = null;
  let result = null;
  try {
    response = await fetch(data.submitUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(recordBody(record, data.invitation, data.wording)),
      credentials: "omit", // no cookie: the endpoint needs none, and none exists
    });
    result = await response.json().catch(() => null);
  } catch {
    response = null;
  }
  sending = false;
  if (response?.ok && result?.ok) {
    record.confirmed = true;
    save();
    clearAnswers();
    // Only now that the server stored the answers: a panel's completion link, or thanks.
    window.location.assign(pageAfterSending(data.completionUrl, data.thanksUrl));
    return;
  }
  let message = failureMessage(response?.status ?? 0, result?.error);
  // Asked to (503 with Retry-After), the page sends the identical body again by itself,
  // until an answer is definite.
  const delay = retryDelay(response?.status ?? 0, response?.headers.get("Retry-After"));
  if (delay !== null) {
    message = `${message} ${retryingText(delay)}`;
    retryTimer = setTimeout(() => send(button, status), delay);
  }
  tell(status, message, "danger");
  button.disabled = false;
}

function setUpAnswering() {
  for (const fieldset of fieldsets()) {
    // As the respondent types, not only once a number box loses focus: by the time they tap
    // Send, the page already shows what their answers make of it. Updated on that blur
    // instead, it would take the warning above the button away between the tap's press and
    // its release, which then land on different places, and the tap would not press it.
    // "change" as well, for browsers that fire only it when a box is ticked.
    fieldset.addEventListener("input", answered);
    fieldset.addEventListener("change", answered);
  }
  const resend = document.getElementById("resend-answers");
  resend.addEventListener("click", () => send(resend, document.getElementById("resend-status")));
  consentBox?.addEventListener("change", () => {
    if (!record?.reports && !sending) allowAnswering(); // drawn reports are final
  });
  const button = document.getElementById("send-answers");
  if (data.preview) {
    // A preview sends nothing: its button checks the answers as a real page does, then
    // shows the preview of the page after sending.
    button.addEventListener("click", () => {
      if (allAnswered(answers())) window.location.assign(data.thanksUrl);
    });
    allowAnswering();
    updateQuestions();
    return;
  }
  button.addEventListener("click", () => send(button, document.getElementById("respond-status")));
  // Answers sent from another tab end this one's answering too.
  window.addEventListener("storage", () => {
    if (sending) return;
    const latest = loadRecord(storage, data.publicId).record;
    if (latest?.reports && (!record?.reports || latest.confirmed)) {
      record = latest;
      showAnswered();
    }
  });
  // Leaving the page forgets the answers: nothing true survives in the back-forward cache.
  window.addEventListener("pagehide", () => clearAnswers());
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) render();
  });
  render();
}

function render() {
  if (record?.reports) {
    showAnswered();
    return;
  }
  if (left.size) {
    save(); // the draw, so that a reload shows the same questions (no answer is in it)
    const note = document.getElementById("left-out");
    note.textContent = leftOutText(data.design.blocks.length - data.design.asked);
    note.hidden = false;
  }
  updateQuestions();
  allowAnswering();
}

await catalogLoaded;
if (data && document.getElementById("send-answers")) setUpAnswering();
const sent = document.getElementById("sent");
if (data && sent && !data.preview) {
  if (record?.reports) showSent(sent);
  else document.getElementById("sent-missing").hidden = false;
}
