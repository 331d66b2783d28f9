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

Extra answers ("No answer", "Not asked": ``extras``): each is one more window of w cells
after the grid, so reports run to G + E w - 1 and the privacy argument is unchanged. The
mean is then among those who gave a number: per-cell values v and a whose means are t and 1
for a number and 0 for an extra answer (``_unit_values``), the ratio mean(v) / mean(a) with
Fieller's interval; the bins come with the extra answers' shares (EMS over both).

Pure numpy; no Django. Guide: docs/ldp.md, "Numbers".
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
from scipy.stats import chi2
from scipy.stats import t as student_t

from . import specs
from .association import Association
from .checks import check_n, check_probability, is_integer, is_real, read_only
from .estimation import Estimate
from .joint import Difference
from .means import GroupMeans, Mean
from .mechanisms import Mechanism, check_epsilon, epsilon_from_matrix
from .pair_counts import PairCounts
from .planning import fewest_respondents, z_value
from .score_intervals import bounded_interval, score_interval, widen
from .sides import Side
from .words import gettext_noop

CELLS: int = 64
"""Cells of the output grid: a report is one of them."""
MAX_DECIMALS: int = 3
"""Most decimal places a number question may have."""
MAX_STEPS: int = 10**7
"""Most steps of the grid of inputs ((high - low) 10^decimals): the browser draws an integer
below it exactly."""
MAX_BINS: int = 20
"""Most bins of the distribution."""
MAX_EXTRAS: int = 2
"""Most answers given instead of a number: "No answer" and "Not asked"."""
EM_TOLERANCE: float = 1e-9
"""EMS stops when no start's share moves by more than this in one step."""
EM_MAX_STEPS: int = 5000
"""Most EMS steps, extrapolations' included (a share near 0 is approached slowly)."""

NUMBER_INTERVAL_METHOD: str = "student-t"
"""Name of the method behind a number's mean interval, for the pages."""
NUMBER_INTERVAL_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Mean of a number: the average of the reports' unbiased values (each report's cell, "
    "corrected for the known randomization), in the question's unit; its 95% interval is "
    "Student's t interval from their variance, clipped to the range. The distribution over "
    "the bins is estimated by expectation-maximization with smoothing, without intervals."
)
GROUP_MEAN_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Mean of a number within a group: the ratio of the unbiased estimates of the group's "
    "total and of its size; its 95% interval is the Wald interval with the delta method's "
    "variance, with Feldman and Cousins' ordering near the ends of the range; that of the "
    "difference between two groups is built the same way, around the difference of the "
    "ratios, on the range of differences."
)


# Memos of pure functions of their arguments (read-only results): each process computes the
# same values, so nothing here is state that workers must share.
@lru_cache(maxsize=256)
def _starts_matrix(epsilon: float, cells: int, width: int, extras: int = 0) -> np.ndarray:
    """(G + E w) x (K + E): P(report cell c | window start s), then | extra answer e, whose
    window is the e-th block of w cells after the grid's G."""
    outputs = cells + extras * width
    inside = width * math.exp(epsilon) / (width * math.exp(epsilon) + outputs - width)
    starts = cells - width + 1
    c = np.arange(outputs)[:, None]
    s = np.concatenate([np.arange(starts), cells + width * np.arange(extras)])[None, :]
    within = (c >= s) & (c < s + width)
    matrix = np.where(within, inside / width, (1 - inside) / (outputs - width))
    matrix.setflags(write=False)
    return matrix


def _worst_variance(matrix: np.ndarray, values: np.ndarray) -> float:
    """The largest variance of the unbiased value v(c) (``values``) over the true
    distributions of the starts (``matrix``: their columns; n times the variance of the mean
    position): f . q - (f . t)^2 is concave in f, so its maximum is on a mix of two starts,
    found by trying every pair."""
    starts = matrix.shape[1]
    t = np.arange(starts) / (starts - 1)
    q = (values**2) @ matrix  # E[v^2 | start]
    i, j = np.triu_indices(starts, k=1)
    dt, dq = t[j] - t[i], q[j] - q[i]
    # Var(lam) = q_i + lam dq - (t_i + lam dt)^2, largest at lam = (dq / dt - 2 t_i) / (2 dt)
    lam = np.clip((dq / dt - 2 * t[i]) / (2 * dt), 0, 1)
    pairs = q[i] + lam * dq - (t[i] + lam * dt) ** 2
    return float(max(pairs.max(), (q - t**2).max()))


