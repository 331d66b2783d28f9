"""Running a real study in headless Chromium: the results page follows responses as they
arrive, the survey's link is copied in one click, and the epsilon panel says when a value is
above the site's limits."""

import numpy as np
import pytest
import zxingcpp
from django.urls import reverse
from playwright.sync_api import expect

from surveys.actions.wording import correct
from surveys.models import PrivacyPolicy, Survey
from surveys.queries import results
from tests.helpers import choose, held_clock, open_survey, send

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

RENDERED_GREYS = """img => img.decode().then(() => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 400;
    const context = canvas.getContext("2d");
    context.fillStyle = "#fff";
    context.fillRect(0, 0, 400, 400);
    context.drawImage(img, 0, 0, 400, 400);
    const rgba = context.getImageData(0, 0, 400, 400).data;
    const greys = [];
    for (let i = 0; i < rgba.length; i += 4) greys.push(rgba[i]);
    return {width: 400, height: 400, greys};
})"""
"""The image as the page draws it, scaled to 400 x 400 pixels on white, as grey levels."""


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


def signed_in(page, client, live_server, user) -> None:
    """Give the browser the session of ``user``, signed in through the test client."""
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def test_the_results_page_shows_a_response_soon_after_it_arrives(
    browser, page, client, live_server, survey, settings
):
    settings.RESULTS_REFRESH_SECONDS = 0  # recomputed at the first view after a response
    signed_in(page, client, live_server, survey.owner)
    page.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    page.wait_for_selector("#live-status:has-text('Updated')")
    assert "0 responses" in page.inner_text("#results-summary")
    assert page.locator("#results-body details").count() == 0
    respond(browser, live_server, survey)
    page.wait_for_function(
        "() => document.querySelector('#results-summary').innerText.includes('1 response')"
    )
    assert page.locator("#results-body section.card details").count() == 2
    assert page.locator("#results-body").get_by_text("95% interval").first.is_visible()
    assert page.inner_text("#live-status").startswith("Updated ")

    # What the researcher opened, and where the keyboard is, survive the next redraw.
    summary = page.locator("#results-body details summary").nth(1)
    summary.focus()
    page.keyboard.press("Enter")
    respond(browser, live_server, survey)
    page.wait_for_function(
        "() => document.querySelector('#results-summary').innerText.includes('2 responses')"
    )
    assert page.eval_on_selector_all("#results-body details", "all => all.map(d => d.open)") == [
        False, True,
    ]

    # A corrected wording is a change of the results shown: the page follows it too.
    yes_no = survey.ordered_questions()[0]
    correct(survey, {"questions": {str(yes_no.pk): {"text": "Did you ever cheat?"}}})
    page.wait_for_selector("#results-body h2:has-text('Did you ever cheat?')")
    assert page.evaluate(
        "document.activeElement === document.querySelectorAll('#results-body summary')[1]"
    )


def test_the_page_says_how_old_its_figures_are_and_recomputes_them_when_asked(
    browser, page, client, live_server, survey, monkeypatch
):
    clock = held_clock(monkeypatch)  # the results' clock: moved on, never waited for
    respond(browser, live_server, survey)
    signed_in(page, client, live_server, survey.owner)
    page.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    page.wait_for_selector("#live-status:has-text('Updated')")
    summary = "document.querySelector('#results-summary').innerText"
    respond(browser, live_server, survey)
    page.wait_for_function(f"() => {summary}.includes('1 new response since')")
    assert "1 response ·" in page.inner_text("#results-summary")  # within the interval
    clock[0] += results.REFRESH_NOW_SECONDS
    page.get_by_role("button", name="Recompute now").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "2 responses" in page.inner_text("#results-summary")
    assert "0 new responses since" in page.inner_text("#results-summary")
    assert page.get_by_role("button", name="Recompute now").count() == 0


def respond(browser, live_server, survey: Survey) -> None:
    """One respondent answers through the real page and endpoint, in a browser of their own."""
    context = browser.new_context()
    respondent = context.new_page()
    open_survey(respondent, live_server, survey)
    choose(respondent, survey, [1, 0])
    send(respondent)
    respondent.wait_for_url("**/thanks/")
    context.close()


