"""Feldman-Cousins intervals for a share f from its binomial support count (private; see
``Mechanism.intervals`` for the statistics and docs/ldp.md for the reasoning).

A count y of n reports supports a category with probability lam = b + (a - b) f, f in [0, 1].
f is accepted when P_f(R(Y) <= R(y)) > alpha, where ln R(y) = l_y(lam) - l_y(lam_hat(y)),
l_y(lam) = y ln lam + (n - y) ln(1 - lam) and lam_hat(y) = clip(y / n, b, a). That p-value is
exact (two binomial tails, from the incomplete beta function) where
n lam (1 - lam) <= ``EXACT_BELOW_VARIANCE`` and taken from the Gaussian limit elsewhere.
Each end of the interval is 0 or 1 when that value is accepted; otherwise a search between
the maximum-likelihood f and that boundary finds it.

Arrays: one entry per *end* (each count has a lower and an upper end), shaped (ends, 1) so
that trial points, shaped (ends, points), broadcast against them.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from scipy.special import betainc, betaincc, gammaln, ndtr

EXACT_BELOW_VARIANCE: float = 100.0
"""The p-value is summed exactly over the binomial at hypothesised support rates lam with
n lam (1 - lam) at most this, and taken from the Gaussian limit above it."""

SEARCH_ROUNDS: tuple[int, ...] = (128, 16, 16, 16, 16, 16, 16, 16)
"""Points tried in each round of the endpoint search (the first, dense round only where
counts are lumpy, 16 elsewhere): the bracket shrinks at least 17^8 = 7e9-fold, to below
1.5e-10 in f."""

CHUNK: int = 64
"""Counts handled together: bounds the memory of the exact sums (trial points x window)."""


class Ends(NamedTuple):
    """Per end of an interval: its count y, the category's a, b, 1 - a, 1 - b (complements
    at full precision), a - b, and l_y(lam_hat(y)), each shaped (ends, 1); ``category``
    (shaped (ends,)) numbers the distinct (a, b) pairs, for the table of ``best_table``, and
    ``row`` (shaped (ends,)) is the end's row in the ``Crossings`` of its chunk."""

    y: np.ndarray
    a: np.ndarray
    b: np.ndarray
    a_bar: np.ndarray
    b_bar: np.ndarray
    slope: np.ndarray
    best: np.ndarray
    category: np.ndarray
    row: np.ndarray


def rates(f: np.ndarray, e: Ends) -> tuple[np.ndarray, np.ndarray]:
    """(lam, 1 - lam) for lam = b + (a - b) f, each written from the nearer end (b or a) so
    that neither loses relative precision when it is tiny."""
    near_a = f > 0.5
    lam = np.where(near_a, e.a - e.slope * (1 - f), e.b + e.slope * f)
    bar = np.where(near_a, e.a_bar + e.slope * (1 - f), e.b_bar - e.slope * f)
    return lam, bar


def log_likelihood(y: np.ndarray, n: int, lam: np.ndarray, bar: np.ndarray) -> np.ndarray:
    """y ln lam + (n - y) ln(1 - lam), with 0 ln 0 = 0; ``bar`` is 1 - lam."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ones = np.where(y > 0, y * np.log(lam), 0.0)
        return ones + np.where(y < n, (n - y) * np.log(bar), 0.0)


def best_log_likelihood(y: np.ndarray, n: int, e: Ends) -> np.ndarray:
    """l_y(lam_hat(y)): the log-likelihood at the maximum-likelihood f in [0, 1]."""
    hat = np.clip((y / n - e.b) / e.slope, 0, 1)
    return log_likelihood(y, n, *rates(hat, e))


@lru_cache(maxsize=16)
def count_table(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(counts, ln C(n, count)) for every count an exact sum can visit: n lam (1 - lam) <= V
    puts n lam (or n (1 - lam)) below 2 V, and a window reaches 2 (5 sqrt(V) + 5) + 2 counts
    beyond it at most. Built once per n (read-only, cached)."""
    reach = math.ceil(2 * EXACT_BELOW_VARIANCE + 10 * math.sqrt(EXACT_BELOW_VARIANCE)) + 14
    edge = min(n, reach)
    table = np.unique(np.concatenate([np.arange(edge + 1), np.arange(n - edge, n + 1)]))
    log_choose = gammaln(n + 1) - gammaln(table + 1) - gammaln(n - table + 1)
    table.setflags(write=False)
    log_choose.setflags(write=False)
    return table, log_choose


