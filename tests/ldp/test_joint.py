"""Breakdowns (surveys.ldp.joint): counting, estimation, intervals, the association test, planning.

Statistical tests use fixed seeds and tolerances from sampling theory, stated at each test
(never tuned until passing): a rate estimated from R studies has binomial standard error
sqrt(r (1 - r) / R), and a mean of R estimates the standard error sd / sqrt(R).
"""

import json
import math
import time

import numpy as np
import pytest
from scipy.special import ndtr

from surveys import ldp
from surveys.ldp import association, bounded, joint, joint_fit, joint_model, sides
from surveys.ldp.joint_fit import unbiased_joint
from surveys.ldp.score_intervals import score_interval


def simulate(mech_a, mech_b, pi, n, rng):
    """Pair counts of one study: n respondents drawn from the joint ``pi``, each answer
    randomized with the reference ``perturb`` and counted with ``pair_counts``."""
    true_a, true_b = np.divmod(rng.choice(pi.size, size=n, p=pi.ravel()), pi.shape[1])
    return joint.pair_counts(
        mech_a, mech_b, mech_a.perturb(true_a, rng), mech_b.perturb(true_b, rng)
    )


def simulate_fast(mech_a, mech_b, pi, n, rng):
    """The same law for one-hot pairs, drawn at once: the report-pair table is
    Multinomial(n, S_A pi S_B^T)."""
    table = rng.multinomial(n, (mech_a.matrix() @ pi @ mech_b.matrix().T).ravel())
    table = table.reshape(pi.shape)
    return joint.PairCounts(n, table, table.sum(axis=1), table.sum(axis=0))


def within(groups, answers):
    return np.asarray(groups)[:, None] * np.asarray(answers)


# Truths with real differences between groups and rare answers.
PI_3X5 = within(
    [0.5, 0.35, 0.15],
    [[0.5, 0.2, 0.15, 0.1, 0.05], [0.2, 0.3, 0.3, 0.15, 0.05], [0.05, 0.05, 0.2, 0.3, 0.4]],
)
PI_4X3 = within([0.4, 0.3, 0.2, 0.1], [[0.6, 0.35, 0.05], [0.4, 0.4, 0.2], [0.2, 0.5, 0.3],
                                       [0.1, 0.3, 0.6]])
PI_YN = within([0.8, 0.2], [[0.95, 0.05], [0.75, 0.25]])
PAIRS = {
    "grr x grr": (ldp.grr(2.0, 3), ldp.grr(1.0, 5), PI_3X5),
    "oue x grr": (ldp.oue(2.0, 4), ldp.grr(1.0, 3), PI_4X3),
    "grr x sue": (ldp.grr(2.0, 3), ldp.sue(1.0, 5), PI_3X5),
    "oue x oue": (ldp.oue(2.0, 4), ldp.oue(1.0, 3), PI_4X3),
    "yes/no x yes/no": (ldp.randomized_response(2.0), ldp.randomized_response(1.0), PI_YN),
    "pq x grr": (ldp.keep_probabilities(0.8, 0.6), ldp.grr(1.0, 3), PI_4X3[:2] / PI_4X3[:2].sum()),
}


# Counting ------------------------------------------------------------------------------------


def brute_force(mech_a, mech_b, reports_a, reports_b, weights):
    k_a, k_b = mech_a.k, mech_b.k
    table, a, b = np.zeros((k_a, k_b), int), np.zeros(k_a, int), np.zeros(k_b, int)
    for report_a, report_b, w in zip(reports_a, reports_b, weights, strict=True):
        for i in mech_a.support(report_a):
            a[i] += w
            for j in mech_b.support(report_b):
                table[i, j] += w
        for j in mech_b.support(report_b):
            b[j] += w
    return joint.PairCounts(int(sum(weights)), table, a, b)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_pair_counts_match_a_brute_force_count(name):
    mech_a, mech_b, pi = PAIRS[name]
    rng = np.random.default_rng(1)
    true_a, true_b = np.divmod(rng.choice(pi.size, size=300, p=pi.ravel()), pi.shape[1])
    # Stored reports: ints, or lists (or tuples) of 0/1.
    reports_a = [r.tolist() if np.ndim(r) else int(r) for r in mech_a.perturb(true_a, rng)]
    reports_b = [tuple(r.tolist()) if np.ndim(r) else int(r) for r in mech_b.perturb(true_b, rng)]
    weights = rng.integers(1, 5, size=300).tolist()
    expected = brute_force(mech_a, mech_b, reports_a, reports_b, weights)
    assert joint.pair_counts(mech_a, mech_b, reports_a, reports_b, weights) == expected
    unweighted = joint.pair_counts(mech_a, mech_b, reports_a, reports_b)
    assert unweighted == brute_force(mech_a, mech_b, reports_a, reports_b, [1] * 300)
    assert joint.pair_counts(mech_a, mech_b, [], []) == joint.PairCounts.zero(mech_a.k, mech_b.k)


