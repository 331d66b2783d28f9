"""A check-all-that-apply question in headless Chromium: authored, answered with the keyboard
on a phone (only a randomized report of one shape is sent, whatever was ticked), and its
shares and mean number of options ticked read on the results page; as a conditional follow-up
offering "Prefer not to say", ticked, refused or not asked in bodies of one shape."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.actions.surveys import open_survey
from surveys.models import Choice, Question, Survey
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

OPTIONS = ["Cannabis", "Alcohol", "Tobacco"]


def answer_on_a_phone(browser, live_server, survey, question, ticks: list[int]) -> dict:
    """Open the survey at 360 x 740, tick the boxes ``ticks`` with Tab and Space only, send;
    the body of the one request sent."""
    phone = browser.new_context(**PHONE_CONTEXT)
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
    browser, page, live_server, live_requests, researcher, axe
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
    live_requests.settle()
    open_survey(survey)

    bodies = [answer_on_a_phone(browser, live_server, survey, question, ticks)
              for ticks in ([0, 2], [])]
    mechanism = question.mechanism()
    for body in bodies:
        assert set(body) == {"idempotency_key", "invitation", "reports", "wording"}
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


# "Prefer not to say" and a condition ---------------------------------------------------------

USE = "Have you used cannabis in the past year?"
WITH = "What did you use it with?"


def author_follow_up(page, live_server, survey) -> None:
    """Through the question form: a yes/no question, then a check-all follow-up asked only of
    those who answer "Yes" that offers "Prefer not to say" (the form has no "optional" for it)."""
    sign_in(page, live_server)
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    page.fill("#id_text", USE)
    page.get_by_role("button", name="Save question").click()
    page.wait_for_url(f"**{survey.get_absolute_url()}")
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    page.fill("#id_text", WITH)
    page.select_option("#id_kind", "checkall")
    expect(page.locator("#id_optional")).to_be_hidden()
    page.fill("#id_choices", "\n".join(OPTIONS))
    page.get_by_label("Offer “Prefer not to say”").check()
    page.get_by_label("Asked of").select_option(label="Yes")
    page.get_by_role("button", name="Save question").click()
    page.wait_for_url(f"**{survey.get_absolute_url()}")


def respond_by_keyboard(browser, live_server, survey, respondent_does, axe=None) -> dict:
    """A respondent on a 360 x 740 phone answers the first question with the keyboard (Space
    on "No", ArrowDown to "Yes" if ``respondent_does`` is not "not asked") and does the rest
    with ``respondent_does(page, follow_up)``; the body of the one request sent."""
    use, follow_up = questions(survey)
    phone = browser.new_context(**PHONE_CONTEXT)
    respondent = phone.new_page()
    requests = []
    respondent.on("request", lambda request: requests.append(request))
    respondent.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    respondent.wait_for_selector(f"#question-{use.pk}:enabled")
    respondent.focus(f"#answer-{use.pk}-0")
    respondent.keyboard.press("Space")
    respondent_does(respondent, follow_up, axe)
    assert respondent.evaluate("document.documentElement.scrollWidth") <= 360
    body = send(respondent)
    respondent.wait_for_url("**/thanks/")
    sent = [r.post_data_json for r in requests if is_submit(r)]
    phone.close()
    assert sent == [body]
    return body


def ticks_two(respondent, follow_up, axe) -> None:
    respondent.keyboard.press("ArrowDown")  # "Yes": the follow-up shows
    expect(respondent.locator(f"#question-{follow_up.pk}")).to_be_visible()
    respondent.focus(f"#answer-{follow_up.pk}-0")
    for key in ("Space", "Tab", "Tab", "Space"):
        respondent.keyboard.press(key)
    for index in range(len(OPTIONS)):
        expect(respondent.locator(f"#answer-{follow_up.pk}-{index}")).to_be_checked(
            checked=index in (0, 2))


def refuses(respondent, follow_up, axe) -> None:
    respondent.keyboard.press("ArrowDown")
    expect(respondent.locator(f"#question-{follow_up.pk}")).to_be_visible()
    options = [respondent.locator(f"#answer-{follow_up.pk}-{i}") for i in range(len(OPTIONS))]
    refusal = respondent.get_by_role("checkbox", name="Prefer not to say")
    respondent.focus(f"#answer-{follow_up.pk}-1")
    respondent.keyboard.press("Space")  # ticks an option, then thinks better of it
    expect(options[1]).to_be_checked()
    # Tab from the last option reaches "Prefer not to say", set apart after them.
    respondent.focus(f"#answer-{follow_up.pk}-{len(OPTIONS) - 1}")
    respondent.keyboard.press("Tab")
    expect(refusal).to_be_focused()
    respondent.keyboard.press("Space")
    expect(refusal).to_be_checked()
    for option in options:
        expect(option).not_to_be_checked()
        expect(option).to_be_disabled()
    respondent.keyboard.press("Space")  # unticked: the options can be ticked again
    for option in options:
        expect(option).to_be_enabled()
    respondent.keyboard.press("Space")
    expect(options[0]).to_be_disabled()
    # In the page, the control's answer is the question's "declined": only its "No answer" box.
    declined, read = respondent.evaluate(f"""async () => {{
      const script = document.querySelector("script[src*='respond.js']").src;
      const control = await import(new URL("controls/check_all.js", script));
      const data = JSON.parse(document.getElementById("respond-data").textContent);
      const fieldset = document.getElementById("question-{follow_up.pk}");
      return [data.questions[1].declined, control.read(fieldset)];
    }}""")
    assert declined == read == [0, 0, 0, 1, 0]
    if axe:
        assert axe(respondent, "respond: a check-all follow-up refused [360px]") == []


def not_asked(respondent, follow_up, axe) -> None:
    expect(respondent.locator(f"#question-{follow_up.pk}")).to_be_hidden()


def test_a_conditional_check_all_question_is_ticked_refused_or_not_asked_in_one_shape(
    browser, page, live_server, live_requests, researcher, axe
):
    survey = Survey.objects.create(owner=researcher, title="Use", introduction="Hello.")
    author_follow_up(page, live_server, survey)
    use, follow_up = questions(survey)
    assert follow_up.kind == "checkall" and follow_up.offers_refusal and not follow_up.optional
    assert (follow_up.asked_if, follow_up.asked_if_answer) == (use, 1)
    assert follow_up.all_labels() == [*OPTIONS, "No answer", "Not asked"]
    live_requests.settle()
    open_survey(survey)

    bodies = {
        name: respond_by_keyboard(browser, live_server, survey, does, axe)
        for name, does in (("ticks two", ticks_two), ("refuses", refuses),
                           ("not asked", not_asked))
    }
    # One shape for all: the same keys, and per question one valid report of the same shape.
    mechanism = follow_up.mechanism()
    assert mechanism.k == len(OPTIONS) + 2
    shapes = set()
    for body in bodies.values():
        assert set(body) == {"idempotency_key", "invitation", "reports", "wording"}
        assert sorted(body["reports"]) == sorted([str(use.pk), str(follow_up.pk)])
        use.mechanism().validate_report(body["reports"][str(use.pk)])
        report = body["reports"][str(follow_up.pk)]
        mechanism.validate_report(report)  # [box, 0 or 1], never the set nor the refusal
        shapes.add((type(body["reports"][str(use.pk)]), type(report), len(report)))
    assert len(shapes) == 1, shapes
    assert stored_reports(survey) == [body["reports"] for body in bodies.values()]

    page.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    main = page.inner_text("main")
    assert "Among those who answered" in main
    assert "Estimated mean number of options ticked among those who answered, out of 3" in main
    axe(page, "results: a check-all follow-up with a refusal")
    axe.check()




@pytest.mark.parametrize("tag", list(AXE_CONTEXTS))
def test_axe_finds_nothing_on_a_check_all_follow_up_with_its_refusal(
    browser, live_server, researcher, axe, tag
):
    survey = Survey.objects.create(owner=researcher, title="Use", introduction="Hello.")
    use = Question.objects.create(survey=survey, order=1, text=USE, kind="yesno", epsilon=1.0)
    follow_up = Question.objects.create(
        survey=survey, order=2, text=WITH, kind="checkall", epsilon=1.0, offers_refusal=True,
        asked_if=use, asked_if_answer=1)
    for i, label in enumerate(OPTIONS):
        Choice.objects.create(question=follow_up, order=i, label=label)
    open_survey(survey)
    context = browser.new_context(**AXE_CONTEXTS[tag])
    respondent = context.new_page()
    respondent.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    respondent.wait_for_selector(f"#question-{use.pk}:enabled")
    respondent.check(f"#answer-{use.pk}-1")
    expect(respondent.get_by_role("checkbox", name="Prefer not to say")).to_be_visible()
    assert axe(respondent, f"respond: a check-all follow-up with its refusal [{tag}]") == []
    respondent.get_by_role("checkbox", name="Prefer not to say").check()
    expect(respondent.locator(f"#answer-{follow_up.pk}-0")).to_be_disabled()
    assert axe(respondent, f"respond: the refusal ticked, options disabled [{tag}]") == []
    context.close()
    axe.check()
