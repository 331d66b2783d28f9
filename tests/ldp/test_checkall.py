"""The check-all mechanism (surveys/ldp/checkall.py): its exact epsilon over whole ticked
sets, its reference randomizer, its estimators and planner."""

import itertools
import math

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp import checkall, joint


def all_sets(k: int) -> list[tuple[int, ...]]:
    return list(itertools.product((0, 1), repeat=k))


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_any_change_of_the_whole_set_costs_exactly_epsilon(epsilon, k):
    """max over reports and pairs of ticked sets of ln P(report | S) / P(report | S') is
    epsilon: any change of the whole set, however many boxes, is covered by the one epsilon."""
    mechanism = ldp.sampled_boxes(epsilon, k)
    laws = np.array([mechanism.report_probabilities(s) for s in all_sets(k)])  # (2^k, k, 2)
    assert np.allclose(laws.sum(axis=(1, 2)), 1)
    worst = np.log(laws.max(axis=0) / laws.min(axis=0)).max()
    assert worst == pytest.approx(epsilon, abs=1e-12)
    assert mechanism.exact_epsilon() == pytest.approx(epsilon, abs=1e-12)


def test_reference_randomizer_follows_the_report_law():
    """Counts of each report [j, y] from 200,000 respondents ticking the same set are within
    5 binomial standard errors of n P([j, y] | set)."""
    mechanism = ldp.sampled_boxes(1.0, 4)
    ticked = [1, 0, 1, 1]
    n = 200_000
    reports = mechanism.perturb(np.tile(ticked, (n, 1)), np.random.default_rng(3))
    counts = mechanism.support_counts(reports).reshape(4, 2)
    expected = n * mechanism.report_probabilities(ticked)
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected))


def simulate(mechanism, shares, n, rng):
    ticked = (rng.random((n, mechanism.k)) < shares).astype(np.int64)
    return mechanism.support_counts(mechanism.perturb(ticked, rng))


def test_shares_and_mean_count_agree_with_the_truth():
    """With 100,000 respondents every share and the mean count lie within 5 of their standard
    errors of the truth, inside their 95% intervals' reach."""
    mechanism = ldp.sampled_boxes(1.0, 5)
    shares = np.array([0.05, 0.3, 0.5, 0.7, 0.95])
    counts = simulate(mechanism, shares, 100_000, np.random.default_rng(5))
    estimate = mechanism.estimate(counts, 100_000)
    assert np.all(np.abs(estimate.proportions - shares) < 5 * estimate.std_errors)
    assert np.all(estimate.ci_low <= estimate.headline)
    assert np.all(estimate.headline <= estimate.ci_high)
    mean = mechanism.mean_count(counts, 100_000)
    assert abs(mean.unbiased - shares.sum()) < 5 * mean.std_error
    assert mean.ci_low <= mean.estimate <= mean.ci_high


def test_estimates_are_unbiased_over_many_studies():
    """Over 400 studies of 500 respondents, the average unbiased share and mean count are
    within 5 Monte-Carlo standard errors of the truth (over many settings:
    bench/bench_checkall.py, part 2; docs/ldp.md, check all that apply, "Measured")."""
    mechanism = ldp.sampled_boxes(2.0, 3)
    shares = np.array([0.2, 0.5, 0.9])
    rng = np.random.default_rng(8)
    found = []
    for _ in range(400):
        counts = simulate(mechanism, shares, 500, rng)
        found.append([*mechanism.estimate(counts, 500).proportions,
                      mechanism.mean_count(counts, 500).unbiased])
    found = np.array(found)
    error = found.std(axis=0) / math.sqrt(len(found))
    assert np.all(np.abs(found.mean(axis=0) - [*shares, shares.sum()]) < 5 * error)


def test_an_option_no_report_was_about_is_unknown():
    mechanism = ldp.sampled_boxes(1.0, 3)
    estimate = mechanism.estimate([3, 1, 0, 0, 2, 2], 8)
    assert estimate.ci_low[1] == 0 and estimate.ci_high[1] == 1
    assert estimate.small_sample[1]
    assert list(estimate.counts) == [1, 0, 2]


def test_reports_are_validated_into_their_tally_cell():
    mechanism = ldp.sampled_boxes(1.0, 3)
    assert mechanism.support([2, 1]) == [5]
    assert mechanism.support([0, 0]) == [0]
    for bad in (1, [3, 0], [0, 2], [0], [0, 1, 1], ["0", 1], [True, 1], None):
        with pytest.raises(ValueError, match="option number"):
            mechanism.validate_report(bad)