@pytest.mark.parametrize(
    ("reports_a", "reports_b", "weights"),
    [
        ([0, 1], [[1, 0, 0]], None),  # lengths differ
        ([0, 3], [[1, 0, 0], [0, 0, 1]], None),  # category out of range
        ([0, -1], [[1, 0, 0], [0, 0, 1]], None),
        ([0, 1.0], [[1, 0, 0], [0, 0, 1]], None),  # not a whole number
        (["0", 1], [[1, 0, 0], [0, 0, 1]], None),
        ([0, 1], [[1, 0, 2], [0, 0, 1]], None),  # not a bit
        ([0, 1], [[1, 0], [0, 0]], None),  # wrong number of bits
        ([0, 1], [[1, 0, 0], [0, 1]], None),  # ragged
        ([0, 1], [1, 2], None),  # an int where a unary report is expected
        ([0, 1], [[1, 0, 0], [0, 0, 1]], [1]),  # one weight missing
        ([0, 1], [[1, 0, 0], [0, 0, 1]], [1, -1]),
        ([0, 1], [[1, 0, 0], [0, 0, 1]], [1, 0.5]),
    ],
)
def test_pair_counts_refuse_malformed_reports(reports_a, reports_b, weights):
    with pytest.raises(ValueError):
        joint.pair_counts(ldp.grr(1.0, 3), ldp.oue(1.0, 3), reports_a, reports_b, weights)


def test_pair_counts_handle_100000_distinct_rows_quickly():
    rng = np.random.default_rng(2)
    mech_a, mech_b = ldp.grr(2.0, 14), ldp.oue(1.0, 14)
    reports_a = rng.integers(0, 14, 100_000).tolist()
    reports_b = rng.integers(0, 2, (100_000, 14)).tolist()
    weights = rng.integers(1, 4, 100_000).tolist()
    started = time.process_time()  # CPU time: other processes on a busy machine do not count
    counts = joint.pair_counts(mech_a, mech_b, reports_a, reports_b, weights)
    assert time.process_time() - started < 1.0  # about 0.2 s
    assert counts.n == sum(weights)


def test_pair_counts_add_transpose_and_round_trip_through_json():
    rng = np.random.default_rng(3)
    mech_a, mech_b, pi = PAIRS["oue x grr"]
    first, second = (simulate(mech_a, mech_b, pi, 50, rng) for _ in range(2))
    total = first + second
    assert total.n == 100
    np.testing.assert_array_equal(total.joint, first.joint + second.joint)
    np.testing.assert_array_equal(total.a, first.a + second.a)
    flipped = total.transposed()
    np.testing.assert_array_equal(flipped.joint, total.joint.T)
    assert (flipped.a.tolist(), flipped.b.tolist()) == (total.b.tolist(), total.a.tolist())
    assert flipped.transposed() == total
    data = json.loads(json.dumps(total.to_json()))
    assert joint.PairCounts.from_json(data) == total
    assert joint.PairCounts.zero(4, 3) + total == total
    with pytest.raises(ValueError):
        total + joint.PairCounts.zero(3, 4)


GOOD = {"n": 3, "joint": [[1, 0], [1, 1]], "a": [1, 2], "b": [2, 1]}


