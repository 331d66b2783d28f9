"""Local differential privacy: randomizers, estimators and a sample-size planner.

Pure numpy + standard library; no Django. The browser twin is ``static/surveys/ldp.js``;
``tests/ldp_vectors.json`` (written by ``python -m surveys.ldp``) keeps the two in step.

Notation: epsilon > 0 is the privacy parameter, k the number of true categories (yes/no
questions have k = 2 with category 0 = "no" and 1 = "yes"), n the number of reports.

Every mechanism here is described by one k x k matrix ``S = m.matrix()``::

    S[c, i] = P(a report supports category c | the respondent's true category is i)

A report supports category c when it *is* c ("bit" and "index" encodings) or when its bit c
is 1 ("unary" encoding). Every row of S has the same value off the diagonal, so category c
is supported with probability a_c = S[c, c] by its own members and b_c = S[c, j] (j != c) by
everyone else, and a_c > b_c. All estimators below follow from that (Wang et al. 2017).

Sources: Warner (1965); Dwork & Roth; Wang et al., "Locally differentially private protocols
for frequency estimation" (USENIX Security 2017) and "Locally differentially private
frequency estimation with consistency" (NDSS 2020). Guide: docs/ldp.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np

from . import _headline, _intervals, _mle
from ._checks import check_n, check_probability, is_integer, is_real, read_only
from ._words import gettext_noop

Z95: float = 1.959963984540054
"""Two-sided 95% standard normal quantile."""

MIN_EPSILON: float = 0.01
"""Smallest epsilon accepted, wherever epsilon enters (builders, and the exact epsilon of
probabilities given directly). At epsilon = 0.01 a 95% margin of plus or minus 5 points
already needs about 15 million yes/no reports; below it no survey yields usable numbers."""

MAX_EPSILON: float = 20.0
"""Largest epsilon accepted. At epsilon = 20 a report is already 485 million times likelier
to match the truth than not; beyond it the smallest probabilities approach the 2^-53
resolution with which the browser realises them."""

MAX_CATEGORIES: int = 1000
"""Largest k accepted: matrices are k x k, and unary reports have k bits."""

MAX_PLANNED_RESPONDENTS: int = 10**9
"""``n_for_margin`` refuses targets that would need more reports than this."""

EXACT_BELOW_VARIANCE: float = _intervals.EXACT_BELOW_VARIANCE
"""The interval uses the exact (Neyman) construction at hypothesised support rates lam with
n lam (1 - lam) at most this, and the Gaussian limit of the same construction above it."""

SMALL_SAMPLE_COUNT: int = 10
"""``small_sample`` flags a category whose support count, or the count of reports not
supporting it, is below this: the count is then too lumpy for any interval to keep its
coverage near 95% (see docs/ldp.md, "Small-sample warning")."""

INTERVAL_METHOD: str = "feldman-cousins"
"""Name of the method behind ``Estimate.ci_low``/``ci_high``, for the pages."""

INTERVAL_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Feldman-Cousins (likelihood-ratio ordered Neyman) 95% interval for each share from its "
    "binomial support count, with the share restricted to [0, 1]: exact for small counts, its "
    "Gaussian limit otherwise, widened when needed to contain the headline estimate."
)
"""One sentence for a statistician on how the intervals are made."""

HEADLINE_METHOD: str = "mle-pooled"
"""Name of the estimator behind ``Estimate.headline``, for the pages."""

HEADLINE_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Maximum-likelihood shares under the exact randomization probabilities for the answers "
    "clearly above the noise (more than 1.75 standard errors of an empty answer's estimate); "
    "the other answers' shares pulled towards their mean by positive-part James-Stein "
    "shrinkage, keeping them non-negative and the total at 1."
)
"""One sentence for a statistician on what the headline numbers are."""


def fewest_respondents(
    needed: float,
    margin: float,
    margin_at: Callable[[int], float],
    target: str,
    advice: str = "raise epsilon or accept a wider margin",
) -> int:
    """The smallest n with ``margin_at(n) <= margin``, from ``needed``, a closed form's
    estimate of it that rounding can leave off by one: settled on ``margin_at`` itself.
    ValueError when ``needed`` exceeds ``MAX_PLANNED_RESPONDENTS`` (``target``: the margin
    asked for, in words; ``advice``: what to do instead)."""
    if needed > MAX_PLANNED_RESPONDENTS:
        raise ValueError(
            f"{target} needs about {needed:.2g} respondents, more than the planner's limit of "
            f"{MAX_PLANNED_RESPONDENTS:,}: {advice}"
        )
    n = max(1, math.ceil(needed))
    while margin_at(n) > margin:
        n += 1
    while n > 1 and margin_at(n - 1) <= margin:
        n -= 1
    return n


def z_value(confidence: float) -> float:
    """Two-sided standard normal quantile for ``confidence`` in (0, 1); 0.95 -> ~1.96."""
    if not (is_real(confidence) and 0 < confidence < 1):
        raise ValueError(
            f"confidence must be a number strictly between 0 and 1, got {confidence!r}"
        )
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def epsilon_from_matrix(matrix: np.ndarray) -> float:
    """Exact LDP epsilon of a mechanism with output distribution ``matrix[r, i] = P(r | i)``.

    epsilon = max over outputs r and inputs i, j of ln(P(r | i) / P(r | j)). The matrix must
    list every output (columns summing to 1), so this suits "bit" and "index" mechanisms, or
    the full 2^k-row matrix of a unary one.
    """
    m = np.asarray(matrix, dtype=float)
    return float(np.max(np.log(m.max(axis=1) / m.min(axis=1))))


def project_simplex(v: Any) -> np.ndarray:
    """Norm-Sub: the Euclidean projection of ``v`` onto the probability simplex.

    Returns the unique x >= 0 with sum(x) = 1 minimising ||x - v||; it is
    x_i = max(v_i - tau, 0) for the tau that makes the sum 1 (Wang et al., NDSS 2020, call this
    Norm-Sub: zero the negatives and shift the rest by a common amount). Because the true
    proportions lie on the simplex, which is convex, the projection is never farther from them
    than ``v``. O(k log k) (Held, Wolfe & Crowder 1974; Duchi et al. 2008).
    """
    x = np.asarray(v, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("project_simplex needs a non-empty 1-D array of finite numbers")
    u = np.sort(x)[::-1]
    cumulative = np.cumsum(u) - 1
    ranks = np.arange(1, x.size + 1)
    rho = np.nonzero(u - cumulative / ranks > 0)[0][-1]
    return np.maximum(x - cumulative[rho] / (rho + 1), 0.0)


def _check_epsilon(epsilon: object) -> float:
    if not (is_real(epsilon) and math.isfinite(epsilon) and MIN_EPSILON <= epsilon <= MAX_EPSILON):
        raise ValueError(
            f"epsilon must be a number from MIN_EPSILON = {MIN_EPSILON:g} to {MAX_EPSILON:g}, "
            f"got {epsilon!r}"
        )
    return float(epsilon)


def _check_k(k: object) -> int:
    if not (is_integer(k) and 2 <= k <= MAX_CATEGORIES):
        raise ValueError(
            f"the number of categories k must be a whole number from 2 to {MAX_CATEGORIES}, "
            f"got {k!r}"
        )
    return int(k)


@dataclass(frozen=True, eq=False)
class Estimate:
    """What n reports say about the true proportions of the k categories.

    - ``headline``: the numbers to chart and quote (``HEADLINE_METHOD``; today the
      maximum-likelihood proportions of the answers clearly above the noise, the others
      pooled towards their mean: see ``Mechanism.headline``; on the simplex).
    - ``ci_low``/``ci_high``: 95% intervals for each proportion (``INTERVAL_METHOD``, see
      ``Mechanism.intervals``), widened where needed to contain ``headline``.
    - ``small_sample``: per category, whether its interval is in the small-sample regime
      (``Mechanism.small_sample``), for the pages to warn.
    - ``proportions``: the unbiased estimate (may fall outside [0, 1], need not sum to 1).
    - ``counts_estimate``: n * proportions, unbiased for the true counts.
    - ``std_errors``: plug-in standard errors of ``proportions`` (see ``Mechanism.std_errors``).
    - ``consistent``: Norm-Sub, the projection of ``proportions`` onto the simplex.
    - ``mle``: maximum-likelihood proportions, on the simplex (see ``Mechanism.mle``).
    - ``lr_interval``: yes/no only, the interval for P(yes) (``ci_low[1]``, ``ci_high[1]``);
      None otherwise.

    With n == 0 nothing is known: every estimate is NaN, every interval is [0, 1] (and
    ``lr_interval`` is (0, 1) for yes/no), every category is flagged ``small_sample``. Arrays
    are read-only; equality is identity.
    """

    n: int
    counts: np.ndarray
    headline: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    small_sample: np.ndarray
    proportions: np.ndarray
    counts_estimate: np.ndarray
    std_errors: np.ndarray
    consistent: np.ndarray
    mle: np.ndarray
    lr_interval: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable copy: arrays become lists of floats (counts: ints; small_sample:
        bools), NaN -> None."""

        def floats(a: np.ndarray) -> list[float | None]:
            return [float(x) if math.isfinite(x) else None for x in a]

        return {
            "n": self.n,
            "counts": [int(c) for c in self.counts],
            "headline": floats(self.headline),
            "ci_low": floats(self.ci_low),
            "ci_high": floats(self.ci_high),
            "small_sample": [bool(x) for x in self.small_sample],
            "proportions": floats(self.proportions),
            "counts_estimate": floats(self.counts_estimate),
            "std_errors": floats(self.std_errors),
            "consistent": floats(self.consistent),
            "mle": floats(self.mle),
            "lr_interval": None if self.lr_interval is None else list(self.lr_interval),
        }


