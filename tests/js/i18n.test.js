// The respondent scripts' messages: English without a catalogue, the catalogue's words with
// one, and English again whenever the catalogue cannot be had.
import assert from "node:assert/strict";
import { test } from "node:test";

import { gettext, interpolate, loadCatalog, setCatalog } from "../../static/surveys/i18n.js";

test("a message without a translation is its own msgid", () => {
  setCatalog(null);
  assert.equal(gettext("Sending your randomized answers…"), "Sending your randomized answers…");
  setCatalog({ "Sending your randomized answers…": "", other: "autre" });
  assert.equal(gettext("Sending your randomized answers…"), "Sending your randomized answers…");
  assert.equal(gettext("other"), "autre");
});

test("named placeholders are filled, unknown ones left as they are", () => {
  assert.equal(interpolate("%(answered)s of %(total)s answered", { answered: 2, total: 5 }), "2 of 5 answered");
  assert.equal(interpolate("%(missing)s stays", {}), "%(missing)s stays");
});

test("the catalogue is fetched without cookies and used", async () => {
  setCatalog(null);
  const calls = [];
  const fetcher = async (url, options) => {
    calls.push({ url, credentials: options.credentials });
    return { ok: true, json: async () => ({ catalog: { "no box ticked": "ninguna casilla marcada" } }) };
  };
  await loadCatalog("/i18n/es.json", { fetcher });
  assert.deepEqual(calls, [{ url: "/i18n/es.json", credentials: "omit" }]);
  assert.equal(gettext("no box ticked"), "ninguna casilla marcada");
});

test("no URL, a failed, refused or hanging fetch: English, and the page goes on", async () => {
  setCatalog(null);
  let fetched = false;
  await loadCatalog(null, { fetcher: async () => { fetched = true; } });
  assert.equal(fetched, false);
  await loadCatalog("/i18n/es.json", { fetcher: async () => { throw new TypeError("offline"); } });
  await loadCatalog("/i18n/es.json", { fetcher: async () => ({ ok: false, json: async () => ({}) }) });
  const hanging = (url, { signal }) =>
    new Promise((resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
  await loadCatalog("/i18n/es.json", { fetcher: hanging, timeoutMs: 10 });
  assert.equal(gettext("no box ticked"), "no box ticked");
});