def best_table(n: int, e: Ends) -> np.ndarray:
    """l_t(lam_hat(t)) for every count t of ``count_table(n)``, one row per category."""
    first = np.unique(e.category, return_index=True)[1]
    per_category = Ends(*(v[first] for v in e))
    table = count_table(n)[0].astype(float)
    return best_log_likelihood(table[None, :], n, per_category)


def gaussian_p_value(f: np.ndarray, n: int, e: Ends, lam: np.ndarray, bar: np.ndarray,
                     observed: np.ndarray) -> np.ndarray:
    """The Gaussian limit: Y ~ N(theta, 1), theta in [0, w]; t(x) = (x - theta)^2 - (x - m(x))^2
    with m(x) = clip(x, 0, w). {t <= s} is [lower, upper]; the p-value is its complement,
    with s = -2 ln R(y) as the statistic."""
    statistic = np.maximum(-2 * observed, 0.0)
    sd = np.sqrt(lam * bar / n)
    theta, width, root = e.slope * f / sd, e.slope / sd, np.sqrt(statistic)
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = np.where(
            theta + root <= width,
            theta + root,
            np.where(width > theta, (statistic / (width - theta) + width + theta) / 2, np.inf),
        )
        lower = np.where(
            theta - root >= 0,
            theta - root,
            np.where(theta > 0, (theta * theta - statistic) / (2 * theta), -np.inf),
        )
    return ndtr(lower - theta) + ndtr(theta - upper)


class Crossings(NamedTuple):
    """Per end of a chunk, where each tabulated count t enters or leaves the set
    {R(Y) <= R(y)} as lam moves (see ``crossings``). ``counts`` and ``best`` are
    ``count_table(n)[0]`` and ``best_table``; ``keys`` holds one row per end, flattened, each
    row shifted by ``SHIFT`` times its number so that the whole array is sorted."""

    counts: np.ndarray
    best: np.ndarray
    keys: np.ndarray


SHIFT: float = 256.0
"""Rows of ``Crossings.keys`` are apart by this; their entries lie in [-64, 64]."""


def crossings(n: int, e: Ends, upward: np.ndarray) -> Crossings:
    """For each end: l_t(lam) - l_t(lam_hat(t)) <= l_y(lam) - l_y(lam_hat(y)) holds, for
    t > y, exactly when logit(lam) <= c_t = (B(t) - B(y)) / (t - y), and, for t < y, exactly
    when logit(lam) >= c_t, with B(t) = l_t(lam_hat(t)). B is convex in t (a maximum of
    functions linear in t), so c_t, the slope of a chord from y, grows with t. An end whose
    trial points lie above lam_hat(y) (``upward``) keeps every t <= y, and the t > y from the
    first with c_t >= logit(lam) on; one below keeps every t >= y and the t < y up to the
    last with c_t <= logit(lam). Its row holds c_t on the side that moves and -64 or 64 on
    the other, so each row is sorted."""
    table = count_table(n)[0].astype(float)
    best = best_table(n, e)
    gap = table[None, :] - e.y
    with np.errstate(divide="ignore", invalid="ignore"):
        chord = np.clip((best[e.category] - e.best) / gap, -63.0, 63.0)
    side = np.where(upward[:, None], gap > 0, gap < 0)
    keys = np.where(side, chord, np.where(upward[:, None], -64.0, 64.0))
    keys = keys + SHIFT * e.row[:, None]
    return Crossings(table, best, keys.ravel())


def binomial_tails(low: np.ndarray, high: np.ndarray, n: int, lam: np.ndarray
                   ) -> np.ndarray:
    """P(Y <= low) + P(Y >= high) for Y ~ Binomial(n, lam), from the regularised incomplete
    beta function (``scipy.special.betainc``, ``betaincc``): exact, no sum over counts."""
    below = np.where(low >= n, 1.0, 0.0)
    inside = (low >= 0) & (low < n)
    lo = np.clip(low, 0, n - 1)
    below = np.where(inside, betaincc(lo + 1, n - lo, lam), below)
    above = np.where(high <= 0, 1.0, 0.0)
    inside = (high >= 1) & (high <= n)
    hi = np.clip(high, 1, n)
    return below + np.where(inside, betainc(hi, n - hi + 1, lam), above)


