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
        expected = mechanism.report_probabilities(i) @ mechanism.position_values()
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



def _plain_ems(mechanism, counts, n, steps):
    """EMS by plain steps from the even start, with no extrapolation."""
    f = np.full(mechanism.starts + mechanism.extras, 1 / (mechanism.starts + mechanism.extras))
    for _ in range(steps):
        f = mechanism._ems_step(f, counts.astype(float), n)
    return f


@pytest.mark.parametrize(("epsilon", "extras", "n"), [(1.0, 0, 1_000), (0.25, 2, 1_000_000)])
def test_the_bins_are_the_fixed_point_of_the_ems_step(epsilon, extras, n):
    """The extrapolated EMS ends where plain EMS steps lead: at the first design, 2,000 plain
    steps get there; at the second (small epsilon, an extra answer nobody gives: a share
    that tends to 0, approached slowly) the 5,000 plain steps EMS once stopped at still moved
    shares by more than the tolerance, and the extrapolated one gets there."""
    mechanism = ldp.number_window(epsilon, 0, 30, 0, [1, 5, 10, 20], extras=extras)
    truth = np.r_[np.geomspace(1, 0.01, mechanism.starts), np.zeros(extras)]
    truth[mechanism.starts:mechanism.starts + extras - 1] = 0.1 * extras
    counts = np.random.default_rng(3).multinomial(n, mechanism.matrix() @ (truth / truth.sum()))
    found = mechanism.starts_distribution(counts, n)
    step = mechanism._ems_step(found, counts.astype(float), n)
    assert np.abs(step - found).max() < numbers.EM_TOLERANCE
    if extras == 0:
        assert found == pytest.approx(_plain_ems(mechanism, counts, n, 2_000), abs=1e-7)
    else:
        plain = _plain_ems(mechanism, counts, n, numbers.EM_MAX_STEPS)
        assert np.abs(mechanism._ems_step(plain, counts.astype(float), n) - plain).max() > (
            numbers.EM_TOLERANCE)

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


# Extra answers ("No answer", "Not asked"): one more window each, after the grid.

@pytest.mark.parametrize("extras", [1, 2])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_extra_answers_keep_the_exact_epsilon(epsilon, extras):
    mechanism = ldp.number_window(epsilon, 0, 37, 0, [], extras)
    laws = np.array([mechanism.report_probabilities(i) for i in range(mechanism.steps + 1)]
                    + [mechanism.extra_probabilities(e) for e in range(extras)])
    assert laws.shape[1] == mechanism.tally_size == numbers.CELLS + extras * mechanism.width
    assert np.allclose(laws.sum(axis=1), 1)
    assert np.log(laws.max(axis=0) / laws.min(axis=0)).max() == pytest.approx(epsilon, abs=1e-12)
    assert mechanism.exact_epsilon() == pytest.approx(epsilon, abs=1e-12)
    assert mechanism.k == 1 + extras


@pytest.mark.parametrize("extras", [0, 1, 2])
def test_the_values_mean_the_number_and_whether_one_was_given(extras):
    """E[unbiased value | number x] = x and E[answered value | x] = 1; both 0 for an extra
    answer. Without extra answers the values are the plain ones."""
    mechanism = ldp.number_window(1.0, -5, 5, 1, [], extras)
    values, answered = mechanism.unbiased_values(), mechanism.answered_values()
    for i in range(mechanism.steps + 1):
        law = mechanism.report_probabilities(i)
        assert law @ values == pytest.approx(-5 + i / 10, abs=1e-9)
        assert law @ answered == pytest.approx(1, abs=1e-12)
    for e in range(extras):
        law = mechanism.extra_probabilities(e)
        assert (law @ values, law @ answered) == pytest.approx((0, 0), abs=1e-9)
    if not extras:
        assert np.allclose(values, mechanism.to_unit(numbers.position_values(mechanism.matrix())))
        assert np.allclose(answered, 1, atol=1e-12)


