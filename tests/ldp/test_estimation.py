"""Estimators of surveys.ldp, checked against seeded simulations and against the likelihood.

Tolerances come from sampling theory (explained at each test), never tuned until passing.
"""

import functools
import itertools
import json
import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from surveys import ldp

# Simulated studies: mechanism, true proportions, reports per study.
STUDIES = {
    "rr": (ldp.randomized_response(1.0), [0.7, 0.3], 2000),
    "forced": (ldp.forced_response(0.75, 0.5), [0.9, 0.1], 2000),
    "pq": (ldp.keep_probabilities(0.7, 0.6), [0.45, 0.55], 2000),
    "grr": (ldp.grr(1.0, 6), [0.4, 0.25, 0.15, 0.1, 0.1, 0.0], 2000),
    "sue": (ldp.sue(1.0, 6), [0.4, 0.25, 0.15, 0.1, 0.1, 0.0], 2000),
    "oue": (ldp.oue(2.0, 20), [0.3, 0.2, 0.15, 0.1, 0.1, 0.05, 0.05, 0.05] + [0.0] * 12, 1000),
}
# Repetitions. The sample variance of R estimates has relative standard deviation about
# sqrt(2 / (R - 1)) (the estimates are near-normal: binomial counts with n >= 1000), which is
# 2.2% for R = 4000, so the 15% variance tolerance sits 6.7 standard deviations away. Interval
# coverage over R studies has standard deviation sqrt(0.95 * 0.05 / R) = 0.34%, so the
# [93%, 97%] band is 5.8 standard deviations either side of 95%.
REPETITIONS = 4000
YES_NO = ["rr", "forced", "pq"]


def ldp_id(m: ldp.Mechanism) -> str:
    params = "-".join(f"{key}{value:.3g}" for key, value in m.params().items())
    return f"{m.name}-k{m.k}-{params}"


