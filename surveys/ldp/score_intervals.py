"""Score intervals for a share or a ratio of unbiased estimates, and for a mean known to lie
within a range: the intervals of joint estimation (cells, shares within groups, shares among
those who answered, means within groups), with Feldman and Cousins' ordering near 0 and 1
(``bounded``). Pure numpy; no Django. Guide: docs/ldp.md, "Estimates near 0 or 1".
"""

from __future__ import annotations

import numpy as np

from . import bounded

_GRID = np.linspace(0, 1, 257)
"""Trial values of ``score_interval``, besides the point estimate; the ends found are then
refined in ``_ROUNDS`` rounds of ``_SECTIONS`` sections each, to 1/256 of 2^-40 (1e-14): as
40 halvings, in a fifth of the calls."""
_SECTIONS, _ROUNDS = 32, 8


def score_interval(
    estimate: np.ndarray, scale: np.ndarray, variance: np.ndarray, n: int, z: float
) -> tuple[np.ndarray, np.ndarray]:
    """Every t in [0, 1] that a score test accepts: the estimate's residual from t scale, in
    standard deviations sd(t) = sqrt(V(t) / n) taken when the truth is t (``variance``: the
    coefficients of the cubic V, last axis), within the limits ``bounded.accepted_limits``
    gives for a mean t scale / sd(t) above 0, or (1 - t) scale / sd(t) below scale,
    whichever is nearer: -z and z away from both, Feldman and Cousins' ordering near them.
    Away from 0 and 1 this is Wilson's interval for a cell when there is no randomization,
    and for a share (estimate N, scale D) Fieller's interval with the variance taken at the
    hypothesised share instead of the estimated one.

    Near 0 or 1 the ordering gives the interval its full coverage and never leaves it
    without width: an estimate below 0 or above ``scale`` (a ratio outside [0, 1], which
    randomization makes possible) is still accepted at t = 0 or 1 (docs/ldp.md, "Estimates
    near 0 or 1"). Where ``scale`` is 0 or below (a group estimated empty or smaller), the
    interval is [0, 1]. Where V(t) is 0 or below (no variance, or one estimated below 0),
    t is accepted only if the residual is 0; so where V(0) is 0 (nothing randomized: no
    estimate below 0 can happen under any t) an estimate below 0 is tested as 0, and one
    above ``scale`` as ``scale`` where V(1) is 0.

    The hull of the accepted trial values (``_GRID`` and the point estimate
    clip(estimate / scale, 0, 1), so that narrow intervals are found too), each end refined
    by bisection towards its rejected neighbour; NaN where no trial value is accepted."""
    unknown = scale <= 0
    c0, c1, c2, c3 = np.moveaxis(variance, -1, 0)
    estimate = np.where(c0 > 0, estimate, np.fmax(estimate, 0))
    estimate = np.where(c0 + c1 + c2 + c3 > 0, estimate, np.fmin(estimate, scale))

    def rejected(t: np.ndarray, grid: bool = False) -> np.ndarray:
        """Whether each t is rejected: t has the estimate's shape (after any leading axes), or
        is ``_GRID`` (last axis)."""
        x, s, a, b, c, d = (
            v[..., None] if grid else v for v in (estimate, scale, c0, c1, c2, c3)
        )
        residual, spread = x - t * s, a + t * (b + t * (c + t * d))
        with np.errstate(divide="ignore", invalid="ignore"):
            sd = np.sqrt(spread / n)
            above, below = t * s / sd, (1 - t) * s / sd
            low, high = bounded.accepted_limits(np.fmin(above, below), z)
            low, high = np.where(above <= below, low, -high), np.where(above <= below, high, -low)
            outside = (residual < low * sd) | (residual > high * sd)
        return np.where(spread > 0, outside, residual != 0)

    with np.errstate(divide="ignore", invalid="ignore"):
        center = np.clip(np.where(scale > 0, estimate / scale, 0.5), 0, 1)
    center_in = ~rejected(center)
    accepted = ~rejected(_GRID, grid=True)
    last = _GRID.size - 1
    first_in = np.where(accepted.any(axis=-1), _GRID[np.argmax(accepted, axis=-1)], np.inf)
    last_in = np.where(
        accepted.any(axis=-1), _GRID[last - np.argmax(accepted[..., ::-1], axis=-1)], -np.inf
    )
    low = np.where(center_in, np.minimum(first_in, center), first_in)
    high = np.where(center_in, np.maximum(last_in, center), last_in)
    none = ~np.isfinite(low)
    low, high = np.where(none, 0.0, low), np.where(none, 1.0, high)

    def refine(inside: np.ndarray, outside: np.ndarray) -> np.ndarray:
        """The accepted end of each bracket: each round tries ``_SECTIONS`` - 1 evenly spaced
        points between them and keeps the first rejected one and its accepted neighbour."""
        fractions = np.arange(1, _SECTIONS) / _SECTIONS
        for _ in range(_ROUNDS):
            points = np.concatenate([inside[..., None],
                                     inside[..., None] + (outside - inside)[..., None] * fractions,
                                     outside[..., None]], axis=-1)
            out = rejected(points[..., 1:-1], grid=True)
            first = np.argmax(np.concatenate([out, np.ones_like(out[..., :1])], axis=-1),
                              axis=-1)[..., None] + 1
            inside = np.take_along_axis(points, first - 1, axis=-1)[..., 0]
            outside = np.take_along_axis(points, first, axis=-1)[..., 0]
        return inside

    # The rejected neighbours: the grid points just outside the accepted hull.
    below = _GRID[np.clip(np.ceil(low * last).astype(int) - 1, 0, last)]
    above = _GRID[np.clip(np.floor(high * last).astype(int) + 1, 0, last)]
    # Both ends at once (``rejected`` broadcasts over the leading axis): half the calls.
    low_end, high_end = refine(np.stack([low, high]), np.stack([below, above]))
    low = np.where(low > 0, low_end, 0.0)
    high = np.where(high < 1, high_end, 1.0)
    low, high = np.where(unknown, 0.0, low), np.where(unknown, 1.0, high)
    return np.where(none & ~unknown, np.nan, low), np.where(none & ~unknown, np.nan, high)


