"""Feldman-Cousins intervals for a share f from its binomial support count (see
``estimation.SupportEstimates.intervals`` for the statistics and docs/ldp.md for the
reasoning).

A count y of n reports supports a category with probability lam = b + (a - b) f, f in [0, 1].
f is accepted when P_f(R(Y) <= R(y)) > alpha, where ln R(y) = l_y(lam) - l_y(lam_hat(y)),
l_y(lam) = y ln lam + (n - y) ln(1 - lam) and lam_hat(y) = clip(y / n, b, a). That p-value is
exact (two binomial tails, from the incomplete beta function) where
n lam (1 - lam) <= ``EXACT_BELOW_VARIANCE`` and taken from the Gaussian limit elsewhere.
The interval is the hull of the accepted f. ``chunk_intervals`` finds each end from the
p-value's breakpoints (where a count leaves the acceptance set, and where the regime
changes) and one root search within a continuous piece, for all ends at once; ``p_value``
evaluates the p-value at any f independently of that (the tests and the benchmark check the
ends with it).

Arrays: one entry per *end* (each count has a lower and an upper end), shaped (ends, 1) so
that trial points, shaped (ends, points), broadcast against them.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from scipy.special import betainc, betaincc, gammaln, ndtr, ndtri

EXACT_BELOW_VARIANCE: float = 100.0
"""The p-value is summed exactly over the binomial at hypothesised support rates lam with
n lam (1 - lam) at most this, and taken from the Gaussian limit above it."""

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


def exact_tails(y: np.ndarray, h: np.ndarray, n: int, lam: np.ndarray, bar: np.ndarray
                ) -> np.ndarray:
    """P(Y <= y) + P(Y >= h) for Y ~ Binomial(n, lam) (``bar`` = 1 - lam), taken from the
    other reports' count where lam > 1/2 so that the rate passed on is the smaller one."""
    flip = lam > 0.5
    return binomial_tails(np.where(flip, n - h, y), np.where(flip, n - y, h), n,
                          np.where(flip, bar, lam))


def piece_p_value(f: np.ndarray, n: int, e: Ends, exact: np.ndarray, h: np.ndarray
                  ) -> np.ndarray:
    """The p-value of one continuous piece at points f (ends, points): the exact
    P(Y <= y) + P(Y >= h) where ``exact`` (ends,), the Gaussian limit elsewhere. Within a
    piece the acceptance set {R(Y) <= R(y)} is fixed ({Y <= y} and {Y >= h}), so this is the
    p-value there and its limits at the piece's ends."""
    lam, bar = rates(f, e)
    observed = log_likelihood(e.y, n, lam, bar) - e.best
    if not exact.any():
        return gaussian_p_value(f, n, e, lam, bar, observed)
    if exact.all():
        return exact_tails(e.y, h[:, None], n, lam, bar)
    p = np.empty(f.shape)
    if (~exact).any():
        g = Ends(*(v[~exact] for v in e))
        p[~exact] = gaussian_p_value(f[~exact], n, g, lam[~exact], bar[~exact],
                                     observed[~exact])
    if exact.any():
        p[exact] = exact_tails(e.y[exact], h[exact][:, None], n, lam[exact], bar[exact])
    return p


ROOT_TOLERANCE: float = 2e-11
"""The root search stops when every bracket is narrower than this in f."""

ROOT_STEPS: int = 60
"""At most this many steps of the root search (a safeguard: it takes about five)."""


def distance(p: np.ndarray, alpha: float) -> np.ndarray:
    """Phi^-1(p / 2) - Phi^-1(alpha / 2): positive where p > alpha, and z_alpha - z for a
    two-sided Gaussian p-value 2 Phi(-z); nearly linear in f, so that Newton and secant
    steps on it converge in a few steps."""
    return ndtri(np.clip(p, 1e-300, 1.0) / 2) - ndtri(alpha / 2)