@pytest.mark.parametrize(
    "change",
    [
        {"n": -1},
        {"n": 1.5},
        {"n": True},
        {"n": "3"},
        {"joint": [[1, 0]]},  # one row missing
        {"joint": [[1, 0, 0], [1, 1, 0]]},
        {"joint": [[1, 0], [1]]},
        {"joint": [[1, 0], [1, 1.5]]},
        {"joint": [[1, 0], [1, -1]]},
        {"joint": [[2, 0], [1, 1]]},  # more than a[0]
        {"a": [1, 4]},  # more than n
        {"a": [1]},
        {"b": "21"},
        {"extra": 1},
    ],
)
def test_pair_counts_from_json_refuses_malformed_data(change):
    joint.PairCounts.from_json(GOOD)
    with pytest.raises(ValueError):
        joint.PairCounts.from_json({**GOOD, **change})
    with pytest.raises(ValueError):
        joint.PairCounts.from_json([GOOD])


def test_breakdown_refuses_counts_that_do_not_fit_the_questions():
    mech_a, mech_b = ldp.grr(1.0, 2), ldp.grr(1.0, 2)
    with pytest.raises(ValueError):
        joint.breakdown(mech_a, ldp.grr(1.0, 3), joint.PairCounts.from_json(GOOD))
    with pytest.raises(ValueError):  # row sums must equal a for one-hot B
        joint.breakdown(mech_a, mech_b, joint.PairCounts(3, [[1, 0], [0, 1]], [1, 2], [1, 2]))
    with pytest.raises(ValueError):
        joint.breakdown(mech_a, mech_b, {"n": 0})


# Estimation ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_unbiased_joint_averages_to_the_truth(name):
    """Pi_hat = S_A^-1 (joint/n) S_B^-T is exactly unbiased: over R = 400 studies every cell's
    mean is within 4 standard errors (sd / sqrt(R)) of the truth. 4 se: a false alarm has
    probability about 6e-5 per cell, so about 0.005 over this file's ~80 cells."""
    mech_a, mech_b, pi = PAIRS[name]
    rng = np.random.default_rng(4)
    side_a, side_b = sides.Side(mech_a), sides.Side(mech_b)
    estimates = np.array([
        unbiased_joint(side_a, side_b, simulate(mech_a, mech_b, pi, 500, rng))
        for _ in range(400)
    ])
    error = np.abs(estimates.mean(axis=0) - pi) / (estimates.std(axis=0) / math.sqrt(400))
    assert error.max() < 4


def cubic(coefficients, t):
    return np.sum(coefficients * np.asarray(t)[..., None] ** np.arange(4), axis=-1)


