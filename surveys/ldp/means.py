"""Means with their 95% intervals, the results of the estimates of a mean: a rating scale's
mean score (``scores``), a check-all question's mean number of options ticked
(``checkall``), a number's mean (``numbers``), overall (``Mean``) or within the groups of a
breakdown (``GroupMeans``), and the mean score among those who answered (``ratios``).
Pure numpy; no Django.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .score_intervals import bounded_interval


@dataclass(frozen=True)
class Mean:
    """A mean with its 95% interval: a rating question's mean score (``scores.mean_score``) or a
    check-all question's mean number of options ticked (``checkall``). ``estimate`` (the
    unbiased mean kept within its range; NaN without reports), ``ci_low``/``ci_high`` (its
    95% interval, the whole range without reports), ``unbiased`` (the mean before it is kept
    within range) and ``std_error``."""

    estimate: float
    ci_low: float
    ci_high: float
    unbiased: float
    std_error: float

    def to_dict(self) -> dict[str, float | None]:
        return {
            key: value if math.isfinite(value) else None
            for key, value in self.__dict__.items()
        }



@dataclass(frozen=True, eq=False)
class GroupMeans:
    """A mean within each group of question A, on the range [low, high]: a rating scale's
    mean score (points 1..k, ``scores.group_means``) or a number's (``numbers.group_means``).
    ``estimate`` (NaN for a group estimated empty), ``ci_low``/``ci_high``, ``unbiased``
    (the mean before it is kept within the range), ``std_error``, and ``covariance`` (n
    times the covariance matrix of the groups' means) for ``difference``."""

    n: int
    low: float
    high: float
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    unbiased: np.ndarray
    std_error: np.ndarray
    covariance: np.ndarray
    z: float

    def difference(self, group_1: int, group_2: int) -> tuple[float, float, float]:
        """(estimate, ci_low, ci_high) of the mean of ``group_1`` minus that of ``group_2``:
        the difference of the estimates, and ``bounded_interval`` of the difference of the
        unbiased means on +- the range with the delta method's variance (so the interval is
        centred where the estimates are not pulled in by the ends of the range); NaN and
        the whole range when either group is estimated empty, the whole range when the
        variance of the difference is not estimated above 0."""
        spread = self.high - self.low
        estimate = float(self.estimate[group_1] - self.estimate[group_2])
        if not math.isfinite(estimate):
            return math.nan, -spread, spread
        c = self.covariance
        variance = c[group_1, group_1] + c[group_2, group_2] - 2 * c[group_1, group_2]
        if not variance > 0:
            return estimate, -spread, spread
        unbiased = np.array([self.unbiased[group_1] - self.unbiased[group_2]])
        std_error = np.array([math.sqrt(float(variance) / self.n)])
        low, high = bounded_interval(unbiased, std_error, -spread, spread, self.z)
        return estimate, float(min(low[0], estimate)), float(max(high[0], estimate))
