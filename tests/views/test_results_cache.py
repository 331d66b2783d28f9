"""Computed results are kept in each process's memory in front of the shared cache
(surveysite.cache.KeptInProcess): a page of cached results asks the shared cache only which
snapshot is the latest (surveys.queries.results.cached)."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.helpers import submit

pytestmark = pytest.mark.django_db


def test_a_value_kept_here_is_read_without_a_query(django_assert_num_queries):
    kept = caches["results"]
    kept.set("figures", {"n": 3})
    with django_assert_num_queries(0):
        assert kept.get("figures") == {"n": 3}
    assert caches["default"].get("figures") == {"n": 3}  # for the other processes


def test_a_value_another_process_stored_is_read_from_the_shared_cache_once(
    django_assert_num_queries,
):
    caches["default"].set("figures", {"n": 4})  # as another app server would have
    kept = caches["results"]
    with django_assert_num_queries(1):
        assert kept.get("figures") == {"n": 4}
    with django_assert_num_queries(0):
        assert kept.get("figures") == {"n": 4}
    assert kept.get("missing", "none") == "none"


def test_clearing_forgets_the_copies_and_the_shared_values():
    kept = caches["results"]
    kept.set("figures", {"n": 5})
    kept.clear()
    assert kept.get("figures") is None
    assert caches["default"].get("figures") is None


def test_a_second_view_of_the_results_asks_the_shared_cache_only_which_is_the_latest(
    client, researcher, make_survey
):
    from surveys.actions.surveys import open_survey

    client.force_login(researcher)
    survey = make_survey(researcher)
    open_survey(survey)
    submit(survey, 20)
    url = reverse("survey-results", args=[survey.pk])
    assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    (read,) = [q["sql"] for q in queries if "cache_table" in q["sql"]]
    assert read.startswith("SELECT") and ":latest:" in read  # the figures and cards: in memory