@pytest.mark.parametrize("name", ["grr x grr", "oue x grr", "grr x sue"])
def test_variance_formula_matches_the_simulated_spread(name):
    """The model variances of the unbiased cells, of the group totals and of N - theta D (the
    share's score statistic), at the truth, equal the spread of 400 simulated estimates: a
    sample variance has relative sd sqrt(2 / 399) = 7%, so [0.72, 1.28] is 4 sd around 1."""
    mech_a, mech_b, pi = PAIRS[name]
    rng = np.random.default_rng(5)
    side_a, side_b = sides.Side(mech_a), sides.Side(mech_b)
    estimates = np.array([
        unbiased_joint(side_a, side_b, simulate(mech_a, mech_b, pi, 500, rng))
        for _ in range(400)
    ])
    model = joint_model.JointModel(side_a, side_b, pi)
    cells = cubic(model.cell_variance(), pi)  # V at the true share
    assert np.all(np.abs(estimates.var(axis=0) * 500 / cells - 1) < 0.28)
    totals = estimates.sum(axis=2).var(axis=0) * 500
    assert np.all(np.abs(totals / model.total_variance() - 1) < 0.28)
    # The share's variance at the true share: n Var(N - theta D) for the true theta.
    theta = pi / pi.sum(axis=1, keepdims=True)
    shares = cubic(model.share_variance(), theta)
    spread = (estimates - theta * estimates.sum(axis=2, keepdims=True)).var(axis=0) * 500
    assert np.all(np.abs(spread / shares - 1) < 0.28)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_breakdown_is_coherent_and_symmetric(name):
    mech_a, mech_b, pi = PAIRS[name]
    counts = simulate(mech_a, mech_b, pi, 3000, np.random.default_rng(6))
    found = joint.breakdown(mech_a, mech_b, counts)
    assert found.joint.min() >= 0 and found.joint.sum() == pytest.approx(1)
    np.testing.assert_allclose(found.group_share, found.joint.sum(axis=1))
    np.testing.assert_allclose(found.group_size, 3000 * found.group_share)
    np.testing.assert_allclose(found.share.sum(axis=1), 1)
    for low, estimate, high in (
        (found.joint_ci_low, found.joint, found.joint_ci_high),
        (found.share_ci_low, found.share, found.share_ci_high),
        (found.group_ci_low, found.group_share, found.group_ci_high),
    ):
        assert np.all((0 <= low) & (low <= estimate) & (estimate <= high) & (high <= 1))
    # The same counts seen the other way round give the transposed joint.
    flipped = joint.breakdown(mech_b, mech_a, counts.transposed())
    np.testing.assert_allclose(flipped.joint, found.joint.T, atol=2e-3)
    assert flipped.association.statistic == pytest.approx(found.association.statistic)
    json.dumps(found.to_dict(), allow_nan=False)
    difference = found.difference(0, 1)
    np.testing.assert_allclose(difference.estimate, found.share[0] - found.share[1])
    assert np.all((difference.ci_low <= difference.estimate)
                  & (difference.estimate <= difference.ci_high))
    json.dumps(difference.to_dict(), allow_nan=False)
    with pytest.raises(ValueError):
        found.difference(0, pi.shape[0])


def test_headline_is_the_maximum_likelihood():
    """No small move inside the simplex raises the log-likelihood of the report pairs."""
    mech_a, mech_b, pi = PAIRS["grr x grr"]
    counts = simulate_fast(mech_a, mech_b, pi, 2000, np.random.default_rng(7))
    fitted = joint.breakdown(mech_a, mech_b, counts).joint

    def log_likelihood(p):
        return np.sum(counts.joint * np.log(mech_a.matrix() @ p @ mech_b.matrix().T))

    best = log_likelihood(fitted)
    rng = np.random.default_rng(8)
    for _ in range(200):
        moved = fitted + 0.002 * rng.dirichlet(np.ones(pi.size)).reshape(pi.shape)
        assert log_likelihood(moved / moved.sum()) <= best + joint_fit.FIT_TOLERANCE


def test_no_reports_means_nothing_is_known():
    found = joint.breakdown(ldp.grr(2.0, 3), ldp.oue(1.0, 4), joint.PairCounts.zero(3, 4))
    assert found.n == 0
    for estimate in (found.group_share, found.group_size, found.joint, found.share):
        assert np.all(np.isnan(estimate))
    for low, high in ((found.group_ci_low, found.group_ci_high),
                      (found.joint_ci_low, found.joint_ci_high),
                      (found.share_ci_low, found.share_ci_high)):
        assert np.all(low == 0) and np.all(high == 1)
    assert found.small_group.all()
    assert found.association.df == 0
    assert math.isnan(found.association.statistic) and math.isnan(found.association.p_value)
    difference = found.difference(0, 2)
    assert np.all(np.isnan(difference.estimate))
    assert np.all(difference.ci_low == -1) and np.all(difference.ci_high == 1)
    data = found.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["joint"][0][0] is None and data["association"]["p_value"] is None


def test_an_empty_group_is_flagged_and_its_shares_are_unknown():
    """Counts exactly as expected from a truth whose last group is empty. EM stops before
    that group's cells reach 0 exactly, so it keeps a few respondents (its shares are NaN
    only below half a respondent): what matters is the flag and the [0, 1] intervals."""
    mech_a, mech_b = ldp.grr(2.0, 3), ldp.grr(1.0, 2)
    pi = within([0.6, 0.4, 0.0], [[0.7, 0.3], [0.2, 0.8], [0.5, 0.5]])
    n = 4000
    table = np.round(n * mech_a.matrix() @ pi @ mech_b.matrix().T).astype(int)
    counts = joint.PairCounts(int(table.sum()), table, table.sum(axis=1), table.sum(axis=0))
    found = joint.breakdown(mech_a, mech_b, counts)
    assert found.small_group.tolist() == [False, False, True]
    assert found.group_size[2] < 10
    assert found.share_ci_low[2].tolist() == [0, 0] and found.share_ci_high[2].tolist() == [1, 1]
    difference = found.difference(0, 2)
    assert np.all(difference.ci_high - difference.ci_low > 0.9)  # knows almost nothing
    np.testing.assert_allclose(found.share[:2], pi[:2] / pi[:2].sum(axis=1, keepdims=True),
                               atol=0.01)


