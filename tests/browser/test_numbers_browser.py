"""A number question in headless Chromium: authored with its range and bins (the fields show
only for numbers), answered with the keyboard on a phone (only a randomized cell is sent,
never the number), its mean read on the results page, broken down by a yes/no question and
exported."""

import csv
import io

import pytest
from django.urls import reverse

from surveys.actions.surveys import open_survey
from surveys.models import Question, Survey
from tests.helpers import is_submit, questions, send, sign_in, stored_reports

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

TEXT = "How old are you?"


def answer_on_a_phone(browser, live_server, survey, age: str) -> dict:
    """Open the survey at 360 x 740, answer the yes/no question with Space and type ``age``
    into the number box with the keyboard, send; the body of the one request sent."""
    yes_no, number = questions(survey)
    phone = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True)
    respondent = phone.new_page()
    requests = []
    respondent.on("request", lambda request: requests.append(request))
    respondent.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    box = respondent.get_by_role("spinbutton", name="Your number")
    assert box.count() == 1
    assert "A whole number from 18 to 99." in respondent.locator(
        f"#range-{number.pk}").inner_text()
    assert box.get_attribute("inputmode") == "numeric"
    assert respondent.evaluate("document.documentElement.scrollWidth") <= 360
    respondent.focus(f"#answer-{yes_no.pk}-1")
    respondent.keyboard.press("Space")
    for _ in range(3):  # from the radio group, past its "How is this answer protected?"
        respondent.keyboard.press("Tab")
        if respondent.evaluate("document.activeElement.id") == f"answer-{number.pk}":
            break
    assert respondent.evaluate("document.activeElement.id") == f"answer-{number.pk}"
    respondent.keyboard.type(age)
    assert box.input_value() == age
    assert box.bounding_box()["height"] >= 44
    body = send(respondent)
    respondent.wait_for_url("**/thanks/")
    sent = [r.post_data_json for r in requests if is_submit(r)]
    phone.close()
    assert sent == [body]
    return body


def test_a_number_question_is_authored_answered_by_keyboard_and_its_mean_shown(
    browser, page, live_server, researcher, axe
):
    survey = Survey.objects.create(owner=researcher, title="Ages", introduction="Hello.")
    Question.objects.create(survey=survey, order=0, text="Student?", kind="yesno", epsilon=1.0)
    sign_in(page, live_server)
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    page.fill("#id_text", TEXT)
    assert page.is_hidden("#id_number_min")
    page.select_option("#id_kind", "number")
    page.locator("#id_number_min").wait_for(state="visible")
    assert page.is_hidden("#id_choices") and page.is_hidden("#expected-share")
    page.fill("#id_number_min", "18")
    page.fill("#id_number_max", "99")
    page.fill("#id_number_bins", "30, 45, 65")
    page.fill("#id_epsilon", "1.5")
    # the planner speaks in the question's unit: 5% of the range of 81 is ±4.1
    page.get_by_text("For a margin of ±4.1 on the mean").wait_for()
    page.get_by_role("button", name="Save question").click()
    page.wait_for_url(f"**{survey.get_absolute_url()}")
    yes_no, number = questions(survey)
    assert number.kind == "number" and (number.number_min, number.number_max) == (18, 99)
    open_survey(survey)

    bodies = [answer_on_a_phone(browser, live_server, survey, age) for age in ("87", "23")]
    mechanism = number.mechanism()
    for body, age in zip(bodies, (87, 23), strict=True):
        assert set(body) == {"idempotency_key", "invitation", "reports"}
        assert sorted(body["reports"]) == sorted([str(yes_no.pk), str(number.pk)])
        report = body["reports"][str(number.pk)]
        assert isinstance(report, int) and 0 <= report < 64  # a cell, never the number
        mechanism.validate_report(report)
        assert age not in body["reports"].values() or age < 64
    assert stored_reports(survey) == [body["reports"] for body in bodies]

    page.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    data = page.request.get(live_server.url + reverse("survey-results-json", args=[survey.pk]))
    found = data.json()["questions"][1]
    mean = found["number"]["mean"]
    assert 18 <= mean["ci_low"] <= mean["estimate"] <= mean["ci_high"] <= 99
    assert page.locator("[data-number-mean]").inner_text() == f"{mean['estimate']:.1f}"
    card = page.locator("section.card", has_text=TEXT)
    assert card.locator("table").first.locator("tbody th").all_inner_texts() == [
        "18 to 30", "30 to 45", "45 to 65", "65 to 99"]
    assert card.locator("svg").first.is_visible()
    axe(page, "results: a number question")

    card.get_by_role("button", name="Show breakdown").click()
    page.locator("[data-group-mean]").first.wait_for()
    assert page.locator("[data-group-mean]").count() == 2
    axe(page, "breakdown: a number question by a yes/no one")

    export = page.request.get(live_server.url + reverse("export-reports-csv", args=[survey.pk]))
    rows = list(csv.DictReader(io.StringIO(export.text().lstrip("\ufeff"))))
    assert [int(row["q2"]) for row in rows] == [b["reports"][str(number.pk)] for b in bodies]
    axe.check()
