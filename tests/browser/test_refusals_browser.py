"""Refusals, optional and conditional questions in headless Chromium: authored, answered on
a phone with the keyboard, and sent as bodies of one shape whatever each respondent saw,
skipped or refused."""

import pytest
from django.urls import reverse

from surveys.actions.surveys import open_survey
from surveys.models import Survey
from tests.helpers import AXE_CONTEXTS, PHONE_CONTEXT, questions, send, sign_in, stored_reports

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]


def author(page, live_server, survey):
    """Through the question form: a yes/no question offering "Prefer not to say", then an
    optional multiple-choice follow-up asked only of those who answer "Yes"."""
    sign_in(page, live_server)
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    page.fill("#id_text", "Have you used cannabis in the past year?")
    page.get_by_label("Offer “Prefer not to say”").check()
    page.get_by_role("button", name="Save question").click()
    page.wait_for_url(f"**{survey.get_absolute_url()}")
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    page.fill("#id_text", "Where did you get it?")
    page.select_option("#id_kind", "categorical")
    page.fill("#id_choices", "A friend\nA dealer\nA shop abroad")
    page.get_by_role("checkbox", name="Optional").check()
    page.get_by_label("Asked of").select_option(label="Yes")
    page.get_by_role("button", name="Save question").click()
    page.wait_for_url(f"**{survey.get_absolute_url()}")


def answer(browser, live_server, survey, keys, axe=None):
    """A respondent on a 360 px phone presses ``keys`` on the first question (from its first
    option), then, if the follow-up shows, answers it with ``follow_up`` or leaves it; returns
    (whether the follow-up was shown, the body sent)."""
    use, where = questions(survey)
    phone = browser.new_context(**PHONE_CONTEXT)
    respondent = phone.new_page()
    respondent.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    follow_up = respondent.locator(f"#question-{where.pk}")
    respondent.focus(f"#answer-{use.pk}-0")
    respondent.keyboard.press("Space")
    for key in keys["first"]:
        respondent.keyboard.press(key)
    shown = follow_up.is_visible()
    if shown and keys.get("follow_up") is not None:
        respondent.check(f"#answer-{where.pk}-{keys['follow_up']}")
    if axe:
        axe(respondent, "respond: a refusal option and a follow-up [360px]")
    body = send(respondent)
    respondent.wait_for_url("**/thanks/")
    phone.close()
    return shown, body


def test_who_saw_skipped_or_refused_cannot_be_told_from_the_request(
    browser, page, live_server, live_requests, researcher, axe
):
    survey = Survey.objects.create(owner=researcher, title="Use", introduction="Hello.")
    author(page, live_server, survey)
    use, where = questions(survey)
    assert use.all_labels() == ["No", "Yes", "No answer"]
    assert where.all_labels()[-2:] == ["No answer", "Not asked"]
    assert where.optional and where.asked_if == use and where.asked_if_answer == 1
    live_requests.settle()
    open_survey(survey)

    respondents = {
        "yes, answered the follow-up": ({"first": ["ArrowDown"], "follow_up": 1}, True),
        "yes, skipped the follow-up": ({"first": ["ArrowDown"]}, True),
        "no, not asked": ({"first": []}, False),
        "preferred not to say, not asked": ({"first": ["ArrowDown", "ArrowDown"]}, False),
    }
    bodies = {}
    for name, (keys, should_show) in respondents.items():
        shown, bodies[name] = answer(browser, live_server, survey, keys,
                                     axe if name.endswith("answered the follow-up") else None)
        assert shown == should_show, name

    # One shape for all: the same keys, one whole-number report per question, each valid.
    shapes = {
        name: (sorted(body), sorted(body["reports"]),
               [type(report) for report in body["reports"].values()])
        for name, body in bodies.items()
    }
    assert len(set(map(repr, shapes.values()))) == 1, shapes
    for body in bodies.values():
        for question in (use, where):
            question.mechanism().validate_report(body["reports"][str(question.pk)])
    assert stored_reports(survey) == [body["reports"] for body in bodies.values()]

    page.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    assert "Among those who answered" in page.inner_text("main")
    assert "Among those asked" not in page.inner_text("main")  # the follow-up is optional
    axe(page, "results: a refusal and a follow-up")
    axe.check()




@pytest.mark.parametrize("tag", list(AXE_CONTEXTS))
def test_axe_finds_nothing_with_a_refusal_and_a_follow_up(
    browser, live_server, researcher, make_survey, axe, tag
):
    """The respondent page with "Prefer not to say" and a follow-up hidden, then shown, then
    with its optional hint; the results with shares among those who answered."""
    survey = make_survey(researcher)
    use, where = questions(survey)
    use.offers_refusal = True
    use.save()
    where.asked_if, where.asked_if_answer, where.optional = use, 1, True
    where.save()
    open_survey(survey)
    context = browser.new_context(**AXE_CONTEXTS[tag])
    respondent = context.new_page()
    respondent.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    respondent.wait_for_selector(f"#question-{use.pk}:enabled")
    axe(respondent, f"respond: refusal offered, follow-up hidden [{tag}]")
    respondent.check(f"#answer-{use.pk}-1")
    respondent.locator(f"#question-{where.pk}").wait_for()
    axe(respondent, f"respond: follow-up shown, optional [{tag}]")
    send(respondent)
    respondent.wait_for_url("**/thanks/")
    axe(respondent, f"thanks: a follow-up's report read back [{tag}]")
    sign_in(respondent, live_server)
    respondent.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    axe(respondent, f"results: shares among those who answered [{tag}]")
    context.close()
    axe.check()