def test_mover_is_zou_and_donners_away_from_the_bounds():
    """Shares 0.40 in [0.37, 0.44] and 0.25 in [0.20, 0.31], uncorrelated: the difference 0.15
    goes down by sqrt(0.03^2 + 0.06^2) and up by sqrt(0.04^2 + 0.05^2)."""
    low, high = joint.mover(*np.array([[0.40], [0.37], [0.44], [0.25], [0.20], [0.31], [0.0]]))
    assert low[0] == pytest.approx(0.15 - math.hypot(0.03, 0.06))
    assert high[0] == pytest.approx(0.15 + math.hypot(0.04, 0.05))


def test_mover_takes_the_wider_side_where_a_share_interval_stops_at_0():
    """The second share's estimate, 0.07, sits just above its interval's end at 0, which
    reaches up to 0.40: its spread downwards is taken as 0.33, not 0.07. The difference's
    upper end 0.33 + sqrt(0.03^2 + 0.33^2) then passes the difference of the ends, 0.43 - 0,
    and stops there (Zou and Donner's alone: 0.33 + sqrt(0.03^2 + 0.07^2) = 0.406)."""
    low, high = joint.mover(*np.array([[0.40], [0.37], [0.43], [0.07], [0.0], [0.40], [0.0]]))
    assert high[0] == pytest.approx(0.43)
    assert low[0] == pytest.approx(0.33 - math.hypot(0.03, 0.33))


def test_score_interval_is_wilsons_without_randomization():
    """With V(p) = p (1 - p) (no randomization) the score interval is Wilson's where its ends
    are at least z standard deviations from 0 and 1, also when it is narrower than the
    trial grid's spacing."""
    z = 1.959963984540054
    for n, x in ((20, 0.0), (20, 0.35), (300, 0.05), (300, 1.0), (10**7, 0.4), (10**7, 1e-6)):
        low, high = score_interval(
            np.array([x]), np.ones(1), np.array([[0.0, 1.0, -1.0, 0.0]]), n, z
        )
        centre, half = x + z * z / (2 * n), z * math.sqrt(x * (1 - x) / n + z * z / (4 * n * n))
        assert low[0] == pytest.approx(max(0, (centre - half) / (1 + z * z / n)), abs=1e-12)
        assert high[0] == pytest.approx(min(1, (centre + half) / (1 + z * z / n)), abs=1e-12)


def test_near_0_the_ordering_of_feldman_and_cousins_holds_its_level():
    """For a normal estimate of a mean mu >= 0, the accepted region has the test's level
    exactly, its two ends have the same likelihood ratio (the ordering), it is the central
    mu +- z from mu = z on, and one-sided at mu = 0."""
    z = 1.959963984540054
    gap = np.linspace(0, 3, 61)
    low, high = bounded.accepted_limits(gap, z)
    np.testing.assert_allclose(ndtr(high) - ndtr(low), 0.95, atol=1e-7)
    near = (gap > 0) & (gap < z)
    x1, x2 = gap[near] + low[near], gap[near] + high[near]
    np.testing.assert_allclose(x1 * gap[near] - gap[near] ** 2 / 2, -((x2 - gap[near]) ** 2) / 2)
    assert np.all(x1 < 0)
    np.testing.assert_allclose(low[gap >= z], -z)
    np.testing.assert_allclose(high[gap >= z], z)
    assert low[0] == -np.inf and high[0] == pytest.approx(1.6448536269514722)