def test_the_link_is_copied_in_one_click_or_selected_for_the_keyboard(
    browser, client, live_server, survey
):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    signed_in(page, client, live_server, survey.owner)
    page.goto(live_server.url + reverse("survey-detail", args=[survey.pk]))
    link = page.input_value("#public-link")
    assert link == live_server.url + survey.get_public_url()
    page.focus("#copy-link")
    page.keyboard.press("Enter")
    page.wait_for_selector("#copy-status:has-text('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == link
    qr = page.locator("img.qr-code")
    qr.wait_for()
    assert qr.evaluate("img => img.decode().then(() => img.naturalWidth)") > 0
    assert qr.get_attribute("alt") == "QR code of the link for respondents"
    # The code as the browser draws it, read by a QR decoder: the link itself.
    pixels = qr.evaluate(RENDERED_GREYS)
    image = np.array(pixels["greys"], dtype=np.uint8).reshape(pixels["height"], pixels["width"])
    (decoded,) = zxingcpp.read_barcodes(image)
    print(f"\nQR code on the survey page decodes to: {decoded.text}")
    assert decoded.text == link
    context.close()

    # Without a clipboard (an insecure origin, an old browser), the link is selected instead.
    context = browser.new_context()
    context.add_init_script("delete Navigator.prototype.clipboard")
    page = context.new_page()
    signed_in(page, client, live_server, survey.owner)
    page.goto(live_server.url + reverse("survey-detail", args=[survey.pk]))
    page.click("#copy-link")
    page.wait_for_selector("#copy-status:has-text('press Ctrl+C')")
    selected = page.evaluate(
        "(() => { const input = document.activeElement;"
        " return input.value.slice(input.selectionStart, input.selectionEnd); })()"
    )
    assert selected == link
    context.close()


def test_the_panel_shows_what_respondents_will_read_as_the_epsilon_is_typed(
    page, client, live_server, researcher
):
    survey = Survey.objects.create(owner=researcher, title="T")
    survey.questions.create(order=1, text="First?", kind="yesno", epsilon=1)
    signed_in(page, client, live_server, researcher)
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    read = page.locator("#respondents-read")
    page.fill("#id_epsilon", "1.5")  # with the first question's 1: 2.5 in all
    read.get_by_text("Any one answer we receive can make anyone who sees it at most 4.5 times",
                     exact=False).wait_for()
    read.get_by_text("at most 12 times more sure of anything", exact=False).wait_for()
    read.get_by_text("could raise that to at most 58%.", exact=False).wait_for()
    page.fill("#id_epsilon", "2")  # 3 in all, the site's limit
    read.get_by_text("at most 20 times more sure of anything", exact=False).wait_for()
    read.get_by_text("could raise that to at most 70%.", exact=False).wait_for()


def test_the_panel_says_when_a_value_is_above_the_sites_limits(
    page, client, live_server, researcher
):
    policy = PrivacyPolicy.current()
    policy.max_question_epsilon, policy.max_survey_epsilon = 4, 5
    policy.save()
    survey = Survey.objects.create(owner=researcher, title="T")
    survey.questions.create(order=1, text="First?", kind="yesno", epsilon=3)
    signed_in(page, client, live_server, researcher)
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    panel = page.locator("#explain-body")
    page.fill("#id_epsilon", "1.5")
    panel.get_by_text("For ±5 points", exact=False).wait_for()
    assert page.inner_text("#budget-line") == "Survey total with this question: 4.5 of 5 allowed."
    page.fill("#id_epsilon", "4.5")
    panel.get_by_text(
        "Above this site's limit of 4 per question: the question cannot be saved with this value."
    ).wait_for()
    # A value the question cannot be saved with is not added to the survey's total.
    cannot = ("This epsilon cannot be saved: enter a number from 0.01 to 4. "
              "Survey total without this question: 3 of 5 allowed.")
    assert page.inner_text("#budget-line") == cannot
    expect(page.locator("#id_epsilon")).to_have_attribute("aria-invalid", "true")
    page.fill("#id_epsilon", "-1")
    panel.get_by_text("Epsilon must be at least 0.01", exact=False).wait_for()
    assert page.inner_text("#budget-line") == cannot
    page.fill("#id_epsilon", "2.5")
    panel.get_by_text("For ±5 points", exact=False).wait_for()
    assert page.inner_text("#budget-line").startswith(
        "Survey total with this question: 5.5, above this site's limit of 5 per survey: "
        "the question cannot be saved with this value."
    )
    expect(page.locator("#id_epsilon")).not_to_have_attribute("aria-invalid", "true")
    page.fill("#id_epsilon", "2")
    page.get_by_text("Above this site's limit", exact=False).wait_for(state="detached")


@pytest.mark.parametrize(("kind", "shown", "hidden"), [
    ("yesno", ["#id_known_percent", "#id_used_for_breakdowns"],
     ["#id_choices", "#id_scale_low"]),
    ("categorical", ["#id_choices", "#id_used_for_breakdowns"],
     ["#id_known_percent", "#id_scale_low"]),
    ("rating", ["#id_scale_low", "#id_scale_points"], ["#id_choices", "#id_known_percent"]),
    ("checkall", ["#id_choices", "#id_offers_refusal", "#id_condition"],
     ["#id_used_for_breakdowns", "#id_known_percent", "#id_optional"]),
])
def test_the_question_form_shows_the_fields_its_kind_takes(
    page, client, live_server, researcher, kind, shown, hidden
):
    """What each kind takes comes from the site's definition of the kind (form_facts)."""
    survey = Survey.objects.create(owner=researcher, title="T")
    signed_in(page, client, live_server, researcher)
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    page.select_option("#id_kind", kind)
    for selector in shown:
        expect(page.locator(selector)).to_be_visible()
    for selector in hidden:
        expect(page.locator(selector)).to_be_hidden()
