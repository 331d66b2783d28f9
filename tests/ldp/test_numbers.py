"""The number mechanism (surveys/ldp/numbers.py): its exact epsilon on the grid, its
reference randomizer, its unbiased mean with its interval, the bins, the means within groups,
the planner, its spec and its refusals."""

import math

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp import joint, numbers


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
def test_exact_epsilon_over_every_input_of_the_grid(epsilon):
    """max over cells and pairs of grid inputs of ln P(cell | i) / P(cell | i') is epsilon."""
    mechanism = ldp.number_window(epsilon, 0, 37)
    laws = np.array([mechanism.report_probabilities(i) for i in range(mechanism.steps + 1)])
    assert np.allclose(laws.sum(axis=1), 1)
    worst = np.log(laws.max(axis=0) / laws.min(axis=0)).max()
    assert worst == pytest.approx(epsilon, abs=1e-12)
    assert mechanism.exact_epsilon() == pytest.approx(epsilon, abs=1e-12)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_the_reports_value_has_the_true_position_as_exact_expectation(epsilon):
    mechanism = ldp.number_window(epsilon, -5, 5, 1)
    for i in range(mechanism.steps + 1):
        expected = mechanism.report_probabilities(i) @ mechanism._values
        assert expected == pytest.approx(i / mechanism.steps, abs=1e-12)


def test_reference_randomizer_follows_the_report_law():
    mechanism = ldp.number_window(1.0, 0, 100)
    n = 200_000
    reports = mechanism.perturb(np.full(n, 42), np.random.default_rng(3))
    counts = mechanism.support_counts(reports)
    expected = n * mechanism.report_probabilities(42)
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected))


def test_mean_interval_covers_in_repeated_studies():
    """200 studies of 500 respondents at epsilon 1: coverage of the 95% interval within
    3 binomial standard errors (0.046) of 0.95; the mean of the estimates within 4 of their
    standard errors of the truth."""
    mechanism = ldp.number_window(1.0, 18, 99, 0, [30, 45, 65])
    rng = np.random.default_rng(11)
    truth_values = rng.integers(18, 60, size=500)
    truth = truth_values.mean()
    found = [
        mechanism.mean(mechanism.support_counts(mechanism.perturb(truth_values, rng)), 500)
        for _ in range(200)
    ]
    covered = np.mean([m.ci_low <= truth <= m.ci_high for m in found])
    assert abs(covered - 0.95) < 3 * math.sqrt(0.95 * 0.05 / 200)
    unbiased = np.array([m.unbiased for m in found])
    assert abs(unbiased.mean() - truth) < 4 * unbiased.std() / math.sqrt(200)


def test_bins_add_up_and_follow_the_truth():
    mechanism = ldp.number_window(4.0, 0, 10, 0, [5])
    rng = np.random.default_rng(5)
    values = np.r_[np.full(30_000, 2), np.full(10_000, 8)]
    counts = mechanism.support_counts(mechanism.perturb(values, rng))
    estimate = mechanism.estimate(counts, values.size)
    assert estimate.headline.sum() == pytest.approx(1)
    assert estimate.headline == pytest.approx([0.75, 0.25], abs=0.03)
    assert np.all(np.isnan(estimate.ci_low))
    assert mechanism.bin_labels() == ["0 to 5", "5 to 10"]


def test_no_reports():
    mechanism = ldp.number_window(1.0, 0, 10)
    mean = mechanism.mean(np.zeros(mechanism.cells, dtype=np.int64), 0)
    assert math.isnan(mean.estimate) and (mean.ci_low, mean.ci_high) == (0, 10)
    nothing = np.zeros(mechanism.cells, dtype=np.int64)
    assert np.all(np.isnan(mechanism.estimate(nothing, 0).headline))


def test_group_means_follow_the_groups():
    group = ldp.randomized_response(2.0)
    mechanism = ldp.number_window(2.0, 0, 100)
    rng = np.random.default_rng(8)
    n = 40_000
    groups = (rng.random(n) < 0.4).astype(np.int64)
    values = np.where(groups == 1, rng.integers(50, 101, n), rng.integers(0, 51, n))
    counts = joint.pair_counts(group, mechanism, group.perturb(groups, rng),
                               mechanism.perturb(values, rng))
    found = numbers.group_means(group, mechanism, counts)
    for g in (0, 1):
        truth = values[groups == g].mean()
        assert found.ci_low[g] <= truth <= found.ci_high[g]
    estimate, low, high = found.difference(1, 0)
    assert low <= values[groups == 1].mean() - values[groups == 0].mean() <= high
    statistic, df, p_value = found.association()
    assert df == 1 and p_value < 0.001


def test_planner_is_in_the_questions_unit():
    mechanism = ldp.number_window(1.0, 0, 200)
    n = mechanism.n_for_mean_margin(5.0)
    assert mechanism.mean_margin(n) <= 5.0 < mechanism.mean_margin(n - 1)
    assert mechanism.mean_margin(n) == pytest.approx(200 * mechanism.margin_of_error(n))


def test_spec_round_trip_and_tampering():
    mechanism = ldp.number_window(1.5, 1.5, 9.25, 2, [3, 5.5])
    spec = mechanism.spec()
    assert ldp.from_spec(spec).spec() == spec
    with pytest.raises(ValueError, match="does not match"):
        ldp.from_spec({**spec, "p": 0.99})


@pytest.mark.parametrize("report", [-1, 64, 1.5, True, "3", [3], None])
def test_bad_reports_are_refused(report):
    with pytest.raises(ValueError, match="whole number from 0 to 63"):
        ldp.number_window(1.0, 0, 10).validate_report(report)


@pytest.mark.parametrize("args", [
    (1.0, 5, 5), (1.0, 0, 1.25, 1), (1.0, 0, 10, 0, [5, 3]), (1.0, 0, 10, 0, [10]),
    (1.0, 0, 10**8), (1.0, 0, 10, 4), (1.0, 0, math.inf),
])
def test_bad_designs_are_refused(args):
    with pytest.raises(ValueError):
        ldp.number_window(*args)