def test_an_estimate_beyond_0_or_1_gets_an_interval_with_width_at_that_end():
    """A cell's unbiased estimate below 0 gets an interval [0, u] with u > 0, narrower the
    further below 0 it falls; one above 1 gets [l, 1] likewise: never empty, never a point.
    Without randomization (no variance at 0 or 1) no estimate can fall beyond them: one that
    does gets the interval of 0 or 1, Wilson's."""
    randomized = np.array([[0.25, 0.5, -0.5, 0.0]] * 4)  # V(t) > 0 on [0, 1]
    low, high = score_interval(
        np.array([-5.0, -0.5, -0.1, 0.0]), np.ones(4), randomized, 400, 1.96
    )
    assert low.tolist() == [0, 0, 0, 0] and 0 < high[0] < high[1] < high[2] < high[3]
    low, high = score_interval(
        np.array([6.0, 1.5, 1.1, 1.0]), np.ones(4), randomized, 400, 1.96
    )
    assert high.tolist() == [1, 1, 1, 1] and low[0] > low[1] > low[2] > low[3] > 0
    plain = np.array([[0.0, 1.0, -1.0, 0.0]] * 4)
    low, high = score_interval(np.array([-0.3, 0.0, 1.4, 1.0]), np.ones(4), plain, 50, 1.96)
    assert low[0] == low[1] == 0 and high[0] == high[1] == pytest.approx(1.96**2 / (50 + 1.96**2))
    assert high[2] == high[3] == 1 and low[2] == low[3] == pytest.approx(50 / (50 + 1.96**2))


def test_a_share_of_a_group_estimated_empty_can_be_anything():
    """Where the group's unbiased size is 0 or below, the share's interval is [0, 1],
    whatever the cell's estimate."""
    low, high = score_interval(
        np.array([1.5, -2.0]), np.array([-0.1, 0.0]), np.array([[0.5, 1.0, -1.0, 0.2]] * 2),
        300, 1.96,
    )
    assert low.tolist() == [0.0, 0.0] and high.tolist() == [1.0, 1.0]


def test_no_interval_has_zero_width_when_noise_swamps_the_cells():
    """Two 4-answer questions randomized by unary encoding at epsilon 0.5 and 1, n = 300:
    unbiased cells fall below 0 or above their group's size in many studies, where the
    test used to reject every value (intervals like [7e-07, 7e-07]). 100 studies: every cell
    and share interval is at least 1e-4 wide and contains its headline."""
    pi = within([0.4, 0.3, 0.2, 0.1], [[0.5, 0.3, 0.18, 0.02], [0.25] * 4,
                                       [0.1, 0.2, 0.3, 0.4], [0.02, 0.08, 0.2, 0.7]])
    rng = np.random.default_rng(20261126)
    clipped = 0
    for epsilon in (0.5, 1.0):
        mech = ldp.oue(epsilon, 4)
        for _ in range(50):
            counts = simulate(mech, mech, pi, 300, rng)
            found = joint.breakdown(mech, mech, counts)
            unbiased = unbiased_joint(sides.Side(mech), sides.Side(mech), counts)
            clipped += int(np.sum((unbiased < 0) | (unbiased > unbiased.sum(axis=1)[:, None])))
            for low, high, estimate in (
                (found.joint_ci_low, found.joint_ci_high, found.joint),
                (found.share_ci_low, found.share_ci_high, found.share),
            ):
                assert np.all(high - low >= 1e-4)
                known = ~np.isnan(estimate)
                assert np.all((low[known] <= estimate[known]) & (estimate[known] <= high[known]))
    assert clipped > 100  # the case this test is about is common here

# Coverage and the association test --------------------------------------------------------------


def coverage_tolerance(replicates):
    """The target band [0.93, 0.97] widened by 3 binomial standard errors of a coverage
    estimated from R studies at 0.95."""
    se = math.sqrt(0.95 * 0.05 / replicates)
    return 0.93 - 3 * se, 0.97 + 3 * se


