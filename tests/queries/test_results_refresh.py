"""Results that refresh at most once per interval while responses stream in
(surveys.queries.results.cached): time is moved on by replacing the module's clock, never
waited for; two workers are two front-ends of the results cache over one shared cache."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import caches

from surveys.actions.surveys import close_survey
from surveys.queries import results
from surveysite.cache import KeptInProcess
from tests.helpers import held_clock, submit

pytestmark = pytest.mark.django_db

@pytest.fixture
def clock(monkeypatch) -> list[float]:
    return held_clock(monkeypatch)


@pytest.fixture
def computed(monkeypatch) -> list[int]:
    """The number of responses each full computation of a survey's results counted."""
    counted = []
    compute = results._questions_results

    def counting(survey, counts, n, drawn):
        counted.append(n)
        return compute(survey, counts, n, drawn)

    monkeypatch.setattr(results, "_questions_results", counting)
    return counted


@pytest.fixture
def survey(researcher, make_survey):
    survey = make_survey(researcher, status="open")
    submit(survey, 20)
    survey.refresh_from_db()
    return survey


def fresh(survey):
    """The survey as a new request reads it (its response count now)."""
    survey.refresh_from_db()
    return survey


def test_new_responses_within_the_interval_recompute_nothing(survey, clock, computed, settings):
    first = results.survey_results(survey)
    submit(survey, 3, seed=2)
    clock[0] += settings.RESULTS_REFRESH_SECONDS - 1
    again = results.survey_results(fresh(survey))
    assert computed == [20]
    assert again["survey"]["responses"] == 20 and again["new_responses"] == 3
    assert again["snapshot"] == first["snapshot"] and again["as_of"] == first["as_of"]


def test_it_recomputes_once_after_the_interval(survey, clock, computed, settings):
    results.survey_results(survey)
    submit(survey, 3, seed=2)
    clock[0] += settings.RESULTS_REFRESH_SECONDS
    later = results.survey_results(fresh(survey))
    results.survey_results(survey)
    assert computed == [20, 23]
    assert later["survey"]["responses"] == 23 and later["new_responses"] == 0
    assert later["as_of"].timestamp() == clock[0]


def test_nothing_new_recomputes_nothing_however_late(survey, clock, computed):
    results.survey_results(survey)
    clock[0] += 24 * 3600
    assert results.survey_results(fresh(survey))["new_responses"] == 0
    assert computed == [20]


def test_it_counts_the_new_responses_since_the_figures(survey, clock, computed):
    results.survey_results(survey)
    for added, seed in ((1, 2), (4, 3)):
        submit(survey, added, seed=seed)
    assert results.survey_results(fresh(survey))["new_responses"] == 5


def test_a_recompute_asked_for_now_waits_only_a_few_seconds(survey, clock, computed):
    results.survey_results(survey)
    submit(survey, 2, seed=2)
    clock[0] += results.REFRESH_NOW_SECONDS - 1
    assert results.survey_results(fresh(survey), now_asked=True)["new_responses"] == 2
    clock[0] += 1
    assert results.survey_results(survey, now_asked=True)["new_responses"] == 0
    assert computed == [20, 22]


def test_a_closed_surveys_results_are_final_at_once(survey, clock, computed):
    results.survey_results(survey)
    submit(survey, 2, seed=2)
    close_survey(fresh(survey))
    final = results.survey_results(fresh(survey))
    assert final["survey"]["responses"] == 22 and final["new_responses"] == 0
    assert computed == [20, 22]


def test_a_draft_is_computed_at_each_view_and_kept_nowhere(researcher, make_survey, computed):
    draft = make_survey(researcher)
    for _ in range(2):
        assert results.survey_results(draft)["snapshot"] is None
    assert computed == [0, 0]


def test_the_figures_shown_come_from_one_snapshot(survey, clock, computed, settings):
    before = results.survey_results(survey)
    submit(survey, 5, seed=2)
    clock[0] += settings.RESULTS_REFRESH_SECONDS / 2
    shown = results.survey_results(fresh(survey))
    assert shown["questions"] == before["questions"]  # every estimate and count of the 20
    assert {q["n"] for q in shown["questions"]} == {shown["survey"]["responses"]} == {20}
    assert shown["as_of"] == before["as_of"] and shown["new_responses"] == 5
    cached = caches["results"].get(shown["snapshot"])
    assert cached.value["n"] == 20 and cached.as_of_time == shown["as_of"]


class Worker:
    """One app server's process: its own memory in front of the shared cache ("default")."""

    def __init__(self, monkeypatch) -> None:
        self.kept = KeptInProcess(f"worker-{uuid.uuid4()}", {"OPTIONS": {"SHARED": "default"}})
        self.monkeypatch = monkeypatch

    def results(self, survey) -> dict:
        with self.monkeypatch.context() as patch:
            patch.setattr(results, "caches", {"results": self.kept, "default": caches["default"]})
            return results.survey_results(fresh(survey))


def test_two_workers_compute_each_snapshot_once(survey, clock, computed, monkeypatch, settings):
    a, b = Worker(monkeypatch), Worker(monkeypatch)
    assert a.results(survey) == b.results(survey)
    submit(survey, 3, seed=2)
    clock[0] += settings.RESULTS_REFRESH_SECONDS
    assert a.results(survey)["survey"]["responses"] == 23
    assert b.results(survey)["survey"]["responses"] == 23
    assert computed == [20, 23]


def test_while_one_worker_recomputes_the_others_serve_the_previous_snapshot(
    survey, clock, computed, monkeypatch, settings
):
    a, b = Worker(monkeypatch), Worker(monkeypatch)
    a.results(survey)
    submit(survey, 3, seed=2)
    clock[0] += settings.RESULTS_REFRESH_SECONDS
    served_meanwhile = []
    compute = results._questions_results  # counting

    def slow(*args):  # b's request arrives while a computes
        served_meanwhile.append(b.results(survey))
        return compute(*args)

    monkeypatch.setattr(results, "_questions_results", slow)
    assert a.results(survey)["survey"]["responses"] == 23
    (meanwhile,) = served_meanwhile
    assert meanwhile["survey"]["responses"] == 20 and meanwhile["new_responses"] == 3
    assert computed == [20, 23]  # b neither waited nor computed
    assert b.results(survey)["survey"]["responses"] == 23