@functools.cache
def simulate(name: str) -> np.ndarray:
    """Support counts (REPETITIONS, k) of independent seeded studies. Each study samples n
    respondents from the population (so counts are exactly binomial, matching the variance
    formula), randomizes with the reference ``perturb`` and tallies with ``support_counts``."""
    m, truth, n = STUDIES[name]
    rng = np.random.default_rng(sorted(STUDIES).index(name))
    chunk = 100  # studies per batch: vectorised but with bounded memory for unary reports
    counts = []
    for _ in range(REPETITIONS // chunk):
        values = rng.choice(m.k, size=chunk * n, p=truth)
        reports = m.perturb(values, rng)
        counts += [m.support_counts(study) for study in np.split(reports, chunk)]
    return np.array(counts)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_unbiased_estimate_averages_to_the_truth(name):
    m, truth, n = STUDIES[name]
    estimates = m.unbiased(simulate(name), n)
    # Standard error of the mean of R estimates, from the exact variance formula.
    standard_error = np.sqrt(m.variance(truth, n) / REPETITIONS)
    assert np.all(np.abs(estimates.mean(axis=0) - truth) <= 4 * standard_error)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_variance_formula_matches_the_simulation(name):
    m, truth, n = STUDIES[name]
    empirical = m.unbiased(simulate(name), n).var(axis=0, ddof=1)
    assert np.all(np.abs(empirical / m.variance(truth, n) - 1) <= 0.15)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_95_percent_intervals_cover_the_truth_95_percent_of_the_time(name):
    m, truth, n = STUDIES[name]
    counts = simulate(name)
    low, high = m.intervals(counts, n)
    headline = m.headline(counts, n)
    low, high = np.minimum(low, headline), np.maximum(high, headline)  # what estimate() shows
    coverage = np.mean((low <= truth) & (truth <= high), axis=0)
    # n >= 1000 and no lumpy counts: every category, true zeros included, within [93%, 97%]
    # (5.8 binomial standard errors either side of 95%). An equal-tailed interval clipped at
    # 0 would cover a true 0 97.5% of the time; likelihood-ratio ordering does not.
    assert np.all((0.93 <= coverage) & (coverage <= 0.97)), coverage
    # ...and these are the intervals estimate() reports.
    first = m.estimate(counts[0], n)
    assert np.array_equal(first.ci_low, low[0]) and np.array_equal(first.ci_high, high[0])


def exact_coverage(m: ldp.Mechanism, n: int, share: float) -> float:
    """Coverage of ``intervals`` for one category at a true share, summed exactly over the
    Binomial(n, lam) law of its support count (no simulation error)."""
    c = m.k - 1  # category whose share is set; the others share the rest
    lam = m.b[c] + (m.a[c] - m.b[c]) * share
    ys = np.arange(n + 1)
    log_pmf = np.array(
        [math.lgamma(n + 1) - math.lgamma(y + 1) - math.lgamma(n - y + 1) for y in ys]
    ) + ys * math.log(lam) + (n - ys) * math.log1p(-lam)
    pmf = np.exp(log_pmf)
    keep = pmf > 1e-12
    counts = np.zeros((int(keep.sum()), m.k), dtype=np.int64)
    counts[:, c] = ys[keep]
    if m.encoding != "unary":  # a valid count vector: the rest on another category
        counts[:, 0 if c else 1] = n - ys[keep]
    low, high = m.intervals(counts, n)
    covered = (low[:, c] <= share) & (share <= high[:, c])
    return float(np.sum(pmf[keep] * covered))


@pytest.mark.parametrize(
    ("m", "n"),
    [
        (ldp.randomized_response(0.5), 1000),
        (ldp.randomized_response(2.0), 1000),
        (ldp.grr(1.0, 5), 1000),
        (ldp.oue(4.0, 2), 1000),  # a category's interval depends on k only through p and q
        (ldp.sue(0.5, 2), 1000),
        (ldp.grr(0.1, 50), 10_000),
    ],
    ids=lambda v: ldp_id(v) if isinstance(v, ldp.Mechanism) else str(v),
)
def test_exact_coverage_is_near_95_percent_from_0_to_1(m, n):
    # Computed over the count's exact law, so the only tolerance is the [93%, 97%] target.
    for share in (0.0, 0.001, 0.01, 0.05, 0.3, 0.5, 0.999, 1.0):
        assert 0.93 <= exact_coverage(m, n, share) <= 0.97, share


@pytest.mark.parametrize(
    ("m", "n", "share"),
    [
        (ldp.oue(4.0, 14), 30, 0.01),  # Wald + Norm-Sub covered 0.509 here
        (ldp.grr(4.0, 5), 30, 0.01),  # 0.539
        (ldp.oue(4.0, 14), 100, 0.01),  # 0.886
        (ldp.oue(4.0, 14), 30, 0.3),  # 0.861
        (ldp.randomized_response(8.0), 30, 0.05),
        (ldp.grr(8.0, 50), 100, 0.001),
    ],
    ids=lambda v: ldp_id(v) if isinstance(v, ldp.Mechanism) else str(v),
)
def test_small_samples_are_covered_at_least_95_percent(m, n, share):
    # Where n lam (1 - lam) <= 100 the interval is the exact Neyman construction, whose
    # coverage is at least 95% by construction; exact summation checks it.
    assert exact_coverage(m, n, share) >= 0.95 - 1e-9


SMALL_CELLS = [
    (ldp.oue(4.0, 14), 30, 0.01),
    (ldp.grr(4.0, 5), 30, 0.01),
    (ldp.oue(4.0, 14), 100, 0.01),
    (ldp.randomized_response(0.5), 1000, 0.01),  # the old LR interval covered 0.979 here
]


@pytest.mark.parametrize(
    ("m", "n", "share"),
    SMALL_CELLS,
    ids=lambda v: ldp_id(v) if isinstance(v, ldp.Mechanism) else str(v),
)
def test_simulated_studies_cover_as_the_table_says(m, n, share):
    """Whole studies: respondents drawn from the population (share on the last category, the
    rest spread evenly), randomized category counts, the interval estimate() shows (widened
    to the headline). 4000 studies: coverage within 3 binomial standard errors of the
    targets, >= 93% for every n, <= 97% too for n >= 1000."""
    rng = np.random.default_rng(11)
    truth = np.full(m.k, (1 - share) / (m.k - 1))
    truth[-1] = share
    if m.encoding == "unary":
        people = rng.multinomial(n, truth, size=REPETITIONS)
        counts = rng.binomial(people, m.p) + rng.binomial(n - people, m.q)
    else:  # each report is independently category c with probability lam_c
        counts = rng.multinomial(n, m.matrix() @ truth, size=REPETITIONS)
    # The interval of the last category depends on its own count only: compute it once per
    # distinct count (the others are filled in to make a valid count vector).
    distinct, which = np.unique(counts[:, -1], return_inverse=True)
    filled = np.zeros((distinct.size, m.k), dtype=np.int64)
    filled[:, -1] = distinct
    if m.encoding != "unary":
        filled[:, 0] = n - distinct
    low, high = (end[:, -1][which] for end in m.intervals(filled, n))
    headline = m.headline(counts, n)[:, -1]
    low, high = np.minimum(low, headline), np.maximum(high, headline)
    coverage = np.mean((low <= share) & (share <= high))
    error = 3 * math.sqrt(0.95 * 0.05 / REPETITIONS)
    assert coverage >= 0.93 - error
    if n >= 1000:
        assert coverage <= 0.97 + error


def test_norm_sub_is_on_the_simplex_and_closer_to_a_sparse_truth():
    m, truth, n = STUDIES["oue"]
    raw = m.unbiased(simulate("oue")[:500], n)
    consistent = np.array([ldp.project_simplex(row) for row in raw])
    assert np.all(consistent >= 0)
    assert np.allclose(consistent.sum(axis=1), 1, rtol=0, atol=1e-12)
    raw_error = np.sum((raw - truth) ** 2, axis=1)
    consistent_error = np.sum((consistent - truth) ** 2, axis=1)
    # Projection onto a convex set that holds the truth never moves away from it...
    assert np.all(consistent_error <= raw_error + 1e-15)
    # ...and with 12 empty categories it gets strictly closer overall.
    assert consistent_error.sum() < raw_error.sum()


# Norm-Sub on its own --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ([0.5, 0.5], [0.5, 0.5]),
        ([2.0, 0.0], [1.0, 0.0]),
        ([-1.0, 3.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.4, 0.4, 0.4], [1 / 3, 1 / 3, 1 / 3]),
        ([0.6, 0.5, -0.2], [0.55, 0.45, 0.0]),
        ([7.0], [1.0]),
    ],
)
def test_project_simplex_examples(v, expected):
    assert ldp.project_simplex(v) == pytest.approx(expected)


