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
from tests.helpers import (
    AXE_CONTEXTS,
    PHONE_CONTEXT,
    is_submit,
    questions,
    send,
    sign_in,
    stored_reports,
)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

TEXT = "How old are you?"


def answer_on_a_phone(browser, live_server, survey, age: str) -> dict:
    """Open the survey at 360 x 740, answer the yes/no question with Space and type ``age``
    into the number box with the keyboard, send; the body of the one request sent."""
    yes_no, number = questions(survey)
    phone = browser.new_context(**PHONE_CONTEXT)
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
    browser, page, live_server, live_requests, researcher, axe
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
    live_requests.settle()
    open_survey(survey)

    bodies = [answer_on_a_phone(browser, live_server, survey, age) for age in ("87", "23")]
    mechanism = number.mechanism()
    for body, age in zip(bodies, (87, 23), strict=True):
        assert set(body) == {"idempotency_key", "invitation", "reports", "wording"}
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

    with page.expect_navigation():
        card.get_by_role("link", name="Break this question down by another").click()
    page.get_by_label("Break down by").select_option(str(yes_no.pk))
    with page.expect_navigation():
        page.get_by_role("button", name="Show", exact=True).click()
    assert page.locator("[data-group-mean]").count() == 2
    axe(page, "breakdown: a number question by a yes/no one")

    export = page.request.get(live_server.url + reverse("export-reports-csv", args=[survey.pk]))
    rows = list(csv.DictReader(io.StringIO(export.text().lstrip("\ufeff"))))
    assert [int(row["q2"]) for row in rows] == [b["reports"][str(number.pk)] for b in bodies]
    axe.check()


def follow_up_survey(owner) -> Survey:
    """Open: "Student?", then the number question asked only of students, optional and
    offering "Prefer not to say"."""
    survey = Survey.objects.create(owner=owner, title="Ages", introduction="Hello.")
    student = Question.objects.create(survey=survey, order=0, text="Student?", kind="yesno",
                                      epsilon=1.0)
    Question.objects.create(
        survey=survey, order=1, text=TEXT, kind="number", epsilon=1.0, number_min=18,
        number_max=99, number_bins="30, 45, 65", offers_refusal=True, optional=True,
        asked_if=student, asked_if_answer=1)
    open_survey(survey)
    return survey


def test_a_number_follow_up_can_be_refused_skipped_or_not_asked_in_one_shape(
    browser, live_server, researcher, axe
):
    """A number asked only of students, optional, with "Prefer not to say": on a 360 px
    phone with the keyboard, one student types a number, one ticks "Prefer not to say" (the
    box empties and is disabled), one leaves it blank, one non-student is not asked. Every
    body has the same keys and one whole-number cell per question, each valid."""
    survey = follow_up_survey(researcher)
    student, number = questions(survey)
    assert number.all_labels() == ["No answer", "Not asked"]

    def respond(is_student: bool, then: str) -> dict:
        phone = browser.new_context(**PHONE_CONTEXT)
        respondent = phone.new_page()
        respondent.goto(live_server.url + reverse("respond", args=[survey.public_id]))
        respondent.focus(f"#answer-{student.pk}-{int(is_student)}")
        respondent.keyboard.press("Space")
        follow_up = respondent.locator(f"#question-{number.pk}")
        if not is_student:
            assert follow_up.is_hidden()
        else:
            follow_up.wait_for()
            box = respondent.locator(f"#answer-{number.pk}")
            if then == "number":
                box.focus()
                respondent.keyboard.type("27")
            elif then == "refuse":
                box.focus()
                respondent.keyboard.type("27")
                respondent.keyboard.press("Tab")
                assert respondent.evaluate("document.activeElement.id") == (
                    f"answer-{number.pk}-refusal")
                respondent.keyboard.press("Space")
                assert box.is_disabled() and box.input_value() == ""
                axe(respondent, "respond: a number refused [360px]")
        body = send(respondent)
        respondent.wait_for_url("**/thanks/")
        phone.close()
        return body

    bodies = {
        "typed a number": respond(True, "number"),
        "preferred not to say": respond(True, "refuse"),
        "left it blank": respond(True, "blank"),
        "not asked": respond(False, ""),
    }
    shapes = {name: (sorted(body), sorted(body["reports"]),
                     [type(report) for report in body["reports"].values()])
              for name, body in bodies.items()}
    assert len(set(map(repr, shapes.values()))) == 1, shapes
    for body in bodies.values():
        for question in (student, number):
            question.mechanism().validate_report(body["reports"][str(question.pk)])
    assert stored_reports(survey) == [body["reports"] for body in bodies.values()]
    axe.check()


@pytest.mark.parametrize("tag", list(AXE_CONTEXTS))
def test_axe_finds_nothing_with_a_number_refused(browser, live_server, researcher, axe, tag):
    """The number follow-up shown with "Prefer not to say" ticked, its thank-you page, and
    the results with the mean among those who gave a number."""
    survey = follow_up_survey(researcher)
    student, number = questions(survey)
    context = browser.new_context(**AXE_CONTEXTS[tag])
    respondent = context.new_page()
    respondent.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    respondent.wait_for_selector(f"#question-{student.pk}:enabled")
    respondent.check(f"#answer-{student.pk}-1")
    respondent.check(f"#answer-{number.pk}-refusal")
    assert respondent.locator(f"#answer-{number.pk}").is_disabled()
    axe(respondent, f"respond: a number refused [{tag}]")
    send(respondent)
    respondent.wait_for_url("**/thanks/")
    axe(respondent, f"thanks: a refused number's report read back [{tag}]")
    sign_in(respondent, live_server)
    respondent.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    assert "among those who gave a number" in respondent.inner_text("main")
    axe(respondent, f"results: a number with a refusal [{tag}]")
    context.close()
    axe.check()
