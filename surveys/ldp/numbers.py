"""Bounded numbers: a number in the researcher's range [low, high], randomized on a grid.

Inputs. The true number x is first put on the grid of the range: ``decimals`` places (0 for
whole numbers), so x is one of the m + 1 values low + i / 10^decimals, i = 0..m, with
m = (high - low) 10^decimals (``steps``). Its position on the range is t = i / m in [0, 1].

Mechanism ("window", encoding "number"): the piecewise mechanism of Wang et al. (ICDE 2019)
cut into a grid. The output range is ``cells`` = G cells, reports are cell numbers 0..G-1. A
window of w consecutive cells (``width``) slides over the G cells: its start s runs over the
K = G - w + 1 positions 0..G-w. A respondent at t gets the start s = floor(t (G - w)), moved
up by one with probability equal to the fraction left over (t (G - w) - floor, an exact
fraction r / m drawn with one uniform integer below m); then the report is a cell of the
window with probability p (uniformly among its w cells) and one of the G - w others
otherwise (uniformly), with

    p / w = e^eps (1 - p) / (G - w),   p = w e^eps / (w e^eps + G - w).

Privacy: given the start, every cell has probability p / w or (1 - p) / (G - w), whose ratio
is e^eps; any input mixes two starts, so the largest ratio of a report's probabilities over
two inputs is e^eps, reached between the two ends of the range (``exact_epsilon`` computes
it from the G x K matrix of the starts). The browser draws it with one uniform integer below
m, one Bernoulli(p) and one uniform integer below w or G - w (``static/surveys/ldp.js``).

Why this mechanism, and its width w (``best_width``: the w with the smallest worst-case
variance of the mean): docs/ldp.md, "Numbers", with ``bench/bench_numbers.py --compare``.

Estimates:

- the mean: E[cell | t] is linear in t (the window's mean cell moves linearly with s, and s
  is linear in t on average), E[cell | t] = A + B t, so v(c) = (c - A) / B has mean t exactly
  and the average of the reports' v is an unbiased estimate of the mean position; its
  interval is Student's t from the reports' own variance of v (scores.Mean), in the
  question's unit (low + (high - low) t), clipped to the range;
- the distribution over bins: EM over the K starts with a smoothing step after each update
  (EMS, Li et al. SIGMOD 2020), then each start's mass spread back over the values that lead
  to it (a triangle one start wide on each side) and summed within the bins. An estimate
  without intervals (its bias from the smoothing and the grid is of the order of one start,
  1 / (G - w) of the range);
- the mean within groups of another question (``group_means``): ratios of unbiased
  estimates, with the delta method's variance.

Pure numpy; no Django. Guide: docs/ldp.md, "Numbers".
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.stats import chi2
from scipy.stats import t as student_t

from ._checks import check_n, check_probability, is_integer, is_real, read_only
from .joint import Association, Difference, PairCounts, _Side
from .mechanisms import (
    Estimate,
    Mechanism,
    _check_epsilon,
    epsilon_from_matrix,
    fewest_respondents,
    z_value,
)
from .scores import GroupMeans, Mean

CELLS: int = 64
"""Cells of the output grid: a report is one of them."""
MAX_DECIMALS: int = 3
"""Most decimal places a number question may have."""
MAX_STEPS: int = 10**7
"""Most steps of the grid of inputs ((high - low) 10^decimals): the browser draws an integer
below it exactly."""
MAX_BINS: int = 20
"""Most bins of the distribution."""
EM_TOLERANCE: float = 1e-9
"""EMS stops when no start's share moves by more than this in one step."""
EM_MAX_STEPS: int = 5000

NUMBER_INTERVAL_METHOD: str = "student-t"
"""Name of the method behind a number's mean interval, for the pages."""
NUMBER_INTERVAL_DESCRIPTION: str = (
    "Mean of a number: the average of the reports' unbiased values (each report's cell, "
    "corrected for the known randomization), in the question's unit; its 95% interval is "
    "Student's t interval from their variance, clipped to the range. The distribution over "
    "the bins is estimated by expectation-maximization with smoothing, without intervals."
)
GROUP_MEAN_DESCRIPTION: str = (
    "Mean of a number within a group: the ratio of the unbiased estimates of the group's "
    "total and of its size; its 95% interval and that of the difference between two groups "
    "are Wald intervals with the delta method's variance, clipped to the possible range."
)