def test_counts_must_match_the_cells_and_n():
    mechanism = ldp.sampled_boxes(1.0, 3)
    for counts, n in (([1, 1, 1], 3), ([1, 1, 1, 1, 1, 1], 5), ([1, -1, 1, 1, 1, 3], 6)):
        with pytest.raises(ValueError, match="adding up"):
            mechanism.estimate(counts, n)


def test_spec_round_trip_and_refusals():
    mechanism = ldp.sampled_boxes(0.5, 4)
    again = ldp.from_spec(mechanism.spec())
    assert isinstance(again, ldp.SampledBoxes) and again.spec() == mechanism.spec()
    with pytest.raises(ValueError, match="does not match"):
        ldp.from_spec({**mechanism.spec(), "p": 0.9})
    with pytest.raises(ValueError, match="from 2 to"):
        ldp.sampled_boxes(1.0, checkall.MAX_BOXES + 1)
    assert ldp.sampled_boxes(1.0, checkall.MAX_BOXES).k == ldp.MAX_OPTIONS + 2


def answering(rng: np.random.Generator, n: int, among: np.ndarray, extras: list[float]
              ) -> np.ndarray:
    """(n, m + e) true boxes: each extra answer ticked alone by its share of respondents (a
    refusal, or a question not asked), the options ticked by the others with ``among``."""
    m, e = among.size, len(extras)
    which = rng.choice(e + 1, size=n, p=[1 - sum(extras), *extras])
    boxes = np.zeros((n, m + e), dtype=int)
    boxes[:, :m] = (rng.random((n, m)) < among) & (which == 0)[:, None]
    boxes[which > 0, m + which[which > 0] - 1] = 1
    return boxes


def test_extra_boxes_are_randomized_like_options_at_the_same_epsilon():
    """A refusal is the box set with only its extra box ticked: its reports have the same
    shape and the change from any ticked set to it still costs exactly epsilon."""
    mechanism = ldp.sampled_boxes(1.0, 3 + 2)
    laws = np.array([mechanism.report_probabilities(s) for s in all_sets(5)])
    assert np.log(laws.max(axis=0) / laws.min(axis=0)).max() == pytest.approx(1.0, abs=1e-12)
    refused = mechanism.perturb(np.tile([0, 0, 0, 1, 0], (10, 1)), np.random.default_rng(1))
    assert refused.shape == (10, 2)


@pytest.mark.parametrize("extras", [[0.1], [0.6], [0.05, 0.5]])
def test_shares_among_those_who_answered_agree_with_the_truth(extras):
    """50,000 respondents, some refusing or not asked (ticking only that box): each option's
    share among those who answered and their mean count lie within 5 standard errors of the
    truth (from theory: the delta method's over the Warner variances of the boxes), and the
    95% intervals contain the headline and have width."""
    mechanism = ldp.sampled_boxes(2.0, 4 + len(extras))
    among = np.array([0.05, 0.3, 0.6, 0.9])
    n = 50_000
    rng = np.random.default_rng(11)
    counts = mechanism.support_counts(
        mechanism.perturb(answering(rng, n, among, extras), rng)
    )
    found = mechanism.among_answered(counts, n, 4)
    answered = 1 - sum(extras)
    c = 2 * mechanism.p - 1
    box_error = math.sqrt(len(extras) + 4) * math.sqrt(0.25 / n) / c  # a box's, at most
    # delta method: Var(N / D) ~ (Var N + theta^2 Var D) / D^2, D from len(extras) boxes
    errors = np.sqrt(1 + among**2 * len(extras)) * box_error / answered
    assert np.all(np.abs(found.estimate - among) < 5 * errors)
    assert found.answered == pytest.approx(answered, abs=5 * box_error * len(extras))
    assert np.all((found.ci_low <= found.estimate) & (found.estimate <= found.ci_high))
    assert np.all(found.ci_high - found.ci_low > 0)
    mean = found.mean_score
    assert abs(mean.unbiased - among.sum()) < 5 * mean.std_error
    assert mean.std_error < 4 * math.sqrt(1 + among.sum() ** 2) * box_error / answered
    assert mean.ci_low <= mean.estimate <= mean.ci_high and mean.ci_high > mean.ci_low


