// The live results page's pure parts (static/surveys/results_live_core.js).

import assert from "node:assert/strict";
import { test } from "node:test";

import { POLL_MS, atTime, changed, poller, sameCard, shownOf } from "../../static/surveys/results_live_core.js";

const data = (snapshot, status = "open", newResponses = 0) => ({
  snapshot, new_responses: newResponses, survey: { status }, questions: [],
});

// Timers that run only when told to: `fire()` runs the pending one.
function fakeTimers() {
  const pending = new Map();
  let next = 1;
  return {
    setTimer: (callback, ms) => {
      pending.set(next, { callback, ms });
      return next++;
    },
    clearTimer: (id) => pending.delete(id),
    get count() {
      return pending.size;
    },
    get delays() {
      return [...pending.values()].map(({ ms }) => ms);
    },
    async fire() {
      const [[id, { callback }]] = pending;
      pending.delete(id);
      await callback();
    },
  };
}

test("it polls every few seconds", () => {
  assert.ok(POLL_MS >= 5000 && POLL_MS <= 10000);
});

test("it writes the time of the update", () => {
  assert.equal(atTime("Updated %(time)s.", new Date(2026, 0, 2, 9, 5, 7)), "Updated 09:05:07.");
  assert.equal(atTime("Actualizado a las %(time)s", new Date(2026, 0, 2, 22, 42, 0)), "Actualizado a las 22:42:00");
});

test("it redraws only when the figures change, responses arrive since, or the survey closes", () => {
  const shown = shownOf(data("a1"));
  assert.deepEqual(shown, { snapshot: "a1", status: "open", newResponses: 0 });
  assert.equal(changed(shown, data("a1")), false);
  assert.equal(changed(shown, data("b2")), true);
  assert.equal(changed(shown, data("a1", "closed")), true);
  assert.equal(changed(shown, data("a1", "open", 2)), true); // "2 new responses since"
});

test("it swaps a card only when what it shows changed", () => {
  const part = (key) => ({ dataset: key === undefined ? {} : { key } });
  assert.equal(sameCard(part("k1"), part("k1")), true);
  assert.equal(sameCard(part("k1"), part("k2")), false);
  assert.equal(sameCard(part(), part()), false); // a part that is no card is always swapped
});

test("it checks one at a time, pauses while hidden, checks at once when shown again", async () => {
  const timers = fakeTimers();
  let checks = 0;
  const live = poller(async () => { checks += 1; return true; }, { interval: 5000, ...timers });
  live.start();
  live.start(); // never two timers
  assert.deepEqual(timers.delays, [5000]);
  await timers.fire();
  assert.equal(checks, 1);
  assert.equal(timers.count, 1);
  live.pause();
  assert.equal(timers.count, 0);
  live.resume();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(checks, 2);
  assert.equal(timers.count, 1);
  live.resume(); // not paused: nothing more
  assert.equal(checks, 2);
});

test("it stops for good once a check says so", async () => {
  const timers = fakeTimers();
  let open = true;
  const live = poller(async () => open, timers);
  live.start();
  open = false;
  await timers.fire();
  assert.equal(live.stopped, true);
  assert.equal(timers.count, 0);
  live.pause();
  live.resume();
  assert.equal(timers.count, 0);
});
