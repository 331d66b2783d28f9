// The survey form's times in words: a time typed in a picker whose format follows the
// browser's locale (12/01 is 1 December or 12 January?) is written out under it, with its
// time zone, so that it cannot be misread. Pure: node tests it.

import { gettext, interpolate } from "./i18n.js";

/** "Tuesday, 1 December 2026 at 18:00, Europe/Paris time" (in `language`, the page's) for
 * the value of a datetime-local box ("2026-12-01T18:00") and its zone; "" for an empty or
 * incomplete value. The wall time is written as typed: the server reads it in that zone.
 * Weekday and month are named, so that day and month cannot be confused in any language. */
export function timeInWords(value, zone, language = "en") {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(value ?? "");
  if (!match) return "";
  const [year, month, day] = match.slice(1, 4).map(Number);
  const date = new Intl.DateTimeFormat(language === "en" ? "en-GB" : language, {
    weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: "UTC",
  }).format(new Date(Date.UTC(year, month - 1, day)));
  return interpolate(gettext("%(date)s at %(time)s, %(zone)s time"), {
    date, time: `${match[4]}:${match[5]}`, zone,
  });
}