# Memos of pure functions of their arguments (read-only results): each process computes the
# same values, so nothing here is state that workers must share.
@lru_cache(maxsize=256)
def _starts_matrix(epsilon: float, cells: int, width: int) -> np.ndarray:
    """G x K: P(report cell c | window start s)."""
    inside = width * math.exp(epsilon) / (width * math.exp(epsilon) + cells - width)
    starts = cells - width + 1
    c = np.arange(cells)[:, None]
    s = np.arange(starts)[None, :]
    within = (c >= s) & (c < s + width)
    matrix = np.where(within, inside / width, (1 - inside) / (cells - width))
    matrix.setflags(write=False)
    return matrix


def _worst_variance(matrix: np.ndarray) -> float:
    """The largest variance of the unbiased value v(c) over the true distributions of the
    starts (n times the variance of the mean position): f . q - (f . t)^2 is concave in f, so
    its maximum is on a mix of two starts, found by trying every pair."""
    values = _values(matrix)
    starts = matrix.shape[1]
    t = np.arange(starts) / (starts - 1)
    q = (values**2) @ matrix  # E[v^2 | start]
    i, j = np.triu_indices(starts, k=1)
    dt, dq = t[j] - t[i], q[j] - q[i]
    # Var(lam) = q_i + lam dq - (t_i + lam dt)^2, largest at lam = (dq / dt - 2 t_i) / (2 dt)
    lam = np.clip((dq / dt - 2 * t[i]) / (2 * dt), 0, 1)
    pairs = q[i] + lam * dq - (t[i] + lam * dt) ** 2
    return float(max(pairs.max(), (q - t**2).max()))


def _values(matrix: np.ndarray) -> np.ndarray:
    """v(c) = (c - A) / B, with E[c | start s] = A + B s / (K - 1): mean t exactly."""
    cells = np.arange(matrix.shape[0], dtype=float)
    means = cells @ matrix
    return (cells - means[0]) / (means[-1] - means[0])


@lru_cache(maxsize=64)
def best_width(epsilon: float, cells: int = CELLS) -> int:
    """The window's width with the smallest worst-case variance of the mean."""
    return min(
        range(1, cells - 1),
        key=lambda w: _worst_variance(_starts_matrix(epsilon, cells, w)),
    )


def _format(x: float, decimals: int) -> str:
    return f"{x:,.{decimals}f}"


