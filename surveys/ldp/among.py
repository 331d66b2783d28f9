"""Shares among those who answered: a question's own answers once its extra answers ("No
answer" for a refusal or a skip, "Not asked" for a conditional question not shown) are set
aside.

Pure numpy; no Django. Guide: docs/ldp.md, "Refusals and conditional questions".

A question with extra answers is randomized over all k of them like any other answer, so
that no report tells a refusal, a skip or a hidden question from an answer. Its first m
categories are its own answers, the last k - m the extras. What researchers want is the
share of answer j among those who answered, theta_j = pi_j / D with D = pi_0 + ... +
pi_(m-1), and for a rating scale the mean score among them, mu = sum_(c<m) s_c pi_c / D.

Both are ratios of linear functions of the true shares, N / D = (a . pi) / (d . pi). The
unbiased shares are f_c = (mean(e_c) - b_c) / (a_c - b_c) (``Mechanism.unbiased``,
``scores``), so N - t D estimated from f is the mean over reports of u_t . e (less a
constant), u_t = (a - t d) / (a_c - b_c), whose mean is 0 when the ratio is t. Fieller's
interval is every t in the ratio's range that a test of that mean accepts:

    n (N_hat - t D_hat)^2 <= z^2 Var(u_t . e),

with Var(u_t . e) = V_aa - 2 t V_ad + t^2 V_dd, the reports' variances and covariance of
u_a . e and u_d . e: the reports' own (the unbiased shares as weights, times n / (n - 1))
for one-hot reports, and under the mechanism's law at the maximum-likelihood shares for
unary ones (as ``scores.mean_score``, whose docstring says why). The interval is found by
``score_intervals.score_interval``, on [0, 1] (a mean score is tested on its scale mapped onto
[0, 1]); it is all of [0, 1] when D_hat is not above 0. The headline is the ratio of the
maximum-likelihood shares, and the interval is widened to contain it.
"""

from __future__ import annotations

import numpy as np

from .checks import check_probability
from .mechanisms import Mechanism
from .planning import z_value
from .ratios import Among, fieller_ratios, no_reports
from .sides import Side
from .words import gettext_noop

AMONG_METHOD: str = "fieller"
"""Name of the method behind the intervals of shares among those who answered."""
AMONG_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Shares among those who answered (or were asked): each answer's maximum-likelihood share "
    "divided by the answered share; the 95% interval is Fieller's interval for the ratio of "
    "the unbiased estimates, with the variance taken at each candidate share (for a mean "
    "score, the reports' own variance)."
)


_TRIALS = np.array([0.0, 1 / 3, 2 / 3, 1.0])
"""Shares at which ``_candidate_variance`` evaluates its cubic, to read off its coefficients."""


def _candidate_variance(
    side: Side, fitted: np.ndarray, own: np.ndarray, j: int, u_j: np.ndarray, u_d: np.ndarray
) -> np.ndarray:
    """Coefficients of the cubic V(t) = Var(u_t . e) when answer j's share among those who
    answered is t, the answered share and the extras keep their fitted values and the other
    answers their fitted proportions (the score test's variance, which makes the interval
    Wilson's when nothing is randomized): pi(t) is linear in t and E[(u_t . e)^2 | i]
    quadratic, and E[u_t . e] = 0 under pi(t). The fitted shares are smoothed by 1% towards
    uniform so that every answer has some share to scale."""
    base = 0.99 * fitted + 0.01 / side.k
    answered = base[own].sum()
    others = np.where(own & (np.arange(side.k) != j), base, 0.0)
    values = []
    for t in _TRIALS:
        pi = np.where(own, 0.0, base) + others * (1 - t) * answered / others.sum()
        pi[j] = t * answered
        u_t = u_j - t * u_d
        values.append(float(side.moment(u_t[None, :], u_t[None, :])[0] @ pi))
    return np.polynomial.polynomial.polyfit(_TRIALS, values, 3)


def _plug_in_variance(
    side: Side, weights: np.ndarray, scale: float, u_a: np.ndarray, u_d: np.ndarray
) -> np.ndarray:
    """Coefficients of V(t) = V_aa - 2 t V_ad + t^2 V_dd, the variances and covariance of
    u_a . e and u_d . e under ``weights`` (times ``scale``; see the module docstring)."""

    def covariance(x: np.ndarray, y: np.ndarray) -> float:
        mean_x, mean_y = (x @ side.S) @ weights, (y @ side.S) @ weights
        return float(side.moment(x[None, :], y[None, :])[0] @ weights - mean_x * mean_y) * scale

    return np.array([covariance(u_a, u_a), -2 * covariance(u_a, u_d), covariance(u_d, u_d), 0.0])


def among_answered(
    mechanism: Mechanism, counts: object, n: int, answers: int, scored: bool = False,
    confidence: float = 0.95,
) -> Among:
    """The shares of the first ``answers`` categories among respondents whose true answer is
    one of them, from the mechanism's k support counts and n reports (see the module
    docstring); with ``scored``, also the mean score of those answers as points 1..answers."""
    k = mechanism.k
    if not 1 <= answers < k:
        raise ValueError(f"answers must be from 1 to k - 1 = {k - 1}, got {answers!r}")
    c = mechanism.check_counts(counts, n, need_reports=False).astype(float)
    z = z_value(check_probability("confidence", confidence))
    own = np.arange(k) < answers
    if n == 0:
        return no_reports(answers, scored)
    side = Side(mechanism)
    f = mechanism.unbiased(c, n)
    mle = mechanism.mle(c.astype(np.int64), n)
    # One-hot reports: the unbiased shares weigh their own moments; unary: the fitted law.
    weights, scale = (mle, 1.0) if side.unary else (f, n / (n - 1) if n > 1 else np.inf)
    denominator = own.astype(float)
    numerators = np.eye(k)[:answers]
    if scored:
        points = np.where(own, np.arange(k) / (answers - 1), 0.0)  # (s_c - 1) / (m - 1)
        numerators = np.vstack([numerators, points])
    u_a, u_d = numerators / side.slope, denominator / side.slope
    variance = np.stack([
        _candidate_variance(side, mle, own, j, u_a[j], u_d) for j in range(answers)
    ] + ([_plug_in_variance(side, weights, scale, u_a[-1], u_d)] if scored else []))
    return fieller_ratios(numerators, denominator, f, mle, variance, n, z, scored)

