"""Planning a study: the normal quantile of a confidence level, and the fewest respondents
that reach a margin of error. Every planner of the core builds on these (one question's
shares, shares within groups, mean scores, numbers, check-all questions)."""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist

from .checks import is_real

Z95: float = 1.959963984540054
"""Two-sided 95% standard normal quantile."""

MAX_PLANNED_RESPONDENTS: int = 10**9
"""``fewest_respondents`` refuses targets that would need more reports than this: no survey
reaches them."""


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

