// The respondent page's pure parts (static/surveys/respond_core.js).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { numberOutputs, randomize } from "../../static/surveys/ldp.js";
import {
  answeredCount,
  blocksDrawn,
  describeReport,
  drawReports,
  failureMessage,
  finalAnswers,
  forgetTrueAnswers,
  isAsked,
  isValidReport,
  leftOut,
  loadRecord,
  memoryStorage,
  newIdempotencyKey,
  pageAfterSending,
  progressText,
  questionNumberText,
  recordBody,
  requestBody,
  retryDelay,
  retryingText,
  saveRecord,
  shownQuestions,
  storedText,
  unanswered,
} from "../../static/surveys/respond_core.js";

const yesNo = {
  id: 11, text: "Ever?", labels: ["No", "Yes"], encoding: "bit", k: 2,
  spec: { mechanism: "rr", encoding: "bit", k: 2, epsilon: 1, p: 0.7310585786300049, q: 0.7310585786300049 },
};
const grr = {
  id: 12, text: "Which?", labels: ["Red", "Green", "Blue"], encoding: "index", k: 3,
  spec: { mechanism: "grr", encoding: "index", k: 3, epsilon: 2, p: 0.7869860421615985, q: 0.10650697891920075 },
};
const unary = {
  id: 13, text: "Where?", labels: ["A", "B", "C", "D"], encoding: "unary", k: 4,
  spec: { mechanism: "oue", encoding: "unary", k: 4, epsilon: 1, p: 0.5, q: 0.2689414213699951 },
};
const questions = [yesNo, grr, unary];

// A draw that records its calls and returns a fixed valid report per encoding.
function fakeDraw() {
  const calls = [];
  const draw = (spec, answer) => {
    calls.push([spec.mechanism, answer]);
    if (spec.encoding === "unary") return [1, 0, 0, 1];
    return spec.encoding === "bit" ? 1 - answer : (answer + 1) % spec.k;
  };
  return { draw, calls };
}

test("idempotency keys are 24 characters of [A-Za-z0-9_-] from the random source", () => {
  const key = newIdempotencyKey((array) => array.fill(255));
  assert.equal(key, "_".repeat(24));
  const ascending = newIdempotencyKey((array) => array.map((_, i) => i * 11));
  assert.match(ascending, /^[A-Za-z0-9_-]{24}$/);
  assert.equal(ascending[0], "A");
  assert.match(newIdempotencyKey(), /^[A-Za-z0-9_-]{24}$/);
  assert.notEqual(newIdempotencyKey(), newIdempotencyKey());
});

test("every byte value maps to the alphabet uniformly (4 bytes per symbol)", () => {
  const counts = new Map();
  for (let start = 0; start < 256; start += 24) {
    const key = newIdempotencyKey((array) => array.map((_, i) => (start + i) % 256));
    for (const symbol of key) counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
  }
  assert.equal(counts.size, 64);
});

const NAME = "private-surveys:abc";
const KEY = "k".repeat(24);
const NOTHING = { record: null, earlierDraws: {} };

// Every true answer in these tests is a distinctive number no report can be, so that finding
// it anywhere in storage would show a leak.
function storageText(storage) {
  const items = {};
  for (let index = 0; index < storage.length; index++) {
    const name = storage.key(index);
    items[name] = storage.getItem(name);
  }
  return JSON.stringify(items);
}

test("a missing or corrupt record reads as nothing sent", () => {
  const storage = memoryStorage();
  assert.deepEqual(loadRecord(storage, "abc"), NOTHING);
  for (const stored of ["{not json", "null", "[]", "5", JSON.stringify({ key: 5, reports: {} }),
    JSON.stringify({ key: "short", reports: {} }), JSON.stringify({ key: "bad key with spaces" })]) {
    storage.setItem(NAME, stored);
    assert.deepEqual(loadRecord(storage, "abc"), NOTHING, stored);
  }
});