@pytest.mark.parametrize(
    ("name", "n", "replicates"),
    [("grr x grr", 2000, 200), ("oue x grr", 2000, 100), ("yes/no x yes/no", 300, 150)],
)
def test_intervals_cover(name, n, replicates):
    """Coverage of a few cells, shares and differences: each within the target band widened
    by 3 Monte-Carlo standard errors (``coverage_tolerance``); at n = 300 the target is
    only a floor of 0.90. Every cell, share and difference over many truths, epsilons and
    sizes: bench/bench_joint.py (docs/ldp.md, breakdowns, "Measured")."""
    mech_a, mech_b, pi = PAIRS[name]
    rng = np.random.default_rng(9)
    shares = pi / pi.sum(axis=1, keepdims=True)
    cells, conditional, differences = [], [], []
    for _ in range(replicates):
        if mech_a.encoding == "unary" or mech_b.encoding == "unary":
            counts = simulate(mech_a, mech_b, pi, n, rng)
        else:
            counts = simulate_fast(mech_a, mech_b, pi, n, rng)
        found = joint.breakdown(mech_a, mech_b, counts)
        cells.append((found.joint_ci_low <= pi) & (pi <= found.joint_ci_high))
        conditional.append((found.share_ci_low <= shares) & (shares <= found.share_ci_high))
        d = found.difference(0, 1)
        truth = shares[0] - shares[1]
        differences.append((d.ci_low <= truth) & (truth <= d.ci_high))
    low, high = coverage_tolerance(replicates)
    if n < 2000:
        low, high = 0.90 - 3 * math.sqrt(0.9 * 0.1 / replicates), 1.0
    # The rarest and the commonest cell, each group's rarest answer, every difference.
    rare, common = np.unravel_index(pi.argmin(), pi.shape), np.unravel_index(pi.argmax(), pi.shape)
    checked = {
        "rare cell": np.mean(cells, axis=0)[rare],
        "common cell": np.mean(cells, axis=0)[common],
        **{f"rarest answer in group {g}": np.mean(conditional, axis=0)[g, shares[g].argmin()]
           for g in range(pi.shape[0])},
        **{f"difference in answer {j}": c for j, c in enumerate(np.mean(differences, axis=0))},
    }
    outside = {key: value for key, value in checked.items() if not low <= value <= high}
    assert not outside, f"coverage outside [{low:.3f}, {high:.3f}]: {outside}"


@pytest.mark.parametrize(
    ("name", "n", "replicates"),
    [("grr x grr", 1000, 1200), ("yes/no x yes/no", 300, 1500), ("oue x grr", 1000, 300)],
)
def test_association_test_holds_its_size_under_independence(name, n, replicates):
    """With independent answers the test rejects at 5% in 0.05 of studies: the observed
    rate is within 3 binomial standard errors sqrt(0.05 * 0.95 / R) of 0.05."""
    mech_a, mech_b, pi = PAIRS[name]
    null = np.outer(pi.sum(axis=1), pi.sum(axis=0))
    rng = np.random.default_rng(10)
    side_a, side_b = sides.Side(mech_a), sides.Side(mech_b)
    rejected = 0
    for _ in range(replicates):
        if mech_a.encoding == "unary" or mech_b.encoding == "unary":
            counts = simulate(mech_a, mech_b, null, n, rng)
        else:
            counts = simulate_fast(mech_a, mech_b, null, n, rng)
        rejected += association.association_test(side_a, side_b, counts).p_value < 0.05
    assert abs(rejected / replicates - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / replicates)


def test_association_test_is_pearsons_chi_square_for_one_hot_reports():
    counts = simulate_fast(*PAIRS["grr x grr"][:2], PI_3X5, 1000, np.random.default_rng(11))
    expected = np.outer(counts.a, counts.b) / counts.n
    pearson = np.sum((counts.joint - expected) ** 2 / expected)
    found = joint.breakdown(*PAIRS["grr x grr"][:2], counts).association
    assert found.statistic == pytest.approx(pearson)
    assert found.df == 2 * 4
    assert found.p_value == pytest.approx(association.chi2_sf(pearson, 8))