@given(arrays(float, st.integers(1, 30), elements=st.floats(-10, 10)))
def test_project_simplex_is_the_nearest_point_of_the_simplex(v):
    x = ldp.project_simplex(v)
    assert np.all(x >= 0) and x.sum() == pytest.approx(1)
    # KKT: x = max(v - tau, 0): one shift tau for all positive entries, v <= tau elsewhere.
    shifts = (v - x)[x > 0]
    assert np.ptp(shifts) <= 1e-9
    assert np.all(v[x == 0] <= shifts[0] + 1e-9)
    assert ldp.project_simplex(x) == pytest.approx(x)


@pytest.mark.parametrize("v", [[], [[0.5, 0.5]], [0.5, math.nan]])
def test_project_simplex_rejects_junk(v):
    with pytest.raises(ValueError):
        ldp.project_simplex(v)


# Maximum likelihood -------------------------------------------------------------------------


def full_log_likelihood(m: ldp.Mechanism, f: np.ndarray, counts: np.ndarray, n: int) -> float:
    """Independent of the module's separable form: outcomes r with P(r | i) = W[r, i].
    bit/index: the reports themselves (W = S). unary: bit c is 1 or 0 (W = [S; 1 - S])."""
    s = m.matrix()
    if m.encoding == "unary":
        w, observed = np.vstack([s, 1 - s]), np.concatenate([counts, n - counts])
    else:
        w, observed = s, counts
    return float(observed @ np.log(w @ f))


def em(m: ldp.Mechanism, counts: np.ndarray, n: int, steps: int) -> np.ndarray:
    """Plain EM (iterative Bayesian update) as an independent optimiser."""
    s = m.matrix()
    if m.encoding == "unary":
        w, observed = np.vstack([s, 1 - s]) / m.k, np.concatenate([counts, n - counts])
    else:
        w, observed = s, counts
    f = np.full(m.k, 1 / m.k)
    for _ in range(steps):
        f = f * (w.T @ (observed / observed.sum() / (w @ f)))
    return f / f.sum()


def likelihood_cases():
    """Seeded counts for every study design, a dense and a sparse truth each."""
    rng = np.random.default_rng(7)
    for name, (m, truth, n) in sorted(STUDIES.items()):
        for kind, f in (("dense", np.asarray(truth)), ("sparse", np.eye(m.k)[0] * 0.9 + 0.1 / m.k)):
            lam = m.matrix() @ f
            if m.encoding == "unary":
                counts = rng.binomial(n, lam)
            else:
                counts = rng.multinomial(n, lam / lam.sum())
            yield pytest.param(m, counts, n, id=f"{name}-{kind}")


CASES = list(likelihood_cases())


