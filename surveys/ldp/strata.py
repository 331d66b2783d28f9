"""Three-way breakdowns: question Q within the groups of question G, within each stratum of a
third question S (e.g. cannabis use by year of study, within each faculty).

Pure numpy + standard library; no Django. Guide: docs/ldp.md, "Three-way breakdowns". Built
on ``surveys.ldp.joint`` (its notation).

The two grouping questions G and S must be one-hot (yes/no or GRR: encodings "bit" and
"index"); Q may be yes/no, GRR or unary. The pair (G, S) is then one one-hot question C whose
categories are the pairs (g, s), numbered g * k_S + s: its report is the pair of the two
reports, and since the two are randomized independently given the true pair, its matrix is
the Kronecker product S_C = S_G (x) S_S. The counts are the pair counts of C and Q
(``triple_counts``: ``joint.PairCounts`` with k_G k_S rows), and the estimates are
``joint``'s breakdown of Q by C (``_breakdown``), read stratum by stratum: row (g, s) is group
g within stratum s. The headline is the maximum-likelihood three-way table, the shares
within (g, s) have score-Fieller intervals, exactly as for a two-way breakdown.

The test within stratum s asks whether Q's shares are the same in every group of G among the
respondents whose *true* S is s (G and Q independent given S = s). With
w = u_s . e_S (u_s: row s of S_S^-1), E[w | true S] = 1 if it is s, else 0, and the three
reports are independent given the truth, so

    E[w e_G e_Q^T] = P(s) E[e_G e_Q^T | S = s],  E[w e_G] = P(s) E[e_G | S = s], ...

and the cross-covariance of G's and Q's reports within the stratum,
C_s = J / N - a b^T / N^2 (J, a, b, N: the means of w e_G e_Q^T, w e_G, w e_Q, w), estimates
a quantity that is 0 under the hypothesis. By the delta method C_s is about the mean of
w (e_G - mu_G)(e_Q - mu_Q)^T / P(s) (mu: the reports' means within the stratum), whose
covariance Sigma, given the truth (g, s', j), factorises:

    n Cov(vec C_s) = sum_{g, s', j} Pi0[g, s', j] q_S(u_s, u_s)_s' A_G(g) (x) A_Q(j) / P(s)^2,
    A(i) = E[(e - mu)(e - mu)^T | i],

with Pi0 the fitted three-way table whose stratum s is replaced by the product of its
margins (the hypothesis; a score-type variance). T = n vec(C_s)^T Sigma^+ vec(C_s) is then
chi-square with rank(Sigma) degrees of freedom: (k_G - 1)(k_Q - 1) for one-hot Q,
(k_G - 1) k_Q for unary Q, as for the two-way test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .association import Association, chi2_sf, pseudo_inverse
from .checks import json_floats, read_only
from .joint import EMPTY_GROUP_SIZE, Breakdown, breakdown, breakdown_of_sides
from .mechanisms import Mechanism
from .pair_counts import PairCounts, checked_reports, checked_weights, count_pairs
from .score_intervals import widen
from .sides import Side
from .words import gettext_noop

ASSOCIATION_DESCRIPTION: str = gettext_noop(
    "Test, within each group of the second grouping question, of whether the answers differ "
    "between the groups of the first: a chi-square test that the reports to the two "
    "questions are unrelated among the respondents whose true answer to the second grouping "
    "question is that group, with the variance the randomization of all three questions "
    "gives."
)

ONE_HOT = ("bit", "index")
"""The encodings a grouping question of a three-way breakdown may have (one category per
report)."""


def _check_groupings(mech_g: Mechanism, mech_s: Mechanism) -> None:
    for name, mech in (("mech_g", mech_g), ("mech_s", mech_s)):
        if mech.encoding not in ONE_HOT:
            raise ValueError(
                f"{name} must report one category (yes/no or GRR), not {mech.encoding!r}"
            )


def _check_question(mech_q: Mechanism) -> None:
    if mech_q.encoding not in (*ONE_HOT, "unary"):
        raise ValueError(f"mech_q must be yes/no, GRR or unary, not {mech_q.encoding!r}")


def triple_counts(
    mech_g: Mechanism,
    mech_s: Mechanism,
    mech_q: Mechanism,
    reports_g: Sequence[Any],
    reports_s: Sequence[Any],
    reports_q: Sequence[Any],
    weights: Sequence[int] | None = None,
) -> PairCounts:
    """The counts of a three-way breakdown: the pair counts of (G, S) taken as one question,
    report g * k_S + s, and Q (``joint.pair_counts``, whose arguments these follow).
    ValueError for malformed reports or weights, or a grouping question that is not
    one-hot."""
    _check_groupings(mech_g, mech_s)
    _check_question(mech_q)
    rg = checked_reports(mech_g, reports_g, "reports_g")
    rs = checked_reports(mech_s, reports_s, "reports_s")
    rq = checked_reports(mech_q, reports_q, "reports_q")
    if not len(rg) == len(rs) == len(rq):
        raise ValueError(f"reports differ in length ({len(rg)}, {len(rs)} and {len(rq)})")
    w = checked_weights(weights, len(rg))
    return count_pairs(rg * mech_s.k + rs, rq, w, mech_g.k * mech_s.k, mech_q.tally_size)


@dataclass(frozen=True, eq=False)
class Stratified:
    """Question Q within the groups of G (rows), within each stratum of S, from
    ``stratified_breakdown``. Arrays are read-only; stratum first:

    - ``stratum_share``, ``stratum_ci_low``/``high`` (S's own Feldman-Cousins intervals),
      ``stratum_size`` = n * share;
    - ``group_share[s, g]``: the share of all respondents in group g and stratum s, with the
      score intervals of that cell of G by S (``group_ci_low``/``high``), ``group_size``;
    - ``share[s, g, j]``: share of answer j within group g of stratum s (NaN where the group
      is estimated empty), with score-Fieller intervals (``share_ci_low``/``high``);
    - ``small_group[s, g]``: as ``joint.Breakdown.small_group``;
    - ``association[s]``: the test within stratum s (``ASSOCIATION_DESCRIPTION``);
      statistic NaN, 0 degrees of freedom and p-value NaN where there is no test (no
      respondents, or a stratum estimated empty);
    - ``combined``: the ``joint.Breakdown`` of Q by the pairs (g, s), row g * k_S + s.
    """

    n: int
    stratum_share: np.ndarray
    stratum_ci_low: np.ndarray
    stratum_ci_high: np.ndarray
    stratum_size: np.ndarray
    group_share: np.ndarray
    group_ci_low: np.ndarray
    group_ci_high: np.ndarray
    group_size: np.ndarray
    share: np.ndarray
    share_ci_low: np.ndarray
    share_ci_high: np.ndarray
    small_group: np.ndarray
    association: tuple[Association, ...]
    combined: Breakdown

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable copy (NaN -> None), without ``combined``."""
        return {
            "n": self.n,
            **{
                name: json_floats(getattr(self, name))
                for name in (
                    "stratum_share", "stratum_ci_low", "stratum_ci_high", "stratum_size",
                    "group_share", "group_ci_low", "group_ci_high", "group_size", "share",
                    "share_ci_low", "share_ci_high",
                )
            },
            "small_group": self.small_group.tolist(),
            "association": [
                {
                    "statistic": json_floats(a.statistic), "df": a.df,
                    "p_value": json_floats(a.p_value),
                }
                for a in self.association
            ],
        }


def stratified_breakdown(
    mech_g: Mechanism,
    mech_s: Mechanism,
    mech_q: Mechanism,
    counts: PairCounts,
    confidence: float = 0.95,
) -> Stratified:
    """Q broken down by G within each stratum of S, from ``triple_counts``: see
    ``Stratified`` and the module docstring. ValueError for counts of the wrong shape or
    inconsistent ones, or a grouping question that is not one-hot."""
    _check_groupings(mech_g, mech_s)
    _check_question(mech_q)
    side_g, side_s, side_q = Side(mech_g), Side(mech_s), Side(mech_q)
    k_g, k_s, k_q = side_g.k, side_s.k, side_q.k
    combined_side = Side(None, np.kron(side_g.S, side_s.S))
    if not isinstance(counts, PairCounts) or counts.joint.shape != (k_g * k_s, k_q):
        raise ValueError(f"counts must be PairCounts of shape ({k_g * k_s}, {k_q})")
    n = counts.n
    # G by S: the pairs' reports are the combined question's support counts.
    table = counts.a.reshape(k_g, k_s)
    g_by_s = PairCounts(n, table, table.sum(axis=1), table.sum(axis=0))

    def group_intervals() -> tuple[np.ndarray, np.ndarray]:
        cells = breakdown(mech_g, mech_s, g_by_s, confidence)
        return cells.joint_ci_low.ravel(), cells.joint_ci_high.ravel()

    found = breakdown_of_sides(combined_side, side_q, counts, confidence, group_intervals)

    def by_stratum(values: np.ndarray) -> np.ndarray:
        """Rows (g, s) as [s, g, ...]."""
        return read_only(np.swapaxes(values.reshape(k_g, k_s, *values.shape[1:]), 0, 1))

    pi = found.joint.reshape(k_g, k_s, k_q)
    stratum_share = pi.sum(axis=(0, 2))
    if n == 0:
        stratum_low, stratum_high = np.zeros(k_s), np.ones(k_s)
    else:
        stratum_low, stratum_high = widen(
            *mech_s.intervals(g_by_s.b, n, confidence), stratum_share
        )
    return Stratified(
        n=n,
        stratum_share=read_only(stratum_share),
        stratum_ci_low=read_only(stratum_low),
        stratum_ci_high=read_only(stratum_high),
        stratum_size=read_only(n * stratum_share),
        group_share=by_stratum(found.group_share),
        group_ci_low=by_stratum(found.group_ci_low),
        group_ci_high=by_stratum(found.group_ci_high),
        group_size=by_stratum(found.group_size),
        share=by_stratum(found.share),
        share_ci_low=by_stratum(found.share_ci_low),
        share_ci_high=by_stratum(found.share_ci_high),
        small_group=by_stratum(found.small_group),
        association=tuple(
            _association_within(side_g, side_s, side_q, counts, pi, s) for s in range(k_s)
        ),
        combined=found,
    )


def _association_within(
    side_g: Side, side_s: Side, side_q: Side, counts: PairCounts, pi: np.ndarray, s: int
) -> Association:
    """The test of "G and Q are independent given S = s" (module docstring), with ``pi`` the
    fitted three-way table [g, s, j]."""
    n = counts.n
    if n == 0:
        return Association(math.nan, 0, math.nan)
    k_g, k_s, k_q = pi.shape
    u = side_s.inverse[s]  # w = u . e_S: E[w | true S] = 1 if it is s, else 0
    joint3 = counts.joint.reshape(k_g, k_s, k_q)
    cross = np.einsum("gtj,t->gj", joint3, u) / n  # mean of w e_G e_Q^T
    a = np.einsum("gt,t->g", counts.a.reshape(k_g, k_s), u) / n  # mean of w e_G
    b = cross.sum(axis=0)  # mean of w e_Q (one-hot G)
    total = a.sum()  # mean of w (one-hot G)
    stratum = pi[:, s, :]
    size = float(stratum.sum())
    if total <= 0 or size * n < EMPTY_GROUP_SIZE:
        return Association(math.nan, 0, math.nan)
    c = (cross / total - np.outer(a, b) / total**2).ravel()
    groups, answers = stratum.sum(axis=1) / size, stratum.sum(axis=0) / size
    null = pi.copy()
    null[:, s, :] = size * np.outer(groups, answers)
    weight = np.einsum("gtj,t->gj", null, side_s.moment(u[None], u[None])[0])
    a_g = side_g.centered_moments(side_g.S @ groups)
    a_q = side_q.centered_moments(side_q.S @ answers)
    sigma = np.einsum("gj,gab,jcd->acbd", weight, a_g, a_q).reshape(k_g * k_q, k_g * k_q)
    inverse, df = pseudo_inverse(sigma / size**2)
    if df == 0:
        return Association(0.0, 0, 1.0)
    statistic = float(n * c @ inverse @ c)
    return Association(statistic, df, chi2_sf(statistic, df))

