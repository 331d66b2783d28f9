// The survey form's times in words: a time typed in a picker whose format follows the
// browser's locale (12/01 is 1 December or 12 January?) is written out under it, with its
// time zone, so that it cannot be misread. Pure: node tests it.

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"];

/** "Tuesday 1 December 2026 at 18:00, Europe/Paris time" for the value of a datetime-local
 * box ("2026-12-01T18:00") and its zone; "" for an empty or incomplete value. The wall time
 * is written as typed: the server reads it in that zone. */
export function timeInWords(value, zone) {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(value ?? "");
  if (!match) return "";
  const [year, month, day] = match.slice(1, 4).map(Number);
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return `${WEEKDAYS[weekday]} ${day} ${MONTHS[month - 1]} ${year} at ${match[4]}:${match[5]}, ${zone} time`;
}
