// The live results page's pure parts (see results_live.js for the DOM glue).

// How often an open survey's results page asks whether responses arrived.
export const POLL_MS = 5000;

// A message of the page (`%(time)s` in it) with the local time of day: "Updated 10:42:05."
export function atTime(template, date) {
  const two = (n) => String(n).padStart(2, "0");
  const time = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  return template.replace("%(time)s", time);
}

// What the page shows of the results JSON: enough to tell whether it is out of date. The
// snapshot changes exactly when the figures do (they were recomputed with new responses, or
// the wording was corrected); the responses that arrived since are said too.
export const shownOf = (data) => ({
  snapshot: data.snapshot,
  status: data.survey.status,
  newResponses: data.new_responses,
});

// Whether the page must be redrawn: the figures changed, responses arrived since, or the
// survey closed.
export function changed(shown, data) {
  const now = shownOf(data);
  return Object.keys(now).some((key) => now[key] !== shown[key]);
}

// Whether two versions of a part of the page are the same question card showing the same
// figures (its data-key is a hash of what it shows): such a card is not swapped.
export const sameCard = (old, fresh) =>
  Boolean(old.dataset.key) && old.dataset.key === fresh.dataset.key;

// Calls `check` every `interval` ms, one call at a time, none while paused; `resume` checks at
// once (the page was out of sight). `check` resolves to false to stop for good, and handles its
// own failures.
export function poller(check, { interval = POLL_MS, setTimer = setTimeout, clearTimer = clearTimeout } = {}) {
  let timer = null;
  let running = false;
  let paused = false;
  let stopped = false;

  function schedule() {
    if (!paused && !stopped && !running && timer === null) timer = setTimer(tick, interval);
  }

  async function tick() {
    timer = null;
    if (paused || stopped || running) return;
    running = true;
    try {
      if ((await check()) === false) stopped = true;
    } finally {
      running = false;
    }
    schedule();
  }

  return {
    start: schedule,
    pause() {
      paused = true;
      if (timer !== null) clearTimer(timer);
      timer = null;
    },
    resume() {
      if (!paused) return;
      paused = false;
      tick();
    },
    get stopped() {
      return stopped;
    },
  };
}