def in_region(t: np.ndarray, n: int, lam: np.ndarray, bar: np.ndarray, best: np.ndarray,
              observed: np.ndarray) -> np.ndarray:
    """Whether R(t) <= R(y) for counts t (whose B(t) is ``best``), with ties (within 1e-9 of
    the size of ln R(y)) counted as not above."""
    ratio = t * np.log(lam) + (n - t) * np.log(bar) - best
    return ratio <= observed + 1e-9 * (1 + np.abs(observed))


def exact_p_value(n: int, lam: np.ndarray, bar: np.ndarray, observed: np.ndarray,
                  y: np.ndarray, upward: np.ndarray, category: np.ndarray, row: np.ndarray,
                  table: Crossings) -> np.ndarray:
    """P_lam(R(Y) <= R(y)) exactly: 1-D arrays, one entry per trial point (its end's count
    y, direction, category and row). The set is the counts up to y and from some count on
    (upward), or up to some count and from y on: that count is located among the
    ``crossings`` of the end by bisection, checked (and moved by one where rounding
    misplaced it) against the ratios themselves, and the two tails are summed by
    ``binomial_tails``. Counts tied with y count as not above it."""
    counts, width = table.counts, table.counts.size
    logit = np.log(lam) - np.log(bar)
    key = logit + SHIFT * row
    # upward: the first index with c >= logit; downward: the last with c <= logit.
    first = np.searchsorted(table.keys, key, side="left")
    last = np.searchsorted(table.keys, key, side="right") - 1
    index = np.where(upward, first, last) - width * row

    def member(i: np.ndarray) -> np.ndarray:
        j = np.clip(i, 0, width - 1)
        return in_region(counts[j], n, lam, bar, table.best[category, j], observed)

    step = np.where(upward, -1, 1)  # towards y
    nearer, here = index + step, index
    nearer_ok = np.where(upward, counts[np.clip(nearer, 0, width - 1)] > y,
                         counts[np.clip(nearer, 0, width - 1)] < y)
    nearer_ok &= (nearer >= 0) & (nearer < width)
    here_ok = (here >= 0) & (here < width)
    index = np.where(nearer_ok & member(nearer), nearer,
                     np.where(here_ok & ~member(here), here - step, here))
    valid = (index >= 0) & (index < width)
    edge = np.where(valid, counts[np.clip(index, 0, width - 1)],
                    np.where(upward, n + 1.0, -1.0))
    low, high = np.where(upward, y, edge), np.where(upward, edge, y)
    flip = lam > 0.5  # count the other reports, whose rate is the smaller 1 - lam
    return binomial_tails(np.where(flip, n - high, low), np.where(flip, n - low, high), n,
                          np.where(flip, bar, lam))


def p_value(f: np.ndarray, n: int, e: Ends, table: Crossings | None,
            upward: np.ndarray) -> np.ndarray:
    """P_f(R(Y) <= R(y)) at trial points f (ends, points) for the counts of ``e``; ``table``
    is ``crossings`` (None when no point can need an exact sum), ``upward`` (ends,) whether
    the points lie above lam_hat(y)."""
    lam, bar = rates(f, e)
    observed = log_likelihood(e.y, n, lam, bar) - e.best  # ln R(y) <= 0
    p = gaussian_p_value(f, n, e, lam, bar, observed)
    exact = n * lam * bar <= EXACT_BELOW_VARIANCE
    if table is not None and exact.any():
        def per_point(v: np.ndarray) -> np.ndarray:
            return np.broadcast_to(v.reshape(v.shape[0], -1), f.shape)[exact]

        p[exact] = exact_p_value(
            n, lam[exact], bar[exact], observed[exact], per_point(e.y),
            per_point(upward), per_point(e.category), per_point(e.row), table,
        )
    return p


