"""The respondent's page gives its wording version; the endpoint stores it, or refuses it."""

import json
import re

import pytest
from django.urls import reverse

from surveys.actions.wording import correct
from surveys.models import Submission, Survey
from tests.helpers import KEY, assert_nothing_stored, questions


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


def body(survey: Survey, **changes) -> dict:
    yes_no, categorical = questions(survey)
    valid = {"idempotency_key": KEY, "invitation": None, "wording": 0,
             "reports": {str(yes_no.pk): 1, str(categorical.pk): 2}}
    return valid | changes


def submit(client, survey: Survey, data: dict):
    return client.post(reverse("respond-submit", args=[survey.public_id]), json.dumps(data),
                       content_type="application/json")


def page_data(response) -> dict:
    pattern = r'<script id="respond-data" type="application/json">(.*?)</script>'
    return json.loads(re.search(pattern, response.content.decode(), re.S).group(1))


def test_the_page_gives_its_current_wording_version(client, survey):
    url = reverse("respond", args=[survey.public_id])
    assert page_data(client.get(url))["wording"] == 0
    correct(survey, {"title": "Habits, corrected"})
    survey.refresh_from_db()
    assert page_data(client.get(url))["wording"] == survey.wording_version > 0


def test_it_stores_the_wording_sent(client, survey):
    correct(survey, {"title": "Habits, corrected"})
    response = submit(client, survey, body(survey, wording=0))
    assert response.status_code == 201
    assert Submission.objects.get().wording == 0
    again = submit(client, survey, body(survey, wording=0))
    assert again.status_code == 200, "a resend after a reload is a replay"
    assert Submission.objects.count() == 1


@pytest.mark.parametrize(
    "wording", [None, -1, 1, 10**30, 2.5, "0", True, [0], {"version": 0}]
)
def test_it_refuses_a_bad_wording_and_stores_nothing(client, survey, wording):
    response = submit(client, survey, body(survey, wording=wording))
    assert response.status_code == 400
    assert response.json()["ok"] is False
    assert "wording" in response.json()["error"]
    assert_nothing_stored(survey)


def test_a_page_opened_before_wordings_were_kept_still_gets_its_answers_taken(client, survey):
    data = body(survey)
    del data["wording"]
    assert submit(client, survey, data).status_code == 201
    assert Submission.objects.get(survey=survey).wording is None


def test_it_refuses_a_body_with_another_field(client, survey):
    response = submit(client, survey, body(survey, when="2026-11-27T22:00"))
    assert response.status_code == 400
    assert "“wording”" in response.json()["error"]
    assert_nothing_stored(survey)
