"""Shares among those who answered (surveys/ldp/among.py): a question's own answers once its
extra answers ("No answer", "Not asked") are set aside."""

import math

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp.among import among_answered


def counts_of(mechanism, truth, n, rng):
    """Support counts of n respondents drawn from ``truth``, randomized by ``mechanism``."""
    answers = rng.choice(len(truth), size=n, p=truth)
    return mechanism.support_counts(mechanism.perturb(answers, rng))


def test_without_randomization_worth_the_name_it_is_the_plain_ratio():
    # At epsilon 20 the reports are the answers: the shares among those who answered are the
    # counts' ratios, and the interval is about Wilson's for the answered respondents.
    mechanism = ldp.grr(20.0, 3)
    found = among_answered(mechanism, [300, 100, 600], 1000, 2)
    assert found.estimate == pytest.approx([0.75, 0.25], abs=1e-6)
    assert found.answered == pytest.approx(0.4, abs=1e-6)
    half = 1.96 * math.sqrt(0.75 * 0.25 / 400)
    assert found.ci_low[0] == pytest.approx(0.75 - half, abs=0.01)
    assert found.ci_high[0] == pytest.approx(0.75 + half, abs=0.01)


def test_the_mean_score_is_over_the_scale_points_only():
    mechanism = ldp.grr(20.0, 6)  # 5 points, then "No answer"
    found = among_answered(mechanism, [100, 0, 0, 0, 100, 800], 1000, 5, scored=True)
    assert found.mean_score.estimate == pytest.approx(3.0, abs=1e-6)
    assert found.mean_score.ci_low < 3 < found.mean_score.ci_high
    assert 1 <= found.mean_score.ci_low and found.mean_score.ci_high <= 5


def test_without_reports_nothing_is_known():
    found = among_answered(ldp.grr(1.0, 4), [0, 0, 0, 0], 0, 3, scored=True)
    assert np.isnan(found.estimate).all() and math.isnan(found.answered)
    assert (found.ci_low == 0).all() and (found.ci_high == 1).all()
    assert (found.mean_score.ci_low, found.mean_score.ci_high) == (1.0, 3.0)


@pytest.mark.parametrize("answers", [0, 4, 5])
def test_it_needs_at_least_one_own_answer_and_one_extra(answers):
    with pytest.raises(ValueError, match="answers must be"):
        among_answered(ldp.grr(1.0, 4), [1, 1, 1, 1], 4, answers)


@pytest.mark.parametrize("mechanism", [ldp.grr(1.0, 4), ldp.oue(0.5, 4)], ids=["grr", "oue"])
def test_the_intervals_cover_the_truth_about_95_percent_of_the_time(mechanism):
    # 400 studies of 2,000 respondents, 20% of whom refuse: the coverage of each share among
    # those who answered is within 4 binomial standard errors of 0.95 (bench/bench_among.py
    # measures every epsilon and size).
    truth = np.array([0.4, 0.3, 0.1, 0.2])
    true_shares = truth[:3] / 0.8
    rng = np.random.default_rng(20261127)
    studies, hits = 400, np.zeros(3)
    for _ in range(studies):
        found = among_answered(mechanism, counts_of(mechanism, truth, 2000, rng), 2000, 3)
        hits += (found.ci_low <= true_shares) & (true_shares <= found.ci_high)
        assert (found.ci_low <= found.estimate).all() and (found.estimate <= found.ci_high).all()
    tolerance = 4 * math.sqrt(0.95 * 0.05 / studies)
    assert np.all(np.abs(hits / studies - 0.95) <= tolerance), hits / studies
