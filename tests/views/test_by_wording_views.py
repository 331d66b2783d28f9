"""The "Answers by wording" page, its JSON and its CSV."""

import csv
import io

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse

from surveys.actions.submissions import submission_create
from surveys.actions.surveys import open_survey
from surveys.actions.wording import correct
from surveys.models import Choice, Question, Survey
from tests.helpers import questions

NAMES = ("question-by-wording", "question-by-wording-json", "question-by-wording-csv")


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    survey = make_survey(researcher, status="open")
    yes_no, categorical = questions(survey)
    for i in range(6):
        submission_create(survey=survey, reports={yes_no.pk: i % 2, categorical.pk: i % 3},
                          idempotency_key=f"before-{i:04d}", wording=0)
    correct(survey, {"questions": {str(categorical.pk): {"labels": ["Never", "Once", "Often!"]}}})
    survey.refresh_from_db()
    for i in range(4):
        submission_create(survey=survey, reports={yes_no.pk: 1, categorical.pk: 2},
                          idempotency_key=f"after-{i:04d}", wording=survey.wording_version)
    submission_create(survey=survey, reports={yes_no.pk: 0, categorical.pk: 0},
                      idempotency_key="unrecorded-0")
    survey.refresh_from_db()
    return survey


@pytest.fixture
def owner(researcher) -> Client:
    client = Client()
    client.force_login(researcher)
    return client


def address(name: str, survey: Survey, question_pk: int) -> str:
    return reverse(name, args=[survey.pk, question_pk])


def test_the_page_shows_each_wording_with_its_responses(owner, survey):
    categorical = questions(survey)[1]
    response = owner.get(address("question-by-wording", survey, categorical.pk))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Answers by wording" in page
    assert f"Wording version {survey.wording_version}" in page
    assert "Wording version 0" in page
    assert "Before wordings were recorded" in page
    assert "Often!" in page  # the labels the later respondents read
    assert "Do the answers differ between the wordings?" in page
    assert address("question-by-wording-csv", survey, categorical.pk) in page


def test_the_json_gives_counts_estimates_and_the_test(owner, survey):
    categorical = questions(survey)[1]
    data = owner.get(address("question-by-wording-json", survey, categorical.pk)).json()
    assert data["n"] == 11
    assert [(w["version"], w["n"]) for w in data["wordings"]] == [
        (0, 6), (survey.wording_version, 4), (None, 1)
    ]
    assert data["test"]["method"] == "chi2" and data["test"]["wordings"] == 2
    assert 0 <= data["test"]["p_value"] <= 1
    assert data["test"]["rough"] is True  # a handful of responses
    for wording in data["wordings"]:
        assert len(wording["categories"]) == 3
        for category in wording["categories"]:
            assert category["ci_low"] <= category["estimate"] <= category["ci_high"]
    shown = [[c["label_shown"] for c in w["categories"]] for w in data["wordings"]]
    assert shown == [["Never", "Once", "Often"], ["Never", "Once", "Often!"], [None] * 3]
    assert {c["label"] for w in data["wordings"] for c in w["categories"]} == {
        "Never", "Once", "Often!"
    }


def test_the_csv_has_a_row_per_wording_and_answer(owner, survey):
    categorical = questions(survey)[1]
    response = owner.get(address("question-by-wording-csv", survey, categorical.pk))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:4] == ["wording", "from", "until", "responses"]
    assert [row[0] for row in rows[1:]] == ["0"] * 3 + [str(survey.wording_version)] * 3 + [""] * 3
    assert [row[3] for row in rows[1:]] == ["6"] * 3 + ["4"] * 3 + ["1"] * 3


@pytest.mark.parametrize("name", NAMES)
def test_another_researchers_survey_is_not_found(survey, other_researcher, name):
    client = Client()
    client.force_login(other_researcher)
    assert client.get(address(name, survey, questions(survey)[0].pk)).status_code == 404


@pytest.mark.parametrize("name", NAMES)
def test_a_question_of_another_survey_is_not_found(owner, survey, researcher, make_survey, name):
    elsewhere = make_survey(researcher, status="open", title="Elsewhere")
    response = owner.get(address(name, survey, questions(elsewhere)[0].pk))
    assert response.status_code == 404
    assert owner.get(address(name, survey, 10**9)).status_code == 404


@pytest.mark.parametrize("name", NAMES)
def test_a_draft_is_refused_with_a_message(owner, researcher, make_survey, name):
    draft = make_survey(researcher)
    response = owner.get(address(name, draft, questions(draft)[0].pk))
    assert response.status_code == 400
    assert b"draft" in response.content


@pytest.mark.parametrize("name", NAMES)
def test_a_survey_without_responses_is_no_error(owner, researcher, make_survey, name):
    empty = make_survey(researcher, status="open", title="Empty")
    response = owner.get(address(name, empty, questions(empty)[0].pk))
    assert response.status_code == 200
    if name == "question-by-wording-json":
        assert response.json()["n"] == 0 and response.json()["test"] is None


def test_the_wording_history_links_each_question(owner, survey):
    page = owner.get(reverse("survey-wording-history", args=[survey.pk])).content.decode()
    for question in questions(survey):
        assert address("question-by-wording", survey, question.pk) in page
    assert "6 responses recorded that their page showed this wording." in page
    assert "4 responses recorded that their page showed this wording." in page


def test_anonymous_visitors_are_sent_to_sign_in(client, survey):
    response = client.get(address("question-by-wording", survey, questions(survey)[0].pk))
    assert response.status_code == 302 and "login" in response.url


def test_every_kind_of_question_gets_its_page_json_and_csv(owner, researcher):
    """Check-all, number and rating questions too (one report per cell: the contingency
    test), never a 500."""
    survey = Survey.objects.create(owner=researcher, title="Kinds", introduction="Please.")
    checkall = Question.objects.create(survey=survey, order=1, text="Used", kind="checkall",
                                       epsilon=1.0)
    for i, label in enumerate(["Bus", "Bike", "Car"]):
        Choice.objects.create(question=checkall, order=i, label=label)
    number = Question.objects.create(
        survey=survey, order=2, text="Age", kind="number", epsilon=1.0,
        number_min=18, number_max=99, number_decimals=0, number_bins="30, 45, 65")
    open_survey(survey)
    survey.refresh_from_db()
    rng = np.random.default_rng(3)
    for i in range(30):
        boxes = rng.integers(0, 2, size=3)
        submission_create(survey=survey, idempotency_key=f"kinds-{i:05d}", wording=0, reports={
            checkall.pk: [int(x) for x in checkall.mechanism().perturb(
                np.array([boxes]), rng)[0]],
            number.pk: int(number.mechanism().perturb(np.array([30 + i]), rng)[0]),
        })
    for question in (checkall, number):
        for name in NAMES:
            response = owner.get(address(name, survey, question.pk))
            assert response.status_code == 200, (question.kind, name)
        data = owner.get(address("question-by-wording-json", survey, question.pk)).json()
        assert data["n"] == 30 and data["wordings"][0]["version"] == 0
