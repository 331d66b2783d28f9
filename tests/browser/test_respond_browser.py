"""A respondent in headless Chromium: only randomized reports ever leave the browser."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.actions import surveys as survey_actions
from surveys.models import Choice, Question, Submission, Survey
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


def phone_survey(owner) -> Survey:
    """Open: "Smoke?" (yes/no, "Prefer not to say"), "Which?" (check all), "How much?" (a
    rating asked only of smokers), "How many days?" (a number from 0 to 30)."""
    survey = Survey.objects.create(owner=owner, title="Health", introduction="Hello.")
    smoke = Question.objects.create(survey=survey, order=0, text="Smoke?", kind="yesno",
                                    epsilon=1.0, offers_refusal=True)
    which = Question.objects.create(survey=survey, order=1, text="Which?", kind="checkall",
                                    epsilon=0.5)
    for order, label in enumerate(("Cigarettes", "Pipe", "Vape")):
        Choice.objects.create(question=which, order=order, label=label)
    rating = Question.objects.create(survey=survey, order=2, text="How much?", kind="rating",
                                     epsilon=0.5, asked_if=smoke, asked_if_answer=1)
    for order, label in enumerate(("Little", "2", "3", "4", "A lot")):
        Choice.objects.create(question=rating, order=order, label=label)
    Question.objects.create(survey=survey, order=3, text="How many days?", kind="number",
                            epsilon=0.5, number_min=0, number_max=30)
    survey_actions.open_survey(survey)
    return survey


def test_on_a_phone_one_tap_sends_after_a_refused_send(browser, live_server, researcher):
    """At 390 x 844 with touch: the progress and the numbers count the questions shown and
    answered (a check-all question counts once it or a later question is answered); a tap on
    Send with questions unanswered is refused with a message and sends nothing; once the rest
    is answered, the number box last and still focused, one tap sends."""
    survey = phone_survey(researcher)
    smoke, which, rating, days = questions(survey)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = phone.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request) if is_submit(request) else None)
    open_survey(page, live_server, survey)
    expect(page.locator(f"#question-{smoke.pk}")).to_be_enabled()
    progress = page.locator("#progress-text")

    def numbers() -> list[str]:
        return [page.inner_text(f"#question-{q.pk} [data-question-number]")
                for q in (smoke, which, rating, days) if page.is_visible(f"#question-{q.pk}")]

    expect(progress).to_have_text("0 of 3 answered")
    assert numbers() == ["Question 1 of 3", "Question 2 of 3", "Question 3 of 3"]
    page.tap("#send-answers")
    expect(page.locator("#respond-status")).to_contain_text("Still to answer")
    assert requests == []
    page.tap(f"label[for=answer-{smoke.pk}-1]")
    expect(progress).to_have_text("1 of 4 answered")
    assert numbers() == [f"Question {n} of 4" for n in (1, 2, 3, 4)]
    page.tap(f"label[for=answer-{rating.pk}-3]")
    expect(progress).to_have_text("3 of 4 answered")  # ticking no box is an answer
    page.tap(f"label[for=answer-{smoke.pk}-0]")  # the follow-up hidden again
    expect(progress).to_have_text("2 of 3 answered")
    assert numbers() == ["Question 1 of 3", "Question 2 of 3", "Question 3 of 3"]
    page.tap(f"#answer-{days.pk}")
    page.keyboard.type("12")
    expect(progress).to_have_text("3 of 3 answered")
    assert page.evaluate("document.activeElement.id") == f"answer-{days.pk}"
    # Before, the box's losing focus to this tap took the warning above the button away,
    # moving the button between the tap's press and release: no click, nothing sent.
    with page.expect_request(is_submit, timeout=5_000) as request:
        page.tap("#send-answers")
    page.wait_for_url("**/thanks/")
    assert requests == [request.value]
    body = request.value.post_data_json
    assert set(body) == BODY_KEYS
    assert stored_reports(survey) == [body["reports"]]
    phone.close()