class NumberWindow:
    """The sliding-window mechanism for a number in [low, high] at ``epsilon`` (module
    docstring). It answers what the site asks of every mechanism (``surveys.ldp.Mechanism``):
    ``spec``, ``validate_report``, ``support`` (its cell, ``tally_size`` = G of them),
    ``estimate`` (the shares of the ``k`` bins), ``margin_of_error`` and ``n_for_margin`` (in
    fractions of the range); and ``mean``, ``mean_margin``, ``n_for_mean_margin`` in the
    question's unit."""

    name = "window"
    label = "Piecewise mechanism on a grid (sliding window)"
    encoding = "number"

    def __init__(
        self,
        epsilon: float,
        low: float,
        high: float,
        decimals: int = 0,
        edges: Any = (),
        width: int | None = None,
    ) -> None:
        """``width``: the window's width, by default ``best_width`` (another width is for
        comparisons only: ``from_spec`` rebuilds the default)."""
        self.epsilon = _check_epsilon(epsilon)
        if not (is_integer(decimals) and 0 <= decimals <= MAX_DECIMALS):
            raise ValueError(f"decimals must be a whole number from 0 to {MAX_DECIMALS}")
        self.decimals = int(decimals)
        scale = 10**self.decimals
        if not (is_real(low) and is_real(high) and math.isfinite(low) and math.isfinite(high)
                and low < high):
            raise ValueError(f"the range needs two numbers, low < high, got {low!r}, {high!r}")
        self.low, self.high = float(low), float(high)
        low_units, high_units = round(self.low * scale), round(self.high * scale)
        if not (math.isclose(low_units, self.low * scale, abs_tol=1e-6)
                and math.isclose(high_units, self.high * scale, abs_tol=1e-6)):
            raise ValueError(
                f"the ends of the range must have at most {self.decimals} decimal places"
            )
        self.steps = high_units - low_units
        if not 1 <= self.steps <= MAX_STEPS:
            raise ValueError(
                f"the range holds {self.steps:,} steps of 1/{scale:g}; at most {MAX_STEPS:,}"
            )
        self._low_units = low_units
        if not isinstance(edges, (list, tuple)) or not all(is_real(e) for e in edges):
            raise ValueError("edges must be a list of numbers")
        self.edges = [float(e) for e in edges]
        bounds = [self.low, *self.edges, self.high]
        if any(a >= b for a, b in itertools.pairwise(bounds)) or len(self.edges) >= MAX_BINS:
            raise ValueError(
                f"the bins' edges must increase strictly within the range ({len(self.edges)} "
                f"given; at most {MAX_BINS - 1})"
            )
        self.k = len(self.edges) + 1
        self.cells = CELLS
        self.width = best_width(self.epsilon, self.cells) if width is None else int(width)
        if not 1 <= self.width <= self.cells - 2:
            raise ValueError(f"the window's width must be from 1 to {self.cells - 2}")
        self.starts = self.cells - self.width + 1
        odds = self.width * math.exp(self.epsilon)
        self.p = odds / (odds + self.cells - self.width)
        self.p_bar = (self.cells - self.width) / (odds + self.cells - self.width)
        self.q = self.p
        self.tally_size = self.cells
        self._matrix = _starts_matrix(self.epsilon, self.cells, self.width)
        self._values = _values(self._matrix)

    def __repr__(self) -> str:
        return (f"<NumberWindow epsilon={self.epsilon!r} [{self.low!r}, {self.high!r}] "
                f"decimals={self.decimals} bins={self.k}>")

    @property
    def span(self) -> float:
        return self.high - self.low

    @property
    def step(self) -> float:
        """The grid's step: 1 / 10^decimals."""
        return 10.0**-self.decimals

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon}

    def spec(self) -> dict[str, Any]:
        return {
            "mechanism": self.name, "encoding": self.encoding, "epsilon": self.epsilon,
            "low": self.low, "high": self.high, "decimals": self.decimals,
            "edges": list(self.edges), "k": self.k, "steps": self.steps, "cells": self.cells,
            "width": self.width, "p": self.p,
        }

    def matrix(self) -> np.ndarray:
        """G x K: P(report cell c | window start s)."""
        return self._matrix

    def exact_epsilon(self) -> float:
        """The largest log ratio of a report's probabilities over two starts, hence over two
        inputs (each a mix of two adjacent starts)."""
        return epsilon_from_matrix(self._matrix)

    def bin_labels(self) -> list[str]:
        bounds = [self.low, *self.edges, self.high]
        return [
            f"{_format(a, self.decimals)} to {_format(b, self.decimals)}"
            for a, b in itertools.pairwise(bounds)
        ]

    # Inputs and reports ------------------------------------------------------------------

    def index(self, values: Any) -> np.ndarray:
        """The grid index i (0..m) of each number: rounded to ``decimals`` places."""
        x = np.asarray(values, dtype=float)
        if not np.all(np.isfinite(x)):
            raise ValueError("numbers must be finite")
        i = np.round(x * 10**self.decimals).astype(np.int64) - self._low_units
        if np.any(i < 0) or np.any(i > self.steps):
            raise ValueError(f"numbers must lie in [{self.low:g}, {self.high:g}]")
        return i

    def report_probabilities(self, index: int) -> np.ndarray:
        """Length-G: P(report c | the number at grid index ``index``)."""
        u = int(index) * (self.starts - 1)
        start, rest = divmod(u, self.steps)
        up = rest / self.steps
        law = (1 - up) * self._matrix[:, start]
        if rest:
            law = law + up * self._matrix[:, start + 1]
        return law

    def perturb(self, values: Any, rng: np.random.Generator) -> np.ndarray:
        """Reference randomizer: one report (a cell) per number of ``values``."""
        i = self.index(values)
        start, rest = np.divmod(i * (self.starts - 1), self.steps)
        start = start + (rng.integers(0, self.steps, size=i.size) < rest)
        inside = rng.random(i.size) < self.p
        within = start + rng.integers(0, self.width, size=i.size)
        other = rng.integers(0, self.cells - self.width, size=i.size)
        outside = np.where(other >= start, other + self.width, other)
        return np.where(inside, within, outside).astype(np.int64)

    def validate_report(self, report: object) -> int:
        """A report is a whole number from 0 to G - 1 (a cell)."""
        if not is_integer(report) or not 0 <= report < self.cells:
            raise ValueError(
                f"a number's report must be a whole number from 0 to {self.cells - 1}, "
                f"got {report!r}"
            )
        return int(report)

    def support(self, report: object) -> list[int]:
        return [self.validate_report(report)]

    def support_counts(self, reports: Any) -> np.ndarray:
        r = np.asarray(reports)
        if r.size == 0:
            return np.zeros(self.cells, dtype=np.int64)
        if (r.ndim != 1 or not np.issubdtype(r.dtype, np.integer) or r.min() < 0
                or r.max() >= self.cells):
            raise ValueError(f"reports must be a 1-D array of cells in [0, {self.cells})")
        return np.bincount(r, minlength=self.cells).astype(np.int64)

    def _counts(self, counts: Any, n: int) -> np.ndarray:
        n = check_n(n)
        c = np.asarray(counts)
        if (c.shape != (self.cells,) or c.dtype.kind not in "iu" or np.any(c < 0)
                or c.sum() != n):
            raise ValueError(f"counts must be {self.cells} whole numbers >= 0 adding up to n")
        return c.astype(np.int64)

    # Estimates ---------------------------------------------------------------------------

    def unbiased_values(self) -> np.ndarray:
        """Each cell's unbiased value in the question's unit: the average of the reports'
        values is the unbiased mean (``mean``)."""
        return self.to_unit(self._values)

    def to_unit(self, t: Any) -> Any:
        """A position on the range (0..1) in the question's unit."""
        return self.low + self.span * t

    def mean(self, counts: Any, n: int, confidence: float = 0.95) -> Mean:
        """The mean number, in the question's unit, with its Student's t interval."""
        c = self._counts(counts, n).astype(float)
        alpha = 1 - check_probability("confidence", confidence)
        if n == 0:
            return Mean(math.nan, self.low, self.high, math.nan, math.nan)
        v = self._values
        average = float(c @ v / n)
        variance = float(c @ (v - average) ** 2 / (n - 1)) if n > 1 else math.inf
        std_error = math.sqrt(variance / n)
        half = float(student_t.ppf(1 - alpha / 2, n - 1)) * std_error if n > 1 else math.inf
        low, high = (float(np.clip(x, 0, 1)) for x in (average - half, average + half))
        return Mean(
            estimate=float(self.to_unit(np.clip(average, 0, 1))),
            ci_low=float(self.to_unit(low)),
            ci_high=float(self.to_unit(high)),
            unbiased=float(self.to_unit(average)),
            std_error=self.span * std_error,
        )

    def starts_distribution(self, counts: Any, n: int) -> np.ndarray:
        """EMS: the share of respondents at each window start (module docstring)."""
        c = self._counts(counts, n).astype(float)
        f = np.full(self.starts, 1 / self.starts)
        if n == 0:
            return f
        m = self._matrix
        for _ in range(EM_MAX_STEPS):
            updated = f * (m.T @ (c / (m @ f))) / n
            padded = np.concatenate([updated[:1], updated, updated[-1:]])
            smoothed = (padded[:-2] + 2 * padded[1:-1] + padded[2:]) / 4
            smoothed /= smoothed.sum()
            moved = np.abs(smoothed - f).max()
            f = smoothed
            if moved < EM_TOLERANCE:
                break
        return f

    def _bin_weights(self) -> np.ndarray:
        """K x bins: the share of the values behind each start that fall in each bin (a
        triangle one start wide on each side, cut to the range)."""
        h = 1 / (self.starts - 1)
        centres = np.arange(self.starts) * h
        cuts = np.clip((np.array([self.low, *self.edges, self.high]) - self.low) / self.span,
                       0, 1)

        def cdf(x: np.ndarray) -> np.ndarray:  # of the triangle around each centre
            z = np.clip((x[None, :] - centres[:, None]) / h, -1, 1)
            return np.where(z < 0, (1 + z) ** 2 / 2, 1 - (1 - z) ** 2 / 2)

        within = cdf(cuts)
        mass = np.diff(within, axis=1)
        return mass / mass.sum(axis=1, keepdims=True)

    def estimate(self, counts: Any, n: int, confidence: float = 0.95) -> Estimate:
        """The shares of the bins (EMS, without intervals: ``ci_low``, ``ci_high`` and
        ``std_errors`` are NaN); ``counts`` holds the reports per cell."""
        c = self._counts(counts, n)
        if n == 0:
            shares = np.full(self.k, math.nan)
        else:
            shares = self.starts_distribution(c, n) @ self._bin_weights()
        unknown = np.full(self.k, math.nan)
        return Estimate(
            n=n,
            counts=read_only(c),
            headline=read_only(shares),
            ci_low=read_only(unknown),
            ci_high=read_only(unknown),
            small_sample=read_only(np.zeros(self.k, dtype=bool)),
            proportions=read_only(shares),
            counts_estimate=read_only(n * shares),
            std_errors=read_only(unknown),
            consistent=read_only(shares),
            mle=read_only(shares),
            lr_interval=None,
        )

    # Planning ----------------------------------------------------------------------------

    def _variance_times_n(self, share: float | None = None) -> float:
        """n times the variance of the mean position (0..1), in the worst case."""
        return _worst_variance(self._matrix)

    def margin_of_error(
        self, n: int, confidence: float = 0.95, share: float | None = None
    ) -> float:
        """Half-width of the 95% interval of the mean with n respondents, as a fraction of
        the range, in the worst case; n = 0 gives infinity."""
        n = check_n(n)
        if n == 0:
            return math.inf
        return z_value(confidence) * math.sqrt(self._variance_times_n() / n)

    n_for_margin = Mechanism.n_for_margin  # the same search, on this mechanism's margin

    def mean_margin(self, n: int, confidence: float = 0.95) -> float:
        """The same in the question's unit."""
        return self.span * self.margin_of_error(n, confidence)

    def n_for_mean_margin(self, margin: float, confidence: float = 0.95) -> int:
        """Smallest n with ``mean_margin(n) <= margin`` (in the question's unit, > 0)."""
        if not (is_real(margin) and math.isfinite(margin) and margin > 0):
            raise ValueError(f"margin must be a positive number, got {margin!r}")
        return fewest_respondents(
            (z_value(confidence) * self.span) ** 2 * self._variance_times_n() / margin**2,
            margin,
            lambda n: self.mean_margin(n, confidence),
            f"a margin of {margin:g} on the mean",
        )


