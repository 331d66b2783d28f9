// "Copy link" on a survey's page (and "Copy token" for a new API token, with the same ids):
// puts the link for respondents on the clipboard and says so;
// where the clipboard is unavailable (or refused), selects the link for the keyboard shortcut.
// Without JavaScript the button stays hidden and the link can be selected by hand.

const button = document.getElementById("copy-link");
const link = document.getElementById("public-link");
const status = document.getElementById("copy-status");

function selectLink() {
  link.focus();
  link.select();
  status.textContent = button.dataset.selectHint;
}

button.addEventListener("click", async () => {
  status.textContent = ""; // so that copying twice is announced twice
  if (!navigator.clipboard?.writeText) {
    selectLink();
    return;
  }
  try {
    await navigator.clipboard.writeText(link.value);
    status.textContent = button.dataset.copied;
  } catch {
    selectLink();
  }
});
button.hidden = false;
