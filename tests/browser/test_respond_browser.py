"""A respondent in headless Chromium: only randomized reports ever leave the browser."""

import pytest
from django.urls import reverse

from surveys.actions import surveys as survey_actions
from surveys.models import Submission, Survey
from tests.helpers import (
    PHONE_CONTEXT,
    assert_nothing_stored,
    choose,
    is_submit,
    open_survey,
    questions,
    send,
    stored_reports,
    survey_of_every_encoding,
)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

BODY_KEYS = {"idempotency_key", "invitation", "reports", "wording"}


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return survey_of_every_encoding(make_survey, researcher)


def assert_holds_only_valid_reports(survey: Survey, body: dict) -> None:
    assert set(body) == BODY_KEYS
    assert body["invitation"] is None
    assert set(body["reports"]) == {str(q.pk) for q in questions(survey)}
    for question in questions(survey):
        question.mechanism().validate_report(body["reports"][str(question.pk)])


def test_it_sends_only_randomized_reports_and_stores_exactly_those(page, live_server, survey):
    requests = []
    page.on("request", lambda request: requests.append(request))
    open_survey(page, live_server, survey)
    assert page.eval_on_selector_all(
        "input[type=radio]", "inputs => inputs.every(input => input.form === null)"
    )
    choose(page, survey, [1, 4, 2])
    body = send(page)
    page.wait_for_url("**/thanks/")
    assert_holds_only_valid_reports(survey, body)
    assert [r.url for r in requests if r.method != "GET"] == [
        live_server.url + reverse("respond-submit", args=[survey.public_id])
    ]
    assert not any("answer" in r.url for r in requests)
    assert Submission.objects.get().idempotency_key == body["idempotency_key"]
    assert stored_reports(survey) == [body["reports"]]
    yes_no = questions(survey)[0]
    received = page.text_content(f'#sent [data-sent-question="{yes_no.pk}"]')
    assert received == ["No", "Yes"][body["reports"][str(yes_no.pk)]]


def test_it_shows_what_was_sent_instead_of_the_questions_on_return(page, live_server, survey):
    """Answering again is impossible, so it can never draw again (tests/
    test_respondent_privacy_browser.py tries harder)."""
    requests = []
    open_survey(page, live_server, survey)
    choose(page, survey, [0, 7, 1])
    first = send(page)
    page.wait_for_url("**/thanks/")
    page.on("request", lambda request: requests.append(request))
    open_survey(page, live_server, survey)
    assert page.is_visible("#already-answered")
    assert page.is_hidden("#answering") and page.is_hidden("#send-answers")
    assert page.is_hidden("#resend-answers")  # the server confirmed: nothing to send
    yes_no = questions(survey)[0]
    received = page.text_content(f'#already-answered [data-sent-question="{yes_no.pk}"]')
    assert received == ["No", "Yes"][first["reports"][str(yes_no.pk)]]
    assert not any(is_submit(r) for r in requests)
    assert stored_reports(survey) == [first["reports"]]


def test_it_never_sends_other_reports_once_they_are_drawn(page, live_server, survey):
    """After a failed attempt the answers are locked: even changed by force, the page sends
    exactly the same body."""
    submit_url = live_server.url + reverse("respond-submit", args=[survey.public_id])
    page.route(submit_url, lambda route: route.abort())
    yes_no = questions(survey)[0]
    open_survey(page, live_server, survey)
    choose(page, survey, [0, 7, 1])
    first = send(page)
    page.wait_for_selector("#respond-status:has-text('could not reach the server')")
    assert page.is_disabled(f"#answer-{yes_no.pk}-1")
    assert page.is_visible("#answers-fixed")
    page.eval_on_selector(
        f"#answer-{yes_no.pk}-1",
        "input => { input.checked = true; "
        "input.dispatchEvent(new Event('change', {bubbles: true})); }",
    )
    page.unroute(submit_url)
    assert send(page) == first
    page.wait_for_url("**/thanks/")
    assert stored_reports(survey) == [first["reports"]]