@pytest.mark.parametrize(("m", "counts", "n"), CASES)
def test_log_likelihood_agrees_with_the_full_matrix_form(m, counts, n):
    rng = np.random.default_rng(1)
    for f in rng.dirichlet(np.ones(m.k), size=5):
        assert m.log_likelihood(f, counts, n) == pytest.approx(
            full_log_likelihood(m, f, counts, n), rel=1e-12
        )


@pytest.mark.parametrize(("m", "counts", "n"), CASES)
def test_mle_maximises_the_likelihood(m, counts, n):
    f = m.mle(counts, n)
    assert np.all(f >= 0) and f.sum() == pytest.approx(1, abs=1e-12)
    best = m.log_likelihood(f, counts, n)
    # No small move of probability mass from one category to another does better...
    for i, j in itertools.permutations(range(m.k), 2):
        for step in (1e-3, 1e-6):
            if f[i] >= step:
                moved = f.copy()
                moved[i] -= step
                moved[j] += step
                assert m.log_likelihood(moved, counts, n) <= best + 1e-9
    # ...nor does an independent optimiser, nor the other estimates.
    assert m.log_likelihood(em(m, counts, n, steps=3000), counts, n) <= best + 1e-9
    assert m.log_likelihood(ldp.project_simplex(m.unbiased(counts, n)), counts, n) <= best + 1e-9


def test_mle_beats_a_fine_grid_over_three_categories():
    m = ldp.grr(0.5, 3)
    counts, n = np.array([700, 200, 100]), 1000  # the unbiased estimate has a negative entry
    assert m.unbiased(counts, n).min() < 0
    step = 1 / 400
    a, b = np.meshgrid(np.arange(0, 1 + step / 2, step), np.arange(0, 1 + step / 2, step))
    inside = a + b <= 1
    grid = np.stack([a[inside], b[inside], np.clip(1 - a[inside] - b[inside], 0, 1)], axis=1)
    best = m.log_likelihood(m.mle(counts, n), counts, n)
    assert m.log_likelihood(grid, counts, n).max() <= best + 1e-9
    assert m.mle(counts, n)[2] == 0


@pytest.mark.parametrize("m", [STUDIES[name][0] for name in YES_NO], ids=YES_NO)
def test_yes_no_mle_is_the_unbiased_estimate_clipped(m):
    n = 500
    for ones in range(0, n + 1, 7):
        counts = np.array([n - ones, ones])
        r = m.unbiased(counts, n)[1]
        assert m.mle(counts, n)[1] == pytest.approx(min(max(r, 0), 1), abs=1e-12)


@pytest.mark.parametrize(("epsilon", "k"), [(0.5, 3), (1.0, 5), (2.0, 14), (4.0, 50)])
def test_grr_mle_is_the_unbiased_estimate_when_that_is_not_negative(epsilon, k):
    m = ldp.grr(epsilon, k)
    rng = np.random.default_rng(k)
    checked = 0
    for n in (200, 10_000, 10**7):
        for truth in rng.dirichlet(np.full(k, 5.0), size=30):
            counts = rng.multinomial(n, m.matrix() @ truth)
            unbiased = m.unbiased(counts, n)
            if unbiased.min() >= 0:
                assert np.allclose(m.mle(counts, n), unbiased, rtol=0, atol=1e-13)
                checked += 1
    assert checked >= 30


@pytest.mark.parametrize("m", [ldp.grr(0.5, 6), ldp.grr(3.0, 40), ldp.sue(1.0, 7),
                               ldp.oue(2.0, 30), ldp.oue(0.2, 3)], ids=repr)
def test_mle_meets_the_optimality_conditions(m):
    """Where f_c > 0 the slopes h_c'(f_c) share one value mu; where f_c = 0, h_c'(0) <= mu."""
    rng = np.random.default_rng(m.k)
    a, b = m.matrix().diagonal(), m.matrix()[0, 1]
    for n in (50, 3000, 10**6):
        for truth in rng.dirichlet(np.full(m.k, 0.3), size=10):
            lam = b + (a - b) * truth
            counts = rng.binomial(n, lam) if m.encoding == "unary" else rng.multinomial(
                n, lam / lam.sum())
            f = m.mle(counts, n)
            rate = b + (a - b) * f
            other = n - counts if m.encoding == "unary" else 0
            slope = (a - b) * (counts / rate - other / (1 - rate))
            kept = f > 1e-9
            mu = np.median(slope[kept])
            assert np.allclose(slope[kept], mu, rtol=1e-6, atol=1e-6 * n)
            assert np.all(slope[~kept] <= mu + 1e-6 * n)