def search_round(inside: np.ndarray, outside: np.ndarray, count: int, n: int, e: Ends,
                 alpha: float, table: Crossings | None) -> tuple[np.ndarray, np.ndarray]:
    """One round for brackets [inside (accepted), outside]: try ``count`` evenly spaced
    points, keep the outermost accepted one and its rejected neighbour as the new bracket."""
    fractions = np.arange(1, count + 1) / (count + 1)
    points = inside[:, None] + (outside - inside)[:, None] * fractions
    accepted = p_value(points, n, e, table, outside > inside) > alpha
    # Outermost accepted point (-1: none, keep the inside end), its rejected neighbour.
    outermost = count - 1 - np.argmax(accepted[:, ::-1], axis=1)
    last = np.where(accepted.any(axis=1), outermost, -1)
    every = np.arange(points.shape[0])
    following = points[every, np.minimum(last + 1, count - 1)]
    new_outside = np.where(last < count - 1, following, outside)
    new_inside = np.where(last >= 0, points[every, np.maximum(last, 0)], inside)
    return new_inside, new_outside


def chunk_intervals(y: np.ndarray, n: int, ends: tuple[np.ndarray, ...], alpha: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Both ends of the interval of each count of ``y`` (1-D, at most ``CHUNK``), whose
    categories have ``ends`` = (a, b, 1 - a, 1 - b).

    Each end lies between the maximum-likelihood f (always accepted: its p-value is 1, or 1/2
    on a boundary) and 0 or 1; each round of ``search_round`` narrows that bracket. With lumpy
    counts the accepted set need not be an interval (the p-value jumps down as a count leaves
    the acceptance region, then creeps up again); the interval is its hull, as Feldman and
    Cousins prescribe, and a dense first round finds accepted pockets down to 1/129 of the
    bracket wide. Only where the exact sum applies somewhere in the bracket (n lam (1 - lam)
    is concave in lam, so both ends tell) can the accepted set be ragged."""
    m = y.size
    a, b, a_bar, b_bar = (np.concatenate([v, v])[:, None] for v in ends)
    category = np.unique(np.stack(ends[:2]), axis=1, return_inverse=True)[1].ravel()
    count = np.concatenate([y, y])[:, None]
    side = Ends(count, a, b, a_bar, b_bar, a - b, count, np.tile(category, 2), np.arange(2 * m))
    side = side._replace(best=best_log_likelihood(count, n, side))
    hat = np.clip((y / n - ends[1]) / (ends[0] - ends[1]), 0, 1)
    inside = np.concatenate([hat, hat])
    outside = np.concatenate([np.zeros(m), np.ones(m)])
    spread = [n * lam * bar for lam, bar in (rates(f[:, None], side) for f in (inside, outside))]
    lumpy = np.minimum(*spread)[:, 0] <= EXACT_BELOW_VARIANCE
    upward = np.arange(2 * m) >= m
    table = crossings(n, side, upward) if lumpy.any() else None
    # The maximum-likelihood f is accepted (p-value 1, or 1/2 on a boundary).
    reached = (inside == outside) | (p_value(outside[:, None], n, side, table, upward)[:, 0]
                                     > alpha)
    for group, points in ((lumpy, SEARCH_ROUNDS[0]), (~lumpy, SEARCH_ROUNDS[1])):
        chosen = np.nonzero(group)[0]
        if chosen.size:
            part = Ends(*(v[chosen] for v in side))
            inside[chosen], outside[chosen] = search_round(
                inside[chosen], outside[chosen], points, n, part, alpha, table
            )
    for points in SEARCH_ROUNDS[1:]:
        inside, outside = search_round(inside, outside, points, n, side, alpha, table)
    bounds = np.where(reached, outside, inside)
    return bounds[:m], bounds[m:]


def intervals(y: np.ndarray, n: int, ends: tuple[np.ndarray, ...], alpha: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """``chunk_intervals`` over chunks of ``CHUNK`` counts (1-D float array y)."""
    if y.size <= CHUNK:
        return chunk_intervals(y, n, ends, alpha)
    parts = [
        chunk_intervals(y[i : i + CHUNK], n, tuple(v[i : i + CHUNK] for v in ends), alpha)
        for i in range(0, y.size, CHUNK)
    ]
    return np.concatenate([low for low, _ in parts]), np.concatenate([high for _, high in parts])