@dataclass(frozen=True, eq=False)
class NumberGroupMeans(GroupMeans):
    """The mean of a number within each group of a grouping question (``scores.GroupMeans``
    on the question's range, all in its unit): ``estimate`` is NaN for a group estimated
    empty, or whose variance is estimated at 0 or below (a handful of reports), with the
    whole range as its interval; ``association`` is a Wald test that every group has the
    same mean."""

    def association(self) -> tuple[float, int, float]:
        """(statistic, df, p-value) of the Wald test that the known groups' means are
        equal: NaN, 0, NaN when fewer than two groups are known."""
        known = np.flatnonzero(np.isfinite(self.estimate))
        if len(known) < 2 or self.n == 0:
            return math.nan, 0, math.nan
        contrast = np.eye(len(known))[1:] - np.eye(len(known))[:1]
        d = contrast @ self.estimate[known]
        cov = contrast @ self.covariance[np.ix_(known, known)] @ contrast.T / self.n
        statistic = float(d @ np.linalg.pinv(cov) @ d)
        df = len(known) - 1
        return statistic, df, float(chi2.sf(statistic, df))


def group_means(
    group: Mechanism, mechanism: NumberWindow, counts: PairCounts, confidence: float = 0.95
) -> NumberGroupMeans:
    """The mean of the number within each group of ``group`` (rows of ``counts``, whose
    columns are the number's G cells, ``joint.pair_counts``).

    With x_g = (S_A^-1 e_A)_g (e_A: the group report's support vector, so E[x_g | true group
    h] = 1{h = g}) and v the number report's unbiased value, independent given the truth:
    N_g = mean(x_g v) and D_g = mean(x_g) are unbiased for E[1{G = g} t] and P(G = g); the
    mean is N_g / D_g. Delta method: the covariance of groups g, g' is
    E[x_g x_g' (v - m_g)(v - m_g')] / (D_g D_g') / n, where the expectation is
    sum_h E[x_g x_g' | h] E[1{G = h} (v - m_g)(v - m_g')], the first factor from the group
    mechanism's law (``joint._Side.moment``), the second estimated without bias like N_g."""
    if counts.joint.shape[1] != mechanism.tally_size:
        raise ValueError(f"counts must have the {mechanism.tally_size} cells as columns")
    side = _Side(group)
    k_a = side.k
    z = z_value(confidence)
    n = counts.n
    if n == 0:
        unknown = np.full(k_a, np.nan)
        return NumberGroupMeans(
            0, mechanism.low, mechanism.high, read_only(unknown),
            read_only(np.full(k_a, mechanism.low)), read_only(np.full(k_a, mechanism.high)),
            read_only(unknown), read_only(np.full((k_a, k_a), np.nan)), z,
        )
    v = mechanism._values
    by_group = side.inverse @ counts.joint / n  # (k_a, G): unbiased E[1{G = g}, cell]
    totals = by_group.sum(axis=1)
    means = by_group @ v / np.where(totals > 0, totals, np.nan)
    known = np.isfinite(means) & (totals > 0)
    centred = v[None, :] - np.nan_to_num(means)[:, None]  # (k_a, G)
    moments = side.moment(
        np.repeat(side.inverse, k_a, axis=0), np.tile(side.inverse, (k_a, 1))
    ).reshape(k_a, k_a, k_a)  # [g, g', h]
    weighted = np.einsum("gc,kc,hc->gkh", centred, centred, by_group)  # E[1{h}(v-m_g)(v-m_k)]
    with np.errstate(divide="ignore", invalid="ignore"):
        covariance = np.einsum("gkh,gkh->gk", moments, weighted) / np.outer(totals, totals)
    # A variance estimated at 0 or below (a handful of reports) says nothing: the whole range.
    known = known & (np.diag(covariance) > 0)
    std_error = np.where(known, np.sqrt(np.maximum(np.diag(covariance), 0) / n), np.nan)
    estimate = np.where(known, np.clip(means, 0, 1), np.nan)
    low = np.where(known, np.clip(means - z * std_error, 0, 1), 0.0)
    high = np.where(known, np.clip(means + z * std_error, 0, 1), 1.0)
    span = mechanism.span
    return NumberGroupMeans(
        n, mechanism.low, mechanism.high,
        read_only(mechanism.to_unit(estimate)), read_only(mechanism.to_unit(low)),
        read_only(mechanism.to_unit(high)), read_only(span * std_error),
        read_only(span**2 * covariance), z,
    )


