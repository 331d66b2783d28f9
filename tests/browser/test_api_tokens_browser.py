"""API tokens in headless Chromium: at phone width, by keyboard, a researcher creates a token,
sees it once and copies it, a script reads the results with it, the researcher revokes it and
the script is refused. axe-core finds no violation at all on the tokens pages at 360 px,
1,280 px and 200% zoom, in every language (the browser's). No sleeps: every wait is for a
navigation or an element."""

import json
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse

from surveys.actions.submissions import submission_create
from surveys.models import ApiToken, Survey, hash_secret
from tests.helpers import AXE_CONTEXTS, PHONE_CONTEXT, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]



@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    survey = make_survey(researcher, status="open")
    yes_no, categorical = survey.ordered_questions()
    submission_create(
        survey=survey, reports={yes_no.pk: 1, categorical.pk: 0}, idempotency_key="s" * 16
    )
    return survey



def fetch(url: str, secret: str) -> tuple[int, dict]:
    """What a script gets: the status and the JSON body of a GET with the token."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {secret}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def create(page, name: str) -> None:
    """Fills the form by keyboard: the name, then Tab to the expiry (one down: 1 year), then
    Tab past what it may do (read, checked), to the button and Enter."""
    page.get_by_label("Name").focus()
    page.keyboard.type(name)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "id_days"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    assert page.evaluate("[document.activeElement.value, document.activeElement.checked]") == [
        "read", True]
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Create token"
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_a_token_is_made_by_keyboard_seen_once_used_then_revoked_and_refused(
    browser, live_server, survey, axe
):
    context = browser.new_context(**PHONE_CONTEXT)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    sign_in(page, live_server)
    page.get_by_role("button", name="Show navigation").focus()  # the menu, at phone width
    page.keyboard.press("Enter")
    page.locator("#nav-links.show").wait_for()
    page.get_by_role("link", name="API tokens").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "You have no API tokens yet" in page.inner_text("main")

    create(page, "R analysis")
    secret = page.get_by_label("Token", exact=True).input_value()
    assert secret.startswith("pst_")
    token = ApiToken.objects.get()
    assert (token.name, token.digest) == ("R analysis", hash_secret(secret))
    lifetime = token.expires - token.created  # 1 year, chosen by keyboard
    assert abs(lifetime - timedelta(days=365)) < timedelta(minutes=1)
    copy = page.get_by_role("button", name="Copy token")
    copy.wait_for()  # shown once its script runs
    copy.focus()
    page.keyboard.press("Enter")
    page.get_by_role("status").filter(has_text="Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    axe(page, "tokens: the new token, once")

    results = live_server.url + reverse("survey-results-json", args=[survey.pk])
    status, body = fetch(results, secret)
    assert (status, body["survey"]["title"], body["survey"]["responses"]) == (200, "Habits", 1)

    page.goto(live_server.url + reverse("api-tokens"))  # never again
    assert secret not in page.content()
    row = page.locator(f"#token-{token.pk}")
    assert "R analysis" in row.inner_text() and "Active" in row.inner_text()
    assert token.prefix in row.inner_text()

    row.get_by_role("link", name="Revoke “R analysis”").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "Revoke this token?" in page.inner_text("main")
    axe(page, "tokens: revoke?")
    page.get_by_role("button", name="Revoke token").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "revoked: it is refused from now on" in page.locator(".messages").inner_text()
    assert "Revoked" in page.locator(f"#token-{token.pk}").inner_text()
    axe(page, "tokens: one revoked")

    assert fetch(results, secret) == (
        401, {"code": "token_invalid", "error": "This API token is unknown, revoked or expired."})
    context.close()
    axe.check()


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
@pytest.mark.parametrize("tag", list(AXE_CONTEXTS))
def test_axe_finds_nothing_on_the_tokens_pages(browser, live_server, researcher, axe, tag,
                                              language):
    """Every state of the tokens pages: none yet, a refused form, the new token shown, the
    list, the confirmation to revoke; none is wider than the window."""
    context = browser.new_context(**AXE_CONTEXTS[tag], locale=language)
    page = context.new_page()
    sign_in(page, live_server)
    width = AXE_CONTEXTS[tag]["viewport"]["width"]
    found = []

    def audit(label: str) -> None:
        assert page.get_attribute("html", "lang") == language  # what the page is written in
        found.extend(axe(page, f"{label} [{tag}, {language}]"))
        assert page.evaluate("document.documentElement.scrollWidth") <= width, label

    page.goto(live_server.url + reverse("api-tokens"))
    audit("tokens: none yet")
    # Found by what they are, not by their words: the page is in `language`.
    create = page.locator("main button[type=submit]")
    with page.expect_navigation():
        create.click()
    assert page.locator("#id_name").get_attribute("aria-invalid") == "true"
    audit("tokens: no name")
    page.locator("#id_name").fill("Python notebook with a rather long name, for the layout")
    with page.expect_navigation():
        create.click()
    page.locator("#copy-link:visible").wait_for()
    audit("tokens: the new token")
    page.goto(live_server.url + reverse("api-tokens"))
    audit("tokens: one active")
    with page.expect_navigation():
        page.locator("main a[href$='/revoke/']").click()
    audit("tokens: revoke?")
    context.close()
    assert found == []
    axe.check()