def test_the_reference_randomizer_sends_an_extra_answer_by_its_law():
    mechanism = ldp.number_window(1.0, 0, 100, 0, [], extras=2)
    n = 200_000
    rng = np.random.default_rng(4)
    reports = mechanism.perturb(np.zeros(n), rng, extra=np.full(n, 1))
    expected = n * mechanism.extra_probabilities(1)
    assert np.all(np.abs(mechanism.support_counts(reports) - expected) < 5 * np.sqrt(expected))
    with pytest.raises(ValueError, match="extra"):
        mechanism.perturb(np.zeros(3), rng, extra=[0, 2, -1])


def test_the_mean_among_those_who_gave_a_number_covers_in_repeated_studies():
    """200 studies of 2,000 respondents at epsilon 1, 20% refusing: coverage within 3
    binomial standard errors of 0.95 (bench/bench_numbers.py --extras measures it over
    epsilon and n); the unbiased ratio within 4 standard errors of the truth; the refusal
    share within 5 standard errors."""
    mechanism = ldp.number_window(1.0, 18, 99, 0, [30, 45, 65], extras=1)
    rng = np.random.default_rng(12)
    n = 2000
    ages = rng.integers(18, 60, size=n).astype(float)
    refused = np.where(rng.random(n) < 0.2, 0, -1)
    truth = ages[refused < 0].mean()
    found, refusals = [], []
    for _ in range(200):
        counts = mechanism.support_counts(mechanism.perturb(ages, rng, extra=refused))
        found.append(mechanism.mean(counts, n))
        refusals.append(mechanism.estimate(counts, n).headline[-1])
    covered = np.mean([m.ci_low <= truth <= m.ci_high for m in found])
    assert abs(covered - 0.95) < 3 * math.sqrt(0.95 * 0.05 / 200)
    unbiased = np.array([m.unbiased for m in found])
    assert abs(unbiased.mean() - truth) < 4 * unbiased.std() / math.sqrt(200)
    refusals = np.array(refusals)
    assert abs(refusals.mean() - np.mean(refused == 0)) < 5 * refusals.std() / math.sqrt(200)


def test_no_reports_and_too_few_with_extra_answers():
    mechanism = ldp.number_window(1.0, 0, 10, 0, [], extras=1)
    for n in (0, 1):
        counts = np.zeros(mechanism.tally_size, dtype=np.int64)
        counts[:n] = 1
        mean = mechanism.mean(counts, n)
        assert math.isnan(mean.estimate) and (mean.ci_low, mean.ci_high) == (0, 10)


def test_a_spec_frozen_before_extra_answers_still_rebuilds():
    spec = ldp.number_window(1.0, 0, 30, 0, [10]).spec()
    del spec["extras"]
    assert ldp.from_spec(spec).extras == 0
    with_extras = ldp.number_window(1.0, 0, 30, 0, [10], extras=2).spec()
    assert ldp.from_spec(with_extras).spec() == with_extras


def test_group_means_are_among_those_who_gave_a_number():
    """A yes/no group question and a number with 30% refusing, everywhere: each group's
    mean within 5 standard errors of the mean among those in it who gave a number."""
    group = ldp.randomized_response(2.0)
    mechanism = ldp.number_window(2.0, 0, 100, 0, [], extras=1)
    rng = np.random.default_rng(21)
    n = 40_000
    member = rng.integers(0, 2, size=n)
    values = np.where(member == 1, rng.integers(0, 41, size=n), rng.integers(40, 101, size=n))
    refused = np.where(rng.random(n) < 0.3, 0, -1)
    a = group.perturb(member, rng)
    b = mechanism.perturb(values.astype(float), rng, extra=refused)
    found = numbers.group_means(group, mechanism, joint.pair_counts(group, mechanism, a, b))
    for g in (0, 1):
        truth = values[(member == g) & (refused < 0)].mean()
        assert abs(found.estimate[g] - truth) < 5 * found.std_error[g]
