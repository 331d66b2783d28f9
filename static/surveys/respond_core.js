// The respondent page's pure parts: no DOM, no network, no global state, so node can test
// them. The DOM glue is respond.js; the randomizers are ldp.js.
//
// A question, as the server embeds it: {id, text, labels, encoding: "bit"|"index"|"unary"|
// "sampled", k, spec, optional, declined, notAsked, askedIf}. An answer is a category index
// into `labels` (for yes/no: 0 = no, 1 = yes). Its last labels may be extra answers, each
// randomized like any other: `declined` ("No answer": "Prefer not to say", or an optional
// question left blank) and `notAsked` (a conditional question its condition did not show:
// `askedIf` = {question, answer}), or null where it has not that one.
//
// A survey may ask each respondent a random few of its questions (`design`: {asked, blocks},
// blocks of question ids): the page draws `asked` blocks before any answer is given
// (ldp.js's drawBlocks), shows only those and the questions always asked, and sends null for
// the questions of the blocks left out ("not drawn": the draw is independent of every answer).
//
// True answers live only in the page's memory. What the browser keeps (localStorage, one
// item per survey) is exactly what it sent: the idempotency key, the randomized reports and
// the wording version the page showed, and whether the server confirmed receiving them; and
// the blocks drawn, from the moment they are drawn. Once drawn, a survey's reports are final:
// the page sends those or nothing, so no question ever gets a second report from this browser.

import { gettext, interpolate } from "./i18n.js";
import { numberOutputs } from "./ldp.js";

// 64 symbols, so a random byte's low 6 bits pick one uniformly (256 = 4 x 64: no bias).
const KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const KEY_LENGTH = 24; // 144 random bits
const KEY_PATTERN = /^[A-Za-z0-9_-]{8,64}$/; // what the server accepts
const RECORD_PREFIX = "private-surveys:";

/** A fresh idempotency key: 24 characters of [A-Za-z0-9_-] from crypto.getRandomValues. */
export function newIdempotencyKey(getRandomValues = (array) => crypto.getRandomValues(array)) {
  const bytes = getRandomValues(new Uint8Array(KEY_LENGTH));
  return Array.from(bytes, (byte) => KEY_ALPHABET[byte & 63]).join("");
}

/** A Storage-like object kept in memory, for browsers that refuse localStorage (and tests). */
export function memoryStorage() {
  const items = new Map();
  return {
    getItem: (name) => (items.has(name) ? items.get(name) : null),
    setItem: (name, value) => void items.set(name, String(value)),
    removeItem: (name) => void items.delete(name),
    key: (index) => [...items.keys()][index] ?? null,
    get length() {
      return items.size;
    },
  };
}

const recordName = (publicId) => `${RECORD_PREFIX}${publicId}`;
const isWording = (x) => Number.isInteger(x) && x >= 0;
const isObject = (x) => typeof x === "object" && x !== null && !Array.isArray(x);
const isDraw = (x) => Array.isArray(x) && x.every((i) => Number.isInteger(i) && i >= 0);

/**
 * A stored value (parsed JSON), in this version's form or an older one's, as
 * {record, earlierDraws, legacy}:
 * - record: null (nothing sent yet) or {key, reports, confirmed, wording}. `reports`
 *   (question id -> report, as sent) is null only when an older version tried to send and
 *   left just its key; `wording` (the wording version the page showed when the reports were
 *   drawn) is null in records older versions kept;
 * - earlierDraws: an older version's memo (`${question id}:${true answer}` -> report), to be
 *   used in memory for one draw and never stored again; {} otherwise;
 * - legacy: whether the value is in an older form and must be rewritten (it may hold true
 *   answers).
 */
