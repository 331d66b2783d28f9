"""The design page and the question form of a survey that asks each respondent a random few:
the page plans every question's epsilon and margin for the respondents expected and
recommends how many to ask; saving a design applies it, a bad one is refused in words and
stores nothing, another researcher's survey is not found, and an opened survey's design is
frozen; the question form says where a drawn question's epsilon comes from."""

import pytest
from django.urls import reverse

from surveys import ldp
from surveys.actions.designs import set_design
from surveys.actions.questions import save_question
from surveys.actions.surveys import open_survey
from surveys.ldp import joint
from surveys.models import Question, Survey, survey_epsilon

pytestmark = pytest.mark.django_db


@pytest.fixture
def twenty(researcher, epsilon_limits):
    """A draft of 20 yes/no questions at 0.15 each: the even split of 3."""
    epsilon_limits(question=3.0, survey=3.0)
    survey = Survey.objects.create(owner=researcher, title="Twenty")
    for order in range(1, 21):
        save_question(Question(survey=survey, order=order, text=f"Q{order}?", kind="yesno",
                               epsilon=0.15), [])
    return survey


def test_the_page_plans_both_designs_and_recommends_one(client, researcher, twenty):
    client.force_login(researcher)
    page = client.get(reverse("survey-design", args=[twenty.pk]), {"respondents": "5000"})
    assert page.status_code == 200
    plan = page.context["plan"]
    assert plan["recommended"] == 1
    every = plan["rows"][0]["every"]
    assert every["epsilon"] == pytest.approx(0.15) and every["answered"] == 5000
    assert every["wide"]  # a yes/no question at 0.15: far wider than 10 points
    text = page.content.decode()
    assert "What to expect with 5,000 respondents" in text and 'id="recommended"' in text


def test_saving_a_design_applies_it_and_a_bad_one_stores_nothing(client, researcher, twenty):
    client.force_login(researcher)
    url = reverse("survey-design", args=[twenty.pk])
    first = twenty.ordered_questions()[0]
    refused = client.post(url, {"budget": "3", "design": "sampled", "asked": "25"})
    assert refused.status_code == 200 and "from 1 to 20" in refused.content.decode()
    twenty.refresh_from_db()
    assert twenty.asked is None
    saved = client.post(url, {"budget": "3", "design": "sampled", "asked": "1",
                              "always": [str(first.pk)]})
    assert saved.status_code == 302
    twenty.refresh_from_db()
    questions = list(twenty.ordered_questions())
    assert twenty.asked == 1 and questions[0].always_asked
    assert [q.epsilon for q in questions] == pytest.approx([0.15] + [2.85] * 19)
    assert survey_epsilon(twenty, questions) == pytest.approx(3.0)
    page = client.get(reverse("survey-detail", args=[twenty.pk])).content.decode()
    assert "1 of the other 19, drawn at random" in page
    form = client.get(reverse("question-edit", args=[questions[3].pk])).content.decode()
    assert 'name="always_asked"' in form and "now 2.85" in form
    back = client.post(url, {"budget": "3", "design": "every"})
    assert back.status_code == 302
    twenty.refresh_from_db()
    assert twenty.asked is None and twenty.budget is None


def test_others_cannot_see_it_and_an_opened_design_is_frozen(
    client, researcher, other_researcher, twenty
):
    client.force_login(other_researcher)
    assert client.get(reverse("survey-design", args=[twenty.pk])).status_code == 404
    client.force_login(researcher)
    Question.objects.filter(survey=twenty).update(epsilon=0.1)
    open_survey(twenty)
    response = client.post(reverse("survey-design", args=[twenty.pk]),
                           {"budget": "3", "design": "sampled", "asked": "1"}, follow=True)
    assert "its design is frozen" in response.content.decode()
    twenty.refresh_from_db()
    assert twenty.asked is None


def test_before_opening_the_page_warns_of_margins_too_wide(client, researcher, twenty):
    client.force_login(researcher)
    page = client.get(reverse("survey-open", args=[twenty.pk])).content.decode()
    assert "With 1,000 respondents these questions" in page and "Q20?" in page
    Survey.objects.filter(pk=twenty.pk).update(response_target=500, budget=3.0, asked=1)
    Question.objects.filter(survey=twenty).update(epsilon=3.0)
    twenty.refresh_from_db()
    page = client.get(reverse("survey-open", args=[twenty.pk])).content.decode()
    # One of 20 at epsilon 3: 25 respondents answer each, too few for +-10 points.
    assert "With 500 respondents" in page and "(asked of about 25)" in page


def test_the_question_forms_sentences_follow_the_designs_budget(client, researcher, twenty):
    """Typing an epsilon for one of 20 questions: asking every question, everything sent is
    their sum; with a design, the budget of 3 (e^3: 20 times), whatever the other epsilons."""
    client.force_login(researcher)
    question = twenty.ordered_questions()[0]
    query = {"epsilon": "1", "kind": "yesno", "survey": twenty.pk, "question": question.pk}
    every = client.get(reverse("epsilon-explain"), query).json()["respondents_read"]
    assert "at most 84%" in every[-1]  # e^(19 x 0.15 + 1) = 47: odds 47:9, 83.9% rounded up
    Survey.objects.filter(pk=twenty.pk).update(budget=3.0, asked=1)
    designed = client.get(reverse("epsilon-explain"), query).json()["respondents_read"]
    assert "at most 70%" in designed[-1]  # e^3 = 20.1: odds 20.1:9, 69.1% rounded up


def test_the_plan_gives_a_grouping_questions_margin_within_its_groups(
    client, researcher, twenty
):
    """The first question groups the others and is always asked: a share within one of its
    two groups rests on the respondents who answer both, those who drew the other question
    under the design, everyone when every question is asked (``joint.margin_within_group``,
    a group of half of them)."""
    grouping = twenty.ordered_questions()[0]
    Question.objects.filter(pk=grouping.pk).update(used_for_breakdowns=True)
    set_design(twenty, 3.0, 1, {grouping.pk})
    client.force_login(researcher)
    page = client.get(reverse("survey-design", args=[twenty.pk]), {"respondents": "5000"})
    plan = page.context["plan"]
    first, second = plan["rows"][:2]
    assert "within" not in second["sampled"]  # not a grouping question
    drawn = ldp.expected_asked(5000, 19, 1)
    assert first["sampled"]["within"]["margin"] == pytest.approx(joint.margin_within_group(
        ldp.randomized_response(grouping.epsilon),
        ldp.randomized_response(second["sampled"]["epsilon"]), int(drawn), 0.5))
    assert first["every"]["within"]["margin"] == pytest.approx(joint.margin_within_group(
        ldp.randomized_response(0.15), ldp.randomized_response(0.15), 5000, 0.5))
    assert first["sampled"]["within"]["margin"] < first["every"]["within"]["margin"]
    assert "within a group:" in page.content.decode()
