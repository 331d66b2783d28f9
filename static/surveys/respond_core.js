// The respondent page's pure parts: no DOM, no network, no global state, so node can test
// them. The DOM glue is respond.js; the randomizers are ldp.js.
//
// A question, as the server embeds it: {id, text, labels, encoding: "bit"|"index"|"unary",
// k, spec}. An answer is a category index into `labels` (for yes/no: 0 = no, 1 = yes).

// 64 symbols, so a random byte's low 6 bits pick one uniformly (256 = 4 x 64: no bias).
const KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const KEY_LENGTH = 24; // 144 random bits

/** A fresh idempotency key: 24 characters of [A-Za-z0-9_-] from crypto.getRandomValues. */
export function newIdempotencyKey(getRandomValues = (array) => crypto.getRandomValues(array)) {
  const bytes = getRandomValues(new Uint8Array(KEY_LENGTH));
  return Array.from(bytes, (byte) => KEY_ALPHABET[byte & 63]).join("");
}

/** A Storage-like object kept in memory, for browsers that refuse localStorage. */
export function memoryStorage() {
  const items = new Map();
  return {
    getItem: (name) => (items.has(name) ? items.get(name) : null),
    setItem: (name, value) => void items.set(name, String(value)),
  };
}

const recordName = (publicId) => `private-surveys:${publicId}`;
const isObject = (x) => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * This browser's record of one survey, from `storage` (localStorage or memoryStorage()):
 * - key: the idempotency key of its submission (null until the first attempt). It is kept
 *   after success too, so sending again can only repeat that submission, never add one;
 * - memo: `${question id}:${true answer}` -> the report drawn for it, drawn once and reused
 *   forever, so that answering again cannot average the randomness away;
 * - sent: {reports} as the server confirmed it stored them, or null.
 * A missing or unreadable record reads as a fresh one.
 */
export function loadRecord(storage, publicId) {
  let stored = null;
  try {
    stored = JSON.parse(storage.getItem(recordName(publicId)));
  } catch {
    stored = null;
  }
  return {
    key: typeof stored?.key === "string" ? stored.key : null,
    memo: isObject(stored?.memo) ? stored.memo : {},
    sent: isObject(stored?.sent) && isObject(stored.sent.reports) ? stored.sent : null,
  };
}

export function saveRecord(storage, publicId, record) {
  storage.setItem(recordName(publicId), JSON.stringify(record));
}

const isBit = (x) => x === 0 || x === 1;

/** Whether `report` has the shape the question's encoding sends. */
export function isValidReport(question, report) {
  if (question.encoding === "unary") {
    return Array.isArray(report) && report.length === question.k && report.every(isBit);
  }
  if (question.encoding === "bit") return isBit(report);
  return Number.isInteger(report) && report >= 0 && report < question.k;
}

/** The questions that have no answer yet (answers: question id -> category index). */
export function unanswered(questions, answers) {
  return questions.filter((question) => !Number.isInteger(answers[question.id]));
}

/**
 * The report to send for each question: the memoized one for (question, true answer) if any,
 * else a fresh `draw(spec, answer)` (ldp.js's randomize). Returns {reports, memo}: memo is a
 * new object with the fresh draws added; save it before sending, so a retry reuses them.
 */
export function memoizedReports(questions, answers, memo, draw) {
  const next = { ...memo };
  const reports = {};
  for (const question of questions) {
    const slot = `${question.id}:${answers[question.id]}`;
    if (!isValidReport(question, next[slot])) next[slot] = draw(question.spec, answers[question.id]);
    reports[question.id] = next[slot];
  }
  return { reports, memo: next };
}

/** The JSON body for the submission endpoint: only the key, the invitation and reports. */
export function requestBody(key, invitation, reports) {
  return { idempotency_key: key, invitation: invitation ?? null, reports };
}

/** A report in words, with the question's labels: "Yes", "Often", "boxes ticked: A, C". */
export function describeReport(question, report) {
  if (!isValidReport(question, report)) return "(not recorded)";
  if (question.encoding !== "unary") return question.labels[report] ?? `answer ${report + 1}`;
  const ticked = question.labels.filter((_, index) => report[index] === 1);
  return ticked.length ? `boxes ticked: ${ticked.join(", ")}` : "no box ticked";
}

export function progressText(answered, total) {
  return `${answered} of ${total} answered`;
}

/**
 * What to tell the respondent after a failed attempt. `status` is the HTTP status (0: no
 * response at all), `error` the server's JSON message if any. Server and network problems
 * invite a retry (the answers stay on the page, the same key is reused).
 */
export function failureMessage(status, error) {
  if (status === 0) {
    return "We could not reach the server. Check your connection, then press the button again: your answers are still here.";
  }
  if (status >= 500) {
    return `Something went wrong on our side (error ${status}). Please try again in a moment: your answers are still here.`;
  }
  if (typeof error === "string" && error) return error;
  return "This page has expired. Please reload it and answer again.";
}
