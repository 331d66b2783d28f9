// The respondent page's pure parts (static/surveys/respond_core.js).

import assert from "node:assert/strict";
import { test } from "node:test";

import { randomize } from "../../static/surveys/ldp.js";
import {
  describeReport,
  failureMessage,
  isValidReport,
  loadRecord,
  memoizedReports,
  memoryStorage,
  newIdempotencyKey,
  progressText,
  requestBody,
  saveRecord,
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

test("a missing or corrupt record reads as a fresh one", () => {
  const storage = memoryStorage();
  assert.deepEqual(loadRecord(storage, "abc"), { key: null, memo: {}, sent: null });
  storage.setItem("private-surveys:abc", "{not json");
  assert.deepEqual(loadRecord(storage, "abc"), { key: null, memo: {}, sent: null });
  storage.setItem("private-surveys:abc", JSON.stringify({ key: 5, memo: [], sent: { reports: 1 } }));
  assert.deepEqual(loadRecord(storage, "abc"), { key: null, memo: {}, sent: null });
});

test("records round-trip per survey", () => {
  const storage = memoryStorage();
  const record = { key: "k".repeat(24), memo: { "11:1": 0 }, sent: { reports: { 11: 0 } } };
  saveRecord(storage, "abc", record);
  assert.deepEqual(loadRecord(storage, "abc"), record);
  assert.deepEqual(loadRecord(storage, "other"), { key: null, memo: {}, sent: null });
});

test("reports are drawn once per (question, true answer) and then reused", () => {
  const { draw, calls } = fakeDraw();
  const answers = { 11: 1, 12: 0, 13: 2 };
  const first = memoizedReports(questions, answers, {}, draw);
  assert.deepEqual(first.reports, { 11: 0, 12: 1, 13: [1, 0, 0, 1] });
  assert.deepEqual(Object.keys(first.memo).sort(), ["11:1", "12:0", "13:2"]);
  assert.equal(calls.length, 3);
  const again = memoizedReports(questions, answers, first.memo, draw);
  assert.deepEqual(again.reports, first.reports);
  assert.equal(calls.length, 3, "no fresh draw for answers drawn before");
  const changed = memoizedReports(questions, { ...answers, 11: 0 }, again.memo, draw);
  assert.deepEqual(calls.at(-1), ["rr", 0]);
  assert.equal(calls.length, 4);
  assert.deepEqual(changed.reports[12], first.reports[12]);
  assert.equal(changed.memo["11:1"], first.memo["11:1"], "old draws are kept");
});

test("memoization does not mutate the memo it is given", () => {
  const memo = {};
  memoizedReports(questions, { 11: 1, 12: 0, 13: 2 }, memo, fakeDraw().draw);
  assert.deepEqual(memo, {});
});

test("a corrupt memo entry is redrawn rather than sent", () => {
  const { draw, calls } = fakeDraw();
  const { reports } = memoizedReports([unary], { 13: 0 }, { "13:0": [1, 2] }, draw);
  assert.deepEqual(reports[13], [1, 0, 0, 1]);
  assert.equal(calls.length, 1);
});

test("with ldp.js, memoized reports are valid and identical on every later submission", () => {
  const answers = { 11: 1, 12: 2, 13: 3 };
  const { reports, memo } = memoizedReports(questions, answers, {}, randomize);
  for (const question of questions) assert.ok(isValidReport(question, reports[question.id]));
  for (let i = 0; i < 20; i++) {
    assert.deepEqual(memoizedReports(questions, answers, memo, randomize).reports, reports);
  }
});

test("the request body holds only the key, the invitation and the reports", () => {
  const body = requestBody("key-12345678", undefined, { 11: 0 });
  assert.deepEqual(body, { idempotency_key: "key-12345678", invitation: null, reports: { 11: 0 } });
  assert.deepEqual(Object.keys(requestBody("k", "tok", {})), ["idempotency_key", "invitation", "reports"]);
  assert.equal(requestBody("k", "tok", {}).invitation, "tok");
});

test("reports are checked against their encoding", () => {
  assert.ok(isValidReport(yesNo, 0) && isValidReport(yesNo, 1));
  assert.ok(!isValidReport(yesNo, 2) && !isValidReport(yesNo, true) && !isValidReport(yesNo, "1"));
  assert.ok(isValidReport(grr, 2) && !isValidReport(grr, 3) && !isValidReport(grr, -1));
  assert.ok(!isValidReport(grr, 1.5) && !isValidReport(grr, undefined));
  assert.ok(isValidReport(unary, [0, 0, 0, 0]) && !isValidReport(unary, [0, 0, 0]));
  assert.ok(!isValidReport(unary, [0, 0, 0, 2]) && !isValidReport(unary, 1));
});

test("unanswered questions are listed in order", () => {
  assert.deepEqual(unanswered(questions, { 12: 0 }).map((q) => q.id), [11, 13]);
  assert.deepEqual(unanswered(questions, { 11: 0, 12: 0, 13: 0 }), []);
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
  assert.match(failureMessage(0, undefined), /could not reach the server.*still here/);
  assert.match(failureMessage(503, "busy"), /error 503.*try again/);
  assert.equal(failureMessage(410, "This survey is closed."), "This survey is closed.");
  assert.match(failureMessage(403, undefined), /reload/);
});