class Mechanism:
    """A randomizer plus everything needed to plan a study with it and to analyse its reports.

    Subclasses fix the encoding ("bit", "index", "unary") and how reports look; estimation,
    planning and the spec are shared here and depend only on ``matrix()``.

    Attributes: ``name`` ("rr", "forced", "pq", "grr", "sue", "oue"), ``label`` (human name),
    ``encoding``, ``k``, ``p``, ``q`` (meaning depends on the encoding; see the subclasses),
    ``epsilon`` (the requested epsilon for mechanisms built from one, which the exact epsilon
    of the matrix equals up to floating-point rounding of p and q; otherwise the exact
    epsilon of the matrix).
    """

    encoding: str = ""

    def __init__(
        self,
        name: str,
        label: str,
        k: int,
        p: float,
        q: float,
        params: dict[str, Any],
        p_bar: float | None = None,
        q_bar: float | None = None,
    ) -> None:
        """``p_bar`` and ``q_bar`` are 1 - p and 1 - q. Builders that know them in closed form
        pass them, so that a probability near 1 keeps its full relative precision in its
        complement (at epsilon = 20, 1 - p is 2e-9 and computing it as 1 - p would lose 8
        digits); by default they are computed as 1 - p and 1 - q."""
        self.name = name
        self.label = label
        self.k = _check_k(k)
        self.p = check_probability("p", p)
        self.q = check_probability("q", q)
        self.p_bar = 1 - self.p if p_bar is None else float(p_bar)
        self.q_bar = 1 - self.q if q_bar is None else float(q_bar)
        self._params = dict(params)
        self._check_structure()
        support, complement = self.matrix(), self._matrix_complement()
        others = (np.arange(self.k) + 1) % self.k
        # read-only: one mechanism per spec is shared by every caller (``from_spec``)
        self._a = read_only(np.diag(support))  # P(report supports c | truth c)
        self._b = read_only(support[np.arange(self.k), others])  # P(supports c | truth != c)
        self._a_bar = read_only(np.diag(complement))  # 1 - a, at full precision
        self._b_bar = read_only(complement[np.arange(self.k), others])  # 1 - b, full precision
        exact = self.exact_epsilon()
        if not exact <= MAX_EPSILON * (1 + 1e-12):
            raise ValueError(
                f"these probabilities give epsilon = {exact:.4g}, above the maximum "
                f"{MAX_EPSILON:g}: almost no privacy"
            )
        if not exact >= MIN_EPSILON * (1 - 1e-12):
            raise ValueError(
                f"these probabilities give epsilon = {exact:.4g}, below MIN_EPSILON = "
                f"{MIN_EPSILON:g}: reports would carry almost no information"
            )
        self.epsilon: float = float(self._params.get("epsilon", exact))

    def __repr__(self) -> str:
        params = ", ".join(f"{key}={value!r}" for key, value in self.params().items())
        return f"<{type(self).__name__} {self.name}({params}) k={self.k} p={self.p!r} q={self.q!r}>"

    # What subclasses define ----------------------------------------------------------------

    def _check_structure(self) -> None:
        """Raise ValueError unless p and q make sense for this encoding."""
        raise NotImplementedError

    def perturb(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Reference randomizer: one report per true category in ``values`` (ints in [0, k))."""
        raise NotImplementedError

    # Defaults for reports that name one category ("bit", "index"); unary overrides them.

    def matrix(self) -> np.ndarray:
        """k x k matrix S[c, i] = P(report supports category c | true category i); here p on
        the diagonal and q elsewhere."""
        return np.full((self.k, self.k), self.q) + (self.p - self.q) * np.eye(self.k)

    def _matrix_complement(self) -> np.ndarray:
        """1 - ``matrix()`` without cancellation: here 1 - p on the diagonal, 1 - q elsewhere."""
        return np.full((self.k, self.k), self.q_bar) + (self.p_bar - self.q_bar) * np.eye(self.k)

    def exact_epsilon(self) -> float:
        """Exact epsilon of the probability matrix as stored in floating point."""
        return epsilon_from_matrix(self.matrix())

    def support_counts(self, reports: Any) -> np.ndarray:
        """Length-k int array: how many of ``reports`` support each category (here: name it)."""
        r = np.asarray(reports)
        if r.size == 0:
            return np.zeros(self.k, dtype=np.int64)
        if (
            r.ndim != 1
            or not np.issubdtype(r.dtype, np.integer)
            or r.min() < 0
            or r.max() >= self.k
        ):
            raise ValueError(f"reports must be a 1-D array of categories in [0, {self.k})")
        return np.bincount(r, minlength=self.k).astype(np.int64)

    def validate_report(self, report: object) -> int | tuple[int, ...]:
        """Parse one report decoded from JSON; raise ValueError with a human message if bad.
        Here: a JSON integer in [0, k) (not a bool, float or string)."""
        if not is_integer(report) or not 0 <= report < self.k:
            if self.encoding == "bit":
                raise ValueError(f"a yes/no report must be the number 0 or 1, got {report!r}")
            raise ValueError(
                f"a report must be a whole number from 0 to {self.k - 1}, got {report!r}"
            )
        return int(report)

    def support(self, report: object) -> list[int]:
        """Categories that one report supports (it is validated first)."""
        return [self.validate_report(report)]

    # Shared by all: spec, estimation, planning -----------------------------------------------

    @property
    def tally_size(self) -> int:
        """How many tally cells (``support``) its reports fall in: one per category."""
        return self.k

    def params(self) -> dict[str, Any]:
        """The parameters the mechanism was built from, e.g. {"epsilon": 1.0}."""
        return dict(self._params)

    def spec(self) -> dict[str, Any]:
        """JSON-serialisable description for the browser and for freezing in the database."""
        return {
            "mechanism": self.name,
            "encoding": self.encoding,
            "k": self.k,
            "epsilon": self.epsilon,
            "p": self.p,
            "q": self.q,
            **self._params,
        }

    def _check_values(self, values: Any) -> np.ndarray:
        v = np.asarray(values)
        if v.ndim != 1 or (v.size and not np.issubdtype(v.dtype, np.integer)):
            raise ValueError("values must be a 1-D array of integer categories")
        if v.size and (v.min() < 0 or v.max() >= self.k):
            raise ValueError(f"values must lie in [0, {self.k})")
        return v.astype(np.int64)

    def _check_counts(self, counts: Any, n: int, need_reports: bool = True) -> np.ndarray:
        """Integer support counts of shape (..., k), each in [0, n]; for "bit" and "index"
        every report supports exactly one category, so each row must sum to n."""
        n = check_n(n)
        if need_reports and n == 0:
            raise ValueError("no reports (n = 0): nothing to estimate")
        c = np.asarray(counts)
        as_int = c.astype(np.int64) if c.dtype.kind in "iuf" else None
        if as_int is None or not np.array_equal(as_int, c) or c.ndim == 0 or c.shape[-1] != self.k:
            raise ValueError(f"counts must be {self.k} whole numbers (one per category)")
        if np.any(as_int < 0) or np.any(as_int > n):
            raise ValueError(f"each count must lie between 0 and n = {n}")
        if self.encoding != "unary" and np.any(as_int.sum(axis=-1) != n):
            raise ValueError(f"counts must add up to n = {n}: each report supports one category")
        return as_int

    def unbiased(self, counts: Any, n: int) -> np.ndarray:
        """Unbiased proportions f_c = (C_c / n - b_c) / (a_c - b_c), for counts of shape (..., k).

        E[C_c] = n (a_c f_c + b_c (1 - f_c)) whatever the respondents' answers, so the estimate
        is exactly unbiased; it can leave [0, 1]. For yes/no this is Warner's
        r = (n1/n + q - 1) / (p + q - 1). Needs n >= 1.
        """
        return self._unbiased(self._check_counts(counts, n), n)

    def _unbiased(self, c: np.ndarray, n: int) -> np.ndarray:
        return (c / n - self._b) / (self._a - self._b)

    def _support_rate(self, proportions: Any) -> tuple[np.ndarray, np.ndarray]:
        """(lam, 1 - lam) with lam_c = P(a report supports c) = b_c + (a_c - b_c) f_c, for f
        on the simplex; 1 - lam_c = (1 - b_c) - (a_c - b_c) f_c keeps full precision."""
        f = np.asarray(proportions, dtype=float)
        slope = self._a - self._b
        return self._b + f * slope, self._b_bar - f * slope

    def variance(self, proportions: Any, n: int) -> np.ndarray:
        """Variance of each unbiased proportion with n reports when the truth is ``proportions``.

        Assumes respondents are a random sample from a population with these category shares,
        so C_c ~ Binomial(n, lam_c), lam_c = b_c + f_c (a_c - b_c), and
        Var = lam_c (1 - lam_c) / (n (a_c - b_c)^2) exactly. At f_c = 0 this is Wang et al.'s
        approximate variance q(1-q) / (n (p-q)^2). For a fixed group of n people (no sampling)
        the variance is slightly smaller, so these figures are then conservative.
        """
        lam, lam_bar = self._support_rate(proportions)
        return lam * lam_bar / (n * (self._a - self._b) ** 2)

    def std_errors(self, counts: Any, n: int) -> np.ndarray:
        """Plug-in standard errors: sqrt of ``variance`` with lam_c estimated by C_c / n."""
        return self._std_errors(self._check_counts(counts, n), n)

    def _std_errors(self, c: np.ndarray, n: int) -> np.ndarray:
        lam = c / n
        return np.sqrt(lam * (1 - lam) / n) / (self._a - self._b)

    def _likelihood_counts(self, counts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(C, D): reports seen supporting each category, and reports seen *not* supporting it
        as a separate observation. "bit"/"index": D = 0 (a report names one category; the
        multinomial likelihood is prod_c lam_c^C_c). "unary": D = n - C (every bit is seen)."""
        return counts, (n - counts if self.encoding == "unary" else np.zeros_like(counts))

    def log_likelihood(self, proportions: Any, counts: Any, n: int) -> np.ndarray:
        """Log-likelihood of true ``proportions`` (shape (..., k), on the simplex) given counts,
        up to a constant: sum_c C_c ln lam_c + D_c ln(1 - lam_c), lam_c = b_c + (a_c - b_c) f_c.

        "bit"/"index": the multinomial likelihood of the reports (D = 0). "unary": the product
        over bits c of the Binomial(n, lam_c) likelihoods of the column counts (D = n - C). The
        bits of one report are not independent across categories (exactly one is the true
        one), so for unary this is a composite likelihood.
        """
        c, d = self._likelihood_counts(self._check_counts(counts, n), n)
        lam, lam_bar = self._support_rate(proportions)
        return np.sum(c * np.log(lam) + d * np.log(lam_bar), axis=-1)

    def mle(self, counts: Any, n: int) -> np.ndarray:
        """Maximum-likelihood proportions: the maximiser of ``log_likelihood`` on the simplex.

        On the simplex lam_c depends on f_c alone, so the log-likelihood is a sum of concave
        one-variable terms h_c(f_c), and the maximum is where (KKT) every f_c > 0 has
        h_c'(f_c) = mu and every f_c = 0 has h_c'(0) <= mu, for one multiplier mu.

        "bit" and "index" (multinomial likelihood): closed form. f_c = max(C_c t - b_c / s_c, 0)
        with t = 1 / mu set by sum f = 1 over the categories kept (the largest C_c s_c / b_c),
        found by one sort: a yes/no question gets Warner's estimate clipped to [0, 1], and GRR
        gets its unbiased estimate whenever that is non-negative (see docs/ldp.md). "unary":
        h_c'(f) = mu is a quadratic in lam with one root in (0, 1) and sum_c f_c(mu) falls as mu
        grows; mu is found by safeguarded Newton steps to double precision. O(k) per step,
        independent of n; works on counts of shape (..., k) at once. Consistent (non-negative,
        sums to 1); biased near the boundary of the simplex, like every estimator confined to
        it.

        This is the fixed point of EM (the iterative Bayesian update). EM itself needed over
        100,000 iterations (0.7 s at k = 20) and still stopped visibly short when the maximum
        lies on the boundary, which sparse histograms make common. Needs n >= 1.
        """
        return self._mle(self._check_counts(counts, n), n)

    def _mle(self, counts: np.ndarray, n: int) -> np.ndarray:
        c, d = self._likelihood_counts(counts, n)
        if self.encoding != "unary":
            return _mle.one_choice(c, self._b, self._a - self._b)
        return _mle.every_bit(c, d, self._a, self._b, self._a_bar, self._b_bar)

    def headline(self, counts: Any, n: int) -> np.ndarray:
        """The headline shares (``HEADLINE_METHOD``): the maximum-likelihood shares of the
        answers clearly above the noise (MLE share above ``_headline.LEADER_SDS`` = 1.75
        standard errors of an empty answer's unbiased estimate, ``variance`` at share 0),
        the other answers' shares pooled towards their common mean by the positive-part
        James-Stein factor estimated from ``variance`` at the MLE. On the simplex
        (non-negative, summing to 1); equal to ``mle`` with fewer than 4 answers, or fewer
        than 4 outside the leaders. Counts of shape (..., k); needs n >= 1. See
        ``_headline.pooled`` and docs/ldp.md."""
        c = self._check_counts(counts, n)
        return self._headline(c, n, self._mle(c, n))

    def _headline(self, c: np.ndarray, n: int, mle: np.ndarray) -> np.ndarray:
        floor = self.variance(np.zeros(self.k), n)
        return _headline.pooled(mle, self._unbiased(c, n), self.variance(mle, n), floor)

    def intervals(
        self, counts: Any, n: int, confidence: float = 0.95
    ) -> tuple[np.ndarray, np.ndarray]:
        """Feldman-Cousins intervals for each true proportion, from its support count alone.

        Model: C_c ~ Binomial(n, lam_c) with lam_c = b_c + (a_c - b_c) f_c and f_c in [0, 1]
        (exact for iid respondents: for "bit" and "index" each report supports one category,
        for "unary" each bit is one Bernoulli draw per report). The interval is every f whose
        test, with likelihood-ratio ordering (Feldman & Cousins 1998), accepts the observed
        count C at level 1 - confidence: ordering the counts y by
        R(y) = L(y; lam) / L(y; lam_hat(y)), where lam_hat(y) = clip(y / n, b_c, a_c) is the
        maximum likelihood within the allowed range, f is accepted when P_lam(R(Y) <= R(C))
        exceeds 1 - confidence.

        Where n lam (1 - lam) <= ``EXACT_BELOW_VARIANCE`` that probability is summed exactly
        over the binomial (the Neyman construction: coverage at least ``confidence`` for every
        f, more where the count is lumpy). Above, it is that of the Gaussian limit
        Y ~ N(theta, 1), theta = (lam - b_c) / sd in [0, w], w = (a_c - b_c) / sd,
        sd = sqrt(lam (1 - lam) / n), with 2 ln R(C) as the statistic: the test is then
        exactly of level 1 - confidence near one boundary, both, or neither. Unlike an
        equal-tailed interval clipped to [0, 1] (which covers 97.5% at f = 0), coverage stays
        near ``confidence`` up to the boundaries. See docs/ldp.md for the measured coverage.

        Always contains the per-category maximum likelihood clip((C/n - b)/(a - b), 0, 1). The
        endpoints of the acceptance region (the hull, where discreteness makes it ragged) are
        found to 2e-11 in f from the p-value's jump points and a few Newton or secant steps,
        vectorised over all categories; the cost does not grow with n. Counts of shape
        (..., k); n = 0 gives [0, 1].
        """
        c = self._check_counts(counts, n, need_reports=False)
        return self._intervals(c, n, 1 - check_probability("confidence", confidence))

    def _intervals(self, c: np.ndarray, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        shape = c.shape
        if n == 0:
            return np.zeros(shape), np.ones(shape)
        ends = tuple(
            np.broadcast_to(v, shape).ravel() for v in (self._a, self._b, self._a_bar, self._b_bar)
        )
        low, high = _intervals.intervals(c.ravel().astype(float), n, ends, alpha)
        return low.reshape(shape), high.reshape(shape)

    def category_intervals(
        self, category: int, counts: Any, n: int, confidence: float = 0.95
    ) -> tuple[np.ndarray, np.ndarray]:
        """``intervals`` of one category for many values of its support count at once (an
        array of counts in [0, n]): the interval of a category depends on its own count
        only. For tables and simulations; n = 0 gives [0, 1]."""
        if not (is_integer(category) and 0 <= category < self.k):
            raise ValueError(f"category must be a whole number from 0 to {self.k - 1}")
        n = check_n(n)
        alpha = 1 - check_probability("confidence", confidence)
        c = np.asarray(counts)
        if c.dtype.kind not in "iu" or np.any(c < 0) or np.any(c > n):
            raise ValueError(f"counts must be whole numbers between 0 and n = {n}")
        if n == 0:
            return np.zeros(c.shape), np.ones(c.shape)
        ends = tuple(
            np.full(c.size, v[category]) for v in (self._a, self._b, self._a_bar, self._b_bar)
        )
        low, high = _intervals.intervals(c.ravel().astype(float), n, ends, alpha)
        return low.reshape(c.shape), high.reshape(c.shape)

    def small_sample(self, counts: Any, n: int) -> np.ndarray:
        """Per category (counts of shape (..., k)): True when its interval is in the
        small-sample regime, so the page should warn. That is when either

        - the support count C or the count of the other reports, n - C, is below
          ``SMALL_SAMPLE_COUNT`` (10): the count is then so lumpy that no interval's coverage
          can stay near 95% for every true share (the coverage table in docs/ldp.md shows
          99% where about 0.3 to 8 supporting reports are expected), so the interval is
          conservative and jumps as single reports arrive; or
        - the whole range the support rate can take, [b_c, a_c], is narrower than a two-sided
          interval, (a_c - b_c) / sd < 2 z with sd = sqrt(lam (1 - lam) / n) at
          lam = clip(C / n, b_c, a_c): the interval is then set by the boundaries 0 and 1
          rather than by the data (coverage well above 95%, e.g. GRR at epsilon 0.1, k = 50,
          n <= 100).

        n = 0: every category is flagged.
        """
        return self._small_sample(self._check_counts(counts, n, need_reports=False), n)

    def _small_sample(self, c: np.ndarray, n: int) -> np.ndarray:
        if n == 0:
            return np.ones(c.shape, dtype=bool)
        lam = np.clip(c / n, self._b, self._a)
        spread = (self._a - self._b) / np.sqrt(lam * (1 - lam) / n)
        return (np.minimum(c, n - c) < SMALL_SAMPLE_COUNT) | (spread < 2 * Z95)

    def lr_interval(
        self, counts: Any, n: int, confidence: float = 0.95
    ) -> tuple[float, float] | None:
        """Interval for P(yes); only yes/no mechanisms have one (else None)."""
        return None

    def estimate(self, counts: Any, n: int, confidence: float = 0.95) -> Estimate:
        """Everything ``Estimate`` lists, from the k support counts and n alone (never the raw
        reports). The cost does not grow with n: ``mle`` is a closed form (or a few Newton
        steps for unary encoding), ``intervals`` eight rounds of trial points.
        Intervals use ``confidence`` (default 95%). n == 0 gives NaN estimates and [0, 1]
        intervals."""
        c = self._check_counts(counts, n, need_reports=False)
        if n == 0:

            def unknown() -> np.ndarray:
                return read_only(np.full(self.k, np.nan))

            return Estimate(
                n=0,
                counts=read_only(c),
                headline=unknown(),
                ci_low=read_only(np.zeros(self.k)),
                ci_high=read_only(np.ones(self.k)),
                small_sample=read_only(self.small_sample(c, 0)),
                proportions=unknown(),
                counts_estimate=unknown(),
                std_errors=unknown(),
                consistent=unknown(),
                mle=unknown(),
                lr_interval=self.lr_interval(c, 0, confidence),
            )
        alpha = 1 - check_probability("confidence", confidence)
        proportions = self._unbiased(c, n)
        mle = self._mle(c, n)
        headline = self._headline(c, n, mle)
        low, high = self._intervals(c, n, alpha)
        low, high = np.minimum(low, headline), np.maximum(high, headline)
        return Estimate(
            n=n,
            counts=read_only(c),
            headline=read_only(headline),
            ci_low=read_only(low),
            ci_high=read_only(high),
            small_sample=read_only(self._small_sample(c, n)),
            proportions=read_only(proportions),
            counts_estimate=read_only(n * proportions),
            std_errors=read_only(self._std_errors(c, n)),
            consistent=read_only(project_simplex(proportions)),
            mle=read_only(mle),
            # Yes/no: the interval for P(yes) is category 1's (not computed again).
            lr_interval=(float(low[1]), float(high[1])) if self.encoding == "bit" else None,
        )

    def _variance_times_n(self, share: float | None) -> float:
        """max over categories c of n * ``variance`` at true proportion ``share``; None means
        the worst case over f in [0, 1] too: lam (1 - lam) peaks where lam = b + (a - b) f is
        closest to 1/2."""
        if share is None:
            f = np.clip((0.5 - self._b) / (self._a - self._b), 0, 1)
        elif is_real(share) and 0 <= share <= 1:
            f = np.full(self.k, float(share))
        else:
            raise ValueError(f"share must be a number from 0 to 1 (or None), got {share!r}")
        return float(np.max(self.variance(f, 1)))

    def margin_of_error(
        self, n: int, confidence: float = 0.95, share: float | None = None
    ) -> float:
        """Planner: half-width z * sd of the interval for one proportion with n reports,
        sd^2 = lam (1 - lam) / (n (a - b)^2), lam = b + (a - b) * share (``variance``, random
        sample of respondents). ``share`` is the expected true proportion; None (default)
        takes the worst case over categories and true proportions, so the promise holds
        whatever the answers. For GRR with many categories the worst case (a share near 1,
        where lam is near 1/2) is far from the typical one: at epsilon 1 with k = 50, a 2%
        share needs 2.5 times fewer reports. n = 0 gives infinity."""
        variance_times_n = self._variance_times_n(share)
        n = check_n(n)
        if n == 0:
            return math.inf
        return z_value(confidence) * math.sqrt(variance_times_n / n)

    def n_for_margin(
        self, margin: float, confidence: float = 0.95, share: float | None = None
    ) -> int:
        """Smallest n with ``margin_of_error(n, confidence, share) <= margin``.

        Raises ValueError for a margin outside (0, 1) and for a target that would need more
        than ``MAX_PLANNED_RESPONDENTS`` reports (no survey reaches it: lower the privacy
        protection, i.e. raise epsilon, or accept a wider margin)."""
        if not (is_real(margin) and math.isfinite(margin) and 0 < margin < 1):
            raise ValueError(f"margin must be a number strictly between 0 and 1, got {margin!r}")
        return fewest_respondents(
            z_value(confidence) ** 2 * self._variance_times_n(share) / margin**2,
            margin,
            lambda n: self.margin_of_error(n, confidence, share),
            f"a margin of {margin:g} at {confidence:.0%} confidence",
        )


class BinaryMechanism(Mechanism):
    """Yes/no randomizers, all described by keep-probabilities (encoding "bit").

    p = P(report 1 | truth 1), q = P(report 0 | truth 0), with p + q > 1 so that "yes"
    reports are likelier from people whose answer is yes. Reports are ints 0/1.
    ``matrix()`` is the 2 x 2 output distribution [[q, 1 - p], [1 - q, p]] (rows: report 0/1;
    columns: truth 0/1), with 1 - p and 1 - q taken from ``p_bar`` and ``q_bar`` (exact
    complements). epsilon = ln max(p / (1 - q), q / (1 - p)).
    """

    encoding = "bit"

    def _check_structure(self) -> None:
        if self.k != 2:
            raise ValueError("a yes/no mechanism has exactly k = 2 categories")
        if not self.p + self.q > 1:
            raise ValueError(
                f"p + q must exceed 1 (got p = {self.p}, q = {self.q}): otherwise reports "
                "carry no information, or point the wrong way"
            )

    def matrix(self) -> np.ndarray:
        return np.array([[self.q, self.p_bar], [self.q_bar, self.p]])

    def _matrix_complement(self) -> np.ndarray:
        return np.array([[self.q_bar, self.p], [self.q, self.p_bar]])

    def perturb(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        v = self._check_values(values)
        keep = rng.random(v.size) < np.where(v == 1, self.p, self.q)
        return np.where(keep, v, 1 - v)

    def lr_interval(self, counts: Any, n: int, confidence: float = 0.95) -> tuple[float, float]:
        """Interval for pi = P(yes): ``intervals`` for category 1, the likelihood-ratio ordered
        (Feldman-Cousins) interval from the binomial count of "yes" reports, with
        P(report yes) = 1 - q + pi (p + q - 1) and pi restricted to [0, 1]. It contains the
        maximum-likelihood pi (``mle``, Warner's estimate clipped to [0, 1]); the interval for
        P(no) is its mirror image. n = 0 -> (0, 1).
        """
        low, high = self.intervals(counts, n, confidence)
        return (float(low[1]), float(high[1]))


class DirectMechanism(Mechanism):
    """Generalized randomized response, GRR or k-RR (encoding "index").

    Report the true category with probability p, otherwise one of the other k - 1 categories,
    each with probability q (so p + (k - 1) q = 1). Reports are ints in [0, k).
    ``matrix()`` is the k x k output distribution: p on the diagonal, q elsewhere.
    epsilon = ln(p / q).
    """

    encoding = "index"

    def _check_structure(self) -> None:
        if not math.isclose(self.p + (self.k - 1) * self.q, 1, rel_tol=1e-12):
            raise ValueError("GRR probabilities must satisfy p + (k - 1) q = 1")
        if not self.p > self.q:
            raise ValueError("GRR must report the truth more often than any other answer")

    def perturb(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        v = self._check_values(values)
        keep = rng.random(v.size) < self.p
        other = rng.integers(0, self.k - 1, size=v.size)
        other += other >= v  # skip the true category: uniform over the k - 1 others
        return np.where(keep, v, other)


class UnaryMechanism(Mechanism):
    """Unary encoding, SUE (basic RAPPOR) and OUE (encoding "unary").

    The true category becomes a one-hot vector of k bits; each bit is reported as 1 with
    probability p if it is the true category's bit and q otherwise, independently. Reports are
    k-tuples of 0/1. ``matrix()`` is the k x k matrix S[c, i] = P(bit c = 1 | truth i): p on
    the diagonal, q elsewhere; its columns do not sum to 1 (the full distribution of a report
    y is prod_c S[c, i]^y_c (1 - S[c, i])^(1 - y_c)).
    """

    encoding = "unary"

    def _check_structure(self) -> None:
        if not self.p > self.q:
            raise ValueError("unary encoding needs p > q")

    def exact_epsilon(self) -> float:
        """ln(p (1 - q) / ((1 - p) q)), with the exact complements ``p_bar`` and ``q_bar``.
        Changing the truth from i to j changes the law of only bits i and j, which are
        independent, so the worst privacy loss is the sum of the worst losses of those two
        bits: ln(p / q) for bit i reported 1 and ln((1-q) / (1-p)) for bit j reported 0
        (p > q). Equals ``epsilon_from_matrix`` of the full 2^k-row matrix."""
        return math.log(self.p * self.q_bar / (self.p_bar * self.q))

    def perturb(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        v = self._check_values(values)
        bits = rng.random((v.size, self.k)) < self.q
        bits[np.arange(v.size), v] = rng.random(v.size) < self.p
        return bits.astype(np.uint8)

    def support_counts(self, reports: Any) -> np.ndarray:
        r = np.asarray(reports)
        if r.size == 0:
            return np.zeros(self.k, dtype=np.int64)
        if (
            r.ndim != 2
            or r.shape[1] != self.k
            or not np.issubdtype(r.dtype, np.integer)
            or np.any((r != 0) & (r != 1))
        ):
            raise ValueError(f"unary reports must be an (n, {self.k}) array of 0s and 1s")
        return r.sum(axis=0, dtype=np.int64)

    def validate_report(self, report: object) -> tuple[int, ...]:
        if not isinstance(report, (list, tuple)) or len(report) != self.k:
            raise ValueError(f"a report must be a list of exactly {self.k} zeros and ones")
        if not all(is_integer(bit) and bit in (0, 1) for bit in report):
            raise ValueError(f"every entry of a report must be the number 0 or 1, got {report!r}")
        return tuple(int(bit) for bit in report)

    def support(self, report: object) -> list[int]:
        return [c for c, bit in enumerate(self.validate_report(report)) if bit]


def randomized_response(epsilon: float) -> BinaryMechanism:
    """Warner's symmetric randomized response, the default for yes/no questions: tell the
    truth with probability p = q = e^eps / (1 + e^eps), otherwise the opposite. For a given
    epsilon this symmetric design has the smallest variance among binary mechanisms."""
    eps = _check_epsilon(epsilon)
    keep, flip = 1 / (1 + math.exp(-eps)), 1 / (1 + math.exp(eps))
    return BinaryMechanism(
        "rr",
        gettext_noop("Randomized response (Warner)"),
        2, keep, keep, {"epsilon": eps}, flip, flip,
    )


def forced_response(alpha: float = 0.5, beta: float = 0.5) -> BinaryMechanism:
    """Forced response: with probability alpha answer truthfully, otherwise answer "yes" with
    probability beta and "no" otherwise. p = alpha + (1 - alpha) beta, q = 1 - (1 - alpha) beta;
    the coin-flip design alpha = beta = 1/2 gives p = q = 3/4 and epsilon = ln 3."""
    a = check_probability("alpha", alpha)
    b = check_probability("beta", beta)
    return BinaryMechanism(
        "forced",
        gettext_noop("Forced response"),
        2,
        a + (1 - a) * b,
        1 - (1 - a) * b,
        {"alpha": a, "beta": b},
        (1 - a) * (1 - b),
        (1 - a) * b,
    )


def keep_probabilities(p: float, q: float) -> BinaryMechanism:
    """General yes/no randomizer: keep a true "yes" with probability p and a true "no" with
    probability q (p + q > 1); epsilon = ln max(q / (1 - p), p / (1 - q))."""
    p = check_probability("p", p)
    q = check_probability("q", q)
    return BinaryMechanism(
        "pq", gettext_noop("Randomized response with keep-probabilities"), 2, p, q, {"p": p, "q": q}
    )


def grr(epsilon: float, k: int) -> DirectMechanism:
    """Generalized randomized response: p = e^eps / (e^eps + k - 1), q = 1 / (e^eps + k - 1)."""
    eps, k = _check_epsilon(epsilon), _check_k(k)
    denominator = math.exp(eps) + k - 1
    return DirectMechanism(
        "grr",
        gettext_noop("Generalized randomized response (GRR)"),
        k,
        math.exp(eps) / denominator,
        1 / denominator,
        {"epsilon": eps},
        (k - 1) / denominator,
        (math.exp(eps) + k - 2) / denominator,
    )


def sue(epsilon: float, k: int) -> UnaryMechanism:
    """Symmetric unary encoding (basic one-time RAPPOR): p = e^(eps/2) / (e^(eps/2) + 1),
    q = 1 - p."""
    eps, k = _check_epsilon(epsilon), _check_k(k)
    keep, flip = 1 / (1 + math.exp(-eps / 2)), 1 / (1 + math.exp(eps / 2))
    return UnaryMechanism(
        "sue",
        gettext_noop("Symmetric unary encoding (SUE, basic RAPPOR)"),
        k,
        keep,
        flip,
        {"epsilon": eps},
        flip,
        keep,
    )


def oue(epsilon: float, k: int) -> UnaryMechanism:
    """Optimized unary encoding: p = 1/2, q = 1 / (e^eps + 1); the lowest-variance unary
    encoding (Wang et al. 2017)."""
    eps, k = _check_epsilon(epsilon), _check_k(k)
    return UnaryMechanism(
        "oue",
        gettext_noop("Optimized unary encoding (OUE)"),
        k,
        0.5,
        1 / (math.exp(eps) + 1),
        {"epsilon": eps},
        0.5,
        1 / (1 + math.exp(-eps)),
    )


CATEGORICAL: dict[str, Callable[[float, int], Mechanism]] = {"grr": grr, "sue": sue, "oue": oue}


def grr_threshold(epsilon: float) -> float:
    """The number of categories from which OUE estimates more precisely than GRR at
    ``epsilon``: 3e^epsilon + 2 (Wang et al. 2017)."""
    return 3 * math.exp(epsilon) + 2


def choose_categorical(epsilon: float, k: int, override: str | None = None) -> Mechanism:
    """The lower-variance mechanism for a k-category question: GRR exactly when
    k < 3 e^eps + 2, else OUE. That is where Wang et al.'s approximate variances cross:
    (e^eps + k - 2) / (e^eps - 1)^2 for GRR against 4 e^eps / (e^eps - 1)^2 for OUE.
    ``override`` ("grr", "sue" or "oue") forces a mechanism."""
    if override is not None:
        if override not in CATEGORICAL:
            raise ValueError(f"override must be one of {sorted(CATEGORICAL)}, got {override!r}")
        return CATEGORICAL[override](epsilon, k)
    eps, k = _check_epsilon(epsilon), _check_k(k)
    return grr(eps, k) if k < grr_threshold(eps) else oue(eps, k)


_BUILDERS: dict[str, tuple[Callable[..., Mechanism], tuple[str, ...]]] = {
    "rr": (randomized_response, ("epsilon",)),
    "forced": (forced_response, ("alpha", "beta")),
    "pq": (keep_probabilities, ("p", "q")),
    "grr": (grr, ("epsilon", "k")),
    "sue": (sue, ("epsilon", "k")),
    "oue": (oue, ("epsilon", "k")),
}


def _builders() -> dict[str, tuple[Callable[..., Any], tuple[str, ...]]]:
    """Every mechanism's builder and parameters, with check-all questions' (``checkall``,
    which builds on this module)."""
    from .checkall import sampled_boxes
    from .numbers import number_window

    return {
        **_BUILDERS,
        "sampled": (sampled_boxes, ("epsilon", "k")),
        "window": (number_window, ("epsilon", "low", "high", "decimals", "edges", "extras")),
    }


_OPTIONAL_PARAMETERS = frozenset({"extras"})
"""Parameters a spec may lack: number questions' specs frozen before they could take extra
answers have none."""


def from_spec(spec: dict[str, Any]) -> Mechanism:
    """Rebuild a mechanism from ``spec()`` output (e.g. as frozen in the database).

    Needs "mechanism" and its parameters; every other key present must equal what this module
    computes (p, q, epsilon, ...), exactly. A mismatch raises ValueError rather than analysing
    reports with probabilities other than those they were randomized with.

    A spec always gives the same mechanism, and a mechanism is never changed once built, so
    each spec is built once per process and shared: building the four of a cached regression
    page took 0.31-0.39 ms, looking them up 0.03 ms (docs/ldp.md, "Specs: freezing a mechanism").
    """
    try:
        key = json.dumps(spec, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):  # not plain JSON: built, but not kept
        return _built(spec)
    return _built_once(key)


@lru_cache(maxsize=1024)
def _built_once(key: str) -> Mechanism:
    return _built(json.loads(key))


def _built(spec: Any) -> Mechanism:
    if not isinstance(spec, dict) or spec.get("mechanism") not in _builders():
        raise ValueError(f"a spec must be a dict whose 'mechanism' is one of {sorted(_builders())}")
    build, names = _builders()[spec["mechanism"]]
    missing = [name for name in names if name not in spec and name not in _OPTIONAL_PARAMETERS]
    if missing:
        raise ValueError(f"spec for {spec['mechanism']!r} lacks {', '.join(missing)}")
    mechanism = build(**{name: spec[name] for name in names if name in spec})
    expected = mechanism.spec()
    wrong = sorted(key for key in spec if key not in expected or spec[key] != expected[key])
    if wrong:
        raise ValueError(f"spec does not match the {spec['mechanism']!r} mechanism at: {wrong}")
    return mechanism


def test_vectors() -> dict[str, Any]:
    """Shared test vectors: spec and exact ``matrix()`` for a grid of mechanisms (the content
    of tests/ldp_vectors.json; regenerate with ``python -m surveys.ldp``)."""
    binary = [randomized_response(eps) for eps in (0.5, 1.0, 2.0, math.log(3), 4.0)]
    binary += [forced_response(a, b) for a, b in ((0.5, 0.5), (0.75, 0.5), (0.6, 0.3))]
    binary += [keep_probabilities(p, q) for p, q in ((0.7, 0.6), (0.55, 0.95), (0.9, 0.3))]
    categorical = [
        build(eps, k)
        for build in CATEGORICAL.values()
        for k in (2, 3, 6, 20)
        for eps in (0.5, 1.0, 2.0, 4.0)
    ]
    from .checkall import test_vectors as checkall_vectors
    from .numbers import test_vectors as number_vectors

    return {
        "about": "Spec and exact matrix S[c][i] = P(report supports c | truth i) of each "
        "mechanism; for unary, S[c][i] = P(bit c is 1 | truth i). checkall: spec and "
        "P(report [j, y] | ticked boxes), probabilities[j][y]. numbers: spec and "
        "P(report cell | grid index of the number), probabilities[cell]. Generated by "
        "`python -m surveys.ldp`; do not edit.",
        "vectors": [
            {"spec": m.spec(), "matrix": m.matrix().tolist()} for m in binary + categorical
        ],
        "checkall": checkall_vectors(),
        "numbers": number_vectors(),
    }
