"""Which estimates a test accepts when the quantity tested cannot leave [0, 1]: Feldman and
Cousins' ordering for a normal estimate of a mean bounded below (Phys. Rev. D 57, 1998).

Pure numpy + scipy. Guide: docs/ldp.md, "Estimates near 0 or 1".

An estimate x ~ N(mu, 1) of a mean mu >= 0 (in standard deviations, mu counted from the
bound). The central test accepts x within mu +- z; near the bound that wastes coverage on
values of x the bound already rules out, and rejects every mu when x falls far below 0
(an interval of no width). Feldman and Cousins accept the x whose likelihood ratio
L(x | mu) / L(x | max(x, 0)) is largest, until their probability is the test's level:

    log ratio = -(x - mu)^2 / 2        for x >= 0
              = x mu - mu^2 / 2        for x < 0.

For mu >= z that is the central region mu +- z. Below it the region is [mu + a, mu + b] with
b = d solving Phi(d) - Phi(-(mu^2 + d^2) / (2 mu)) = level and a = -(mu^2 + d^2) / (2 mu):
at mu = 0 every x below Phi^-1(level) = 1.645 is accepted (a one-sided test), so for any x
some mu is accepted and the interval never lacks width, and the coverage is exactly the
level at every mu (for a normal estimate).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import ndtr, ndtri

_STEPS = 2048
"""Points of the table between mu = 0 and mu = z; b is interpolated linearly between them
(it is smooth in mu) and a follows from it exactly."""


@lru_cache(maxsize=4)
def _table(z: float) -> tuple[np.ndarray, np.ndarray]:
    """mu on [0, z] and the accepted region's upper limit b(mu) relative to mu."""
    level = ndtr(z) - ndtr(-z)
    mu = np.linspace(0.0, z, _STEPS + 1)
    inner = mu[1:]
    low, high = np.zeros_like(inner), np.full_like(inner, z)
    for _ in range(60):  # bisection on d in [0, z]: the region's probability rises with d
        d = (low + high) / 2
        covered = ndtr(d) - ndtr(-(inner**2 + d**2) / (2 * inner)) >= level
        low, high = np.where(covered, low, d), np.where(covered, d, high)
    return mu, np.concatenate([[ndtri(level)], high])


def accepted_limits(gap: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """The limits (a, b) of the accepted standardized residual x - mu for a mean ``gap``
    standard deviations above its bound (any shape; ``gap`` >= 0): (-z, z) from ``z`` on,
    (-inf, 1.645) at the bound."""
    mu, b = _table(z)
    gap = np.asarray(gap, dtype=float)
    inside = gap < z
    high = np.where(inside, np.interp(gap, mu, b), z)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(inside, -(gap**2 + high**2) / (2 * gap), -z)
    return np.where(gap > 0, low, -np.inf), high
