// The results page of an open survey, kept up to date: every few seconds it asks the results
// JSON whether its results changed (a new snapshot, new responses since, the status) and, when
// they did, fetches the page again and swaps in its parts marked data-live (the status, the
// counts and the question cards; a card only if what it shows, its data-key, changed),
// keeping which details are open, the choices made in menus and the keyboard focus. Paused
// while the tab is hidden. The pure parts are in results_live_core.js.

import { atTime, changed, poller, sameCard, shownOf } from "./results_live_core.js";

const note = document.getElementById("live-note");
const status = document.getElementById("live-status");
const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";

let shown = {
  snapshot: note.dataset.snapshot,
  status: "open",
  newResponses: Number(note.dataset.newResponses),
};
let failing = false;

const say = (template) => {
  status.textContent = atTime(template, new Date());
};

function swap(old, fresh) {
  fresh.querySelectorAll("details").forEach((details, i) => {
    details.open = Boolean(old.querySelectorAll("details")[i]?.open);
  });
  const choices = [...old.querySelectorAll("select[id]")].map((select) => [select.id, select.value]);
  const focused = [...old.querySelectorAll(FOCUSABLE)].indexOf(document.activeElement);
  old.replaceWith(fresh);
  for (const [id, value] of choices) {
    const select = document.getElementById(id);
    if (select) select.value = value;
  }
  if (focused >= 0) fresh.querySelectorAll(FOCUSABLE)[focused]?.focus();
}

async function redraw() {
  const response = await fetch(window.location.pathname, { cache: "no-store" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  for (const part of document.querySelectorAll("[data-live]")) {
    const fresh = page.getElementById(part.id);
    if (fresh && !sameCard(part, fresh)) swap(part, document.adoptNode(fresh));
  }
}

async function check() {
  try {
    const response = await fetch(note.dataset.jsonUrl, { cache: "no-store" });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const data = await response.json();
    const open = data.survey.status === "open";
    if (changed(shown, data)) {
      await redraw();
      shown = shownOf(data);
      say(open ? note.dataset.updated : note.dataset.closed);
    } else if (failing) {
      say(note.dataset.updated);
    }
    failing = false;
    return open;
  } catch {
    if (!failing) say(note.dataset.failed); // once, not at every attempt
    failing = true;
    return true;
  }
}

const live = poller(check);
document.addEventListener("visibilitychange", () => {
  if (document.hidden) live.pause();
  else live.resume();
});
note.hidden = false;
say(note.dataset.updated);
if (!document.hidden) live.start();
else live.pause();