@dataclass(frozen=True, eq=False)
class NumberBreakdown:
    """A number question broken down by the groups of a one-answer question: the groups'
    sizes and shares from the grouping question's own estimate (``group_share``,
    ``group_ci_low``/``high``, ``group_size``; ``small_group`` where the mean is unknown or
    the group's interval reaches 0), the ``means`` within them (``group_means``) and the
    Wald test that they are equal (``association``). A number has no answers to share
    out, so ``difference`` has none either: the difference of means is ``means.difference``."""

    n: int
    group_share: np.ndarray
    group_ci_low: np.ndarray
    group_ci_high: np.ndarray
    group_size: np.ndarray
    small_group: np.ndarray
    means: NumberGroupMeans
    association: Association

    def difference(self, group_1: int, group_2: int) -> Difference:
        empty = read_only(np.zeros(0))
        return Difference(group_1, group_2, empty, empty, empty)


def number_breakdown(
    group: Mechanism, mechanism: NumberWindow, counts: PairCounts, confidence: float = 0.95
) -> NumberBreakdown:
    """The number's means within the groups of ``group`` (``counts``: ``group_means``)."""
    means = group_means(group, mechanism, counts, confidence)
    shares = group.estimate(counts.a, counts.n, confidence)
    statistic, df, p_value = means.association()
    return NumberBreakdown(
        n=counts.n,
        group_share=shares.headline,
        group_ci_low=shares.ci_low,
        group_ci_high=shares.ci_high,
        group_size=read_only(counts.n * shares.headline),
        small_group=read_only(~np.isfinite(means.estimate) | (shares.ci_low <= 0)),
        means=means,
        association=Association(statistic, df, p_value),
    )


def number_window(
    epsilon: float, low: float, high: float, decimals: int = 0, edges: Any = ()
) -> NumberWindow:
    """The number mechanism: a sliding window on a grid of ``CELLS`` cells at ``epsilon``."""
    return NumberWindow(epsilon, low, high, decimals, list(edges))


def test_vectors() -> list[dict[str, Any]]:
    """Shared test vectors: spec and P(report cell | grid index) for every index of a few
    small ranges."""
    vectors = []
    for epsilon, low, high, decimals, edges in (
        (0.5, 0, 10, 0, [5]), (1.0, 18, 99, 0, [30, 45, 65]), (2.0, 0, 1, 1, []),
        (4.0, -2.5, 2.5, 2, [0]),
    ):
        mechanism = number_window(epsilon, low, high, decimals, edges)
        indices = sorted({0, 1, mechanism.steps // 3, mechanism.steps // 2, mechanism.steps})
        vectors.append({
            "spec": mechanism.spec(),
            "cases": [
                {"index": i, "probabilities": mechanism.report_probabilities(i).tolist()}
                for i in indices
            ],
        })
    return vectors