test("a record holds exactly the key, the reports sent, whether they were confirmed and the wording", () => {
  const storage = memoryStorage();
  const record = { key: KEY, reports: { 11: 0, 13: [1, 0, 0, 1] }, confirmed: false, wording: 2 };
  saveRecord(storage, "abc", { ...record, answers: { 11: 1 }, memo: { "11:1": 0 } });
  assert.deepEqual(JSON.parse(storage.getItem(NAME)), record);
  assert.deepEqual(Object.keys(JSON.parse(storage.getItem(NAME))),
    ["key", "reports", "confirmed", "wording"]);
  assert.deepEqual(loadRecord(storage, "abc"), { record: { ...record, drawn: null }, earlierDraws: {} });
  saveRecord(storage, "abc", { ...record, confirmed: true });
  assert.equal(loadRecord(storage, "abc").record.confirmed, true);
  assert.deepEqual(loadRecord(storage, "other"), NOTHING);
  assert.equal(storedText({ key: KEY, reports: null, confirmed: true }),
    JSON.stringify({ key: KEY, reports: null, confirmed: false, wording: null }),
    "nothing sent, nothing confirmed");
  for (const bad of [-1, 1.5, "2", true, null, undefined]) {
    assert.equal(JSON.parse(storedText({ ...record, wording: bad })).wording, null, String(bad));
  }
});