def position_values(matrix: np.ndarray) -> np.ndarray:
    """v(c) = (c - A) / B, with E[c | start s] = A + B s / (K - 1): mean t exactly."""
    cells = np.arange(matrix.shape[0], dtype=float)
    means = cells @ matrix
    return (cells - means[0]) / (means[-1] - means[0])


def _unit_values(matrix: np.ndarray, cells: int, extras: int) -> tuple[np.ndarray, np.ndarray]:
    """(v, a): each report cell's values whose means are, for a respondent at start s, the
    position t = s / (K - 1) and 1, and for one who gave an extra answer, 0 and 0 (module
    docstring, "the mean among those who answered"). Both are of the form alpha + beta c on
    the grid's cells and one constant on each extra answer's block: 2 + E unknowns for
    2 + E conditions (the means of c on the grid are linear in s), solved exactly. Without
    extra answers, v is ``position_values`` and a is 1."""
    outputs, columns = matrix.shape
    starts = columns - extras
    c = np.arange(outputs)
    on_grid = c < cells
    width = (outputs - cells) // extras if extras else 0
    basis = np.column_stack(
        [np.ones(outputs), np.where(on_grid, c, 0.0)]
        + [(c >= cells + e * width) & (c < cells + (e + 1) * width) for e in range(extras)]
    ).astype(float)
    answered = np.concatenate([np.ones(starts), np.zeros(extras)])
    position = np.concatenate([np.arange(starts) / (starts - 1), np.zeros(extras)])
    targets = np.column_stack([position, answered])
    # The conditions on the starts are all implied by those on the first and the last.
    rows = np.r_[0, starts - 1, np.arange(starts, columns)]
    solution = np.linalg.solve((matrix.T @ basis)[rows], targets[rows])
    values = basis @ solution
    values.setflags(write=False)
    return values[:, 0], values[:, 1]


