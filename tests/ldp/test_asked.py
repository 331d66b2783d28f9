"""Shares among those asked of a conditional question, from the joint estimation of it and the
question it depends on (surveys/ldp/asked.py)."""

import math

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp import joint, joint_fit, sides
from surveys.ldp.among import among_answered
from surveys.ldp.asked import allowed_cells, among_asked


def study(parent, child, asked_share, inner, n, rng):
    """Pair counts of n respondents: the parent's true answer is 1 ("Yes", the condition)
    with ``asked_share``; those asked answer the child from ``inner`` (its own answers then
    any "No answer"), the others are "Not asked" (its last category)."""
    a = (rng.random(n) < asked_share).astype(int)
    b = np.where(a == 1, rng.choice(len(inner), size=n, p=inner), child.k - 1)
    return joint.pair_counts(parent, child, parent.perturb(a, rng), child.perturb(b, rng))


def test_the_allowed_cells_are_the_condition_with_an_answer_or_the_rest_not_asked():
    assert allowed_cells(3, 4, [1]).tolist() == [
        [False, False, False, True],
        [True, True, True, False],
        [False, False, False, True],
    ]


def test_the_joint_fit_keeps_the_structural_zeros_at_zero():
    rng = np.random.default_rng(7)
    parent, child = ldp.grr(1.0, 2), ldp.grr(1.0, 4)
    counts = study(parent, child, 0.3, [0.5, 0.3, 0.2], 3000, rng)
    allowed = allowed_cells(2, 4, [1])
    pi = joint_fit.fit_joint(sides.Side(parent), sides.Side(child), counts, allowed)
    assert np.all(pi[~allowed] == 0)
    assert np.all(pi[allowed] > 0) and pi.sum() == pytest.approx(1)


def test_without_randomization_worth_the_name_it_is_the_plain_ratio():
    # At epsilon 20 the reports are the answers: 400 asked, 300 + 100 of them per answer.
    parent, child = ldp.grr(20.0, 2), ldp.grr(20.0, 3)
    counts = joint.PairCounts(1000, np.array([[0, 0, 600], [300, 100, 0]]),
                              np.array([600, 400]), np.array([300, 100, 600]))
    found = among_asked(parent, child, counts, [1], 2)
    assert found.estimate == pytest.approx([0.75, 0.25], abs=1e-6)
    assert found.answered == pytest.approx(0.4, abs=1e-6)
    half = 1.96 * math.sqrt(0.75 * 0.25 / 400)
    assert found.ci_low[0] == pytest.approx(0.75 - half, abs=0.01)
    assert found.ci_high[0] == pytest.approx(0.75 + half, abs=0.01)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_a_large_study_recovers_the_truth_within_five_standard_errors(epsilon):
    # The interval's half-width is about 1.96 standard errors.
    rng = np.random.default_rng(20261128)
    parent, child = ldp.grr(epsilon, 2), ldp.grr(epsilon, 6)
    inner = np.array([0.4, 0.3, 0.1, 0.1, 0.1])  # four answers, then 10% "No answer"
    counts = study(parent, child, 0.3, inner, 200_000, rng)
    found = among_asked(parent, child, counts, [1], 4)
    truth = inner[:4] / 0.9
    error = (found.ci_high - found.ci_low) / (2 * 1.96)
    assert np.all(np.abs(found.estimate - truth) < 5 * error)
    # The answered share: within 5 standard errors of the follow-up's own unbiased estimate
    # (the joint one, asymptotically efficient, is no less precise). GRR: D_hat =
    # (s - m q) / (p - q), s the share of reports naming an own answer.
    p, q = child.matrix()[0, 0], child.matrix()[0, 1]
    s = counts.b[:4].sum() / counts.n
    own_error = math.sqrt(s * (1 - s) / counts.n) / (p - q)
    assert found.answered == pytest.approx(0.3 * 0.9, abs=5 * own_error)
    assert found.estimate.sum() == pytest.approx(1)


