"""How old the results are, on the page and in the JSON, and the researcher's "Recompute now"
(a POST of a signed-in form; surveys.views.results.survey_results_refresh)."""

from __future__ import annotations

import datetime
import re

import pytest
from django.test import Client
from django.urls import reverse

from surveys.actions.surveys import close_survey
from surveys.models import Account, ApiToken
from surveys.queries import results
from tests.helpers import CLOCK_START, held_clock, submit

pytestmark = pytest.mark.django_db

@pytest.fixture
def clock(monkeypatch) -> list[float]:
    return held_clock(monkeypatch)


@pytest.fixture
def survey(researcher, make_survey, clock):
    """An open survey with 20 responses whose results were computed, then 2 more responses."""
    survey = make_survey(researcher, status="open")
    submit(survey, 20)
    survey.refresh_from_db()
    results.survey_results(survey)
    submit(survey, 2, seed=2)
    return survey


def page_of(client: Client, survey) -> str:
    return client.get(reverse("survey-results", args=[survey.pk])).content.decode()


def test_the_json_says_when_its_figures_were_made_and_what_arrived_since(
    client, researcher, survey
):
    client.force_login(researcher)
    data = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    assert data["as_of"] == "1970-01-12T13:46:40Z"  # CLOCK_START, in UTC
    assert data["new_responses"] == 2 and data["survey"]["responses"] == 20


def test_the_page_says_it_in_the_researchers_time_zone(client, researcher, survey):
    Account.objects.update_or_create(user=researcher, defaults={"time_zone": "Asia/Kolkata"})
    client.force_login(researcher)
    page = page_of(client, survey)
    assert "Figures as of 19:16:40, 2 new responses since." in page  # 13:46:40 UTC
    assert "recomputed at most every 30 seconds" in page


def test_without_an_interval_the_page_promises_none(client, researcher, survey, settings):
    settings.RESULTS_REFRESH_SECONDS = 0
    client.force_login(researcher)
    page = page_of(client, survey)
    assert "<strong>22</strong> responses" in page and "recomputed at most" not in page


def csrf_client(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def test_recompute_now_is_a_button_that_needs_the_forms_token(researcher, survey, clock):
    client = csrf_client(researcher)
    url = reverse("survey-results-refresh", args=[survey.pk])
    page = page_of(client, survey)
    form = re.search(rf'<form method="post" action="{url}".*?</form>', page, re.S).group(0)
    assert '<button type="submit"' in form  # reached and pressed with the keyboard
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    clock[0] += results.REFRESH_NOW_SECONDS
    assert client.post(url).status_code == 403  # no token: refused, nothing computed
    assert "2 new responses since" in page_of(client, survey)
    response = client.post(url, {"csrfmiddlewaretoken": token})
    assert response.status_code == 302 and response["Location"] == reverse(
        "survey-results", args=[survey.pk]
    )
    after = page_of(client, survey)
    assert "<strong>22</strong> responses" in after and "0 new responses since" in after
    assert f'action="{url}"' not in after  # nothing left to recompute


def test_recompute_now_is_at_most_every_few_seconds(client, researcher, survey, clock):
    client.force_login(researcher)
    url = reverse("survey-results-refresh", args=[survey.pk])
    clock[0] += results.REFRESH_NOW_SECONDS - 1
    assert client.post(url).status_code == 302
    assert "2 new responses since" in page_of(client, survey)


def test_recompute_now_of_another_researchers_survey_is_not_found(
    client, other_researcher, survey
):
    client.force_login(other_researcher)
    url = reverse("survey-results-refresh", args=[survey.pk])
    assert client.post(url).status_code == 404


def test_a_token_cannot_ask_for_a_recompute(client, researcher, survey, clock):
    _, secret = ApiToken.issue(researcher, "script", 30)
    url = reverse("survey-results-refresh", args=[survey.pk])
    clock[0] += results.REFRESH_NOW_SECONDS
    response = client.post(url, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 302 and response["Location"].startswith(
        reverse("login")
    )
    survey.refresh_from_db()
    assert results.survey_results(survey)["new_responses"] == 2  # nothing computed


def test_recompute_now_is_a_post_only(client, researcher, survey):
    client.force_login(researcher)
    assert client.get(reverse("survey-results-refresh", args=[survey.pk])).status_code == 405


def test_a_closed_survey_shows_its_final_results_without_an_age(client, researcher, survey):
    survey.refresh_from_db()
    close_survey(survey)
    client.force_login(researcher)
    page = page_of(client, survey)
    assert "<strong>22</strong> responses" in page
    assert "Figures as of" not in page and "Recompute now" not in page


def test_the_as_of_time_is_the_snapshots(survey, clock):
    survey.refresh_from_db()
    shown = results.survey_results(survey)["as_of"]
    assert shown == datetime.datetime.fromtimestamp(CLOCK_START, tz=datetime.UTC)


def test_a_recompute_after_the_response_is_in_the_researchers_language(
    client, researcher, survey, clock, settings
):
    Account.objects.update_or_create(user=researcher, defaults={"language": "de"})
    client.force_login(researcher)
    url = reverse("survey-results-json", args=[survey.pk])
    assert client.get(url).json()["survey"]["responses"] == 22  # the German figures' first
    submit(survey, 1, seed=3)
    clock[0] += settings.RESULTS_REFRESH_SECONDS
    served = client.get(url).json()  # the figures it had; recomputed once it is sent
    assert served["survey"]["responses"] == 22 and served["new_responses"] == 1
    fresh = client.get(url).json()  # kept for a German page, in German
    assert fresh["survey"]["responses"] == 23 and fresh["new_responses"] == 0
    assert fresh["methods"] == served["methods"] != results.in_words(results.METHODS)
    assert "<strong>23</strong> Antworten" in page_of(client, survey)