function readValue(stored) {
  if (!isObject(stored) || typeof stored.key !== "string" || !KEY_PATTERN.test(stored.key)) {
    return { record: null, earlierDraws: {}, legacy: isObject(stored) && "memo" in stored };
  }
  if ("memo" in stored || "sent" in stored) {
    // Before: {key, memo, sent: {reports} | null}, the memo keyed by true answers.
    const sent = isObject(stored.sent) && isObject(stored.sent.reports) ? stored.sent.reports : null;
    return {
      record: { key: stored.key, reports: sent, confirmed: sent !== null, wording: null },
      earlierDraws: sent === null && isObject(stored.memo) ? stored.memo : {},
      legacy: true,
    };
  }
  const reports = isObject(stored.reports) ? stored.reports : null;
  return {
    record: {
      key: stored.key,
      reports,
      confirmed: reports !== null && stored.confirmed === true,
      wording: isWording(stored.wording) ? stored.wording : null,
      drawn: isDraw(stored.drawn) ? stored.drawn : null,
    },
    earlierDraws: {},
    legacy: false,
  };
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * This browser's record of one survey, from `storage` (localStorage or memoryStorage()), as
 * {record, earlierDraws} (see readValue). A missing or unreadable item reads as no record.
 */
export function loadRecord(storage, publicId) {
  const { record, earlierDraws } = readValue(parse(storage.getItem(recordName(publicId))));
  return { record, earlierDraws };
}

/** The text stored for a record: its key, its reports, whether they were confirmed, the
 * wording version the page showed (null if not known) and, in a survey with a design, the
 * blocks drawn. */
export function storedText(record) {
  return JSON.stringify({
    key: record.key,
    reports: record.reports,
    confirmed: record.reports !== null && record.confirmed === true,
    wording: isWording(record.wording) ? record.wording : null,
    ...(isDraw(record.drawn) ? { drawn: record.drawn } : {}),
  });
}

/**
 * The blocks this respondent is asked, in a survey's `design` (null: every question): the
 * draw kept in `record` when it fits the design (the same blocks after a reload), else a fresh
 * `draw(blocks, asked)` (ldp.js's drawBlocks). Null without a design.
 */
export function blocksDrawn(design, record, draw) {
  if (!design) return null;
  const kept = record?.drawn;
  const fits = isDraw(kept) && kept.length === design.asked && new Set(kept).size === kept.length &&
    kept.every((i) => i < design.blocks.length);
  return fits ? kept : draw(design.blocks.length, design.asked);
}

/** The ids of the questions left out by the draw (the blocks of `design` not in `drawn`):
 * empty without a design. */
export function leftOut(design, drawn) {
  if (!design) return new Set();
  return new Set(design.blocks.filter((_, i) => !drawn.includes(i)).flat());
}

export function saveRecord(storage, publicId, record) {
  storage.setItem(recordName(publicId), storedText(record));
}

/**
 * Rewrite every survey's record left by an older version, which kept true answers, into this
 * version's form (key and sent reports only), or remove it if nothing of it was sent. Returns
 * how many items it rewrote or removed.
 */
export function forgetTrueAnswers(storage) {
  const names = [];
  for (let index = 0; index < storage.length; index++) {
    const name = storage.key(index);
    if (name?.startsWith(RECORD_PREFIX)) names.push(name);
  }
  let changed = 0;
  for (const name of names) {
    const { record, legacy } = readValue(parse(storage.getItem(name)));
    if (!legacy) continue;
    if (record) storage.setItem(name, storedText(record));
    else storage.removeItem(name);
    changed++;
  }
  return changed;
}

const isBit = (x) => x === 0 || x === 1;

/** Whether `report` has the shape the question's encoding sends. */
export function isValidReport(question, report) {
  if (question.encoding === "unary") {
    return Array.isArray(report) && report.length === question.k && report.every(isBit);
  }
  if (question.encoding === "bit") return isBit(report);
  if (question.encoding === "number") {
    return Number.isInteger(report) && report >= 0 && report < numberOutputs(question.spec);
  }
  if (question.encoding === "sampled") {
    return Array.isArray(report) && report.length === 2 && Number.isInteger(report[0]) &&
      report[0] >= 0 && report[0] < question.k && isBit(report[1]);
  }
  return Number.isInteger(report) && report >= 0 && report < question.k;
}

// An answer: a category index, a number question's number or its {extra: e} ("Prefer not to
// say"), or a check-all question's ticked boxes (ticking none is an answer too).
const isAnswer = (answer) => Number.isFinite(answer) || (typeof answer === "object" && answer !== null);

/** Whether the respondent is asked `question`: always, unless it is conditional and its
 * condition's answer (in `answers`) is not the one it is asked under. */
export function isAsked(question, answers) {
  return !question.askedIf || answers[question.askedIf.question] === question.askedIf.answer;
}

/** The questions shown, in order: drawn (not in `left`, see leftOut) and asked given the
 * `answers` so far (see isAsked). The questions still to answer, the progress and the
 * questions' numbers all count these, never the hidden ones. */
export function shownQuestions(questions, answers, left = new Set()) {
  return questions.filter((question) => !left.has(question.id) && isAsked(question, answers));
}

/** The questions that still need an answer: shown (see shownQuestions), not optional, and
 * with no answer yet (answers: question id -> an answer, see isAnswer). */
export function unanswered(questions, answers, left = new Set()) {
  return shownQuestions(questions, answers, left).filter(
    (question) => !question.optional && !isAnswer(answers[question.id]),
  );
}

/**
 * How many questions count as answered in the progress: those shown (see shownQuestions) with
 * an answer, up to the last question, in the survey's order, whose answer the respondent
 * changed (`touched`: their ids). A check-all question always has an answer (ticking none is
 * one), so it counts once the respondent has touched it or a question after it, never before
 * anything is answered.
 */
export function answeredCount(questions, answers, touched, left = new Set()) {
  const last = questions.findLastIndex((question) => touched.has(question.id));
  return shownQuestions(questions.slice(0, last + 1), answers, left)
    .filter((question) => isAnswer(answers[question.id])).length;
}

/**
 * The answer to randomize for every question: the one given, "Not asked" for a conditional
 * question not shown (even if it was answered while it was), "No answer" for an optional
 * question left blank. Every question gets one, so every body has the same shape whatever
 * was shown, skipped or refused. Call it once nothing is `unanswered`.
 */
export function finalAnswers(questions, answers) {
  const final = {};
  for (const question of questions) {
    if (!isAsked(question, answers)) final[question.id] = question.notAsked;
    else if (isAnswer(answers[question.id])) final[question.id] = answers[question.id];
    else final[question.id] = question.declined;
  }
  return final;
}

/**
 * The reports to send, one per question: a fresh `draw(spec, answer)` (ldp.js's randomize),
 * or the draw an older version of this page made for that very (question, true answer) and
 * may have sent (`earlierDraws`, kept in memory only); null for the questions `left` out by a
 * design's draw. Call it once per survey: its result is stored and final, and nothing draws
 * again.
 */
export function drawReports(questions, answers, draw, earlierDraws = {}, left = new Set()) {
  const reports = {};
  for (const question of questions) {
    if (left.has(question.id)) {
      reports[question.id] = null; // not drawn: no answer was asked, none is randomized
      continue;
    }
    const earlier = earlierDraws[`${question.id}:${answers[question.id]}`];
    reports[question.id] = isValidReport(question, earlier)
      ? earlier
      : draw(question.spec, answers[question.id]);
  }
  return reports;
}

/** The JSON body for the submission endpoint: only the key, the invitation, the reports and
 * the wording version (the same keys for every respondent). */
export function requestBody(key, invitation, reports, wording) {
  return { idempotency_key: key, invitation: invitation ?? null, reports, wording };
}

/**
 * The body that sends `record` (see readValue): its own wording version, the one the page
 * showed when its reports were drawn, so that a resend after a reload carries that one; a
 * record an older version kept, without one, sends `pageWording` (this page's).
 */
export function recordBody(record, invitation, pageWording) {
  const wording = isWording(record.wording) ? record.wording : pageWording;
  return requestBody(record.key, invitation, record.reports, wording);
}

/**
 * Where the page goes once the server confirmed it stored the answers: the survey's
 * completion link (a recruitment panel's) if it is an http(s) URL, else the thank-you page.
 * The link is followed exactly as the researcher gave it: nothing of the answers is added.
 */
export function pageAfterSending(completionUrl, thanksUrl) {
  if (typeof completionUrl !== "string" || !completionUrl) return thanksUrl;
  try {
    const { protocol } = new URL(completionUrl);
    return protocol === "https:" || protocol === "http:" ? completionUrl : thanksUrl;
  } catch {
    return thanksUrl; // not an absolute URL
  }
}

/** A report in words, with the question's labels: "Yes", "Often", "boxes ticked: A, C". */
export function describeReport(question, report) {
  if (report === null) return gettext("not asked: left out at random");
  if (!isValidReport(question, report)) return gettext("(not recorded)");
  if (question.encoding === "sampled") {
    const [box, ticked] = report;
    const text = ticked ? gettext("“%(label)s”: ticked") : gettext("“%(label)s”: not ticked");
    return interpolate(text, { label: question.labels[box] });
  }
  if (question.encoding === "number") {
    return interpolate(gettext("cell %(cell)s of %(cells)s"), { cell: report + 1, cells: numberOutputs(question.spec) });
  }
  if (question.encoding !== "unary") {
    return question.labels[report] ?? interpolate(gettext("answer %(number)s"), { number: report + 1 });
  }
  const ticked = question.labels.filter((_, index) => report[index] === 1);
  if (!ticked.length) return gettext("no box ticked");
  return interpolate(gettext("boxes ticked: %(labels)s"), { labels: ticked.join(", ") });
}

export function progressText(answered, total) {
  return interpolate(gettext("%(answered)s of %(total)s answered"), { answered, total });
}

/** A question's number among the questions shown. */
export function questionNumberText(number, total) {
  return interpolate(gettext("Question %(number)s of %(total)s"), { number, total });
}

/** The sentence that says questions were left out, and why. */
export function leftOutText(count) {
  return interpolate(
    gettext("To protect you and keep the survey short, %(count)s of its questions (or groups of questions) were left out at random, whatever your answers. You answer only those shown."),
    { count },
  );
}

/** The warning when questions are unanswered, naming them. */
export function missingText(questions) {
  const names = questions
    .map((question) => interpolate(gettext("“%(question)s”"), { question: question.text }))
    .join(", ");
  return interpolate(
    gettext("Please answer every question before sending. Still to answer: %(questions)s."),
    { questions: names },
  );
}

/**
 * What to tell the respondent after a failed attempt. `status` is the HTTP status (0: no
 * response at all), `error` the server's JSON message if any, which says best what happened
 * (for a 503: whether anything may have been stored). Server and network problems invite a
 * retry, which sends exactly the same again.
 */
export function failureMessage(status, error) {
  if (status === 0) {
    return gettext("We could not reach the server. Check your connection, then press the button again: it sends exactly the same randomized answers.");
  }
  if (typeof error === "string" && error) return error;
  if (status >= 500) {
    return interpolate(
      gettext("Something went wrong on our side (error %(status)s). Please try again in a moment: the button sends exactly the same randomized answers."),
      { status },
    );
  }
  return gettext("Our server refused these answers. Please reload this page and try again.");
}

export const MAX_RETRY_SECONDS = 30;

/**
 * How long to wait, in milliseconds, before sending the identical body again by itself, or
 * null to send again only when the respondent presses the button. The page sends again by
 * itself when the server asks it to: a 503 with `Retry-After` (seconds; at least 1, at most
 * MAX_RETRY_SECONDS), sent while the database is unavailable and when it was lost as it
 * stored the answers. Every other answer is definite (stored, replayed, or refused with a
 * reason), or comes from no server of this site.
 */
export function retryDelay(status, retryAfter) {
  if (status !== 503 || typeof retryAfter !== "string" || !/^\d+$/.test(retryAfter.trim())) {
    return null;
  }
  return Math.min(Math.max(Number(retryAfter), 1), MAX_RETRY_SECONDS) * 1000;
}

/** What the page says while it waits to send again by itself (`delay` in milliseconds). */
export function retryingText(delay) {
  return interpolate(
    gettext("The page will send exactly the same randomized answers again by itself in %(seconds)s seconds, or now if you press the button."),
    { seconds: Math.round(delay / 1000) },
  );
}
