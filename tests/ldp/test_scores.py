"""Mean scores of rating scales (surveys.ldp.scores): the identity with the per-report values,
bias and coverage overall and within groups, and the edge cases.

Statistical tests use fixed seeds and tolerances from sampling theory, stated at each test: a
rate estimated from R studies has binomial standard error sqrt(r (1 - r) / R), a mean of R
estimates the standard error sd / sqrt(R); each tolerance is 5 of those.
"""

import math

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp import joint, scores, sides

SKEWED = np.array([0.45, 0.25, 0.15, 0.1, 0.05])
BIMODAL_7 = np.array([0.5, 0.04, 0.04, 0.04, 0.04, 0.04, 0.3])


def simulated_counts(mechanism, truth, n, studies, rng):
    """Support counts of many studies from their exact laws (as bench/bench_rating.py)."""
    if mechanism.encoding == "unary":
        people = rng.multinomial(n, truth, size=studies)
        return rng.binomial(people, mechanism.p) + rng.binomial(n - people, mechanism.q)
    return rng.multinomial(n, mechanism.matrix() @ truth, size=studies)


def test_the_mean_is_the_average_of_the_per_report_values_and_its_error_their_spread():
    mechanism = ldp.grr(1.0, 5)
    rng = np.random.default_rng(3)
    reports = mechanism.perturb(rng.choice(5, size=500, p=SKEWED), rng)
    a_minus_b = mechanism.p - mechanism.q
    values = (scores.scores(5)[reports] - mechanism.q * scores.scores(5).sum()) / a_minus_b
    found = scores.mean_score(mechanism, mechanism.support_counts(reports), 500)
    assert found.unbiased == pytest.approx(values.mean(), rel=1e-12)
    assert found.std_error == pytest.approx(values.std(ddof=1) / math.sqrt(500), rel=1e-10)
    half = found.unbiased - found.ci_low
    assert half == pytest.approx(found.ci_high - found.unbiased)
    assert half / found.std_error == pytest.approx(1.9647, abs=1e-4)  # Student's t, 499 df


@pytest.mark.parametrize(
    "epsilon,truth", [(1.0, SKEWED), (0.5, BIMODAL_7)], ids=["grr-5-skewed", "oue-7-bimodal"]
)
def test_the_mean_is_unbiased_and_its_interval_covers_95_percent(epsilon, truth):
    k, n, studies = truth.size, 2000, 2000
    mechanism = ldp.choose_categorical(epsilon, k)
    assert mechanism.name == ("grr" if k == 5 else "oue")
    true_mean = float(scores.scores(k) @ truth)
    rng = np.random.default_rng(20261126)
    found = [scores.mean_score(mechanism, c, n) for c in simulated_counts(
        mechanism, truth, n, studies, rng)]
    unbiased = np.array([m.unbiased for m in found])
    # Bias within 5 Monte-Carlo standard errors of the mean of the unbiased estimates.
    assert abs(unbiased.mean() - true_mean) < 5 * unbiased.std() / math.sqrt(studies)
    # The standard errors describe the spread: their mean within 5% of the estimates' sd.
    assert np.mean([m.std_error for m in found]) == pytest.approx(unbiased.std(), rel=0.05)
    coverage = np.mean([m.ci_low <= true_mean <= m.ci_high for m in found])
    assert abs(coverage - 0.95) < 5 * math.sqrt(0.95 * 0.05 / studies)


def test_the_mean_stays_on_the_scale_and_says_nothing_without_reports():
    mechanism = ldp.grr(0.5, 5)
    found = scores.mean_score(mechanism, [30, 0, 0, 0, 0], 30)  # every report on point 1
    assert found.unbiased < 1 and found.estimate == 1.0
    assert 1 <= found.ci_low <= found.estimate <= found.ci_high <= 5
    empty = scores.mean_score(mechanism, [0] * 5, 0)
    assert math.isnan(empty.estimate) and (empty.ci_low, empty.ci_high) == (1.0, 5.0)
    assert empty.to_dict()["estimate"] is None
    with pytest.raises(ValueError, match="5 whole numbers"):
        scores.mean_score(mechanism, [1, 2], 3)


def group_study(mech_a, mech_b, within, group_shares, n, rng):
    groups = rng.choice(len(group_shares), size=n, p=group_shares)
    answers = (rng.random(n)[:, None] > np.cumsum(within[groups], axis=1)).sum(axis=1)
    return joint.pair_counts(mech_a, mech_b, mech_a.perturb(groups, rng),
                             mech_b.perturb(answers, rng))


