// The survey form's opening and closing times, written out in words under their boxes as
// they are typed (schedule_core.js), in the page's language.

import { loadPageCatalog } from "./i18n.js";
import { timeInWords } from "./schedule_core.js";

await loadPageCatalog();
const language = document.documentElement.lang;
for (const box of document.querySelectorAll("input[data-zone]")) {
  const words = document.getElementById(`${box.name}-words`);
  const show = () => { words.textContent = timeInWords(box.value, box.dataset.zone, language); };
  box.addEventListener("input", show);
  show();
}
