// Messages in the page's language for the respondent's scripts. The catalogue is Django's
// JSON catalogue of the "djangojs" domain (locale/<language>/LC_MESSAGES/djangojs.po),
// fetched once from the URL the page gives; without one (English) every message is its own
// msgid. Mark messages with gettext("...") so that makemessages finds them.

let catalog = {};
let language = "en";

/** Use `messages` (msgid -> translation) from now on; anything else means English. */
export function setCatalog(messages) {
  catalog = messages && typeof messages === "object" ? messages : {};
}

/** `msgid` in the page's language, or as it is when there is no translation. */
export function gettext(msgid) {
  const translated = catalog[msgid];
  return typeof translated === "string" && translated ? translated : msgid;
}

/** Python-style named placeholders: interpolate("%(n)s of %(total)s", {n: 2, total: 5}). */
export function interpolate(format, values) {
  return format.replace(/%\((\w+)\)s/g, (placeholder, name) =>
    name in values ? String(values[name]) : placeholder,
  );
}

/** Fetch the catalogue at `url` (no cookie sent) and use it; English when there is no URL,
 * or the fetch fails or takes longer than `timeoutMs`, so that the page works whatever
 * happens. */
export async function loadCatalog(url, { fetcher = globalThis.fetch, timeoutMs = 5000 } = {}) {
  if (!url) return;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetcher(url, { credentials: "omit", signal: controller.signal });
    if (response.ok) setCatalog((await response.json()).catalog);
  } catch {
    // Offline, refused or too slow: English.
  } finally {
    clearTimeout(timer);
  }
}

/** Numbers from now on in the format of `code` (a language of the site), as the server
 * writes them on the pages (surveys/helpers/numbers.py): "1,234.5" in English, "1.234,5" in
 * German. */
export function setLanguage(code) {
  language = code || "en";
}

/** An Intl.NumberFormat of the page's language with `options`. */
export function numberFormat(options) {
  return new Intl.NumberFormat(language === "en" ? "en-US" : language, options);
}

/** The page's language (`lang` of its root element) for numbers, and its catalogue, whose
 * URL the page gives there too (`data-catalog`, set by templates/base.html for every
 * language but English): fetched and used. */
export function loadPageCatalog(options) {
  const root = globalThis.document?.documentElement;
  setLanguage(root?.lang);
  return loadCatalog(root?.dataset.catalog, options);
}
