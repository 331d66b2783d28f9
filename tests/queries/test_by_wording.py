"""Answers by wording: counts per wording read in the database, estimates and the test."""

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys.actions.submissions import store, stored_form
from surveys.actions.wording import correct
from surveys.models import Submission, Survey
from surveys.queries import by_wording
from tests.helpers import MANY_LABELS, questions


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open", epsilons=(1.0, 1.0))


def add(survey: Survey, shares: dict[int, list[float]], n: int, wording: int | None,
        seed: int) -> None:
    """``n`` simulated respondents under ``wording``, their true answers to each question
    drawn from ``shares`` (question id -> true shares), randomized by its mechanism."""
    rng = np.random.default_rng(seed)
    columns, support = {}, {}
    for question in questions(survey):
        mechanism = question.mechanism()
        truths = rng.choice(mechanism.k, size=n, p=shares[question.pk])
        reports = mechanism.perturb(truths, rng)
        columns[question.pk] = reports.tolist()
        for index, count in enumerate(mechanism.support_counts(reports).tolist()):
            support[(question.pk, index)] = count
    submissions = [
        Submission(survey=survey, idempotency_key=f"w{wording}-{seed}-{i:06d}", wording=wording,
                   reports=stored_form({pk: tuple(c[i]) if isinstance(c[i], list) else c[i]
                                        for pk, c in columns.items()}))
        for i in range(n)
    ]
    store(survey, submissions, support)
    survey.refresh_from_db()


def shares_for(survey: Survey, yes: float, categorical: list[float]) -> dict[int, list[float]]:
    yes_no, other = questions(survey)
    return {yes_no.pk: [1 - yes, yes], other.pk: categorical}


def test_counts_per_wording_are_the_tallies_split_by_wording(survey):
    add(survey, shares_for(survey, 0.3, [0.2, 0.3, 0.5]), 300, 0, seed=1)
    correct(survey, {"title": "Habits, corrected"})
    survey.refresh_from_db()
    add(survey, shares_for(survey, 0.3, [0.2, 0.3, 0.5]), 200, survey.wording_version, seed=2)
    add(survey, shares_for(survey, 0.3, [0.2, 0.3, 0.5]), 50, None, seed=3)
    yes_no, categorical = questions(survey)
    for question in (yes_no, categorical):
        found = by_wording.wording_counts(survey, question)
        assert sorted(found, key=str) == sorted([0, survey.wording_version, None], key=str)
        assert [found[0][1], found[survey.wording_version][1], found[None][1]] == [300, 200, 50]
        total = np.sum([counts for counts, _ in found.values()], axis=0)
        tallies = list(question.tallies.order_by("index").values_list("count", flat=True))
        assert total.tolist() == tallies


def test_counts_are_read_in_one_grouped_statement(survey):
    add(survey, shares_for(survey, 0.3, [0.2, 0.3, 0.5]), 500, 0, seed=4)
    categorical = questions(survey)[1]
    categorical.mechanism()
    with CaptureQueriesContext(connection) as queries:
        by_wording.wording_counts(survey, categorical)
    assert len(queries) == 1
    assert "GROUP BY" in queries[0]["sql"].upper()


def test_unary_reports_are_counted_per_bit(researcher, make_survey):
    survey = make_survey(researcher, status="open", labels=MANY_LABELS, epsilons=(1.0, 1.0))
    categorical = questions(survey)[1]
    assert categorical.mechanism().encoding == "unary"
    k = categorical.mechanism().k
    shares = {questions(survey)[0].pk: [0.5, 0.5], categorical.pk: [1 / k] * k}
    add(survey, shares, 300, 0, seed=5)
    found = by_wording.wording_counts(survey, categorical)
    tallies = list(categorical.tallies.order_by("index").values_list("count", flat=True))
    assert found[0][0] == tallies and found[0][1] == 300
    results = by_wording.by_wording_results(survey, categorical)
    assert results["test"] is None  # one wording only
    add(survey, shares, 300, 0, seed=6)


