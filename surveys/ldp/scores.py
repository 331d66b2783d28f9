"""Mean scores of rating scales: the average of points 1..k, overall and within the groups of
a breakdown.

Pure numpy; no Django. Guide: docs/ldp.md, "Rating scales: the mean score".

A rating question is randomized like any one-answer question over its k points (category c
is the score s_c = c + 1). The unbiased shares are linear in the support vectors e of the
reports (``Mechanism.unbiased``: f_c = (mean(e_c) - b_c) / (a_c - b_c)), so the unbiased
mean score s . f is the average of n independent per-report values

    v(e) = u . e - sum_c s_c b_c / (a_c - b_c),   u_c = s_c / (a_c - b_c),

and its variance is Var(u . e) / n, estimated as the variance of u . e under the law of
the reports at shares f: E[u . e] = f . (u^T S) and E[(u . e)^2] = f . q(u, u), with
q(u, u)_i = E[(u . e)^2 | true category i] (``sides.Side.moment``). For one-hot reports
("bit", "index") f is the unbiased f, which sums to 1 and makes these exactly the reports'
own mean and mean of squares (S f = C / n), times n / (n - 1). Unary reports' support counts
do not show which bits came together, so their variance follows from the mechanism's law
(bits independent given the true category) at the maximum-likelihood f: the unbiased f need
not sum to 1, and q(u, u) has a large part common to every category that would swing with
that sum (at epsilon 0.5 the interval then covered 74% with n = 1,000); and mixing the
reports' own mean with moments at another f can give a variance near 0 (91% at n = 100).
The interval is Student's t with n - 1 degrees of freedom around the unbiased mean, clipped
to [1, k]; the headline is the unbiased mean clipped to [1, k].

Within groups (``group_means``), the mean of group g is the ratio of the unbiased estimates
of s . Pi[g] and Pi[g, +], and its variance is the delta method's, as for a share in
``joint_model.JointModel.share_covariance`` with the answer's indicator replaced by the scores.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import t as student_t

from .checks import check_probability, read_only
from .joint import Breakdown
from .joint_fit import unbiased_joint
from .means import GroupMeans, Mean
from .mechanisms import Mechanism
from .pair_counts import PairCounts
from .planning import fewest_respondents, z_value
from .score_intervals import bounded_interval
from .sides import Side
from .words import gettext_noop

MEAN_INTERVAL_METHOD: str = "student-t"
"""Name of the method behind ``Mean.ci_low``/``ci_high``, for the pages."""
MEAN_INTERVAL_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Mean score: the unbiased shares' average of the points 1 to k (clipped to [1, k]); "
    "its 95% interval is Student's t interval from the variance of the per-report values "
    "whose average it is, clipped to [1, k]."
)
GROUP_MEAN_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Mean score within a group: the ratio of the unbiased estimates of the group's total "
    "score and of its size, clipped to [1, k]; its 95% interval is the Wald interval with the "
    "delta method's variance under the fitted joint shares, with Feldman and Cousins' "
    "ordering near the ends of the scale; that of the difference between two groups is "
    "built the same way, around the difference of the ratios, on the range of differences."
)


def scores(k: int) -> np.ndarray:
    """The points of a k-point scale: 1, 2, ..., k."""
    return np.arange(1, k + 1, dtype=float)


def mean_score(
    mechanism: Mechanism, counts: object, n: int, confidence: float = 0.95
) -> Mean:
    """The mean score of the points 1..k of ``mechanism``'s question from its k support counts
    and the number of reports n (see the module docstring)."""
    k = mechanism.k
    c = mechanism.check_counts(counts, n, need_reports=False).astype(float)
    alpha = 1 - check_probability("confidence", confidence)
    if n == 0:
        return Mean(math.nan, 1.0, float(k), math.nan, math.nan)
    f = mechanism.unbiased(c, n)
    side = Side(mechanism)
    u = scores(k) / side.slope
    # The law of the reports weighs their moments: the unbiased shares for one-hot reports
    # (they sum to 1, and give the reports' own moments); for unary ones the maximum-likelihood
    # shares (see the module docstring).
    weights = mechanism.mle(c.astype(np.int64), n) if side.unary else f
    first = float(weights @ (u @ side.S))
    second = float(weights @ side.moment(u[None, :], u[None, :])[0])
    variance = max(second - first**2, 0.0) * (n / (n - 1) if n > 1 else math.inf)
    unbiased = float(scores(k) @ f)
    std_error = math.sqrt(variance / n)
    half = float(student_t.ppf(1 - alpha / 2, n - 1)) * std_error if n > 1 else math.inf
    low, high = (float(np.clip(x, 1, k)) for x in (unbiased - half, unbiased + half))
    return Mean(float(np.clip(unbiased, 1, k)), low, high, unbiased, std_error)


def group_means(found: Breakdown, counts: PairCounts, confidence: float = 0.95) -> GroupMeans:
    """The mean score within each group of a breakdown (``found``, from ``joint.breakdown`` of
    ``counts``) of a rating question (B) by a grouping question (A).

    The estimate is the ratio of unbiased estimates N_g / D_g, N_g = s . Pi_hat[g] and
    D_g = Pi_hat[g, +] (``joint``'s unbiased joint), clipped to [1, k]; NaN where the
    breakdown estimates the group empty or D_g <= 0. Its interval is ``bounded_interval``
    of the ratio before clipping. (The mean of the maximum-likelihood
    shares within the group, which the page charts, is pulled towards the middle of the scale
    when the grouping question is noisy, and its interval then covers more than 95%.)

    Delta method: N_g / D_g moves by about the average of (u_g . e_A)(h_g . e_B) / Pi[g, +],
    with h_g = S_B^-T (s - m_g 1) and m_g the mean under the fitted Pi, so that its mean is 0;
    the covariance of groups g and g' is then
    q_A(u_g, u_g')^T Pi q_B(h_g, h_g') / (Pi[g, +] Pi[g', +] n)."""
    k_a, k_b = found.share.shape
    z = z_value(confidence)
    model = found.model
    if model is None:  # no reports
        unknown = np.full(k_a, np.nan)
        return GroupMeans(
            0, 1.0, float(k_b), read_only(unknown), read_only(np.ones(k_a)),
            read_only(np.full(k_a, k_b)), read_only(unknown), read_only(unknown),
            read_only(np.full((k_a, k_a), np.nan)), z,
        )
    side_a, side_b, pi = model.side_a, model.side_b, model.pi
    unbiased = unbiased_joint(side_a, side_b, counts)
    totals = unbiased.sum(axis=1)
    known = np.isfinite(found.share[:, 0]) & (totals > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(known, unbiased @ scores(k_b) / totals, np.nan)
        fitted_totals = pi.sum(axis=1)
        fitted_means = pi @ scores(k_b) / fitted_totals
        h = scores(k_b) @ side_b.inverse - np.nan_to_num(fitted_means)[:, None] * (
            side_b.inverse.sum(axis=0)
        )
        pairs = np.array([(g, g2) for g in range(k_a) for g2 in range(k_a)])
        q_a = side_a.moment(side_a.inverse[pairs[:, 0]], side_a.inverse[pairs[:, 1]])
        q_b = side_b.moment(h[pairs[:, 0]], h[pairs[:, 1]])
        moments = np.einsum("ri,ij,rj->r", q_a, pi, q_b).reshape(k_a, k_a)
        covariance = moments / np.outer(fitted_totals, fitted_totals)
    std_error = np.where(known, np.sqrt(np.maximum(np.diag(covariance), 0) / found.n), np.nan)
    estimate = np.clip(ratio, 1, k_b)
    low, high = bounded_interval(ratio, std_error, 1.0, float(k_b), z)
    return GroupMeans(
        found.n, 1.0, float(k_b), read_only(estimate), read_only(low), read_only(high),
        read_only(ratio), read_only(std_error), read_only(covariance), z,
    )


def _worst_variance_times_n(mechanism: Mechanism) -> float:
    """Var(v) (n times the variance of the unbiased mean score) in the worst case over the
    true distributions of the k points.

    Var(v) = f . q(u, u) - (f . (u^T S))^2 is alpha E_f[s^2] plus a function of E_f[s] alone,
    with alpha > 0 for GRR, SUE and OUE (u^T S = s + a constant, and q(u, u)_i grows with
    s_i^2), and for a given mean E_f[s^2] is largest with every answer at an end of the
    scale. So the worst case is a mix of points 1 and k, f = (1 - t) e_1 + t e_k, where
    Var(v) is a concave quadratic in t with its maximum at a closed-form t."""
    side = Side(mechanism)
    k = mechanism.k
    u = scores(k) / side.slope
    q = side.moment(u[None, :], u[None, :])[0]
    m = u @ side.S
    q0, q1, m0, m1 = q[0], q[-1], m[0], m[-1]
    t = float(np.clip(((q1 - q0) / (2 * (m1 - m0)) - m0) / (m1 - m0), 0, 1))
    return float(q0 + t * (q1 - q0) - (m0 + t * (m1 - m0)) ** 2)


def mean_margin(mechanism: Mechanism, n: int, confidence: float = 0.95) -> float:
    """Planner: the half-width z sd of the interval for the mean score with n reports, in
    points of the scale, in the worst case over the answers; n = 0 gives infinity."""
    z = z_value(confidence)
    return math.inf if n == 0 else z * math.sqrt(_worst_variance_times_n(mechanism) / n)


def n_for_mean_margin(mechanism: Mechanism, margin: float, confidence: float = 0.95) -> int:
    """Smallest n with ``mean_margin(mechanism, n) <= margin`` (points of the scale, > 0).
    ValueError for a target needing more than ``planning.MAX_PLANNED_RESPONDENTS`` reports."""
    if not (math.isfinite(margin) and margin > 0):
        raise ValueError(f"margin must be a positive number of points, got {margin!r}")
    return fewest_respondents(
        z_value(confidence) ** 2 * _worst_variance_times_n(mechanism) / margin**2,
        margin,
        lambda n: mean_margin(mechanism, n, confidence),
        f"a margin of {margin:g} points on the mean score",
    )