def test_shares_among_those_who_answered_cover_and_are_nearly_unbiased():
    """Over 1,000 studies of 2,000 respondents (10% refusing), the 95% intervals of each
    option's share among those who answered and of their mean count cover the truth at least
    93% of the time, and the unbiased mean count is within 5 Monte-Carlo errors of it."""
    mechanism = ldp.sampled_boxes(1.0, 5)
    among = np.array([0.1, 0.4, 0.5, 0.8])
    shares = np.append(0.9 * among, 0.1)
    rate = (1 - mechanism.p) + (2 * mechanism.p - 1) * shares
    law = np.stack([1 - rate, rate], axis=1).ravel() / 5
    rng = np.random.default_rng(12)
    hits, mean_hits, unbiased = np.zeros(4), 0, []
    for counts in rng.multinomial(2000, law, size=1000):
        found = mechanism.among_answered(counts, 2000, 4)
        hits += (found.ci_low <= among) & (among <= found.ci_high)
        mean_hits += found.mean_score.ci_low <= among.sum() <= found.mean_score.ci_high
        unbiased.append(found.mean_score.unbiased)
    assert np.all(hits / 1000 >= 0.93) and mean_hits / 1000 >= 0.93
    unbiased = np.array(unbiased)
    assert abs(unbiased.mean() - among.sum()) < 5 * unbiased.std() / math.sqrt(1000)


def test_shares_among_those_who_answered_without_reports():
    mechanism = ldp.sampled_boxes(1.0, 4)
    found = mechanism.among_answered(np.zeros(8, dtype=int), 0, 3)
    assert np.all(np.isnan(found.estimate)) and math.isnan(found.answered)
    assert found.ci_low.tolist() == [0, 0, 0] and found.ci_high.tolist() == [1, 1, 1]
    mean = found.mean_score
    assert math.isnan(mean.estimate) and (mean.ci_low, mean.ci_high) == (0, 3)
    with pytest.raises(ValueError, match="options must be"):
        mechanism.among_answered(np.zeros(8, dtype=int), 0, 4)


def test_an_option_or_extra_no_report_was_about_leaves_the_whole_interval():
    """Reports only about option 0 and the extra box: option 1 is unknown (NaN, [0, 1]);
    with none about the extra box, every share among those who answered is."""
    mechanism = ldp.sampled_boxes(1.0, 3)
    some = np.array([3, 2, 0, 0, 4, 1])
    found = mechanism.among_answered(some, 10, 2)
    assert math.isnan(found.estimate[1]) and (found.ci_low[1], found.ci_high[1]) == (0, 1)
    assert 0 <= found.ci_low[0] < found.ci_high[0] <= 1
    none = mechanism.among_answered(np.array([3, 2, 1, 4, 0, 0]), 10, 2)
    assert np.all(np.isnan(none.estimate)) and math.isnan(none.answered)
    assert none.ci_low.tolist() == [0, 0] and none.ci_high.tolist() == [1, 1]


def test_planner_finds_the_fewest_respondents():
    mechanism = ldp.sampled_boxes(1.0, 5)
    n = mechanism.n_for_margin(0.05)
    assert mechanism.margin_of_error(n) <= 0.05 < mechanism.margin_of_error(n - 1)
    # k options share the respondents: k times Warner's sample size, up to rounding.
    assert n == pytest.approx(5 * ldp.randomized_response(1.0).n_for_margin(0.05), abs=5)


def test_each_options_share_within_groups_agrees_with_the_truth():
    """20,000 respondents in two groups of different habits: each option's share within each
    group lies within 5 standard errors (its interval's half-width / 1.96) of the truth, and
    k times the ticked box's share is each group's mean number ticked."""
    rng = np.random.default_rng(11)
    n = 20_000
    groups = rng.integers(0, 2, size=n)
    truth = np.array([[0.6, 0.5, 0.1], [0.2, 0.5, 0.8]])
    ticked = (rng.random((n, 3)) < truth[groups]).astype(np.int64)
    group_mechanism, mechanism = ldp.randomized_response(2.0), ldp.sampled_boxes(2.0, 3)
    reports = mechanism.perturb(ticked, rng)
    counts = joint.pair_counts(group_mechanism, mechanism, group_mechanism.perturb(groups, rng),
                               2 * reports[:, 0] + reports[:, 1])
    found = checkall.option_breakdowns(group_mechanism, mechanism, counts)
    error = (found.share_ci_high - found.share_ci_low) / (2 * ldp.Z95)
    assert found.share.shape == (2, 3)
    assert np.all(np.abs(found.share - truth) < 5 * error)
    mean_error = 3 * (found.ticked.share_ci_high[:, 1] - found.ticked.share_ci_low[:, 1]) / 3.92
    assert np.all(np.abs(3 * found.ticked.share[:, 1] - truth.sum(axis=1)) < 5 * mean_error)
    difference = found.difference(1, 0)
    assert np.all(difference.ci_low <= difference.estimate)
    assert difference.estimate[2] > 0 > difference.estimate[0]
