"""In headless Chromium: a survey closes itself at its response target, and the page goes on
to the survey's completion link only after the server stored the answers, never before and
never when sending failed."""

import pytest
from django.urls import reverse

from surveys.models import Submission, Survey
from tests.helpers import assert_nothing_stored, questions

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status=Survey.Status.OPEN)


def is_submit(request) -> bool:
    return request.method == "POST" and request.url.endswith("/submit/")


def open_survey(page, live_server, survey: Survey):
    return page.goto(live_server.url + reverse("respond", args=[survey.public_id]))


def answer(page, survey: Survey) -> None:
    for question in questions(survey):
        page.check(f"#answer-{question.pk}-1")


def test_the_survey_closes_itself_at_its_target(browser, live_server, survey):
    Survey.objects.filter(pk=survey.pk).update(response_target=1)
    first = browser.new_context().new_page()
    late = browser.new_context().new_page()  # loaded while there was still room
    open_survey(first, live_server, survey)
    open_survey(late, live_server, survey)
    answer(first, survey)
    with first.expect_response(lambda r: is_submit(r.request)) as response:
        first.click("#send-answers")
    assert response.value.status == 201
    first.wait_for_url("**/thanks/")
    assert Submission.objects.filter(survey=survey).count() == 1
    survey.refresh_from_db()
    assert (survey.status, survey.response_count) == (Survey.Status.CLOSED, 1)

    answer(late, survey)
    with late.expect_response(lambda r: is_submit(r.request)) as refused:
        late.click("#send-answers")
    assert refused.value.status == 410
    late.wait_for_selector("#respond-status:has-text('closed')")
    assert Submission.objects.filter(survey=survey).count() == 1

    following = browser.new_context().new_page()
    shown = open_survey(following, live_server, survey)
    assert shown.status == 410
    assert following.is_visible("text=This survey is closed")
    assert following.locator("#send-answers").count() == 0
    for page in (first, late, following):
        page.context.close()


@pytest.fixture
def panel_survey(survey, live_server) -> tuple[Survey, str]:
    completion = live_server.url + "/complete-test/?cc=ABC"  # a 404 here: only the visit counts
    Survey.objects.filter(pk=survey.pk).update(completion_url=completion)
    survey.refresh_from_db()
    return survey, completion


def test_the_completion_link_is_followed_only_after_the_answers_are_stored(
    page, live_server, panel_survey
):
    survey, completion = panel_survey
    events = []
    page.on("response", lambda r: is_submit(r.request) and events.append(("stored", r.status)))
    page.on("request", lambda r: "/complete-test/" in r.url and events.append(("visit", r)))
    open_survey(page, live_server, survey)
    host = live_server.url.split("//")[1].split(":")[0]
    notice = page.text_content("#completion-notice")
    assert f"After sending, you will be taken to {host}." in notice
    answer(page, survey)
    with page.expect_navigation(url=completion) as navigation:
        with page.expect_response(lambda r: is_submit(r.request)) as response:
            page.click("#send-answers")
    assert response.value.status == 201
    assert navigation.value.status == 404  # the test panel does not exist; it was reached
    assert [event[0] for event in events] == ["stored", "visit"]
    visit = events[1][1]
    assert visit.url == completion  # exactly the link: nothing of the answers added
    assert visit.method == "GET" and visit.post_data is None
    assert "referer" not in visit.headers  # respondents' pages send no referrer
    assert Submission.objects.filter(survey=survey).count() == 1


@pytest.mark.parametrize("failure", ["abort", "503", "410"])
def test_the_completion_link_is_not_followed_when_sending_fails(
    page, live_server, panel_survey, failure
):
    survey, _ = panel_survey
    visits = []
    page.on("request", lambda r: "/complete-test/" in r.url and visits.append(r))
    submit_url = live_server.url + reverse("respond-submit", args=[survey.public_id])
    if failure == "abort":
        page.route(submit_url, lambda route: route.abort())
        message = "could not reach the server"
    else:
        page.route(submit_url, lambda route: route.fulfill(
            status=int(failure), json={"ok": False, "error": "Refused for this test."}
        ))
        message = "Refused for this test."
    open_survey(page, live_server, survey)
    answer(page, survey)
    with page.expect_request(is_submit):
        page.click("#send-answers")
    page.wait_for_selector(f"#respond-status:has-text('{message}')")
    assert visits == []
    assert page.url == live_server.url + reverse("respond", args=[survey.public_id])
    assert_nothing_stored(survey)