@lru_cache(maxsize=64)
def best_width(epsilon: float, cells: int = CELLS) -> int:
    """The window's width with the smallest worst-case variance of the mean."""
    def worst(width: int) -> float:
        matrix = _starts_matrix(epsilon, cells, width)
        return _worst_variance(matrix, position_values(matrix))

    return min(range(1, cells - 1), key=worst)


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
    label = gettext_noop("Piecewise mechanism on a grid (sliding window)")
    encoding = "number"

    def __init__(
        self,
        epsilon: float,
        low: float,
        high: float,
        decimals: int = 0,
        edges: Any = (),
        width: int | None = None,
        extras: int = 0,
    ) -> None:
        """``width``: the window's width, by default ``best_width`` (another width is for
        comparisons only: ``from_spec`` rebuilds the default); ``extras``: how many answers
        respondents may give instead of a number ("No answer", "Not asked"), each randomized
        as one more window of ``width`` cells after the grid."""
        self.epsilon = check_epsilon(epsilon)
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
        if extras not in range(MAX_EXTRAS + 1):
            raise ValueError(f"extras must be a whole number from 0 to {MAX_EXTRAS}")
        self.extras = int(extras)
        self.bins = len(self.edges) + 1
        self.k = self.bins + self.extras
        self.cells = CELLS
        self.width = best_width(self.epsilon, self.cells) if width is None else int(width)
        if not 1 <= self.width <= self.cells - 2:
            raise ValueError(f"the window's width must be from 1 to {self.cells - 2}")
        self.starts = self.cells - self.width + 1
        self.outputs = self.cells + self.extras * self.width
        odds = self.width * math.exp(self.epsilon)
        self.p = odds / (odds + self.outputs - self.width)
        self.p_bar = (self.outputs - self.width) / (odds + self.outputs - self.width)
        self.q = self.p
        self.tally_size = self.outputs
        self._matrix = _starts_matrix(self.epsilon, self.cells, self.width, self.extras)
        self._values, self._answered = _unit_values(self._matrix, self.cells, self.extras)

    def __repr__(self) -> str:
        return (f"<NumberWindow epsilon={self.epsilon!r} [{self.low!r}, {self.high!r}] "
                f"decimals={self.decimals} bins={self.bins} extras={self.extras}>")

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
            "width": self.width, "p": self.p, "extras": self.extras,
        }

    def matrix(self) -> np.ndarray:
        """(G + E w) x (K + E): P(report cell c | window start s, then | extra answer e)."""
        return self._matrix

    def exact_epsilon(self) -> float:
        """The largest log ratio of a report's probabilities over two starts or extra answers,
        hence over two inputs (a number is a mix of two adjacent starts)."""
        return epsilon_from_matrix(self._matrix)

    def bin_labels(self) -> list[str]:
        bounds = [self.low, *self.edges, self.high]
        return [
            f"{_format(a, self.decimals)} to {_format(b, self.decimals)}"
            for a, b in itertools.pairwise(bounds)
        ]

    def bin_grid(self) -> tuple[np.ndarray, np.ndarray]:
        """Each bin's numbers on the grid, as grid indices: the first of each bin and the
        first after it (a bin holds the numbers from its lower edge up to its upper edge,
        excluded; the last bin also holds the top of the range). A bin whose edges are closer
        than one step may hold none (its first and after equal)."""
        scale = 10**self.decimals
        cuts = np.array([self.low, *self.edges, self.high]) - self.low
        first = np.ceil(np.round(cuts[:-1] * scale, 9)).astype(np.int64)
        after = np.ceil(np.round(cuts[1:] * scale, 9)).astype(np.int64)
        after[-1] = self.steps + 1
        return first, after

    def bin_means(self) -> np.ndarray:
        """The mean of each bin's numbers on the grid (``bin_grid``; NaN for a bin holding
        none): the mean of a number drawn uniformly from its bin's."""
        first, after = self.bin_grid()
        with np.errstate(invalid="ignore"):
            middle = np.where(after > first, (first + after - 1) / 2, np.nan)
        return self.low + middle / 10**self.decimals

    def cell_ranges(self) -> np.ndarray:
        """(G, 2): for each cell of the grid, the smallest and the largest number (in the
        question's unit, on the grid of ``decimals`` places) whose window can hold it, NaN
        for a cell no window holds (a range of fewer steps than starts). A report of cell c
        is a cell of its respondent's window with probability p; the number at grid index i
        has a window starting at floor(u) or ceil(u), u = i (K - 1) / m, which holds c when
        c - w < u < c + 1."""
        c = np.arange(self.cells, dtype=np.int64)
        lowest = np.maximum((c - self.width) * self.steps // (self.starts - 1) + 1, 0)
        highest = np.minimum(-(-(c + 1) * self.steps // (self.starts - 1)) - 1, self.steps)
        ranges = (np.column_stack([lowest, highest]) + self._low_units) / 10**self.decimals
        ranges[lowest > highest] = np.nan
        return ranges

    def cell_labels(self) -> list[str]:
        """Each grid cell's range (``cell_ranges``) in words: "18 to 30", "7", or "none"."""
        return [
            "none" if math.isnan(a) else _format(a, self.decimals) if a == b
            else f"{_format(a, self.decimals)} to {_format(b, self.decimals)}"
            for a, b in self.cell_ranges()
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
        """Length G + E w: P(report c | the number at grid index ``index``)."""
        u = int(index) * (self.starts - 1)
        start, rest = divmod(u, self.steps)
        up = rest / self.steps
        law = (1 - up) * self._matrix[:, start]
        if rest:
            law = law + up * self._matrix[:, start + 1]
        return law

    def extra_probabilities(self, extra: int) -> np.ndarray:
        """Length G + E w: P(report c | extra answer ``extra``, 0 for the first)."""
        if extra not in range(self.extras):
            raise ValueError(f"extra must be a whole number from 0 to {self.extras - 1}")
        return self._matrix[:, self.starts + extra]

    def perturb(
        self, values: Any, rng: np.random.Generator, extra: Any = None
    ) -> np.ndarray:
        """Reference randomizer: one report (a cell) per number of ``values``; ``extra``:
        per respondent, the extra answer given instead of the number (0 for the first), or
        -1 where the number counts."""
        i = self.index(values)
        start, rest = np.divmod(i * (self.starts - 1), self.steps)
        start = start + (rng.integers(0, self.steps, size=i.size) < rest)
        if extra is not None:
            e = np.asarray(extra)
            if e.shape != i.shape or np.any((e < -1) | (e >= self.extras)):
                raise ValueError(f"extra must be -1 or an extra answer below {self.extras}")
            start = np.where(e >= 0, self.cells + self.width * e, start)
        inside = rng.random(i.size) < self.p
        within = start + rng.integers(0, self.width, size=i.size)
        other = rng.integers(0, self.outputs - self.width, size=i.size)
        outside = np.where(other >= start, other + self.width, other)
        return np.where(inside, within, outside).astype(np.int64)

    def validate_report(self, report: object) -> int:
        """A report is a whole number from 0 to G + E w - 1 (a cell)."""
        if not is_integer(report) or not 0 <= report < self.outputs:
            raise ValueError(
                f"a number's report must be a whole number from 0 to {self.outputs - 1}, "
                f"got {report!r}"
            )
        return int(report)

    def support(self, report: object) -> list[int]:
        return [self.validate_report(report)]

    def support_counts(self, reports: Any) -> np.ndarray:
        r = np.asarray(reports)
        if r.size == 0:
            return np.zeros(self.outputs, dtype=np.int64)
        if (r.ndim != 1 or not np.issubdtype(r.dtype, np.integer) or r.min() < 0
                or r.max() >= self.outputs):
            raise ValueError(f"reports must be a 1-D array of cells in [0, {self.outputs})")
        return np.bincount(r, minlength=self.outputs).astype(np.int64)

    def _counts(self, counts: Any, n: int) -> np.ndarray:
        n = check_n(n)
        c = np.asarray(counts)
        if (c.shape != (self.outputs,) or c.dtype.kind not in "iu" or np.any(c < 0)
                or c.sum() != n):
            raise ValueError(f"counts must be {self.outputs} whole numbers >= 0 adding up to n")
        return c.astype(np.int64)

    # Estimates ---------------------------------------------------------------------------

    def unbiased_values(self) -> np.ndarray:
        """Each cell's unbiased value in the question's unit, low a + (high - low) v: its
        mean is the number for a respondent who gave one, 0 for an extra answer; the sum of
        the reports' values over the sum of their ``answered_values`` is the unbiased mean
        (``mean``; without extra answers, simply their average)."""
        return self.low * self._answered + self.span * self._values

    def position_values(self) -> np.ndarray:
        """Each cell's v: its mean is the position t (0..1) on the range of a respondent who
        gave a number, 0 for an extra answer (``position_values`` of the matrix without extra
        answers)."""
        return self._values

    def answered_values(self) -> np.ndarray:
        """Each cell's a: its mean is 1 for a respondent who gave a number, 0 for an extra
        answer (all 1 without extra answers)."""
        return self._answered

    def to_unit(self, t: Any) -> Any:
        """A position on the range (0..1) in the question's unit."""
        return self.low + self.span * t

    def mean(self, counts: Any, n: int, confidence: float = 0.95) -> Mean:
        """The mean number, in the question's unit, with its 95% interval: Student's t
        interval, or with extra answers the mean among those who gave a number
        (``_mean_among_answered``)."""
        c = self._counts(counts, n).astype(float)
        alpha = 1 - check_probability("confidence", confidence)
        if n == 0:
            return Mean(math.nan, self.low, self.high, math.nan, math.nan)
        if self.extras:
            return self._mean_among_answered(c, n, alpha)
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

    def _mean_among_answered(self, c: np.ndarray, n: int, alpha: float) -> Mean:
        """The mean position among those who gave a number, N / D = E[v] / E[a] (module
        docstring), with Fieller's interval: every t in [0, 1] that the test of
        mean(v - t a) = 0 accepts, with the reports' own variance of v - t a and Student's
        t quantile (``score_intervals.score_interval``), widened to contain the headline
        clip(N / D, 0, 1)."""
        v, a = self._values, self._answered
        average, answered = float(c @ v / n), float(c @ a / n)
        if n < 2:
            return Mean(math.nan, self.low, self.high, math.nan, math.nan)

        def covariance(x: np.ndarray, y: np.ndarray, mean_x: float, mean_y: float) -> float:
            return float(c @ ((x - mean_x) * (y - mean_y)) / (n - 1))

        v_vv = covariance(v, v, average, average)
        v_va = covariance(v, a, average, answered)
        v_aa = covariance(a, a, answered, answered)
        quantile = float(student_t.ppf(1 - alpha / 2, n - 1))
        low, high = score_interval(np.array([average]), np.array([answered]),
                                    np.array([[v_vv, -2 * v_va, v_aa, 0.0]]), n, quantile)
        ratio = average / answered if answered > 0 else math.nan
        headline = np.array([np.clip(ratio, 0, 1)])
        low, high = widen(low, high, headline)
        # The delta method's standard error of the ratio: sqrt(V(ratio) / n) / D.
        spread = v_vv - 2 * ratio * v_va + ratio * ratio * v_aa
        std_error = math.sqrt(max(spread, 0.0) / n) / answered if answered > 0 else math.nan
        return Mean(
            estimate=float(self.to_unit(headline[0])),
            ci_low=float(self.to_unit(low[0])),
            ci_high=float(self.to_unit(high[0])),
            unbiased=float(self.to_unit(ratio)),
            std_error=self.span * std_error,
        )

    def starts_distribution(self, counts: Any, n: int) -> np.ndarray:
        """EMS: the share of respondents at each window start, then giving each extra answer
        (module docstring; the smoothing is over the starts only): the fixed point of one EMS
        step (``_ems_step``), reached by SQUAREM's extrapolation (Varadhan and Roland, 2008,
        scheme S3): from f, two steps f1 and f2 give r = f1 - f and v = f2 - 2 f1 + f; with
        a = -|r| / |v| (at most -1) the point f - 2 a r + a^2 v, or f2 where that leaves the
        simplex, is followed by one more step. It stops when one step moves no share by
        ``EM_TOLERANCE`` or after ``EM_MAX_STEPS`` steps."""
        c = self._counts(counts, n).astype(float)
        columns = self.starts + self.extras
        f = np.full(columns, 1 / columns)
        if n == 0:
            return f
        steps = 0
        while steps < EM_MAX_STEPS:
            f1 = self._ems_step(f, c, n)
            r = f1 - f
            if np.abs(r).max() < EM_TOLERANCE:
                return f1
            f2 = self._ems_step(f1, c, n)
            v = f2 - 2 * f1 + f
            curvature = math.sqrt(v @ v)
            a = min(-math.sqrt(r @ r) / curvature, -1.0) if curvature > 0 else -1.0
            jump = f - 2 * a * r + a * a * v
            f = self._ems_step(jump / jump.sum() if np.all(jump > 0) else f2, c, n)
            steps += 3
        return f

    def _ems_step(self, f: np.ndarray, c: np.ndarray, n: int) -> np.ndarray:
        """One EMS step from the shares ``f``: EM's update with the exact report law, then the
        smoothing ([1, 2, 1] / 4, the ends repeated) of the starts' shares."""
        m = self._matrix
        updated = f * (m.T @ (c / (m @ f))) / n
        starts, extras = updated[: self.starts], updated[self.starts :]
        padded = np.concatenate([starts[:1], starts, starts[-1:]])
        smoothed = np.concatenate([(padded[:-2] + 2 * padded[1:-1] + padded[2:]) / 4, extras])
        return smoothed / smoothed.sum()

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
        """The shares of the bins, then of the extra answers, among all respondents (EMS,
        without intervals: ``ci_low``, ``ci_high`` and ``std_errors`` are NaN); ``counts``
        holds the reports per cell."""
        c = self._counts(counts, n)
        if n == 0:
            shares = np.full(self.k, math.nan)
        else:
            found = self.starts_distribution(c, n)
            shares = np.concatenate([found[: self.starts] @ self._bin_weights(),
                                     found[self.starts :]])
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

    def variance_times_n(self, share: float | None = None) -> float:
        """n times the variance of the mean position (0..1), in the worst case (with extra
        answers, when everyone gives a number)."""
        return self._worst_variance

    @cached_property
    def _worst_variance(self) -> float:
        """``variance_times_n``: a function of the design only, which the planner's figures
        ask for several times per question and per view."""
        return _worst_variance(self._matrix[:, : self.starts], self._values)

    def margin_of_error(
        self, n: int, confidence: float = 0.95, share: float | None = None
    ) -> float:
        """Half-width of the 95% interval of the mean with n respondents, as a fraction of
        the range, in the worst case; n = 0 gives infinity."""
        n = check_n(n)
        if n == 0:
            return math.inf
        return z_value(confidence) * math.sqrt(self.variance_times_n() / n)

    n_for_margin = Mechanism.n_for_margin  # the same search, on this mechanism's margin

    def mean_margin(self, n: int, confidence: float = 0.95) -> float:
        """The same in the question's unit."""
        return self.span * self.margin_of_error(n, confidence)

    def n_for_mean_margin(self, margin: float, confidence: float = 0.95) -> int:
        """Smallest n with ``mean_margin(n) <= margin`` (in the question's unit, > 0)."""
        if not (is_real(margin) and math.isfinite(margin) and margin > 0):
            raise ValueError(f"margin must be a positive number, got {margin!r}")
        return fewest_respondents(
            (z_value(confidence) * self.span) ** 2 * self.variance_times_n() / margin**2,
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
        """(statistic, df, p-value) of the Wald test that the known groups' unbiased means
        are equal: NaN, 0, NaN when fewer than two groups are known."""
        known = np.flatnonzero(np.isfinite(self.estimate))
        if len(known) < 2 or self.n == 0:
            return math.nan, 0, math.nan
        contrast = np.eye(len(known))[1:] - np.eye(len(known))[:1]
        d = contrast @ self.unbiased[known]
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
    mean is N_g / D_g. With extra answers, a report's a (whose mean is 1 for a number and 0
    for an extra answer) replaces 1 in D_g and in the residual v - m_g a: the mean among
    those in the group who gave a number. Delta method: the covariance of groups g, g' is
    E[x_g x_g' (v - m_g a)(v - m_g' a)] / (D_g D_g') / n, where the expectation is
    sum_h E[x_g x_g' | h] E[1{G = h} (v - m_g)(v - m_g')], the first factor from the group
    mechanism's law (``sides.Side.moment``), the second estimated without bias like N_g."""
    if counts.joint.shape[1] != mechanism.tally_size:
        raise ValueError(f"counts must have the {mechanism.tally_size} cells as columns")
    side = Side(group)
    k_a = side.k
    z = z_value(confidence)
    n = counts.n
    if n == 0:
        unknown = np.full(k_a, np.nan)
        return NumberGroupMeans(
            0, mechanism.low, mechanism.high, read_only(unknown),
            read_only(np.full(k_a, mechanism.low)), read_only(np.full(k_a, mechanism.high)),
            read_only(unknown), read_only(unknown), read_only(np.full((k_a, k_a), np.nan)), z,
        )
    v, a = mechanism.position_values(), mechanism.answered_values()
    by_group = side.inverse @ counts.joint / n  # (k_a, G): unbiased E[1{G = g}, cell]
    totals = by_group @ a
    means = by_group @ v / np.where(totals > 0, totals, np.nan)
    known = np.isfinite(means) & (totals > 0)
    centred = v[None, :] - np.nan_to_num(means)[:, None] * a[None, :]  # (k_a, G)
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
    low, high = bounded_interval(np.where(known, means, np.nan), std_error, 0.0, 1.0, z)
    span = mechanism.span
    return NumberGroupMeans(
        n, mechanism.low, mechanism.high,
        read_only(mechanism.to_unit(estimate)), read_only(mechanism.to_unit(low)),
        read_only(mechanism.to_unit(high)),
        read_only(mechanism.to_unit(np.where(known, means, np.nan))), read_only(span * std_error),
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
    epsilon: float, low: float, high: float, decimals: int = 0, edges: Any = (), extras: int = 0
) -> NumberWindow:
    """The number mechanism: a sliding window on a grid of ``CELLS`` cells at ``epsilon``,
    and one more window per extra answer."""
    return NumberWindow(epsilon, low, high, decimals, list(edges), extras=extras)


# Specs frozen before number questions could take extra answers have no "extras".
specs.register(
    "window", number_window, ("epsilon", "low", "high", "decimals", "edges", "extras"),
    optional=("extras",),
)


def test_vectors() -> list[dict[str, Any]]:
    """Shared test vectors: spec and P(report cell | grid index) for a few indices of a few
    small ranges, and P(report cell | extra answer) where the spec has extra answers."""
    vectors = []
    for epsilon, low, high, decimals, edges, extras in (
        (0.5, 0, 10, 0, [5], 0), (1.0, 18, 99, 0, [30, 45, 65], 0), (2.0, 0, 1, 1, [], 0),
        (4.0, -2.5, 2.5, 2, [0], 0), (1.0, 0, 30, 0, [1, 5, 10, 20], 2),
    ):
        mechanism = number_window(epsilon, low, high, decimals, edges, extras)
        indices = sorted({0, 1, mechanism.steps // 3, mechanism.steps // 2, mechanism.steps})
        vectors.append({
            "spec": mechanism.spec(),
            "cases": [
                {"index": i, "probabilities": mechanism.report_probabilities(i).tolist()}
                for i in indices
            ] + [
                {"extra": e, "probabilities": mechanism.extra_probabilities(e).tolist()}
                for e in range(extras)
            ],
        })
    return vectors
