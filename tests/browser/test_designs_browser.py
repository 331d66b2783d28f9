"""A survey that asks each respondent a random few of its questions, in headless Chromium: the
page shows the questions always asked and the blocks drawn, numbered among those shown, and
says why others were left out; a reload shows the same draw; every body has the same shape,
null exactly for the blocks left out; and the browser's own draw (crypto.getRandomValues) is
uniform over the blocks."""

import math

import pytest
from django.urls import reverse

from surveys.actions.designs import set_design
from surveys.actions.questions import save_question
from surveys.actions.surveys import open_survey
from surveys.models import Question, Survey, design_blocks
from tests.helpers import PHONE_CONTEXT, send, stored_reports

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

RESPONDENTS = 6


@pytest.fixture
def design_survey(researcher, epsilon_limits) -> Survey:
    """Q1 always asked; blocks [Q2], [Q3], [Q4 and its follow-up Q5]; one drawn each."""
    epsilon_limits(question=3.0, survey=3.0)
    survey = Survey.objects.create(owner=researcher, title="Long", introduction="Hello.")
    made = []
    for order in range(1, 6):
        question = Question(survey=survey, order=order, text=f"Question text {order}?",
                            kind="yesno", epsilon=1.0)
        if order == 5:
            question.asked_if, question.asked_if_answer = made[-1], 1
        made.append(save_question(question, []))
    set_design(survey, 3.0, 1, {made[0].pk})
    open_survey(survey)
    return survey


def test_each_respondent_sees_the_draw_and_sends_one_shape(browser, live_server, design_survey):
    survey = design_survey
    first, *_ = questions = list(survey.ordered_questions())
    blocks = design_blocks(questions)[1]
    bodies = []
    for _ in range(RESPONDENTS):
        phone = browser.new_context(**PHONE_CONTEXT)
        page = phone.new_page()
        page.goto(live_server.url + reverse("respond", args=[survey.public_id]))
        shown = [q for q in questions if page.locator(f"#question-{q.pk}").is_visible()]
        page.reload()  # the same draw after a reload: it was kept with the key
        assert [q for q in questions if page.locator(f"#question-{q.pk}").is_visible()] == shown
        assert shown[0] == first and len(shown) == 2  # Q5 shows only after "Yes" to Q4
        assert "left out at random" in page.inner_text("#left-out")
        assert page.inner_text(f"#question-{shown[1].pk} [data-question-number]") == (
            "Question 2 of 2")
        for question in shown:
            page.check(f"#answer-{question.pk}-1")
        follow_up = questions[4]
        if shown[1] == questions[3]:
            assert page.locator(f"#question-{follow_up.pk}").is_visible()
            page.check(f"#answer-{follow_up.pk}-0")
        bodies.append(send(page))
        page.wait_for_url("**/thanks/")
        phone.close()
    assert len({repr(sorted(body)) + repr(sorted(body["reports"])) for body in bodies}) == 1
    for body in bodies:
        reports = body["reports"]
        assert reports[str(first.pk)] in (0, 1)
        left = [b for b in blocks if all(reports[str(q.pk)] is None for q in b)]
        drawn = [b for b in blocks if all(reports[str(q.pk)] is not None for q in b)]
        assert len(left) == 2 and len(drawn) == 1
        for question in drawn[0]:
            question.mechanism().validate_report(reports[str(question.pk)])
    assert stored_reports(survey) == [body["reports"] for body in bodies]


def test_the_browsers_draw_is_uniform_over_the_blocks(page, live_server, design_survey):
    """3,000 draws of 2 of 5 blocks with the page's own random source: every one of the 10
    subsets equally likely (chi-square with 9 degrees of freedom, below its 0.999 quantile)."""
    page.goto(live_server.url + reverse("respond", args=[design_survey.public_id]))
    counts = page.evaluate("""async () => {
        const { drawBlocks } = await import(document.querySelector('script[type=module]').src
            .replace('respond.js', 'ldp.js'));
        const counts = {};
        for (let i = 0; i < 3000; i++) {
            const key = drawBlocks(5, 2).join(',');
            counts[key] = (counts[key] ?? 0) + 1;
        }
        return counts;
    }""")
    assert len(counts) == math.comb(5, 2)
    expected = 3000 / 10
    statistic = sum((count - expected) ** 2 / expected for count in counts.values())
    assert statistic < 27.88  # chi-square(9) 0.999 quantile
