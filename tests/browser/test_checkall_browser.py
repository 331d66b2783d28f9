"""A check-all-that-apply question in headless Chromium: authored, answered with the keyboard
on a phone (only a randomized report of one shape is sent, whatever was ticked), and its
shares and mean number of options ticked read on the results page."""

import pytest
from django.urls import reverse

from surveys.actions.surveys import open_survey
from surveys.models import Survey
from tests.helpers import is_submit, questions, send, sign_in, stored_reports

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

OPTIONS = ["Cannabis", "Alcohol", "Tobacco"]


def answer_on_a_phone(browser, live_server, survey, question, ticks: list[int]) -> dict:
    """Open the survey at 360 x 740, tick the boxes ``ticks`` with Tab and Space only, send;
    the body of the one request sent."""
    phone = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True)
    respondent = phone.new_page()
    requests = []
    respondent.on("request", lambda request: requests.append(request))
    respondent.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    legend = respondent.locator(f"#question-{question.pk} legend")
    assert "Which have you used this month?" in legend.inner_text()
    assert respondent.get_by_role("group", name="Which have you used this month?").count() == 1
    for label in OPTIONS:
        assert respondent.get_by_role("checkbox", name=label).count() == 1
    assert respondent.evaluate("document.documentElement.scrollWidth") <= 360
    respondent.focus(f"#answer-{question.pk}-0")
    for index in range(len(OPTIONS)):
        if index in ticks:
            respondent.keyboard.press("Space")
        if index < len(OPTIONS) - 1:
            respondent.keyboard.press("Tab")
    for index in range(len(OPTIONS)):
        assert respondent.is_checked(f"#answer-{question.pk}-{index}") == (index in ticks)
    box = respondent.locator(f"label[for=answer-{question.pk}-0]").bounding_box()
    assert box["height"] >= 44
    body = send(respondent)
    respondent.wait_for_url("**/thanks/")
    sent = [r.post_data_json for r in requests if is_submit(r)]
    phone.close()
    assert sent == [body]
    return body


def test_a_check_all_question_is_authored_answered_by_keyboard_and_its_shares_shown(
    browser, page, live_server, researcher, axe
):
    survey = Survey.objects.create(owner=researcher, title="Habits", introduction="Hello.")
    sign_in(page, live_server)
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    page.fill("#id_text", "Which have you used this month?")
    page.select_option("#id_kind", "checkall")
    assert page.is_visible("#id_choices") and page.is_hidden("#id_scale_low")
    page.fill("#id_choices", "\n".join(OPTIONS))
    page.get_by_role("button", name="Save question").click()
    page.wait_for_url(f"**{survey.get_absolute_url()}")
    (question,) = questions(survey)
    assert question.kind == "checkall" and question.labels() == OPTIONS
    open_survey(survey)

    bodies = [answer_on_a_phone(browser, live_server, survey, question, ticks)
              for ticks in ([0, 2], [])]
    mechanism = question.mechanism()
    for body in bodies:
        assert set(body) == {"idempotency_key", "invitation", "reports"}
        assert list(body["reports"]) == [str(question.pk)]
        report = body["reports"][str(question.pk)]
        assert isinstance(report, list) and len(report) == 2  # [option, ticked], never the set
        mechanism.validate_report(report)
    assert stored_reports(survey) == [body["reports"] for body in bodies]

    page.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    data = page.request.get(live_server.url + reverse("survey-results-json", args=[survey.pk]))
    found = data.json()["questions"][0]
    mean = found["mean_count"]
    assert 0 <= mean["ci_low"] <= mean["estimate"] <= mean["ci_high"] <= 3
    assert page.locator("[data-mean-count]").inner_text() == f"{mean['estimate']:.2f}"
    table = page.locator("table").first
    assert table.locator("tbody th").all_inner_texts() == OPTIONS
    assert page.locator("svg").first.is_visible()
    axe(page, "results: a check-all question")
    axe.check()
