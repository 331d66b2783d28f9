"""Shares among those asked of a conditional question, from the joint estimation of the
question and the one it depends on.

Pure numpy; no Django. Guide: docs/ldp.md, "Refusals, optional and conditional questions".
Built on ``surveys.ldp.joint`` (its notation: A the condition's question, "the parent", rows;
B the conditional question, "the follow-up", columns).

A follow-up asked only under some answers C of its parent has one more answer, "Not asked"
(its last category), which its respondents' browsers randomize like any other. A respondent
is not asked exactly when their true parent answer is outside C, so the true joint table
has structural zeros:

    Pi[i, j] = 0   for i in C and j = "Not asked", and for i not in C and j != "Not asked".

The follow-up's other extra answer ("No answer", a refusal or a skip) is an ordinary answer
of those asked. ``among_asked`` fits the joint table on the L allowed cells only and gives
the shares of the follow-up's own m answers among those who gave one,

    theta_j = Pi[C, j] / D,   D = Pi[C, 0] + ... + Pi[C, m - 1]

(among those asked when nobody may decline), and for a rating scale the mean score among
them, both ratios (a . pi) / (d . pi) of linear functions of the allowed cells pi.

- Headline: the maximum-likelihood table on the allowed cells (``joint_fit.fit_joint`` with
  ``allowed``: EM keeps the structural zeros at 0), its ratios.
- Intervals: score-Fieller, as ``among`` and ``joint`` build them, on an unbiased estimate
  that uses both questions' reports. With p the table of report pairs over n and M the
  (k_A k_B, L) matrix of the outcome probabilities given each allowed cell (columns of
  S_A (x) S_B), the reports' law is P = M pi. With the weights P fixed at the fitted table,

      pi_lin = A p,   A = (M^T diag(1/P) M)^-1 M^T diag(1/P)

  is unbiased (A M = I), and it is the one Newton step of the likelihood from the fit:
  asymptotically as efficient as the maximum likelihood, but linear in the reports and
  free to leave the simplex, so that, as for the unbiased shares, its errors are centred
  near 0 too. N - t D estimated from it is the mean over respondents of h_t . A[:, r]
  (r: the respondent's pair of reports), h_t = a - t d, whose mean is 0 when the ratio is
  t; Fieller's interval is every t in [0, 1] with

      n (N_lin - t D_lin)^2 <= z^2 V(t),   V(t) = sum_r P_r(t) (h_t . A[:, r])^2,

  the variance at each candidate t: the answered share D and the other cells keep their
  fitted values, answer j's cells hold t D and the other own answers' cells (1 - t) D in
  their fitted proportions (smoothed by 1% towards uniform). P(t) is linear in t and the
  square quadratic, so V is the cubic ``score_intervals.score_interval`` takes. The mean score's
  variance is the plug-in one at the fitted table (quadratic in t), as ``among``'s.
  Intervals are widened to contain the headline; all of [0, 1] where D_lin is not above 0.

Both questions must be one-hot (encodings "bit" and "index"); other encodings keep
``among.among_answered`` on the follow-up's own reports.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .checks import check_probability
from .joint_fit import check_pair_counts, fit_joint
from .mechanisms import Mechanism
from .pair_counts import PairCounts
from .planning import z_value
from .ratios import Among, fieller_ratios, no_reports
from .sides import Side
from .words import gettext_noop

ONE_HOT = ("bit", "index")
"""The encodings both questions need for ``among_asked`` (one category per report)."""

ASKED_METHOD: str = "joint-fieller"
"""Name of the method behind the intervals of shares among those asked, from both questions."""
ASKED_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Shares among those asked (or among those who answered): the joint maximum-likelihood "
    "table of this question and the question it depends on, with “Not asked” exactly when "
    "that question's true answer is not the one it is asked under; the 95% interval is "
    "Fieller's interval for the ratio, from the unbiased estimate that uses both questions' "
    "reports, with the variance taken at each candidate share."
)

_TRIALS = np.array([0.0, 1 / 3, 2 / 3, 1.0])
"""Shares at which the candidate variance is evaluated, to read off its cubic's coefficients."""


def allowed_cells(k_a: int, k_b: int, condition: Iterable[int]) -> np.ndarray:
    """The (k_a, k_b) cells of the joint table that can hold respondents: a parent answer in
    ``condition`` with any answer but the last ("Not asked"), or another parent answer with
    "Not asked"."""
    asked = np.zeros(k_a, dtype=bool)
    asked[list(condition)] = True
    shown = np.arange(k_b) < k_b - 1
    return np.outer(asked, shown) | np.outer(~asked, ~shown)