def test_chi_square_survival_function_matches_known_values():
    # Closed forms: df = 2m, Q = e^(-x/2) sum_{j<m} (x/2)^j / j!; df = 1, Q = erfc(sqrt(x/2)).
    for x in (0.001, 0.5, 3.0, 10.0, 40.0, 200.0, 1000.0):
        for m in (1, 2, 5, 30):
            expected = math.exp(-x / 2) * sum((x / 2) ** j / math.factorial(j) for j in range(m))
            assert association.chi2_sf(x, 2 * m) == pytest.approx(expected, rel=1e-12, abs=1e-300)
        assert association.chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12)
    # Table quantiles (Abramowitz & Stegun 26.4): upper 5% and 1% points.
    for x, df, p in ((3.841458820694124, 1, 0.05), (18.307038053275146, 10, 0.05),
                     (124.34211340400407, 100, 0.05), (6.6348966010212145, 1, 0.01),
                     (37.56623478662507, 20, 0.01)):
        assert association.chi2_sf(x, df) == pytest.approx(p, rel=1e-10)
    assert association.chi2_sf(0, 3) == 1
    # Many degrees of freedom: Q(m, x/2) = P(Poisson(x/2) <= m - 1), summed in logs.
    for x, m in ((2400.0, 1250), (2500.0, 1250), (2700.0, 1250)):
        mean = x / 2
        expected = sum(math.exp(j * math.log(mean) - mean - math.lgamma(j + 1)) for j in range(m))
        assert association.chi2_sf(x, 2 * m) == pytest.approx(expected, rel=1e-9)
    with pytest.raises(ValueError):
        association.chi2_sf(1.0, 0)


# Planning -------------------------------------------------------------------------------------


def test_planner_is_monotone_and_matches_simulation():
    mech_a, mech_b = ldp.grr(2.0, 3), ldp.grr(1.0, 5)
    margins = [joint.margin_within_group(mech_a, mech_b, n, 0.2) for n in (100, 1000, 10_000)]
    assert margins[0] > margins[1] > margins[2]
    by_group = [joint.margin_within_group(mech_a, mech_b, 1000, g) for g in (0.05, 0.2, 0.6)]
    assert by_group[0] > by_group[1] > by_group[2]
    for share in (0.0, 0.05, 0.5, 1.0):
        assert joint.margin_within_group(mech_a, mech_b, 1000, 0.2, share) <= margins[1]
    assert joint.margin_within_group(mech_a, mech_b, 0, 0.2) == math.inf
    needed = [joint.n_for_margin_within_group(mech_a, mech_b, m, 0.2) for m in (0.2, 0.1, 0.05)]
    assert needed[0] < needed[1] < needed[2]
    assert joint.margin_within_group(mech_a, mech_b, needed[1], 0.2) <= 0.1
    assert joint.margin_within_group(mech_a, mech_b, needed[1] - 1, 0.2) > 0.1
    # The planned margin is 1.96 times the spread of the estimated share: 1000 studies give
    # the sd to within 2.2% (one se), so 10% is over 4 se.
    groups, answers = np.array([0.2, 0.4, 0.4]), np.array([0.05] + [0.2375] * 4)
    pi = groups[:, None] * answers
    rng = np.random.default_rng(12)
    side_a, side_b = sides.Side(mech_a), sides.Side(mech_b)
    shares = []
    for _ in range(1000):
        estimate = unbiased_joint(side_a, side_b, simulate_fast(mech_a, mech_b, pi, 4000, rng))
        shares.append(estimate[0, 0] / estimate[0].sum())
    planned = joint.margin_within_group(mech_a, mech_b, 4000, 0.2, 0.05)
    assert 1.959964 * np.std(shares) == pytest.approx(planned, rel=0.1)


@pytest.mark.parametrize(
    ("margin", "group_share", "answer_share"),
    [(0.001, 0.01, None), (0, 0.2, None), (1, 0.2, None), (0.1, 0, None), (0.1, 1.5, None),
     (0.1, 0.2, 1.5), (0.1, 0.2, "half")],
)
def test_planner_refuses_absurd_targets(margin, group_share, answer_share):
    with pytest.raises(ValueError):
        joint.n_for_margin_within_group(
            ldp.grr(1.0, 3), ldp.oue(0.5, 4), margin, group_share, answer_share
        )