def test_estimates_per_wording_are_within_five_standard_errors(survey):
    truths = {0: (0.2, [0.6, 0.3, 0.1]), 1: (0.6, [0.1, 0.3, 0.6])}
    add(survey, shares_for(survey, *truths[0]), 3000, 0, seed=7)
    correct(survey, {"questions": {str(questions(survey)[1].pk): {"text": "How often, now?"}}})
    survey.refresh_from_db()
    assert survey.wording_version == 1
    add(survey, shares_for(survey, *truths[1]), 3000, 1, seed=8)
    yes_no, categorical = questions(survey)
    for question, truth_of in ((yes_no, lambda t: [1 - t[0], t[0]]), (categorical, lambda t: t[1])):
        results = by_wording.by_wording_results(survey, question)
        assert [w["version"] for w in results["wordings"]] == [0, 1]
        assert [w["n"] for w in results["wordings"]] == [3000, 3000]
        for wording in results["wordings"]:
            truth = truth_of(truths[wording["version"]])
            for category in wording["categories"]:
                error = abs(category["unbiased"] - truth[category["index"]])
                assert error < 5 * category["std_error"], (wording["version"], category)
                assert category["ci_low"] <= category["estimate"] <= category["ci_high"]
        assert results["test"]["p_value"] < 1e-6, "strongly different truths"
        assert "Evidence that the answers differ" in results["test_summary"]
    texts = [w["text"] for w in by_wording.by_wording_results(survey, categorical)["wordings"]]
    assert texts == ["How often?", "How often, now?"]


def test_identical_truths_give_a_p_value_that_is_not_tiny(survey):
    add(survey, shares_for(survey, 0.3, [0.2, 0.3, 0.5]), 2000, 0, seed=11)
    correct(survey, {"title": "Habits, corrected"})
    survey.refresh_from_db()
    add(survey, shares_for(survey, 0.3, [0.2, 0.3, 0.5]), 2000, survey.wording_version, seed=12)
    for question in questions(survey):
        results = by_wording.by_wording_results(survey, question)
        assert results["test"]["method"] == "chi2"
        assert results["test"]["p_value"] > 0.01, results["test"]
        assert "No evidence" in results["test_summary"]


def test_submissions_without_a_wording_are_shown_last_and_left_out_of_the_test(survey):
    add(survey, shares_for(survey, 0.9, [0.8, 0.1, 0.1]), 500, None, seed=13)
    add(survey, shares_for(survey, 0.1, [0.1, 0.1, 0.8]), 500, 0, seed=14)
    results = by_wording.by_wording_results(survey, questions(survey)[0])
    assert [w["version"] for w in results["wordings"]] == [0, None]
    assert results["wordings"][1]["recorded"] is False
    assert results["test"] is None, "one recorded wording: nothing to compare"
    rows = list(by_wording.by_wording_rows(results))
    assert rows[0][:4] == ["wording", "from", "until", "responses"]
    assert [row[0] for row in rows[1:]] == [0, 0, "", ""]


def test_results_are_cached_until_the_next_response(survey, settings):
    settings.RESULTS_REFRESH_SECONDS = 0  # recomputed at the first view after a response
    add(survey, shares_for(survey, 0.3, [0.2, 0.3, 0.5]), 100, 0, seed=15)
    question = questions(survey)[0]
    first = by_wording.by_wording_results(survey, question)
    with CaptureQueriesContext(connection) as queries:
        again = by_wording.by_wording_results(survey, question)
    assert not [q for q in queries if "submission" in q["sql"].lower()]
    assert again["snapshot"] == first["snapshot"]
    add(survey, shares_for(survey, 0.3, [0.2, 0.3, 0.5]), 10, 0, seed=16)
    assert by_wording.by_wording_results(survey, question)["n"] == 110