def widen(
    low: np.ndarray, high: np.ndarray, estimate: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The interval widened to contain the headline ``estimate`` (every interval the core
    shows contains its headline); an empty interval (NaN) becomes the estimate alone; a NaN
    estimate leaves the interval as it is."""
    low = np.where(np.isnan(low), estimate, low)
    high = np.where(np.isnan(high), estimate, high)
    known = ~np.isnan(estimate)
    return (
        np.where(known, np.fmin(low, estimate), low),
        np.where(known, np.fmax(high, estimate), high),
    )


def bounded_interval(
    estimate: np.ndarray, std_error: np.ndarray, low: float, high: float, z: float
) -> tuple[np.ndarray, np.ndarray]:
    """The interval for a mean known to lie in [``low``, ``high``] from an unbiased, normal
    ``estimate`` (not clipped) with ``std_error``: Wald's, with Feldman and Cousins' ordering
    near the ends (``score_interval`` with a constant variance), so an estimate
    beyond an end still gets an interval with width there; widened to contain the estimate
    clipped to the range. [``low``, ``high``] where the standard error is not above 0. The
    intervals of mean scores and of numbers' means within groups (``means.GroupMeans``)."""
    span = high - low
    known = np.isfinite(estimate) & (std_error > 0)
    variance = np.zeros(np.shape(estimate) + (4,))
    variance[..., 0] = np.where(known, std_error, 1.0) ** 2
    centred = np.where(known, estimate - low, 0.0)
    t_low, t_high = score_interval(centred, np.full(np.shape(estimate), span), variance, 1, z)
    t_low, t_high = widen(t_low, t_high, np.clip(centred / span, 0, 1))
    return np.where(known, low + span * t_low, low), np.where(known, low + span * t_high, high)