test("the stored text of a whole answering holds no true answer", () => {
  const storage = memoryStorage();
  const answers = { 11: 1, 12: 2, 13: 3 };
  const reports = drawReports(questions, answers, randomize);
  const record = { key: newIdempotencyKey(), reports, confirmed: false, wording: 0 };
  saveRecord(storage, "abc", record);
  saveRecord(storage, "abc", { ...record, confirmed: true });
  const text = storageText(storage);
  assert.deepEqual(JSON.parse(JSON.parse(text)[NAME]), { ...record, confirmed: true });
  assert.doesNotMatch(text, /memo|answer|"1[123]:/);
});

test("reports are drawn once per question from the true answer", () => {
  const { draw, calls } = fakeDraw();
  const reports = drawReports(questions, { 11: 1, 12: 0, 13: 2 }, draw);
  assert.deepEqual(reports, { 11: 0, 12: 1, 13: [1, 0, 0, 1] });
  assert.deepEqual(calls, [["rr", 1], ["grr", 0], ["oue", 2]]);
});

test("an older version's draw for the same true answer is reused, any other is not", () => {
  const { draw, calls } = fakeDraw();
  const earlier = { "11:1": 1, "12:0": 2, "12:1": 0, "13:2": [1, 2] };
  const reports = drawReports(questions, { 11: 1, 12: 0, 13: 2 }, draw, earlier);
  assert.deepEqual(reports, { 11: 1, 12: 2, 13: [1, 0, 0, 1] });
  assert.deepEqual(calls, [["oue", 2]], "a corrupt earlier draw is redrawn rather than sent");
});

test("with ldp.js, drawn reports are valid", () => {
  for (let i = 0; i < 20; i++) {
    const reports = drawReports(questions, { 11: i % 2, 12: i % 3, 13: i % 4 }, randomize);
    for (const question of questions) assert.ok(isValidReport(question, reports[question.id]));
  }
});

test("an older version's record is read as what it sent, its memo only for one draw", () => {
  const storage = memoryStorage();
  const sent = { key: KEY, memo: { "11:1": 0, "11:0": 1 }, sent: { reports: { 11: 0 } } };
  storage.setItem(NAME, JSON.stringify(sent));
  assert.deepEqual(loadRecord(storage, "abc"), {
    record: { key: KEY, reports: { 11: 0 }, confirmed: true, wording: null }, earlierDraws: {},
  });
  const tried = { key: KEY, memo: { "11:1": 0 }, sent: null };
  storage.setItem(NAME, JSON.stringify(tried));
  assert.deepEqual(loadRecord(storage, "abc"), {
    record: { key: KEY, reports: null, confirmed: false, wording: null },
    earlierDraws: { "11:1": 0 },
  });
});

test("true answers an older version stored are erased, in every survey's record", () => {
  const storage = memoryStorage();
  storage.setItem("private-surveys:one", JSON.stringify(
    { key: KEY, memo: { "11:1": 1, "12:2": 1, "11:0": 0 }, sent: { reports: { 11: 1, 12: 1 } } }));
  storage.setItem("private-surveys:two", JSON.stringify({ key: KEY, memo: { "11:1": 0 }, sent: null }));
  storage.setItem("private-surveys:three", JSON.stringify({ key: null, memo: { "11:1": 0 }, sent: null }));
  const current = { key: KEY, reports: { 11: 0 }, confirmed: true, wording: 1 };
  saveRecord(storage, "four", current);
  storage.setItem("someone-else", JSON.stringify({ memo: "not ours" }));
  assert.equal(forgetTrueAnswers(storage), 3);
  assert.deepEqual(JSON.parse(storage.getItem("private-surveys:one")),
    { key: KEY, reports: { 11: 1, 12: 1 }, confirmed: true, wording: null });
  assert.deepEqual(JSON.parse(storage.getItem("private-surveys:two")),
    { key: KEY, reports: null, confirmed: false, wording: null });
  assert.equal(storage.getItem("private-surveys:three"), null);
  assert.deepEqual(JSON.parse(storage.getItem("private-surveys:four")), current);
  assert.equal(storage.getItem("someone-else"), JSON.stringify({ memo: "not ours" }));
  assert.doesNotMatch(storageText(storage).replace('{\\"memo\\":\\"not ours\\"}', ""), /memo|:1\\":/);
  assert.equal(forgetTrueAnswers(storage), 0, "nothing left to erase");
});

test("memory storage behaves like localStorage for the record", () => {
  const storage = memoryStorage();
  storage.setItem("a", 1);
  storage.setItem("b", "two");
  assert.equal(storage.length, 2);
  assert.deepEqual([storage.key(0), storage.key(1), storage.key(2)], ["a", "b", null]);
  assert.equal(storage.getItem("a"), "1");
  storage.removeItem("a");
  assert.equal(storage.length, 1);
  assert.equal(storage.getItem("a"), null);
});

test("the request body holds only the key, the invitation, the reports and the wording", () => {
  const body = requestBody("key-12345678", undefined, { 11: 0 }, 3);
  assert.deepEqual(body,
    { idempotency_key: "key-12345678", invitation: null, reports: { 11: 0 }, wording: 3 });
  assert.deepEqual(Object.keys(requestBody("k", "tok", {}, 0)),
    ["idempotency_key", "invitation", "reports", "wording"]);
  assert.equal(requestBody("k", "tok", {}, 0).invitation, "tok");
});

test("every body has the same keys, whatever was answered, skipped or not asked", () => {
  const record = { key: KEY, reports: { 11: 0 }, confirmed: false, wording: 1 };
  const keys = new Set([
    recordBody(record, null, 1), recordBody({ ...record, reports: { 11: 1, 12: 2 } }, "tok", 1),
    recordBody({ ...record, wording: null }, null, 4),
  ].map((body) => JSON.stringify(Object.keys(body))));
  assert.equal(keys.size, 1);
});

test("a resend after a reload carries the wording the page showed when it drew the reports", () => {
  const storage = memoryStorage();
  const drawn = { key: KEY, reports: { 11: 1, 12: 0 }, confirmed: false, wording: 2 };
  saveRecord(storage, "abc", drawn);
  // The survey's wording was corrected meanwhile: the reloaded page shows version 3.
  const { record } = loadRecord(storage, "abc");
  const body = recordBody(record, null, 3);
  assert.deepEqual(body, { idempotency_key: KEY, invitation: null, reports: { 11: 1, 12: 0 }, wording: 2 });
  assert.deepEqual(body, recordBody(drawn, null, 2), "exactly the body first sent");
  // A record an older version kept has no wording: the page's is sent.
  storage.setItem(NAME, JSON.stringify({ key: KEY, reports: { 11: 1 }, confirmed: false }));
  assert.equal(recordBody(loadRecord(storage, "abc").record, null, 3).wording, 3);
  storage.setItem(NAME, JSON.stringify({ key: KEY, reports: { 11: 1 }, confirmed: false, wording: "2" }));
  assert.equal(loadRecord(storage, "abc").record.wording, null, "a wording that is not one is dropped");
});

test("reports are checked against their encoding", () => {
  assert.ok(isValidReport(yesNo, 0) && isValidReport(yesNo, 1));
  assert.ok(!isValidReport(yesNo, 2) && !isValidReport(yesNo, true) && !isValidReport(yesNo, "1"));
  assert.ok(isValidReport(grr, 2) && !isValidReport(grr, 3) && !isValidReport(grr, -1));
  assert.ok(!isValidReport(grr, 1.5) && !isValidReport(grr, undefined));
  assert.ok(isValidReport(unary, [0, 0, 0, 0]) && !isValidReport(unary, [0, 0, 0]));
  assert.ok(!isValidReport(unary, [0, 0, 0, 2]) && !isValidReport(unary, 1));
  const checkAll = { ...unary, encoding: "sampled" };
  assert.ok(isValidReport(checkAll, [3, 1]) && isValidReport(checkAll, [0, 0]));
  assert.ok(!isValidReport(checkAll, [4, 1]) && !isValidReport(checkAll, [0, 2]));
  assert.ok(!isValidReport(checkAll, [0, 0, 0, 0]) && !isValidReport(checkAll, 1));
});

test("a check-all question is answered even with no box ticked, and read back in words", () => {
  assert.deepEqual(unanswered(questions, { 11: [0, 0], 12: 0, 13: [] }), []);
  const checkAll = { ...unary, encoding: "sampled" };
  assert.equal(describeReport(checkAll, [1, 1]), "“B”: ticked");
  assert.equal(describeReport(checkAll, [3, 0]), "“D”: not ticked");
});

test("unanswered questions are listed in order", () => {
  assert.deepEqual(unanswered(questions, { 12: 0 }).map((q) => q.id), [11, 13]);
  assert.deepEqual(unanswered(questions, { 11: 0, 12: 0, 13: 0 }), []);
});

// A yes/no question offering "Prefer not to say" (answer 2, "No answer"), and a follow-up of
// three answers asked only of those who answer "Yes" (1) to it, optional: 3 is "No answer",
// 4 "Not asked". Both are randomized like multiple choice over all their answers.
const refusable = {
  ...grr, id: 21, labels: ["No", "Yes", "No answer"], optional: false, declined: 2, notAsked: null, askedIf: null,
};
const followUp = {
  id: 22, text: "How often?", labels: ["Once", "Sometimes", "Often", "No answer", "Not asked"],
  encoding: "index", k: 5, optional: true, declined: 3, notAsked: 4, askedIf: { question: 21, answer: 1 },
  spec: { mechanism: "grr", encoding: "index", k: 5, epsilon: 1, p: 0.40460967519168967, q: 0.14884758120207758 },
};

test("a conditional question is asked only under its condition's answer", () => {
  assert.equal(isAsked(refusable, {}), true);
  assert.equal(isAsked(followUp, {}), false);
  assert.equal(isAsked(followUp, { 21: 0 }), false);
  assert.equal(isAsked(followUp, { 21: 2 }), false); // refused the condition
  assert.equal(isAsked(followUp, { 21: 1 }), true);
});

test("optional questions and questions not shown need no answer", () => {
  assert.deepEqual(unanswered([refusable, followUp], {}).map((q) => q.id), [21]);
  assert.deepEqual(unanswered([refusable, followUp], { 21: 1 }), []); // optional
  assert.deepEqual(unanswered([refusable, { ...followUp, optional: false }], { 21: 1 }).map((q) => q.id), [22]);
  assert.deepEqual(unanswered([refusable, { ...followUp, optional: false }], { 21: 0 }), []);
});

// The progress and the questions' numbers count the questions shown: not a follow-up while
// its condition does not hold, nor a question the design left out; and a check-all question,
// which always has an answer, only once it or a later question was touched.
test("progress and numbers count the questions shown and answered", () => {
  const checkAll = { ...unary, id: 23, encoding: "sampled", optional: false, askedIf: null };
  const last = { ...yesNo, id: 24, optional: false, askedIf: null };
  const all = [refusable, checkAll, followUp, last];
  const ids = (list) => list.map((q) => q.id);
  const none = new Set();
  const nothing = { 23: [0, 0, 0, 0] }; // the page reads the unticked boxes as an answer
  assert.deepEqual(ids(shownQuestions(all, nothing)), [21, 23, 24]);
  assert.equal(answeredCount(all, nothing, none), 0);
  const smoker = { ...nothing, 21: 1 };
  assert.deepEqual(ids(shownQuestions(all, smoker)), [21, 23, 22, 24]);
  assert.equal(answeredCount(all, smoker, new Set([21])), 1);
  assert.equal(answeredCount(all, smoker, new Set([21, 23])), 2); // ticked then unticked
  assert.equal(answeredCount(all, { ...smoker, 22: 0 }, new Set([21, 22])), 3); // passed it
  // "No" again: the follow-up answered is hidden, but the check-all question was passed.
  assert.equal(answeredCount(all, { ...nothing, 21: 0, 22: 0 }, new Set([21, 22])), 2);
  assert.equal(answeredCount(all, { ...nothing, 21: 0, 24: 1 }, new Set([21, 24])), 3);
  assert.equal(answeredCount(all, { ...nothing, 24: 1 }, new Set([24])), 2); // 21 unanswered
  const left = new Set([23]); // left out by a design's draw
  assert.deepEqual(ids(shownQuestions(all, nothing, left)), [21, 24]);
  assert.equal(answeredCount(all, { ...nothing, 21: 0, 24: 1 }, new Set([21, 24]), left), 2);
  assert.equal(questionNumberText(3, 4), "Question 3 of 4");
});

test("refusals, skips and questions not shown are randomized as one more answer", () => {
  const both = [refusable, followUp];
  assert.deepEqual(finalAnswers(both, { 21: 1, 22: 2 }), { 21: 1, 22: 2 });
  assert.deepEqual(finalAnswers(both, { 21: 1 }), { 21: 1, 22: 3 }); // skipped
  assert.deepEqual(finalAnswers(both, { 21: 0, 22: 2 }), { 21: 0, 22: 4 }); // hidden again
  assert.deepEqual(finalAnswers(both, { 21: 2 }), { 21: 2, 22: 4 }); // refused, not asked
  // Whatever was shown, skipped or refused, the reports have one shape: one index in [0, k).
  for (const given of [{ 21: 1, 22: 0 }, { 21: 1 }, { 21: 0 }, { 21: 2 }]) {
    const reports = drawReports(both, finalAnswers(both, given), randomize);
    assert.deepEqual(Object.keys(reports), ["21", "22"]);
    for (const question of both) assert.ok(isValidReport(question, reports[question.id]));
  }
});

test("reports read back in words", () => {
  assert.equal(describeReport(yesNo, 1), "Yes");
  assert.equal(describeReport(yesNo, 0), "No");
  assert.equal(describeReport(grr, 2), "Blue");
  assert.equal(describeReport(unary, [0, 1, 0, 1]), "boxes ticked: B, D");
  assert.equal(describeReport(unary, [0, 0, 0, 0]), "no box ticked");
  assert.equal(describeReport(unary, undefined), "(not recorded)");
});

test("progress and failure messages", () => {
  assert.equal(progressText(2, 5), "2 of 5 answered");
  assert.match(failureMessage(0, undefined), /could not reach the server.*exactly the same/);
  assert.equal(failureMessage(503, "Stored or not: send again."), "Stored or not: send again.");
  assert.match(failureMessage(503, undefined), /error 503.*try again.*exactly the same/);
  assert.match(failureMessage(502, null), /error 502.*try again.*exactly the same/);
  assert.equal(failureMessage(410, "This survey is closed."), "This survey is closed.");
  assert.match(failureMessage(403, undefined), /reload/);
});

test("after sending, the page goes to an http(s) completion link as given, else to thanks", () => {
  const thanks = "/s/abc/thanks/?lang=fr";
  const panel = "https://app.prolific.com/submissions/complete?cc=C1234ABC";
  assert.equal(pageAfterSending(panel, thanks), panel);
  assert.equal(pageAfterSending("http://panel.example/done?code=X", thanks), "http://panel.example/done?code=X");
  for (const bad of [null, undefined, "", "javascript:alert(1)", "JAVASCRIPT:alert(1)",
    "data:text/html,<p>x</p>", "ftp://files.example/x", "/relative/path", 42]) {
    assert.equal(pageAfterSending(bad, thanks), thanks, String(bad));
  }
});

test("it sends again by itself only when a 503 asks to, after Retry-After, at most 30 s", () => {
  assert.equal(retryDelay(503, "30"), 30_000);
  assert.equal(retryDelay(503, "2"), 2_000);
  assert.equal(retryDelay(503, "0"), 1_000); // never a tight loop
  assert.equal(retryDelay(503, "3600"), 30_000);
  // Definite answers, and answers without the server's request, wait for the button.
  for (const [status, retryAfter] of [[201, null], [200, "30"], [409, "30"], [410, null],
    [429, "60"], [500, "30"], [503, null], [503, ""], [503, "soon"], [503, "-1"], [0, null],
    [503, "Wed, 21 Oct 2015 07:28:00 GMT"]]) {
    assert.equal(retryDelay(status, retryAfter), null, `${status} ${retryAfter}`);
  }
  assert.match(retryingText(30_000), /exactly the same.*again by itself in 30 seconds/);
});

test("a number question is answered by any number, sends a cell of its grid, read back as that cell", () => {
  const number = { id: 14, encoding: "number", k: 3, labels: [], spec: { cells: 64 } };
  assert.deepEqual(unanswered([number], { 14: 0 }), []);
  assert.deepEqual(unanswered([number], { 14: 12.5 }), []);
  assert.deepEqual(unanswered([number], {}).map((q) => q.id), [14]);
  assert.ok(isValidReport(number, 0) && isValidReport(number, 63));
  assert.ok(!isValidReport(number, 64) && !isValidReport(number, 1.5) && !isValidReport(number, [1]));
  assert.equal(describeReport(number, 9), "cell 10 of 64");
});

// A number question asked only of those who answer "Yes" to question 21, optional, with
// "Prefer not to say": its extra answers are {extra: 0} ("No answer") and {extra: 1} ("Not
// asked"), randomized as two more windows after its grid.
const { numbers: numberVectors } = JSON.parse(
  readFileSync(new URL("../ldp_vectors.json", import.meta.url)),
);
const numberSpec = numberVectors.find(({ spec }) => spec.extras === 2).spec;
const numberFollowUp = {
  id: 23, text: "How many days?", labels: ["No answer", "Not asked"], encoding: "number",
  k: numberSpec.k, spec: numberSpec, optional: true, declined: { extra: 0 }, notAsked: { extra: 1 },
  askedIf: { question: 21, answer: 1 },
};

test("a number question's refusal, skip or absence is randomized as its extra answer, in the same shape", () => {
  const both = [refusable, numberFollowUp];
  assert.deepEqual(unanswered(both, { 21: 1, 23: { extra: 0 } }), []); // "Prefer not to say"
  assert.deepEqual(finalAnswers(both, { 21: 1, 23: 12 }), { 21: 1, 23: 12 });
  assert.deepEqual(finalAnswers(both, { 21: 1 }), { 21: 1, 23: { extra: 0 } }); // skipped
  assert.deepEqual(finalAnswers(both, { 21: 0, 23: 12 }), { 21: 0, 23: { extra: 1 } }); // hidden
  for (const given of [{ 21: 1, 23: 30 }, { 21: 1, 23: { extra: 0 } }, { 21: 1 }, { 21: 0 }]) {
    const reports = drawReports(both, finalAnswers(both, given), randomize);
    assert.deepEqual(Object.keys(reports), ["21", "23"]);
    assert.ok(Number.isInteger(reports[23]) && isValidReport(numberFollowUp, reports[23]));
  }
  assert.ok(isValidReport(numberFollowUp, numberOutputs(numberSpec) - 1));
  assert.ok(!isValidReport(numberFollowUp, numberOutputs(numberSpec)));
});

// A design that asks each respondent a random few: the draw is kept with the record (and read
// back), a kept draw that does not fit the design is drawn again, the questions of the blocks
// left out need no answer and send null, and the record holds no true answer.
test("a design's draw is kept, its questions left out need no answer and send null", () => {
  const design = { asked: 1, blocks: [[21], [22, 23]] };
  const questions = [
    { id: 20, encoding: "bit", k: 2, spec: null, optional: false },
    { id: 21, encoding: "bit", k: 2, spec: null, optional: false },
    { id: 22, encoding: "bit", k: 2, spec: null, optional: false },
    { id: 23, encoding: "bit", k: 2, spec: null, optional: false, askedIf: { question: 22, answer: 1 } },
  ];
  let draws = 0;
  const draw = (blocks, asked) => { draws++; assert.deepEqual([blocks, asked], [2, 1]); return [1]; };
  assert.equal(blocksDrawn(null, null, draw), null);
  assert.deepEqual(blocksDrawn(design, null, draw), [1]);
  assert.deepEqual(blocksDrawn(design, { drawn: [0] }, draw), [0]); // kept: no new draw
  for (const bad of [[2], [0, 1], [-1], "0", null]) blocksDrawn(design, { drawn: bad }, draw);
  assert.equal(draws, 6);
  const left = leftOut(design, [1]);
  assert.deepEqual([...left], [21]);
  assert.deepEqual([...leftOut(null, null)], []);
  assert.deepEqual(unanswered(questions, { 20: 1, 22: 0 }, left), []);
  assert.deepEqual(unanswered(questions, { 20: 1 }, left).map((q) => q.id), [22]);
  const final = finalAnswers(questions, { 20: 1, 22: 0 });
  const reports = drawReports(questions, final, (_spec, answer) => answer, {}, left);
  assert.equal(reports[21], null);
  assert.deepEqual(Object.keys(reports), ["20", "21", "22", "23"]);
  assert.match(describeReport(questions[1], null), /left out at random/);
  const storage = memoryStorage();
  saveRecord(storage, "abc", { key: KEY, reports: null, confirmed: false, wording: 0, drawn: [1] });
  assert.deepEqual(JSON.parse(storage.getItem(NAME)),
    { key: KEY, reports: null, confirmed: false, wording: 0, drawn: [1] });
  assert.deepEqual(loadRecord(storage, "abc").record.drawn, [1]);
});