def test_group_means_and_their_difference_cover_95_percent():
    mech_a, mech_b = ldp.randomized_response(2.0), ldp.choose_categorical(2.0, 5)
    within = np.array([SKEWED, SKEWED[::-1]])
    true_means = within @ scores.scores(5)
    rng = np.random.default_rng(7)
    # 100 studies: each coverage within 5 binomial standard errors (0.11) of 95%. Over many
    # settings: bench/bench_rating.py, part 2 (docs/ldp.md, rating scales, "Measured").
    studies, hits = 100, np.zeros(3)
    for _ in range(studies):
        counts = group_study(mech_a, mech_b, within, [0.4, 0.6], 2000, rng)
        means = scores.group_means(joint.breakdown(mech_a, mech_b, counts), counts)
        hits[:2] += (means.ci_low <= true_means) & (true_means <= means.ci_high)
        estimate, low, high = means.difference(1, 0)
        assert low <= estimate <= high
        hits[2] += low <= true_means[1] - true_means[0] <= high
    assert np.all(np.abs(hits / studies - 0.95) < 5 * math.sqrt(0.95 * 0.05 / studies))


def test_a_bounded_mean_keeps_its_coverage_and_its_width_at_the_ends_of_the_scale():
    # A normal estimate of a mean 0.1 standard errors above the scale's low end: the Wald
    # interval around the estimate clipped to the scale covers Phi(0.1 + 1.96) = 97.5% there;
    # Feldman and Cousins' ordering covers 95% (4,000 draws: tolerance 5 x 0.0034), and
    # estimates far below the end still get an interval with width that contains the end.
    rng = np.random.default_rng(20261128)
    truth, std_error = 1.1, 1.0
    estimate = rng.normal(truth, std_error, 4000)
    low, high = scores.bounded_interval(estimate, np.full(4000, std_error), 1.0, 5.0, 1.96)
    covered = float(np.mean((low <= truth) & (truth <= high)))
    assert abs(covered - 0.95) < 5 * math.sqrt(0.95 * 0.05 / 4000)
    clipped = np.clip(estimate, 1, 5)
    assert np.all((low <= clipped) & (clipped <= high))
    far_low, far_high = scores.bounded_interval(np.array([-5.0]), np.array([1.0]), 1.0, 5.0, 1.96)
    assert far_low[0] == 1.0 and far_high[0] > 1.05
    unknown = scores.bounded_interval(np.array([3.0]), np.array([np.nan]), 1.0, 5.0, 1.96)
    assert (unknown[0][0], unknown[1][0]) == (1.0, 5.0)


def test_group_means_without_noise_are_the_groups_own_means():
    mech_a, mech_b = ldp.randomized_response(20.0), ldp.grr(20.0, 5)
    rng = np.random.default_rng(11)
    groups = rng.integers(0, 2, size=400)
    answers = np.where(groups == 1, rng.integers(2, 5, size=400), rng.integers(0, 3, size=400))
    counts = joint.pair_counts(mech_a, mech_b, mech_a.perturb(groups, rng),
                               mech_b.perturb(answers, rng))
    means = scores.group_means(joint.breakdown(mech_a, mech_b, counts), counts)
    own = [answers[groups == g].mean() + 1 for g in (0, 1)]
    assert means.estimate == pytest.approx(own, abs=1e-6)
    assert means.difference(1, 0)[0] == pytest.approx(own[1] - own[0], abs=1e-6)


def test_group_means_without_reports_are_unknown():
    mech_a, mech_b = ldp.randomized_response(1.0), ldp.grr(1.0, 7)
    counts = joint.PairCounts.zero(2, 7)
    means = scores.group_means(joint.breakdown(mech_a, mech_b, counts), counts)
    assert np.all(np.isnan(means.estimate))
    assert means.ci_low.tolist() == [1, 1] and means.ci_high.tolist() == [7, 7]
    estimate, low, high = means.difference(1, 0)
    assert math.isnan(estimate) and (low, high) == (-6, 6)


@pytest.mark.parametrize("mechanism", [ldp.grr(1.0, 5), ldp.oue(0.5, 7), ldp.sue(2.0, 5)],
                         ids=["grr", "oue", "sue"])
def test_the_planner_takes_the_worst_distribution_of_answers(mechanism):
    k = mechanism.k
    side = sides.Side(mechanism)
    u = scores.scores(k) / (mechanism.p - mechanism.q)
    rng = np.random.default_rng(13)
    shares = np.vstack([rng.dirichlet(np.full(k, 0.3), size=20_000), np.eye(k)])
    ends = np.zeros((101, k))
    ends[:, 0], ends[:, -1] = np.linspace(1, 0, 101), np.linspace(0, 1, 101)
    shares = np.vstack([shares, ends])
    variance = (shares @ side.moment(u[None, :], u[None, :])[0] - (shares @ (u @ side.S)) ** 2)
    worst = scores.mean_margin(mechanism, 1) / ldp.Z95
    assert variance.max() <= worst**2 * (1 + 1e-12)
    assert variance.max() >= worst**2 * (1 - 1e-3)  # the grid of end mixes comes close
    n = scores.n_for_mean_margin(mechanism, 0.25)
    assert scores.mean_margin(mechanism, n) <= 0.25 < scores.mean_margin(mechanism, n - 1)
    with pytest.raises(ValueError, match="planner's limit"):
        scores.n_for_mean_margin(mechanism, 1e-5)