def piece_slope(f: np.ndarray, n: int, e: Ends, exact: np.ndarray, h: np.ndarray
                ) -> np.ndarray:
    """d/df of the exact pieces' P(Y <= y) + P(Y >= h) at points f (ends, 1):
    (a - b) n (P_{n-1}(h - 1) - P_{n-1}(y)), binomial probabilities of n - 1 reports (NaN
    for the Gaussian pieces)."""
    lam, bar = rates(f, e)

    def probability(k: np.ndarray) -> np.ndarray:
        inside = (k >= 0) & (k <= n - 1)
        k = np.clip(k, 0, n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            log = (gammaln(n) - gammaln(k + 1) - gammaln(n - k)
                   + np.where(k > 0, k * np.log(lam), 0.0)
                   + np.where(k < n - 1, (n - 1 - k) * np.log(bar), 0.0))
        return np.where(inside, np.exp(log), 0.0)

    slope = e.slope * n * (probability(h[:, None] - 1) - probability(e.y))
    return np.where(exact[:, None], slope, np.nan)


def piece_root(low: np.ndarray, high: np.ndarray, n: int, e: Ends, exact: np.ndarray,
               h: np.ndarray, alpha: float) -> np.ndarray:
    """The supremum of the accepted f (p > alpha) in brackets [low, high] (ends,), each
    within one continuous piece (``piece_p_value``) that crosses alpha at most once, from
    above: low where p(low) <= alpha, high where p(high) > alpha, and otherwise the
    crossing, to ``ROOT_TOLERANCE`` (its accepted side).

    All ends at once, one point each per step: Newton steps on ``distance`` (exact pieces:
    ``piece_slope``) or secant steps (Gaussian pieces), kept inside the bracket (a point
    beyond an end is moved to half the tolerance inside it, or to the middle if that
    happened the step before); a step shorter than half the tolerance is lengthened to it,
    so that the bracket closes. The first point is the Gaussian guess: distance falls by about
    (a - b) / sd per unit of f."""
    value = distance(piece_p_value(np.stack([low, high], axis=1), n, e, exact, h), alpha)
    at_low, at_high = ~(value[:, 0] > 0), value[:, 1] > 0
    out = np.where(at_high & ~at_low, high, low)
    # Only the ends still searching go through each step (rows ``rows`` of the arrays).
    rows = np.nonzero(~at_low & ~at_high & (high - low > ROOT_TOLERANCE))[0]
    if rows.size == 0:
        return out
    e, exact, h = Ends(*(v[rows] for v in e)), exact[rows], h[rows]
    low, high, g_low = low[rows], high[rows], value[rows, 0]
    lam, bar = rates(low[:, None], e)
    sd = np.sqrt(np.maximum(lam * bar, 1.0 / n) / n)[:, 0]
    point = low + g_low * sd / e.slope[:, 0]
    before, g_before = low, g_low
    half = ROOT_TOLERANCE / 2
    twice = np.zeros(low.shape, bool)
    for _ in range(ROOT_STEPS):
        # A step beyond the bracket (Newton's tangent lands there when the crossing is
        # within rounding of an end) tries next to that end, or the middle the second time.
        outside = ~((point > low) & (point < high))
        point = np.where(outside, np.where(point >= high, high - half, low + half), point)
        point = np.where(outside & (twice | ~((point > low) & (point < high))),
                         (low + high) / 2, point)
        twice = outside
        p = piece_p_value(point[:, None], n, e, exact, h)
        g = distance(p, alpha)[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.full(g.shape, np.nan)
            if exact.any():
                # d distance / dp = 1 / (2 phi(Phi^-1(p / 2))).
                z = ndtri(np.clip(p[:, 0], 1e-300, 1.0) / 2)
                slope = piece_slope(point[:, None], n, e, exact, h)[:, 0] / (
                    2 * np.exp(-z * z / 2) / math.sqrt(2 * math.pi))
            slope = np.where(np.isfinite(slope), slope, (g - g_before) / (point - before))
            step = -g / slope
        step = np.where(np.abs(step) < half, np.copysign(half, step), step)
        accepted = g > 0
        low, high = np.where(accepted, point, low), np.where(accepted, high, point)
        before, g_before = point, g
        point = np.where(np.isfinite(step), point + step, np.nan)
        live = high - low > ROOT_TOLERANCE
        out[rows] = low
        if not live.all():
            if not live.any():
                break
            rows, e, exact, h = rows[live], Ends(*(v[live] for v in e)), exact[live], h[live]
            low, high, point, before, g_before, twice = (
                v[live] for v in (low, high, point, before, g_before, twice))
    return out


CANDIDATES: int = 3
"""Left limits at jumps computed per end in the first pass of ``jumps`` (from the last
candidate down; each further pass doubles this)."""


WINDOW: int = 100
"""Counts t > y first tabulated per end (``jumps``): usually enough (the jumps of the rest
lie beyond where 2 R(y) <= alpha, or their tails are negligible); the whole table is used
for the ends where they are not."""


class Jumps(NamedTuple):
    """Per end (rows) and count t > y (columns, in ``count_table`` order from the first
    t > y): ``valid`` (t tabulated, its upper tail not negligible), ``chord`` (logit(lam)
    where t leaves the acceptance set), ``where`` (that point in f), ``jump`` (a jump of the
    p-value: within (f_hat, 1) and in the exact regime), ``left`` (the p-value's left limit
    there, where evaluated; 0 elsewhere), ``counts`` (t) and ``first`` (index in the table
    of the first t > y)."""

    valid: np.ndarray
    chord: np.ndarray
    where: np.ndarray
    jump: np.ndarray
    left: np.ndarray
    counts: np.ndarray
    first: np.ndarray


def jumps(n: int, e: Ends, hat: np.ndarray, alpha: float, width: int
          ) -> tuple[Jumps, np.ndarray]:
    """The jumps of the p-value of each (upward) end over ``width`` counts t > y, and per
    end whether that was enough: False when its last tabulated count could still jump
    before 2 R(y) falls to alpha.

    Count t leaves where t ln lam + (n - t) ln(1 - lam) - B(t) exceeds ln R(y) by the tie
    allowance 1e-9 (1 + |ln R(y)|) of ``in_region``: at logit(lam) = c_t plus that
    allowance over t - y. The left limit there is P(Y <= y) + P(Y >= t); it is computed
    only where bounds on it (``chunk_intervals``) exceed alpha, from the last such jump
    down until one is accepted. ``width`` 0: no jumps (none in the exact regime)."""
    table = count_table(n)[0].astype(float)
    size = table.size
    first = np.searchsorted(table, e.y[:, 0], side="right")
    if width == 0:
        empty = np.zeros((e.y.shape[0], 0))
        return Jumps(empty > 0, empty, empty, empty > 0, empty, empty, first), first >= 0
    index = first[:, None] + np.arange(min(width, size))
    valid = index < size
    index = np.minimum(index, size - 1)
    counts = table[index]
    gap = counts - e.y
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        chord = (best_table(n, e)[e.category[:, None], index] - e.best) / gap
        lam = 1 / (1 + np.exp(-chord))
        observed = log_likelihood(e.y, n, lam, 1 - lam) - e.best
        chord = chord + 1e-9 * (1 + np.abs(observed)) / gap
        lam, bar = 1 / (1 + np.exp(-chord)), 1 / (1 + np.exp(chord))
        observed = log_likelihood(e.y, n, lam, bar) - e.best
        where = np.where(lam > 0.5, 1 - (e.a - lam) / e.slope, (lam - e.b) / e.slope)
    # Counts beyond n a + 10 sd + 20 have P(Y >= t) < 1e-20 at every rate up to a: their
    # jumps are invisible, and they count as never in the acceptance set.
    visible = counts <= n * e.a + 10 * np.sqrt(np.maximum(n * e.a * e.a_bar, 1.0)) + 20
    valid &= visible
    chord = np.where(valid, chord, np.inf)
    possible = valid & (observed + math.log(2 * (1 + 1e-6)) > math.log(alpha)) & (where < 1)
    exact = n * lam * bar <= EXACT_BELOW_VARIANCE
    # More counts matter where the last one tabulated could still jump, or where the exact
    # regime above 1/2 lies within reach (2 R(y) > alpha there).
    more = exact[:, -1].copy()
    if n > 4 * EXACT_BELOW_VARIANCE:
        rate = (1 + math.sqrt(1 - 4 * EXACT_BELOW_VARIANCE / n)) / 2
        reach = log_likelihood(e.y, n, np.array(rate), np.array(1 - rate)) - e.best
        more |= (rate < e.a[:, 0]) & (reach[:, 0] + math.log(2 * (1 + 1e-6)) > math.log(alpha))
    enough = ~(possible[:, -1] & more) | (width >= size)
    jump = valid & (where > hat[:, None]) & (where < 1) & exact
    # Bounds on the left limits: each tail is at most its nearest term over one minus the
    # largest ratio of neighbouring terms within it (the ratios are monotone), and at most
    # R(y) (Chernoff).
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        y = e.y
        log_y = (gammaln(n + 1) - gammaln(y + 1) - gammaln(n - y + 1)
                 + log_likelihood(y, n, lam, bar))
        log_t = count_table(n)[1][index] + log_likelihood(counts, n, lam, bar)
        ratio_y = y * bar / ((n - y + 1) * lam)
        ratio_t = (n - counts) * lam / ((counts + 1) * bar)
        chernoff = observed + 1e-6
        lower = np.where(ratio_y < 1, np.minimum(log_y - np.log1p(-ratio_y), chernoff),
                         chernoff)
        upper = np.where(ratio_t < 1, np.minimum(log_t - np.log1p(-ratio_t), chernoff),
                         chernoff)
    bound = np.exp(lower) + np.exp(upper)
    chance = jump & possible & (bound * (1 + 1e-9) > alpha)
    # Only the last accepted jump matters: evaluate the candidates from the last one down,
    # a few at a time, until one is accepted.
    rank = np.cumsum(chance[:, ::-1], axis=1)[:, ::-1]
    left = np.zeros(jump.shape)
    found = np.zeros(y.shape[0], bool)
    top, batch = 0, CANDIDATES
    while True:
        now = chance & ~found[:, None] & (rank > top) & (rank <= top + batch)
        if not now.any():
            break
        top, batch = top + batch, 2 * batch
        rows, cols = np.nonzero(now)
        left[rows, cols] = exact_tails(y[rows, 0], counts[rows, cols], n, lam[rows, cols],
                                       bar[rows, cols])
        found |= (left > alpha).any(axis=1)
    return Jumps(valid, chord, where, jump, left, counts, first), enough


def piece_at(f: np.ndarray, n: int, e: Ends, j: Jumps) -> tuple[np.ndarray, np.ndarray]:
    """Which piece holds the points f (ends,): whether its p-value is exact
    (n lam (1 - lam) <= ``EXACT_BELOW_VARIANCE``) and its h, the first count t > y still
    in the acceptance set (its jump lies beyond logit(lam); n + 1 if none)."""
    lam, bar = rates(f[:, None], e)
    with np.errstate(divide="ignore"):
        logit = np.log(lam) - np.log(bar)
    gone = (j.chord <= logit).sum(axis=1)
    table = count_table(n)[0]
    index = j.first + gone
    h = np.where(index < table.size, table[np.minimum(index, table.size - 1)], n + 1.0)
    return (n * lam * bar <= EXACT_BELOW_VARIANCE)[:, 0], h


def chunk_intervals(y: np.ndarray, n: int, ends: tuple[np.ndarray, ...], alpha: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Both ends of the interval of each count of ``y`` (1-D, at most ``CHUNK``), whose
    categories have ``ends`` = (a, b, 1 - a, 1 - b): the hull of the accepted f, as Feldman
    and Cousins prescribe.

    The lower end of count y is the upper end of count n - y with the rates 1 - lam
    (a' = 1 - b, b' = 1 - a, f' = 1 - f), so every end is searched upwards from the
    maximum-likelihood f_hat (accepted) to 1. Along that way the p-value jumps
    - where a count t > y leaves the acceptance set {R(Y) <= R(y)} (``jumps``), if
      n lam (1 - lam) <= ``EXACT_BELOW_VARIANCE`` there: it falls by P(Y = t);
    - at the two rates where n lam (1 - lam) = ``EXACT_BELOW_VARIANCE`` (exact on one side,
      Gaussian on the other);
    and is continuous in between. On an exact piece (acceptance set {Y <= y} u {Y >= h})
    its derivative in lam is n (P_{n-1}(h - 1) - P_{n-1}(y)) (binomial probabilities of
    n - 1 reports), whose sign changes at most once, from - to +: the p-value falls and then
    rises, so its largest value on the piece is at one of its ends, and it crosses alpha at
    most once (from above) where it is at most alpha at the piece's right end. The Gaussian
    pieces are taken to fall (the benchmark compares with a dense search). Hence, with J the
    last breakpoint whose left limit exceeds alpha (f_hat if none), every f beyond the piece
    that starts at J is rejected, and ``piece_root`` finds the end in that piece (J itself, a
    crossing, or 1). Left limits are computed only where the Chernoff bounds
    P(Y <= y) <= R(y) and P(Y >= h) <= R(h) <= R(y) allow them above alpha."""
    m = y.size
    a = np.concatenate([ends[3], ends[0]])[:, None]
    b = np.concatenate([ends[2], ends[1]])[:, None]
    a_bar = np.concatenate([ends[1], ends[2]])[:, None]
    b_bar = np.concatenate([ends[0], ends[3]])[:, None]
    count = np.concatenate([n - y, y])[:, None]
    category = np.unique(np.hstack([a, b]), axis=0, return_inverse=True)[1].ravel()
    e = Ends(count, a, b, a_bar, b_bar, a - b, count, category, np.arange(2 * m))
    e = e._replace(best=best_log_likelihood(count, n, e))
    bounds = upper_ends(n, e, alpha, WINDOW)
    return 1 - bounds[:m], bounds[m:]


def some(e: Ends, rows: np.ndarray) -> Ends:
    """The ends ``rows`` (a boolean mask) of ``e``, their categories numbered afresh."""
    part = Ends(*(v[rows] for v in e))
    return part._replace(category=np.unique(part.category, return_inverse=True)[1].ravel())


def upper_ends(n: int, e: Ends, alpha: float, width: int) -> np.ndarray:
    """The upper end of the interval of each (upward) end of ``e`` (see
    ``chunk_intervals``), with the jumps of ``width`` counts t > y tabulated, or of all
    counts for the ends where that is not enough."""
    hat = np.clip((e.y[:, 0] / n - e.b[:, 0]) / e.slope[:, 0], 0, 1)
    # n lam (1 - lam) is concave: when it exceeds the limit at both ends of [f_hat, 1], it
    # does in between, and there are no jumps.
    spread = [n * lam * bar for lam, bar in (rates(f[:, None], e) for f in (hat, np.ones(1)))]
    if not (np.minimum(*spread) <= EXACT_BELOW_VARIANCE).any():
        width = 0
    j, enough = jumps(n, e, hat, alpha, width)
    if not enough.all():
        out = np.empty(hat.size)
        out[~enough] = upper_ends(n, some(e, ~enough), alpha, count_table(n)[0].size)
        if enough.any():
            out[enough] = upper_ends(n, some(e, enough), alpha, width)
        return out
    breaks = [np.where(j.jump, j.where, np.inf)]
    last = [np.where(j.left > alpha, j.where, -np.inf).max(axis=1, initial=-np.inf)]
    if n > 4 * EXACT_BELOW_VARIANCE:
        root = math.sqrt(1 - 4 * EXACT_BELOW_VARIANCE / n)
        for rate in ((1 - root) / 2, (1 + root) / 2):
            f = np.where(rate > 0.5, 1 - (e.a[:, 0] - rate) / e.slope[:, 0],
                         (rate - e.b[:, 0]) / e.slope[:, 0])
            inside = (f > hat) & (f < 1)
            if not inside.any():
                continue
            breaks.append(np.where(inside, f, np.inf)[:, None])
            # Its left limit, from the piece below it (exact below 1/2, Gaussian above),
            # where 2 R(y) allows it above alpha (so that the jumps tabulated suffice).
            lam, bar = rates(f[:, None], e)
            bound = log_likelihood(e.y, n, lam, bar)[:, 0] - e.best[:, 0]
            inside &= bound + math.log(2 * (1 + 1e-6)) > math.log(alpha)
            if inside.any():
                f = np.where(inside, f, hat)
                below = piece_p_value(f[:, None], n, e, np.full(hat.size, rate < 0.5),
                                      piece_at(f, n, e, j)[1])[:, 0]
                last.append(np.where(inside & (below > alpha), f, -np.inf))
    start = np.maximum(hat, np.max(np.stack(last), axis=0))
    every = np.hstack(breaks)
    stop = np.minimum(np.where(every > start[:, None], every, np.inf).min(axis=1, initial=1.0),
                      1.0)
    exact, h = piece_at((start + stop) / 2, n, e, j)
    return piece_root(start, stop, n, e, exact, h, alpha)


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