def test_mle_works_on_many_studies_at_once():
    m, _, n = STUDIES["grr"]
    counts = simulate("grr")[:20]
    assert np.allclose(m.mle(counts, n), [m.mle(row, n) for row in counts], rtol=0, atol=1e-14)


# Likelihood-ratio intervals -----------------------------------------------------------------


def brute_force_interval(m: ldp.Mechanism, ones: int, n: int, steps: int = 2000):
    """Textbook Feldman-Cousins construction on a grid of pi, independent of the module: for
    each pi, rank the counts y by L(y; pi) / L(y; best pi in [0, 1]) and add them, best
    first, until their probability reaches 95%; the interval is the hull of the pi whose
    acceptance region holds the observed count."""
    def lam(pi: float) -> float:
        return 1 - m.q + pi * (m.p + m.q - 1)

    def loglik(y: int, rate: float) -> float:
        return y * math.log(rate) + (n - y) * math.log(1 - rate)

    accepted = []
    for pi in np.linspace(0, 1, steps + 1):
        rate = lam(pi)
        pmf = [math.comb(n, y) * rate**y * (1 - rate) ** (n - y) for y in range(n + 1)]
        best = [lam(min(max((y / n - lam(0)) / (lam(1) - lam(0)), 0), 1)) for y in range(n + 1)]
        order = sorted(range(n + 1), key=lambda y: -(loglik(y, rate) - loglik(y, best[y])))
        total, region = 0.0, set()
        for y in order:
            region.add(y)
            total += pmf[y]
            if total >= 0.95:
                break
        if ones in region:
            accepted.append(pi)
    return min(accepted), max(accepted)


@pytest.mark.parametrize("m", [STUDIES[name][0] for name in YES_NO], ids=YES_NO)
@pytest.mark.parametrize("ones", [0, 3, 12, 20, 28, 40])
def test_small_sample_interval_is_the_textbook_feldman_cousins_construction(m, ones):
    # n = 40: n lam (1 - lam) <= 10, so the exact construction applies at every pi.
    n = 40
    low, high = m.lr_interval([n - ones, ones], n)
    expected_low, expected_high = brute_force_interval(m, ones, n)
    assert low == pytest.approx(expected_low, abs=1 / 2000)
    assert high == pytest.approx(expected_high, abs=1 / 2000)


def gaussian_critical_value(theta: float, width: float) -> float:
    """c with P(t(X) <= c) = 0.95 for X ~ N(theta, 1), t(x) = (x - theta)^2 - (x - m(x))^2,
    m(x) = clip(x, 0, width): found by bisection on c, with statistics.NormalDist."""
    normal = NormalDist()

    def probability(c: float) -> float:
        r = math.sqrt(c)
        if theta + r <= width:
            upper = normal.cdf(r)
        else:
            upper = normal.cdf((c / (width - theta) + width - theta) / 2) if width > theta else 1.0
        if theta - r >= 0:
            lower = normal.cdf(-r)
        else:
            lower = normal.cdf((theta * theta - c) / (2 * theta) - theta) if theta > 0 else 0.0
        return upper - lower

    low, high = 0.0, ldp.Z95**2
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if probability(middle) < 0.95 else (low, middle)
    return (low + high) / 2


@pytest.mark.parametrize("m", [STUDIES[name][0] for name in YES_NO], ids=YES_NO)
@pytest.mark.parametrize("ones", [300, 420, 500, 650, 1000])
def test_large_sample_interval_ends_where_the_statistic_meets_its_critical_value(m, ones):
    n = 1000
    counts = np.array([n - ones, ones])
    estimate = m.estimate(counts, n)
    low, high = estimate.lr_interval
    pi_hat = estimate.mle[1]
    assert 0 <= low <= pi_hat <= high <= 1
    a, b = m.p, 1 - m.q  # P(report yes | yes), P(report yes | no)

    def statistic(pi: float) -> float:
        def loglik(x: float) -> float:
            lam = b + x * (a - b)
            return ones * math.log(lam) + (n - ones) * math.log(1 - lam)

        return 2 * (loglik(pi_hat) - loglik(pi))

    for end, boundary in ((low, 0.0), (high, 1.0)):
        lam = b + end * (a - b)
        sd = math.sqrt(lam * (1 - lam) / n)
        assert n * lam * (1 - lam) > ldp.EXACT_BELOW_VARIANCE  # the Gaussian-limit regime
        critical = gaussian_critical_value((lam - b) / sd, (a - b) / sd)
        if end == boundary:
            assert statistic(end) <= critical
        else:
            assert statistic(end) == pytest.approx(critical, abs=1e-5)
    # Far from both boundaries this is the plain likelihood-ratio interval (3.84).
    if 0.2 < pi_hat < 0.8:
        assert statistic(low) == pytest.approx(ldp.Z95**2, abs=1e-5)


