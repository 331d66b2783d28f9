"""Shares among those who answered, and their mean score, as ratios of unbiased estimates
with Fieller's intervals (``fieller_ratios``): from one question's reports (``among``) or
from a follow-up's and the question it is asked under (``asked``). See ``among`` for the
statistics. Pure numpy; no Django.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .checks import read_only
from .means import Mean
from .score_intervals import score_interval, widen


@dataclass(frozen=True, eq=False)
class Among:
    """The m own answers' shares among those who answered: ``estimate``, ``ci_low`` and
    ``ci_high`` (arrays of m), ``answered`` (the maximum-likelihood share of respondents
    who answered), and ``mean_score``: a rating scale's mean score, or a check-all
    question's mean number of options ticked (``checkall.SampledBoxes.among_answered``),
    among them (None otherwise). Without reports every estimate is NaN and every interval
    [0, 1]."""

    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    answered: float
    mean_score: Mean | None


def no_reports(answers: int, scored: bool) -> Among:
    """Among with no reports: no headline, intervals of the whole range (and the mean's
    whole scale with ``scored``)."""
    nothing = np.full(answers, np.nan)
    mean = Mean(np.nan, 1.0, float(answers), np.nan, np.nan) if scored else None
    return Among(*(read_only(x) for x in (nothing, np.zeros(answers), np.ones(answers))),
                 np.nan, mean)


def fieller_ratios(
    numerators: np.ndarray, denominator: np.ndarray, unbiased: np.ndarray, fitted: np.ndarray,
    variance: np.ndarray, n: int, z: float, scored: bool,
) -> Among:
    """The ratios N / D = (numerators . pi) / (denominator . pi): Fieller's intervals from
    the ``unbiased`` shares and each row's ``variance`` (V_aa, V_ad, V_dd, 0), the headline
    from the ``fitted`` ones, widened to contain it. With ``scored``, the last row is the
    mean score's (points mapped onto [0, 1]), given back on 1..answers as
    ``Among.mean_score``. Shared by ``among.among_answered`` and ``asked.among_asked``."""
    total = float(denominator @ unbiased)
    low, high = score_interval(numerators @ unbiased, np.full(len(numerators), total),
                               variance, n, z)
    answered = float(denominator @ fitted)
    headline = (numerators @ fitted) / answered if answered > 0 else np.full(len(numerators),
                                                                               np.nan)
    low, high = widen(low, high, headline)
    mean = None
    if scored:
        span = len(numerators) - 2  # the answers less one: the last row is the score's
        ratio = float(numerators[-1] @ unbiased) / total if total > 0 else np.nan
        # The delta method's standard error of the unbiased ratio: sqrt(V(ratio) / n) / D.
        at_ratio = float(variance[-1, :3] @ [1.0, ratio, ratio * ratio])
        std_error = span * math.sqrt(max(at_ratio, 0.0) / n) / total if total > 0 else np.nan
        mean = Mean(1 + span * float(headline[-1]), 1 + span * float(low[-1]),
                    1 + span * float(high[-1]), 1 + span * ratio, std_error)
        headline, low, high = headline[:-1], low[:-1], high[:-1]
    return Among(read_only(headline), read_only(low), read_only(high), answered, mean)
