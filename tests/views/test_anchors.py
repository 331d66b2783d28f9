"""Validation anchors through the site: set on a yes/no question while authoring, checked
against the reports on the results page and in the JSON."""

import numpy as np
import pytest
from django.urls import reverse

from surveys.actions.submissions import submission_create
from surveys.actions.surveys import duplicate_survey, open_survey
from surveys.models import Question, Survey
from surveys.queries import contracts
from tests.helpers import assert_shape

pytestmark = pytest.mark.django_db

MARS = {"text": "Have you ever been to Mars?", "kind": "yesno", "epsilon": "1"}


def test_a_researcher_marks_a_yes_no_question_as_an_anchor(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    response = client.post(reverse("question-create", args=[survey.pk]),
                           {**MARS, "known_percent": "0"})
    assert response.status_code == 302
    question = survey.questions.get()
    assert question.known_share == 0.0
    page = client.get(reverse("question-edit", args=[question.pk])).content.decode()
    assert 'name="known_percent" value="0.0"' in page


@pytest.mark.parametrize("changes,error", [
    ({"kind": "categorical", "choices": "A\nB", "known_percent": "10"},
     "Only yes/no questions can be validation anchors."),
    ({"known_percent": "101"}, "less than or equal to 100"),
    ({"known_percent": "-1"}, "greater than or equal to 0"),
    ({"known_percent": "lots"}, "Enter a number."),
])
def test_a_bad_anchor_gets_a_clear_error_and_stores_nothing(client, researcher, changes, error):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    response = client.post(reverse("question-create", args=[survey.pk]), {**MARS, **changes})
    assert response.status_code == 200 and error in response.content.decode()
    assert not Question.objects.exists()


def anchored_survey(owner, careless: float, n: int, seed: int = 3) -> Survey:
    """An open survey with one anchor (known share of "yes": 0), answered by n respondents of
    whom a share ``careless`` answer at random."""
    survey = Survey.objects.create(owner=owner, title="Check")
    question = Question.objects.create(survey=survey, order=1, known_share=0.0, **{
        key: value for key, value in MARS.items() if key != "epsilon"}, epsilon=2.0)
    open_survey(survey)
    rng = np.random.default_rng(seed)
    truth = (rng.random(n) < careless) & (rng.random(n) < 0.5)
    reports = question.mechanism().perturb(truth.astype(int), rng)
    for i, report in enumerate(reports):
        submission_create(survey=survey, idempotency_key=f"mars-{i:06d}",
                          reports={question.pk: int(report)})
    return survey


def test_results_flag_careless_answering_against_the_anchor(client, researcher):
    """A third answered at random: the reports say about 17% have been to Mars; the page
    says the answers disagree with the known 0% and estimates the careless share."""
    survey = anchored_survey(researcher, careless=1 / 3, n=1500)
    client.force_login(researcher)
    data = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    anchor = data["questions"][0]["anchor"]
    assert_shape(anchor, contracts.Anchor)
    assert anchor["answer"] == "Yes" and anchor["known"] == 0.0
    assert not anchor["agrees"] and anchor["p_value"] < 0.001
    assert anchor["careless_low"] <= 1 / 3 <= anchor["careless_high"]
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "The answers disagree with it" in page and "p &lt; 0.001" in page


def test_results_of_careful_answers_agree_with_the_anchor(client, researcher):
    survey = anchored_survey(researcher, careless=0.0, n=600)
    client.force_login(researcher)
    anchor = client.get(reverse("survey-results-json", args=[survey.pk])).json()[
        "questions"][0]["anchor"]
    assert anchor["agrees"] and anchor["careless_low"] == 0.0
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "The answers agree with it" in page


def test_other_questions_have_no_anchor(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    client.force_login(researcher)
    questions = client.get(reverse("survey-results-json", args=[survey.pk])).json()["questions"]
    assert [question["anchor"] for question in questions] == [None, None]


def test_a_copy_keeps_its_anchors(client, researcher):
    survey = anchored_survey(researcher, careless=0.0, n=0)
    copy = duplicate_survey(survey)
    assert [q.known_share for q in copy.ordered_questions()] == [0.0]


def test_a_known_share_on_a_question_that_cannot_be_an_anchor_is_ignored(
    client, researcher, make_survey
):
    """Only the form stops it; set by other means, results leave it out rather than fail."""
    survey = make_survey(researcher, status="open")
    Question.objects.filter(kind="categorical").update(known_share=0.5)
    client.force_login(researcher)
    response = client.get(reverse("survey-results-json", args=[survey.pk]))
    assert [q["anchor"] for q in response.json()["questions"]] == [None, None]