def test_lr_and_wald_intervals_agree_for_a_large_interior_sample():
    m = ldp.randomized_response(1.0)
    n = 1_000_000
    estimate = m.estimate([600_000, 400_000], n)
    wald = estimate.proportions[1] + np.array([-1, 1]) * ldp.Z95 * estimate.std_errors[1]
    assert estimate.lr_interval == pytest.approx(tuple(wald), abs=1e-4)


def test_only_yes_no_questions_have_an_lr_interval():
    assert ldp.grr(1.0, 2).estimate([5, 5], 10).lr_interval is None


# The Estimate object ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_estimate_fields_fit_together(name):
    m, _, n = STUDIES[name]
    counts = simulate(name)[0]
    e = m.estimate(counts, n)
    assert e.n == n and e.counts.tolist() == counts.tolist()
    assert np.allclose(e.proportions, m.unbiased(counts, n))
    assert np.allclose(e.counts_estimate, n * e.proportions)
    assert np.allclose(e.std_errors, m.std_errors(counts, n))
    assert np.allclose(e.consistent, ldp.project_simplex(e.proportions))
    assert np.allclose(e.mle, m.mle(counts, n))
    assert np.array_equal(e.headline, m.headline(counts, n))
    assert ldp.HEADLINE_METHOD == "mle-pooled"
    low, high = m.intervals(counts, n)
    assert np.array_equal(e.ci_low, np.minimum(low, e.headline))
    assert np.array_equal(e.ci_high, np.maximum(high, e.headline))
    assert np.all((e.ci_low <= e.headline) & (e.headline <= e.ci_high))
    assert np.all((e.ci_low >= 0) & (e.ci_high <= 1))
    assert np.array_equal(e.small_sample, m.small_sample(counts, n))
    assert json.loads(json.dumps(e.to_dict(), allow_nan=False))["n"] == n
    with pytest.raises(ValueError):
        e.proportions[0] = 0.5  # read-only


def test_estimate_with_a_wider_confidence_is_wider():
    m = ldp.grr(1.0, 4)
    narrow, wide = m.estimate([40, 30, 20, 10], 100), m.estimate([40, 30, 20, 10], 100, 0.99)
    assert np.all(wide.ci_high - wide.ci_low >= narrow.ci_high - narrow.ci_low)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_estimate_without_reports_is_unknown_not_a_crash(name):
    m = STUDIES[name][0]
    e = m.estimate(np.zeros(m.k, dtype=int), 0)
    assert np.all(np.isnan(e.proportions)) and np.all(np.isnan(e.mle))
    assert np.all(np.isnan(e.consistent)) and np.all(np.isnan(e.std_errors))
    assert np.all(np.isnan(e.headline)) and np.all(e.small_sample)
    assert e.ci_low.tolist() == [0.0] * m.k and e.ci_high.tolist() == [1.0] * m.k
    assert e.lr_interval == ((0.0, 1.0) if m.encoding == "bit" else None)
    d = json.loads(json.dumps(e.to_dict(), allow_nan=False))
    assert d["proportions"] == [None] * m.k


@pytest.mark.parametrize(
    ("m", "counts", "n"),
    [
        (ldp.randomized_response(1.0), [3, 4], 8),  # bit counts must add up to n
        (ldp.grr(1.0, 3), [3, 4], 7),  # wrong length
        (ldp.grr(1.0, 3), [3, 4, -1], 6),
        (ldp.oue(1.0, 3), [3, 4, 11], 10),  # more supporters than reports
        (ldp.oue(1.0, 3), [1.5, 1, 1], 10),
        (ldp.oue(1.0, 3), ["1", "1", "1"], 10),
        (ldp.oue(1.0, 3), [1, 1, 1], -1),
        (ldp.oue(1.0, 3), [1, 1, 1], 10.0),
        (ldp.oue(1.0, 3), [1, 1, 1], True),
    ],
)
def test_estimate_rejects_inconsistent_counts(m, counts, n):
    with pytest.raises(ValueError):
        m.estimate(counts, n)


