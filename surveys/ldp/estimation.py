"""What support counts say about the true shares: estimates, intervals and planning for
every mechanism of ``mechanisms``, from the probabilities with which a report supports a
category (see that module's docstring for the notation).

Category c is supported with probability a_c by the respondents whose true answer is c and
b_c by everyone else (a_c > b_c). ``SupportEstimates`` holds every estimator that follows
from those two numbers (Wang et al. 2017): unbiased shares, maximum likelihood
(``simplex_mle``), the pooled headline (``pooling``), Feldman-Cousins intervals
(``feldman_cousins``), the small-sample warning and the planner's margin of error.
``Mechanism`` is one; ``Estimate`` is what they give. Guide: docs/ldp.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import feldman_cousins, pooling, simplex_mle
from .checks import check_n, check_probability, is_integer, is_real, read_only
from .planning import Z95, fewest_respondents, z_value
from .words import gettext_noop

EXACT_BELOW_VARIANCE: float = feldman_cousins.EXACT_BELOW_VARIANCE
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


@dataclass(frozen=True, eq=False)
class Estimate:
    """What n reports say about the true proportions of the k categories.

    - ``headline``: the numbers to chart and quote (``HEADLINE_METHOD``; today the
      maximum-likelihood proportions of the answers clearly above the noise, the others
      pooled towards their mean: see ``SupportEstimates.headline``; on the simplex).
    - ``ci_low``/``ci_high``: 95% intervals for each proportion (``INTERVAL_METHOD``, see
      ``SupportEstimates.intervals``), widened where needed to contain ``headline``.
    - ``small_sample``: per category, whether its interval is in the small-sample regime
      (``SupportEstimates.small_sample``), for the pages to warn.
    - ``proportions``: the unbiased estimate (may fall outside [0, 1], need not sum to 1).
    - ``counts_estimate``: n * proportions, unbiased for the true counts.
    - ``std_errors``: plug-in standard errors of ``proportions`` (see
      ``SupportEstimates.std_errors``).
    - ``consistent``: Norm-Sub, the projection of ``proportions`` onto the simplex.
    - ``mle``: maximum-likelihood proportions, on the simplex (see ``SupportEstimates.mle``).
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


