"""Maximum-likelihood proportions on the simplex (see ``estimation.SupportEstimates.mle``).

Category c is supported by a report with probability lam_c = b_c + s_c f_c (s_c = a_c - b_c),
so the log-likelihood is a sum of concave one-variable terms
h_c(f_c) = C_c ln lam_c + D_c ln(1 - lam_c), maximised under f >= 0, sum f = 1. At the maximum
(KKT) there is one multiplier mu with h_c'(f_c) = mu wherever f_c > 0 and h_c'(0) <= mu where
f_c = 0. Arrays have shape (..., k); the returned proportions sum to 1 along the last axis.
"""

from __future__ import annotations

import numpy as np


def one_choice(c: np.ndarray, b: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """Closed form when each report supports exactly one category (D = 0: "bit", "index").

    h_c'(f) = s_c C_c / lam_c = mu gives f_c = C_c t - beta_c with t = 1 / mu and
    beta_c = b_c / s_c, or 0 where that is negative. The categories kept are those with the
    smallest tau_c = beta_c / C_c (t must exceed it); with A the first j of them in that order,
    sum_A (C_c t - beta_c) = 1 gives t_j = (1 + sum_A beta_c) / sum_A C_c, and the right j
    is the last one with t_j > tau_j (the sum of the clipped terms grows with t). With every
    unbiased estimate non-negative all categories are kept and f is the unbiased estimate;
    for k = 2 it is Warner's estimate clipped to [0, 1].
    """
    counts = c.astype(float)
    beta = np.broadcast_to(b / slope, counts.shape)
    with np.errstate(divide="ignore"):
        tau = np.where(counts > 0, beta / counts, np.inf)
    order = np.argsort(tau, axis=-1, kind="stable")
    sorted_tau = np.take_along_axis(tau, order, axis=-1)
    total_c = np.cumsum(np.take_along_axis(counts, order, axis=-1), axis=-1)
    total_beta = np.cumsum(np.take_along_axis(beta, order, axis=-1), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (1 + total_beta) / total_c
    kept = np.maximum(np.sum(t > sorted_tau, axis=-1, keepdims=True), 1)
    t_star = np.take_along_axis(t, kept - 1, axis=-1)
    f = np.clip(counts * t_star - beta, 0, 1)
    return f / f.sum(axis=-1, keepdims=True)


def _bit_proportions(
    mu: np.ndarray, c: np.ndarray, d: np.ndarray, b: np.ndarray, slope: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """f_c(mu), the maximiser of h_c(f) - mu f on [0, 1], and df_c/dmu (0 where clipped).

    slope (C / lam - D / (1 - lam)) = mu  <=>  m lam^2 - s lam + C = 0 with m = mu / slope,
    s = m + C + D: one root in [0, 1], (s - sqrt(disc)) / (2 m), written without cancellation
    for either sign of s. C = D = 0 (no evidence): f = 0. df/dmu = 1 / h''(f) with
    h''(f) = -slope^2 (C / lam^2 + D / (1 - lam)^2)."""
    m = mu[..., None] / slope
    s = m + c + d
    root = np.sqrt(s * s - 4 * m * c)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(s > 0, 2 * c / (s + root), (s - root) / (2 * m))
        lam = np.where(c + d > 0, lam, 0.0)
        raw = (lam - b) / slope
        curvature = slope * slope * (c / (lam * lam) + d / ((1 - lam) * (1 - lam)))
        step = np.where((raw > 0) & (raw < 1) & (curvature > 0), -1 / curvature, 0.0)
    return np.clip(raw, 0, 1), step


def every_bit(
    c: np.ndarray, d: np.ndarray, a: np.ndarray, b: np.ndarray, a_bar: np.ndarray,
    b_bar: np.ndarray,
) -> np.ndarray:
    """Unary encoding (every bit seen: D = n - C): the root mu of sum_c f_c(mu) = 1.

    sum_c f_c(mu) falls as mu grows; it is 0 at mu = max_c h_c'(0) and k at min_c h_c'(1),
    which bracket the root. Newton steps from mu = 0 (where f is the clipped unbiased
    estimate), each replaced by the bracket's midpoint when it would leave the bracket,
    until the sum is 1 to 4e-15 or the bracket cannot shrink; usually 3 to 6 steps."""
    slope = a - b
    low = np.min(slope * (c / a - d / a_bar), axis=-1).astype(float)
    high = np.max(slope * (c / b - d / b_bar), axis=-1).astype(float)
    mu = np.clip(np.zeros_like(low), low, high)
    for _ in range(200):
        f, step = _bit_proportions(mu, c, d, b, slope)
        excess = f.sum(axis=-1) - 1
        done = (np.abs(excess) <= 4e-15) | (high - low <= 1e-15 * np.maximum(abs(low), abs(high)))
        if np.all(done):
            break
        low = np.where(excess > 0, mu, low)
        high = np.where(excess > 0, high, mu)
        slope_sum = step.sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = mu - excess / slope_sum
        inside = (slope_sum < 0) & (newton > low) & (newton < high)
        mu = np.where(done, mu, np.where(inside, newton, (low + high) / 2))
    f, _ = _bit_proportions(mu, c, d, b, slope)
    return f / f.sum(axis=-1, keepdims=True)