@pytest.mark.parametrize("n", [1, 30, 1000, 10**7])
def test_log_binomial_coefficients_are_tabulated_once_per_n(n):
    from surveys.ldp import feldman_cousins

    table, log_choose = feldman_cousins.count_table(n)
    assert feldman_cousins.count_table(n)[1] is log_choose  # cached
    assert table[0] == 0 and table[-1] == n and np.all(np.diff(table) > 0)
    expected = [math.log(math.comb(n, int(t))) for t in table]
    # ln n! - ln t! - ln (n - t)! cancels: the error is a few ulps of ln n!.
    assert np.allclose(log_choose, expected, rtol=1e-13, atol=1e-15 * math.lgamma(n + 1) + 1e-12)
    assert not log_choose.flags.writeable


@pytest.mark.parametrize("n", [30, 400])
@pytest.mark.parametrize("m", [ldp.grr(1.0, 5), ldp.oue(4.0, 3), ldp.randomized_response(0.5)])
def test_exact_p_value_is_the_sum_over_every_count(m, n):
    """The tails from the incomplete beta function against a sum of math.comb terms over all
    n + 1 counts, at every trial rate between lam_hat(y) and both ends; both are exact, so
    they agree to rounding (1e-12)."""
    from surveys.ldp import feldman_cousins

    a, b = float(m.a[0]), float(m.b[0])
    ys = np.array([0.0, 1.0, 3.0, n * (a + b) / 2 // 1, n - 2.0, float(n)])
    size = ys.size
    ends = tuple(np.full(size, v) for v in (a, b, 1 - a, 1 - b))
    count = np.concatenate([ys, ys])[:, None]
    two = np.concatenate([ends[0], ends[0]])[:, None], np.concatenate([ends[1], ends[1]])[:, None]
    side = feldman_cousins.Ends(count, two[0], two[1], 1 - two[0], 1 - two[1], two[0] - two[1],
                                count, np.zeros(2 * size, int), np.arange(2 * size))
    side = side._replace(best=feldman_cousins.best_log_likelihood(count, n, side))
    upward = np.arange(2 * size) >= size
    hat = np.clip((ys / n - b) / (a - b), 0, 1)
    inside, outside = np.concatenate([hat, hat]), np.concatenate([np.zeros(size), np.ones(size)])
    f = inside[:, None] + (outside - inside)[:, None] * np.linspace(0.01, 0.99, 25)
    table = feldman_cousins.crossings(n, side, upward)
    got = feldman_cousins.p_value(f, n, side, table, upward)
    lam = b + (a - b) * f
    exact = n * lam * (1 - lam) <= ldp.EXACT_BELOW_VARIANCE
    assert exact.sum() > 100

    def loglik(y: int, rate: float) -> float:
        return y * math.log(rate) + (n - y) * math.log(1 - rate) if 0 < rate < 1 else 0.0

    def best(y: int) -> float:
        return loglik(y, b + (a - b) * min(max((y / n - b) / (a - b), 0.0), 1.0))

    for r, c in zip(*np.nonzero(exact), strict=True):
        y, rate = int(count[r, 0]), float(lam[r, c])
        observed = loglik(y, rate) - best(y)
        tie = 1e-9 * (1 + abs(observed))
        want = sum(math.comb(n, t) * rate**t * (1 - rate) ** (n - t) for t in range(n + 1)
                   if loglik(t, rate) - best(t) <= observed + tie)
        assert got[r, c] == pytest.approx(want, abs=1e-12), (y, rate)


def direct_p_values(a: float, b: float, n: int, y: int, f: np.ndarray) -> np.ndarray:
    """P_f(R(Y) <= R(y)) summed over all n + 1 counts with numpy (ties within
    1e-9 (1 + |ln R(y)|) count as not above), independently of the module; for n small
    enough that n lam (1 - lam) <= 100 everywhere, where the module's p-value is this sum."""
    t = np.arange(n + 1.0)
    lam = (b + (a - b) * f)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        def loglik(count: np.ndarray, rate: np.ndarray) -> np.ndarray:
            return (np.where(count > 0, count * np.log(rate), 0.0)
                    + np.where(count < n, (n - count) * np.log1p(-rate), 0.0))

        hat = b + (a - b) * np.clip((t / n - b) / (a - b), 0, 1)
        ratio = loglik(t, lam) - loglik(t, hat)
    observed = ratio[:, [y]]
    log_pmf = (math.lgamma(n + 1) - np.array([math.lgamma(k + 1) + math.lgamma(n - k + 1)
                                               for k in range(n + 1)]) + loglik(t, lam))
    inside = ratio <= observed + 1e-9 * (1 + np.abs(observed))
    return np.where(inside, np.exp(log_pmf), 0.0).sum(axis=1)


@pytest.mark.parametrize("m", [ldp.randomized_response(0.5), ldp.randomized_response(4.0),
                               ldp.forced_response(0.6, 0.3), ldp.grr(2.0, 5), ldp.oue(1.0, 4)],
                         ids=ldp_id)
def test_interval_is_the_hull_of_the_accepted_shares(m):
    """n = 30 (n lam (1 - lam) <= 7.5: the exact p-value everywhere). On a grid of 20,001
    shares, no accepted share lies outside the interval (the hull, including narrow accepted
    pockets: for randomized response at epsilon 0.5 and count 7 the upper end is 0.330, where
    the p-value creeps back above 0.05 after falling below it at 0.275), and each end that is
    not 0 or 1 is a limit of accepted shares: the p-value 1e-9 inside it exceeds 0.05. The
    p-value is the direct sum (``direct_p_values``); the module's ends are good to 2e-11,
    far below the grid's spacing of 5e-5 and the 1e-9 step."""
    n = 30
    a, b = float(m.a[0]), float(m.b[0])
    grid = np.linspace(0, 1, 20_001)
    low, high = m.category_intervals(0, np.arange(n + 1), n)
    for y in range(n + 1):
        accepted = grid[direct_p_values(a, b, n, y, grid) > 0.05]
        assert accepted.min() >= low[y] - 1e-9 and accepted.max() <= high[y] + 1e-9, y
        for end, inward in ((low[y], 1e-9), (high[y], -1e-9)):
            if 0 < end < 1:
                assert direct_p_values(a, b, n, y, np.array([end + inward]))[0] > 0.05, y
    if m.name == "randomized response" and m.params()["epsilon"] == 0.5:
        assert high[7] == pytest.approx(0.33027, abs=1e-5)


@pytest.mark.parametrize("n", [30, 1000, 100_000, 10**7])
@pytest.mark.parametrize("m", [ldp.randomized_response(1.0), ldp.grr(0.5, 50), ldp.oue(4.0, 14),
                               ldp.sue(8.0, 5)], ids=ldp_id)
def test_interval_ends_are_where_the_p_value_crosses_or_jumps_past_alpha(m, n):
    """At each end strictly inside (0, 1), by the module's own evaluator ``p_value`` (which
    does not share the search's code): the p-value 1e-9 inside the end exceeds alpha and
    1e-9 outside it is at most alpha (so the end is a crossing or a jump past alpha); where
    the p-value is continuous there (the Gaussian regime, n lam (1 - lam) > 100, away from
    the regime's switch), it is alpha at the end: the end is exact to 2e-11 in f, 1/50 of
    the 1e-9 steps, so |p(end) - alpha| is at most 1/50 of the change of p over the two steps
    (the slope barely changes over 2e-9), plus rounding."""
    from surveys.ldp import feldman_cousins

    rng = np.random.default_rng(n)
    a, b = float(m.a[0]), float(m.b[0])
    counts = np.unique(np.concatenate([[0, 1, n - 1, n], rng.binomial(n, b + (a - b) *
                                                                       rng.uniform(0, 1, 60))]))
    low, high = m.category_intervals(0, counts, n)
    size = counts.size
    count = counts.astype(float)[:, None]
    ends = (np.full((size, 1), v) for v in (a, b, 1 - a, 1 - b))
    side = feldman_cousins.Ends(count, *ends, np.full((size, 1), a - b), count, np.zeros(size, int),
                                np.arange(size))
    side = side._replace(best=feldman_cousins.best_log_likelihood(count, n, side))
    checked = 0
    for end, upward in ((low, False), (high, True)):
        direction = np.full(size, upward)
        table = feldman_cousins.crossings(n, side, direction)
        step = 1e-9 if upward else -1e-9
        points = np.stack([end - step, end, end + step], axis=1)
        p = feldman_cousins.p_value(np.clip(points, 0, 1), n, side, table, direction)
        interior = (end > 1e-8) & (end < 1 - 1e-8)
        assert np.all(p[interior, 0] > 0.05) and np.all(p[interior, 2] <= 0.05)
        lam = b + (a - b) * end
        smooth = interior & (n * lam * (1 - lam) > 1.01 * ldp.EXACT_BELOW_VARIANCE)
        span = p[smooth, 0] - p[smooth, 2]
        assert np.all(np.abs(p[smooth, 1] - 0.05) <= span / 50 + 1e-12)
        checked += smooth.sum()
    if n >= 100_000:
        assert checked > 0