def _check(parent: Mechanism, child: Mechanism, condition: Iterable[int],
           answers: int) -> list[int]:
    for name, mechanism in (("parent", parent), ("child", child)):
        if mechanism.encoding not in ONE_HOT:
            raise ValueError(f"the {name} question must be one-hot (bit or index encoding), "
                             f"not {mechanism.encoding!r}")
    k_a, k_b = parent.k, child.k
    if not 1 <= answers < k_b:
        raise ValueError(f"answers must be from 1 to k - 1 = {k_b - 1}, got {answers!r}")
    condition = sorted(set(int(i) for i in condition))
    if not condition or condition[0] < 0 or condition[-1] >= k_a or len(condition) == k_a:
        raise ValueError(f"condition must be some but not all of the parent's categories "
                         f"0 to {k_a - 1}, got {condition!r}")
    return condition


def among_asked(
    parent: Mechanism, child: Mechanism, counts: PairCounts, condition: Iterable[int],
    answers: int, scored: bool = False, confidence: float = 0.95,
) -> Among:
    """The shares of the follow-up's first ``answers`` categories among respondents who gave
    one, from the pair counts of its parent (rows) and itself (columns; its last category
    is "Not asked"), asked when the parent's true answer is in ``condition`` (see the module
    docstring); with ``scored``, also their mean score as points 1..answers."""
    condition = _check(parent, child, condition, answers)
    z = z_value(check_probability("confidence", confidence))
    side_a, side_b = Side(parent), Side(child)
    check_pair_counts(side_a, side_b, counts)
    n, k_a, k_b = counts.n, parent.k, child.k
    if n == 0:
        return no_reports(answers, scored)
    allowed = allowed_cells(k_a, k_b, condition)
    cells = np.flatnonzero(allowed.ravel())
    fitted = fit_joint(side_a, side_b, counts, allowed).ravel()[cells]
    matrix = np.kron(side_a.S, side_b.S)[:, cells]  # M: P(report pair | allowed cell)
    law = matrix @ fitted  # P, every entry above 0 (every report pair is possible)
    weighted = matrix / law[:, None]
    linear = np.linalg.solve(matrix.T @ weighted, weighted.T)  # A, (L, k_a k_b)
    unbiased = linear @ (counts.joint.ravel() / n)  # pi_lin

    parents, columns = cells // k_b, cells % k_b
    own = np.isin(parents, condition) & (columns < answers)
    denominator = own.astype(float)
    numerators = (own[None, :] & (columns[None, :] == np.arange(answers)[:, None])).astype(float)
    smoothed = 0.99 * fitted + 0.01 / cells.size
    variance = [_candidate_variance(matrix, linear, smoothed, own, numerators[j])
                for j in range(answers)]
    if scored:
        points = np.where(own, columns / max(answers - 1, 1), 0.0)  # (s_c - 1) / (m - 1)
        numerators = np.vstack([numerators, points])
        variance.append(_plug_in_variance(law, linear, fitted, points, denominator))
    return fieller_ratios(
        numerators, denominator, unbiased, fitted, np.stack(variance), n, z, scored
    )


def _candidate_variance(
    matrix: np.ndarray, linear: np.ndarray, smoothed: np.ndarray, own: np.ndarray,
    numerator: np.ndarray,
) -> np.ndarray:
    """Coefficients of the cubic V(t) = sum_r P_r(t) (h_t . A[:, r])^2, h_t = a - t d, when
    the answer's share among those who answered is t (module docstring): its cells hold
    t D, the other own answers' cells (1 - t) D in their proportions, the rest stays."""
    mine = numerator > 0
    others = own & ~mine
    answered = smoothed[own].sum()
    values = []
    for t in _TRIALS:
        pi = np.where(own, 0.0, smoothed)
        if others.any():
            pi[others] = smoothed[others] * (1 - t) * answered / smoothed[others].sum()
        pi[mine] = smoothed[mine] * t * answered / smoothed[mine].sum()
        per_report = (numerator - t * own) @ linear  # h_t . A[:, r]
        values.append(float((matrix @ pi) @ per_report**2))
    return np.polynomial.polynomial.polyfit(_TRIALS, values, 3)


def _plug_in_variance(
    law: np.ndarray, linear: np.ndarray, fitted: np.ndarray, numerator: np.ndarray,
    denominator: np.ndarray,
) -> np.ndarray:
    """Coefficients of V(t) = V_aa - 2 t V_ad + t^2 V_dd: the variances and covariance of
    a . A[:, r] and d . A[:, r] under the fitted law P (their means are a . pi, d . pi)."""
    u_a, u_d = numerator @ linear, denominator @ linear
    mean_a, mean_d = float(numerator @ fitted), float(denominator @ fitted)

    def covariance(x: np.ndarray, mean_x: float, y: np.ndarray, mean_y: float) -> float:
        return float(law @ (x * y)) - mean_x * mean_y

    return np.array([covariance(u_a, mean_a, u_a, mean_a),
                     -2 * covariance(u_a, mean_a, u_d, mean_d),
                     covariance(u_d, mean_d, u_d, mean_d), 0.0])
