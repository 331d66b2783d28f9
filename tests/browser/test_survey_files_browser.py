"""Survey files in headless Chromium: by keyboard, a researcher downloads a survey's file from
its page, imports it from the file field and sees the new draft; imports an XLSForm and
sees what was not imported and why. axe-core finds no violation at all on the import page
(empty, with errors, after an import) at 360 px, 1,280 px and 200% zoom, in every language
(the browser's). No sleeps: every wait is for a navigation, a download or an element."""

import io
import json
from pathlib import Path

import openpyxl
import pytest
from django.conf import settings
from django.urls import reverse

from surveys.models import Survey
from tests.helpers import AXE_CONTEXTS

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]


def sign_in(page, live_server) -> None:
    page.goto(live_server.url + reverse("login"))
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pass-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url("**/surveys/")


def xlsform(path: Path) -> Path:
    """A small XLSForm: a yes/no, a follow-up on it, a text and a start time (not imported)."""
    workbook = openpyxl.Workbook()
    survey = workbook.active
    survey.title = "survey"
    for row in [
        ("type", "name", "label", "relevant"),
        ("start", "start", "", ""),
        ("select_one yn", "smoked", "Have you smoked?", ""),
        ("select_one often", "often", "How often?", "${smoked} = 'yes'"),
        ("text", "name", "Your name?", ""),
    ]:
        survey.append(row)
    choices = workbook.create_sheet("choices")
    for row in [("list_name", "name", "label"), ("yn", "yes", "Yes"), ("yn", "no", "No"),
                ("often", "daily", "Daily"), ("often", "weekly", "Weekly")]:
        choices.append(row)
    stream = io.BytesIO()
    workbook.save(stream)
    path.write_bytes(stream.getvalue())
    return path


def choose_file(page, path: Path) -> None:
    """Focuses the file field, gives it ``path``, then Tab to the Import button and Enter.

    The file is set on the field itself rather than through the browser's own file dialog:
    whether a key press opens that dialog is the browser's business, and headless Chromium
    now and then drops the event that reports it (a 30 s timeout on a busy machine)."""
    field = page.get_by_label("Survey file")
    field.focus()
    assert page.evaluate("document.activeElement.type") == "file"
    field.set_input_files(path)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Import"
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_a_survey_file_is_downloaded_then_imported_and_an_xlsform_too(
    browser, live_server, researcher, make_survey, tmp_path, axe
):
    survey = make_survey(researcher, title="Habits")
    context = browser.new_context(**AXE_CONTEXTS["360px"], accept_downloads=True)
    page = context.new_page()
    sign_in(page, live_server)
    page.goto(live_server.url + reverse("survey-detail", args=[survey.pk]))
    page.get_by_role("link", name="Download the survey file (JSON)").focus()
    with page.expect_download() as download:
        page.keyboard.press("Enter")
    assert download.value.suggested_filename == f"survey-{survey.pk}.json"
    saved = tmp_path / "habits.json"
    download.value.save_as(saved)
    data = json.loads(saved.read_text())
    assert [q["text"] for q in data["questions"]] == ["Have you ever cheated?", "How often?"]

    page.goto(live_server.url + reverse("survey-list"))
    page.get_by_role("link", name="Import a survey").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.get_by_role("heading", name="Import a survey").is_visible()
    choose_file(page, saved)
    copy = Survey.objects.exclude(pk=survey.pk).get()
    page.wait_for_url(f"**{copy.get_absolute_url()}")
    assert "imported as a new draft" in page.locator(".messages").inner_text()
    assert page.get_by_role("heading", name="Habits").is_visible()
    assert copy.owner == researcher and copy.is_draft
    assert [q.text for q in copy.ordered_questions()] == ["Have you ever cheated?", "How often?"]

    page.goto(live_server.url + reverse("survey-import"))
    choose_file(page, xlsform(tmp_path / "smoking.xlsx"))
    imported = Survey.objects.get(title="smoking")
    page.wait_for_url(f"**{imported.get_absolute_url()}")
    notes = page.get_by_role("list", name="Not imported, or changed:").inner_text()
    assert "“start” (start): collects identifying or timing data" in notes
    assert "“name” (text): free text could identify a respondent" in notes
    assert [(q.kind, q.asked_if_answer) for q in imported.ordered_questions()] == [
        ("yesno", None), ("categorical", 1)]
    axe(page, "survey page after an XLSForm import")
    context.close()
    axe.check()


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
@pytest.mark.parametrize("tag", list(AXE_CONTEXTS))
def test_axe_finds_nothing_on_the_import_page(
    browser, live_server, researcher, axe, tag, language, tmp_path
):
    """The import page empty, refusing a file, and the survey's page after an import; none is
    wider than the window."""
    context = browser.new_context(**AXE_CONTEXTS[tag], locale=language)
    page = context.new_page()
    sign_in(page, live_server)
    width = AXE_CONTEXTS[tag]["viewport"]["width"]
    found = []

    def audit(label: str) -> None:
        assert page.get_attribute("html", "lang") == language  # what the page is written in
        found.extend(axe(page, f"{label} [{tag}, {language}]"))
        assert page.evaluate("document.documentElement.scrollWidth") <= width, label

    page.goto(live_server.url + reverse("survey-import"))
    audit("import: empty")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "private-surveys/survey", "version": 7}')
    # Found by what they are, not by their words: the page is in `language`.
    file_box, send = page.locator("main input[type=file]"), page.locator("main [type=submit]")
    file_box.set_input_files(bad)
    with page.expect_navigation():
        send.click()
    page.get_by_role("alert").wait_for()
    audit("import: a refused file")
    file_box.set_input_files(xlsform(tmp_path / "a-long-file-name.xlsx"))
    with page.expect_navigation():
        send.click()
    page.locator("ul[aria-labelledby=import-notes-title]").wait_for()
    audit("import: done, with what was not imported")
    context.close()
    assert found == []
    axe.check()