def test_the_interval_contains_the_headline_and_stays_in_zero_one():
    rng = np.random.default_rng(3)
    parent, child = ldp.grr(0.5, 3), ldp.grr(0.5, 4)
    for n in (50, 500, 5000):
        counts = study(parent, child, 0.05, [0.9, 0.1, 0.0], n, rng)
        found = among_asked(parent, child, counts, [1, 2], 3)
        assert np.all(found.ci_low <= found.estimate) and np.all(found.estimate <= found.ci_high)
        assert np.all(found.ci_low >= 0) and np.all(found.ci_high <= 1)


def test_the_intervals_cover_the_truth_and_are_narrower_than_the_questions_own():
    # 300 studies of 2,000 respondents, 30% asked: each share's coverage is within 4 binomial
    # standard errors (0.05) of 0.95 or above, and the mean width is below that of the
    # follow-up's own reports (bench/bench_among_joint.py measures every setting).
    rng = np.random.default_rng(20261128)
    parent, child = ldp.grr(1.0, 2), ldp.grr(1.0, 5)
    inner = np.array([0.4, 0.3, 0.2, 0.1])
    studies, hits, width, own_width = 300, np.zeros(4), np.zeros(4), np.zeros(4)
    for _ in range(studies):
        counts = study(parent, child, 0.3, inner, 2000, rng)
        found = among_asked(parent, child, counts, [1], 4)
        hits += (found.ci_low <= inner) & (inner <= found.ci_high)
        width += found.ci_high - found.ci_low
        own = among_answered(child, counts.b, counts.n, 4)
        own_width += own.ci_high - own.ci_low
    assert np.all(hits / studies >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / studies))
    assert np.all(width < own_width)


def test_the_mean_score_is_over_the_scale_points_among_those_asked():
    parent, child = ldp.grr(20.0, 2), ldp.grr(20.0, 6)  # 5 points, then "Not asked"
    counts = joint.PairCounts(
        1000, np.array([[0, 0, 0, 0, 0, 800], [100, 0, 0, 0, 100, 0]]),
        np.array([800, 200]), np.array([100, 0, 0, 0, 100, 800]),
    )
    found = among_asked(parent, child, counts, [1], 5, scored=True)
    assert found.mean_score.estimate == pytest.approx(3.0, abs=1e-6)
    assert found.mean_score.ci_low < 3 < found.mean_score.ci_high
    assert 1 <= found.mean_score.ci_low and found.mean_score.ci_high <= 5


def test_without_reports_nothing_is_known():
    found = among_asked(ldp.grr(1.0, 2), ldp.grr(1.0, 4), joint.PairCounts.zero(2, 4), [1], 3,
                        scored=True)
    assert np.isnan(found.estimate).all() and math.isnan(found.answered)
    assert (found.ci_low == 0).all() and (found.ci_high == 1).all()
    assert (found.mean_score.ci_low, found.mean_score.ci_high) == (1.0, 3.0)


@pytest.mark.parametrize(
    ("parent", "child", "condition", "answers", "message"),
    [
        (ldp.oue(1.0, 3), ldp.grr(1.0, 3), [1], 2, "parent question must be one-hot"),
        (ldp.grr(1.0, 2), ldp.oue(1.0, 3), [1], 2, "child question must be one-hot"),
        (ldp.grr(1.0, 2), ldp.grr(1.0, 3), [0, 1], 2, "condition must be"),
        (ldp.grr(1.0, 2), ldp.grr(1.0, 3), [2], 2, "condition must be"),
        (ldp.grr(1.0, 2), ldp.grr(1.0, 3), [1], 3, "answers must be"),
    ],
)
def test_it_refuses_what_it_cannot_estimate(parent, child, condition, answers, message):
    counts = joint.PairCounts.zero(parent.tally_size, child.tally_size)
    with pytest.raises(ValueError, match=message):
        among_asked(parent, child, counts, condition, answers)
