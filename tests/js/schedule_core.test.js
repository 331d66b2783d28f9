// The survey form's times in words (static/surveys/schedule_core.js).

import assert from "node:assert/strict";
import { test } from "node:test";

import { setCatalog } from "../../static/surveys/i18n.js";
import { timeInWords } from "../../static/surveys/schedule_core.js";

test("a typed time is written out with its weekday, month name, 24-hour clock and zone", () => {
  assert.equal(timeInWords("2026-12-01T18:00", "Europe/Paris"),
    "Tuesday, 1 December 2026 at 18:00, Europe/Paris time");
  // Day and month can never be confused: 12 January is written so.
  assert.equal(timeInWords("2027-01-12T09:05", "UTC"), "Tuesday, 12 January 2027 at 09:05, UTC time");
  for (const value of ["", "2026-12", null, undefined, "tomorrow"]) assert.equal(timeInWords(value, "UTC"), "");
});

test("in the page's language, names and sentence included", () => {
  setCatalog({ "%(date)s at %(time)s, %(zone)s time": "%(date)s à %(time)s, heure %(zone)s" });
  try {
    assert.equal(timeInWords("2026-12-01T18:00", "Europe/Paris", "fr"),
      "mardi 1 décembre 2026 à 18:00, heure Europe/Paris");
  } finally {
    setCatalog({});
  }
  assert.match(timeInWords("2026-12-01T18:00", "UTC", "de"), /^Dienstag, 1\. Dezember 2026 /);
});