class SupportEstimates:
    """Estimation and planning from support counts, shared by every mechanism whose category c
    is supported with probability ``a[c]`` by its own members and ``b[c]`` by everyone else.

    A subclass sets ``k`` (the number of categories), ``encoding`` ("bit" and "index": a
    report supports one category; "unary": each of its k bits is seen) and the read-only
    arrays ``a``, ``b`` and their complements ``a_bar`` = 1 - a, ``b_bar`` = 1 - b, kept at
    full precision (``Mechanism`` takes them from its matrix). Everything here follows from
    those; counts have shape (..., k) unless a method says otherwise.
    """

    k: int
    encoding: str = ""
    a: np.ndarray
    """P(a report supports c | the true category is c), per category."""
    b: np.ndarray
    """P(a report supports c | the true category is another), per category."""
    a_bar: np.ndarray
    """1 - ``a`` at full precision."""
    b_bar: np.ndarray
    """1 - ``b`` at full precision."""

    def check_counts(self, counts: Any, n: int, need_reports: bool = True) -> np.ndarray:
        """``counts`` as integer support counts of shape (..., k), each in [0, n], or
        ValueError; for "bit" and "index" every report supports exactly one category, so each
        row must sum to n. With ``need_reports``, n = 0 is refused too. The estimates built on
        one question's counts (``among``, ``scores``) check them with it."""
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
        return self._unbiased(self.check_counts(counts, n), n)

    def _unbiased(self, c: np.ndarray, n: int) -> np.ndarray:
        return (c / n - self.b) / (self.a - self.b)

    def _support_rate(self, proportions: Any) -> tuple[np.ndarray, np.ndarray]:
        """(lam, 1 - lam) with lam_c = P(a report supports c) = b_c + (a_c - b_c) f_c, for f
        on the simplex; 1 - lam_c = (1 - b_c) - (a_c - b_c) f_c keeps full precision."""
        f = np.asarray(proportions, dtype=float)
        slope = self.a - self.b
        return self.b + f * slope, self.b_bar - f * slope

    def variance(self, proportions: Any, n: int) -> np.ndarray:
        """Variance of each unbiased proportion with n reports when the truth is ``proportions``.

        Assumes respondents are a random sample from a population with these category shares,
        so C_c ~ Binomial(n, lam_c), lam_c = b_c + f_c (a_c - b_c), and
        Var = lam_c (1 - lam_c) / (n (a_c - b_c)^2) exactly. At f_c = 0 this is Wang et al.'s
        approximate variance q(1-q) / (n (p-q)^2). For a fixed group of n people (no sampling)
        the variance is slightly smaller, so these figures are then conservative.
        """
        lam, lam_bar = self._support_rate(proportions)
        return lam * lam_bar / (n * (self.a - self.b) ** 2)

    def std_errors(self, counts: Any, n: int) -> np.ndarray:
        """Plug-in standard errors: sqrt of ``variance`` with lam_c estimated by C_c / n."""
        return self._std_errors(self.check_counts(counts, n), n)

    def _std_errors(self, c: np.ndarray, n: int) -> np.ndarray:
        lam = c / n
        return np.sqrt(lam * (1 - lam) / n) / (self.a - self.b)

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
        c, d = self._likelihood_counts(self.check_counts(counts, n), n)
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
        return self._mle(self.check_counts(counts, n), n)

    def _mle(self, counts: np.ndarray, n: int) -> np.ndarray:
        c, d = self._likelihood_counts(counts, n)
        if self.encoding != "unary":
            return simplex_mle.one_choice(c, self.b, self.a - self.b)
        return simplex_mle.every_bit(c, d, self.a, self.b, self.a_bar, self.b_bar)

    def headline(self, counts: Any, n: int) -> np.ndarray:
        """The headline shares (``HEADLINE_METHOD``): the maximum-likelihood shares of the
        answers clearly above the noise (MLE share above ``pooling.LEADER_SDS`` = 1.75
        standard errors of an empty answer's unbiased estimate, ``variance`` at share 0),
        the other answers' shares pooled towards their common mean by the positive-part
        James-Stein factor estimated from ``variance`` at the MLE. On the simplex
        (non-negative, summing to 1); equal to ``mle`` with fewer than 4 answers, or fewer
        than 4 outside the leaders. Counts of shape (..., k); needs n >= 1. See
        ``pooling.pooled`` and docs/ldp.md."""
        c = self.check_counts(counts, n)
        return self._headline(c, n, self._mle(c, n))

    def _headline(self, c: np.ndarray, n: int, mle: np.ndarray) -> np.ndarray:
        floor = self.variance(np.zeros(self.k), n)
        return pooling.pooled(mle, self._unbiased(c, n), self.variance(mle, n), floor)

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
        c = self.check_counts(counts, n, need_reports=False)
        return self._intervals(c, n, 1 - check_probability("confidence", confidence))

    def _intervals(self, c: np.ndarray, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        shape = c.shape
        if n == 0:
            return np.zeros(shape), np.ones(shape)
        ends = tuple(
            np.broadcast_to(v, shape).ravel() for v in (self.a, self.b, self.a_bar, self.b_bar)
        )
        low, high = feldman_cousins.intervals(c.ravel().astype(float), n, ends, alpha)
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
            np.full(c.size, v[category]) for v in (self.a, self.b, self.a_bar, self.b_bar)
        )
        low, high = feldman_cousins.intervals(c.ravel().astype(float), n, ends, alpha)
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
        return self._small_sample(self.check_counts(counts, n, need_reports=False), n)

    def _small_sample(self, c: np.ndarray, n: int) -> np.ndarray:
        if n == 0:
            return np.ones(c.shape, dtype=bool)
        lam = np.clip(c / n, self.b, self.a)
        spread = (self.a - self.b) / np.sqrt(lam * (1 - lam) / n)
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
        c = self.check_counts(counts, n, need_reports=False)
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

    def variance_times_n(self, share: float | None) -> float:
        """What the planner works with (``margin_of_error``): max over categories c of
        n * ``variance`` at true proportion ``share``; None means the worst case over f in
        [0, 1] too: lam (1 - lam) peaks where lam = b + (a - b) f is closest to 1/2."""
        if share is None:
            f = np.clip((0.5 - self.b) / (self.a - self.b), 0, 1)
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
        variance_times_n = self.variance_times_n(share)
        n = check_n(n)
        if n == 0:
            return math.inf
        return z_value(confidence) * math.sqrt(variance_times_n / n)

    def n_for_margin(
        self, margin: float, confidence: float = 0.95, share: float | None = None
    ) -> int:
        """Smallest n with ``margin_of_error(n, confidence, share) <= margin``.

        Raises ValueError for a margin outside (0, 1) and for a target that would need more
        than ``planning.MAX_PLANNED_RESPONDENTS`` reports (no survey reaches it: lower the privacy
        protection, i.e. raise epsilon, or accept a wider margin)."""
        if not (is_real(margin) and math.isfinite(margin) and 0 < margin < 1):
            raise ValueError(f"margin must be a number strictly between 0 and 1, got {margin!r}")
        return fewest_respondents(
            z_value(confidence) ** 2 * self.variance_times_n(share) / margin**2,
            margin,
            lambda n: self.margin_of_error(n, confidence, share),
            f"a margin of {margin:g} at {confidence:.0%} confidence",
        )