def test_it_retries_with_the_same_key_and_reports_after_failures(page, live_server, survey):
    submit_url = live_server.url + reverse("respond-submit", args=[survey.public_id])
    page.route(submit_url, lambda route: route.abort())
    open_survey(page, live_server, survey)
    choose(page, survey, [1, 0, 0])
    failed = send(page)
    page.wait_for_selector("#respond-status:has-text('could not reach the server')")
    assert page.is_checked(f"#answer-{questions(survey)[0].pk}-1")
    page.unroute(submit_url)
    page.route(submit_url, lambda route: route.fulfill(
        status=503, json={"ok": False, "error": "The service is briefly unavailable."}
    ))
    assert send(page) == failed
    page.wait_for_selector("#respond-status:has-text('briefly unavailable')")
    assert_nothing_stored(survey)
    page.unroute(submit_url)
    assert send(page) == failed
    page.wait_for_url("**/thanks/")
    assert stored_reports(survey) == [failed["reports"]]


def test_it_sends_nothing_without_javascript(browser, live_server, survey):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request))
    open_survey(page, live_server, survey)
    assert page.is_visible("#needs-javascript")
    assert page.is_disabled("#send-answers")
    assert page.is_disabled(f"#answer-{questions(survey)[0].pk}-1")
    page.click("#send-answers", force=True)
    page.keyboard.press("Enter")
    assert page.url == live_server.url + reverse("respond", args=[survey.public_id])
    # A request the click or the key started reaches the listener before a later page's.
    page.route("**/__marker__/", lambda route: route.fulfill(status=200, body="marker"))
    page.goto(live_server.url + "/__marker__/")
    assert requests[-1].url.endswith("/__marker__/")
    assert [r.method for r in requests] == ["GET"] * len(requests)
    assert_nothing_stored(survey)
    context.close()


def test_it_accepts_nothing_once_the_survey_is_closed(page, live_server, survey):
    open_survey(page, live_server, survey)
    choose(page, survey, [1, 2, 2])
    survey_actions.close_survey(survey)
    with page.expect_response(lambda r: is_submit(r.request)) as response:
        page.click("#send-answers")
    assert response.value.status == 410
    page.wait_for_selector("#respond-status:has-text('closed')")
    assert_nothing_stored(survey)
    open_survey(page, live_server, survey)
    assert page.is_visible("text=This survey is closed")
    assert page.locator("#send-answers").count() == 0


def test_it_asks_for_unanswered_questions_before_sending(page, live_server, survey):
    requests = []
    page.on("request", lambda request: requests.append(request))
    open_survey(page, live_server, survey)
    page.check(f"#answer-{questions(survey)[0].pk}-0")
    page.click("#send-answers")
    page.wait_for_selector("#respond-status:has-text('Still to answer')")
    assert not any(r.method == "POST" for r in requests)
    assert page.evaluate("document.activeElement.id") == f"answer-{questions(survey)[1].pk}-0"


def test_it_works_with_the_keyboard_and_shows_progress(page, live_server, survey):
    open_survey(page, live_server, survey)
    yes_no = questions(survey)[0]
    assert page.text_content("#progress-text") == "0 of 3 answered"
    page.focus(f"#answer-{yes_no.pk}-0")
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")  # radio buttons of one question form one group
    assert page.is_checked(f"#answer-{yes_no.pk}-1")
    assert not page.is_checked(f"#answer-{yes_no.pk}-0")
    assert page.text_content("#progress-text") == "1 of 3 answered"
    page.click(f"#question-{yes_no.pk} summary")
    assert page.is_visible(f"#question-{yes_no.pk} details p")


def test_it_fits_a_360_pixel_wide_phone(browser, live_server, survey):
    context = browser.new_context(**PHONE_CONTEXT)
    page = context.new_page()
    open_survey(page, live_server, survey)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    option = page.locator(f"label[for=answer-{questions(survey)[0].pk}-0]").bounding_box()
    assert option["height"] >= 44
    choose(page, survey, [0, 0, 0])
    send(page)
    page.wait_for_url("**/thanks/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    context.close()
