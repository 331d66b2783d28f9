"""Validation anchors: a question whose true share is known ("Have you ever been to Mars?":
0%), asked to check that respondents understood the randomization and answered with care.

Pure numpy and scipy; no Django. Guide: docs/ldp.md, "Validation anchors".

The test: the reports supporting the anchored answer c are Binomial(n, lam) with
lam = b_c + (a_c - b_c) x known whatever else respondents answer (a_c, b_c: the chances that
a report supports c from a respondent whose answer is c, or another), so the exact binomial
test of that count against lam says whether the reports agree with the known share.

What a disagreement means, under the usual model of careless answering (Höglinger & Jann
2018): a share c of the respondents pick their answer at random, uniformly among the k
answers, before it is randomized, and the others answer truly. The anchored answer's true
share then looks like (1 - c) known + c / k, so c = (share - known) / (1 / k - known),
estimated from the unbiased share and bounded by the share's 95% interval. Every other
question's estimates are pulled towards an even split (1/k) by that same fraction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

from .estimation import Estimate
from .mechanisms import Mechanism


@dataclass(frozen=True)
class AnchorCheck:
    known: float
    """The true share of the anchored answer, as the researcher states it."""
    p_value: float
    """Exact two-sided binomial test of the reports against ``known``; NaN with no reports."""
    agrees: bool
    """Whether the 95% interval of the anchored answer's share contains ``known``."""
    careless: float
    """The estimated share of respondents answering at random (0 to 1), NaN where the
    anchor cannot tell (no reports, or a known share of exactly 1/k)."""
    careless_low: float
    careless_high: float

    def to_dict(self) -> dict[str, float | bool | None]:
        """JSON-serialisable copy (NaN -> None)."""
        return {
            key: None if isinstance(value, float) and math.isnan(value) else value
            for key, value in self.__dict__.items()
        }


def check_anchor(
    mechanism: Mechanism, estimate: Estimate, answer: int, known: float
) -> AnchorCheck:
    """The anchor's check from a question's ``estimate`` (its reports' ``mechanism``): see
    the module's docstring. ``answer``: the index of the answer whose share is ``known``."""
    if not 0 <= known <= 1:
        raise ValueError(f"a known share must be between 0 and 1, got {known!r}")
    n = estimate.n
    if n == 0:
        return AnchorCheck(known, math.nan, True, math.nan, math.nan, math.nan)
    matrix = mechanism.matrix()
    own, other = matrix[answer, answer], matrix[answer, (answer + 1) % mechanism.k]
    supported = int(estimate.counts[answer])
    p_value = binomtest(supported, n, other + (own - other) * known).pvalue
    low, high = float(estimate.ci_low[answer]), float(estimate.ci_high[answer])
    even = 1 / mechanism.k
    if math.isclose(known, even):
        careless = careless_low = careless_high = math.nan
    else:
        ends = np.clip(
            (np.array([estimate.proportions[answer], low, high]) - known) / (even - known), 0, 1
        )
        careless_low, careless_high = sorted(map(float, ends[1:]))
        careless = min(max(float(ends[0]), careless_low), careless_high)
    return AnchorCheck(
        known, float(p_value), low <= known <= high, careless, careless_low, careless_high
    )
