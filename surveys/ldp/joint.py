"""Breakdowns: what randomized reports to two questions say about how their answers go together.

Pure numpy + standard library; no Django. Guide: docs/ldp.md, "Breakdowns".

Question A (rows) gives the groups, question B (columns) the answers broken down; the
notation and the moment formula behind every variance are in ``sides``, the counts in
``pair_counts`` (``PairCounts``, ``pair_counts``: re-exported here, where the pages find
them).

What ``breakdown`` reports (formulas, the alternatives measured and the figures in
docs/ldp.md, "Breakdowns"; bench/bench_joint.py measures them):

- headline joint: maximum likelihood on the simplex (``joint_fit.fit_joint``). Shares within
  groups are its rows, normalised.
- cells: score (Wilson-type) intervals around Pi_hat, the variance taken at each candidate
  value (``score_intervals.score_interval``, ``joint_model.JointModel.cell_variance``).
- shares within groups, theta = Pi[g, j] / Pi[g, +]: Fieller's interval for the ratio of the
  unbiased cell to the unbiased group total, again with the variance at each candidate
  share (``JointModel.share_variance``).
- groups: question A's own Feldman-Cousins intervals (``Mechanism.intervals``).
- differences between two groups: MOVER (Zou & Donner 2008) from the two share intervals
  and their delta-method correlation (``JointModel.share_covariance``), the wider side's
  spread where a share's interval stops at 0 or 1 (``mover``).
- association: Pearson's chi-square test generalised to support vectors
  (``association.association_test``).

Every interval is widened where needed to contain its headline estimate.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .association import Association, association_test
from .checks import check_n, is_integer, is_real, json_floats, read_only
from .joint_fit import check_pair_counts, fit_joint, unbiased_joint
from .joint_model import JointModel
from .mechanisms import Mechanism
from .pair_counts import PairCounts, pair_counts
from .planning import fewest_respondents, z_value
from .score_intervals import score_interval, widen
from .sides import Side
from .words import gettext_noop

# The breakdowns' public names, with the counts they start from (``PairCounts``,
# ``pair_counts``) and the test they report (``Association``) where the pages look for them.
__all__ = [
    "ASSOCIATION_DESCRIPTION", "DIFFERENCE_INTERVAL_DESCRIPTION", "EMPTY_GROUP_SIZE",
    "JOINT_DESCRIPTION", "SHARE_INTERVAL_DESCRIPTION", "SMALL_GROUP_RATIO", "Association",
    "Breakdown", "Difference", "PairCounts", "breakdown", "breakdown_of_sides",
    "margin_within_group", "mover", "n_for_margin_within_group", "pair_counts",
]

JOINT_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Maximum-likelihood joint shares under the exact randomization probabilities of both "
    "questions (for unary-encoded questions, the composite likelihood of their bits), "
    "non-negative and summing to 1; each cell's 95% interval is the score (Wilson-type) "
    "interval around the unbiased estimate, with the variance the randomization gives at "
    "each candidate value."
)
SHARE_INTERVAL_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Share of each answer within a group: the group's row of the joint shares, normalised; "
    "its 95% interval is Fieller's interval for the ratio of the unbiased joint share to the "
    "unbiased group share, with the variance taken at each candidate share (a score test), "
    "within [0, 1]; it is all of [0, 1] when the group is not significantly non-empty."
)
DIFFERENCE_INTERVAL_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Difference between two groups' shares of an answer: the difference of the headline "
    "shares, with the MOVER 95% interval (Zou & Donner) built from the two groups' share "
    "intervals and the delta-method correlation of the two estimates. Where a share's "
    "interval stops at 0 or 1, its spread on that side is taken as the wider of its two "
    "sides. The interval never goes beyond the difference of the intervals' ends, and is "
    "that difference where one group's share is entirely unknown."
)
ASSOCIATION_DESCRIPTION: str = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Test of independence of the two questions: the true answers are independent exactly "
    "when the reports are, so this is Pearson's chi-square test of the table of reports (for "
    "unary-encoded questions, its generalisation to their bits with the model-based "
    "covariance of the bits), with (rank A) x (rank B) degrees of freedom."
)

SMALL_GROUP_RATIO: float = 2.0
"""``small_group`` flags a group whose unbiased total D = Pi_hat[g, +] is below
SMALL_GROUP_RATIO * z standard errors (z = 1.96 at 95%): the size of the group, by which
every share in it is divided, is then known to within +-50% at best, and its shares'
intervals are wide and lopsided. Below about z standard errors the group is not
significantly non-empty and they are mostly all of [0, 1] (Fieller's interval with the
variance at its estimate would be unbounded exactly there)."""

EMPTY_GROUP_SIZE: float = 0.5
"""A group whose fitted size n * group_share is below this (half a respondent) counts as
estimated empty: the shares of the answers within it are NaN."""


def mover(
    estimate_1: np.ndarray, low_1: np.ndarray, high_1: np.ndarray,
    estimate_2: np.ndarray, low_2: np.ndarray, high_2: np.ndarray, correlation: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """MOVER interval for theta_1 - theta_2 (Zou & Donner 2008, with correlation r):
    d -+ sqrt(l_1'^2 + u_2'^2 - 2 r l_1' u_2') with l_1' = theta_1 - low_1, u_2' = high_2 -
    theta_2 below (and the mirror image above), within the difference of the ends
    [low_1 - high_2, high_1 - low_2].

    An end at 0 or 1 is where the shares stop, not where the reports stop: the room between
    it and the estimate can be far less than the estimate's spread that way (an estimate
    just above 0 whose interval reaches far above it). There the spread on that side is
    taken as the larger of the two sides'. Where either share is unknown (its interval all
    of [0, 1]) the other's interval is all there is: the interval is the difference of the
    ends (docs/ldp.md, "Differences between groups: MOVER")."""

    def spreads(
        estimate: np.ndarray, low: np.ndarray, high: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        down, up = estimate - low, high - estimate
        return (np.where(low <= 0, np.maximum(down, up), down),
                np.where(high >= 1, np.maximum(down, up), up))

    d = estimate_1 - estimate_2
    down_1, up_1 = spreads(estimate_1, low_1, high_1)
    down_2, up_2 = spreads(estimate_2, low_2, high_2)
    below = np.sqrt(np.maximum(down_1**2 + up_2**2 - 2 * correlation * down_1 * up_2, 0.0))
    above = np.sqrt(np.maximum(up_1**2 + down_2**2 - 2 * correlation * up_1 * down_2, 0.0))
    ends_low, ends_high = low_1 - high_2, high_1 - low_2
    unknown = ((low_1 <= 0) & (high_1 >= 1)) | ((low_2 <= 0) & (high_2 >= 1))
    return (np.clip(np.where(unknown, ends_low, np.maximum(d - below, ends_low)), -1, 1),
            np.clip(np.where(unknown, ends_high, np.minimum(d + above, ends_high)), -1, 1))


@dataclass(frozen=True, eq=False)
class Difference:
    """Share of each answer of B in group ``group_1`` minus that in ``group_2``, with
    intervals (``DIFFERENCE_INTERVAL_DESCRIPTION``). NaN where either group is estimated
    empty (its interval is then the difference of the two share intervals' ends)."""

    group_1: int
    group_2: int
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        return {
            "group_1": self.group_1,
            "group_2": self.group_2,
            "estimate": json_floats(self.estimate),
            "ci_low": json_floats(self.ci_low),
            "ci_high": json_floats(self.ci_high),
        }


@dataclass(frozen=True, eq=False)
class Breakdown:
    """Question B broken down by the groups of question A (rows), from ``breakdown``.

    - ``group_share`` (row totals of ``joint``), ``group_ci_low``/``high`` (A's own
      Feldman-Cousins intervals, ``Mechanism.intervals``), ``group_size`` = n * share;
    - ``joint`` (headline, on the simplex) and its cell intervals (``JOINT_DESCRIPTION``);
    - ``share[g, j]``: share of answer j within group g, rows summing to 1 (NaN where the
      group is estimated empty), with intervals (``SHARE_INTERVAL_DESCRIPTION``);
    - ``small_group``: the group is below ``SMALL_GROUP_RATIO`` z standard errors of zero, so
      its shares' intervals are wide or [0, 1];
    - ``association`` (``ASSOCIATION_DESCRIPTION``); ``difference(g1, g2)`` compares groups.

    n = 0: every estimate NaN, every interval [0, 1], every group small, association
    (NaN, 0, NaN). Arrays are read-only.
    """

    n: int
    group_share: np.ndarray
    group_ci_low: np.ndarray
    group_ci_high: np.ndarray
    group_size: np.ndarray
    joint: np.ndarray
    joint_ci_low: np.ndarray
    joint_ci_high: np.ndarray
    share: np.ndarray
    share_ci_low: np.ndarray
    share_ci_high: np.ndarray
    small_group: np.ndarray
    association: Association
    model: JointModel | None = field(default=None, repr=False)
    """The variances behind the intervals (None without reports): ``difference`` and
    ``scores.group_means`` use them."""

    def difference(self, group_1: int, group_2: int) -> Difference:
        """Share of each answer in ``group_1`` minus in ``group_2``, with MOVER intervals."""
        k_a = self.group_share.size
        for g in (group_1, group_2):
            if not (is_integer(g) and 0 <= g < k_a):
                raise ValueError(f"groups must be whole numbers from 0 to {k_a - 1}, got {g!r}")
        g1, g2 = int(group_1), int(group_2)
        estimate = self.share[g1] - self.share[g2]
        low = np.clip(self.share_ci_low[g1] - self.share_ci_high[g2], -1, 1)
        high = np.clip(self.share_ci_high[g1] - self.share_ci_low[g2], -1, 1)
        model = self.model
        if model is not None and g1 != g2 and np.all(np.isfinite(estimate)):
            v_11, v_22, v_12 = model.share_covariance(g1, g2)
            with np.errstate(divide="ignore", invalid="ignore"):
                correlation = np.nan_to_num(np.clip(v_12 / np.sqrt(v_11 * v_22), -1, 1))
            mover_low, mover_high = mover(
                self.share[g1], self.share_ci_low[g1], self.share_ci_high[g1],
                self.share[g2], self.share_ci_low[g2], self.share_ci_high[g2], correlation,
            )
            low, high = np.minimum(mover_low, estimate), np.maximum(mover_high, estimate)
        elif g1 == g2:
            low = high = np.where(np.isfinite(estimate), 0.0, np.nan)
        return Difference(g1, g2, read_only(estimate), read_only(low), read_only(high))

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable copy (NaN -> None)."""
        return {
            "n": self.n,
            **{
                name: json_floats(getattr(self, name))
                for name in (
                    "group_share", "group_ci_low", "group_ci_high", "group_size", "joint",
                    "joint_ci_low", "joint_ci_high", "share", "share_ci_low", "share_ci_high",
                )
            },
            "small_group": [bool(x) for x in self.small_group],
            "association": {
                "statistic": json_floats(self.association.statistic),
                "df": self.association.df,
                "p_value": json_floats(self.association.p_value),
            },
        }


def breakdown(
    mech_a: Mechanism, mech_b: Mechanism, counts: PairCounts, confidence: float = 0.95
) -> Breakdown:
    """Question B (``mech_b``, columns) broken down by the groups of question A (``mech_a``,
    rows) from their pair counts: see ``Breakdown`` and the module docstring."""
    side_a, side_b = Side(mech_a), Side(mech_b)
    return breakdown_of_sides(
        side_a, side_b, counts, confidence, lambda: mech_a.intervals(counts.a, counts.n, confidence)
    )


def breakdown_of_sides(
    side_a: Side,
    side_b: Side,
    counts: PairCounts,
    confidence: float,
    group_intervals: Callable[[], tuple[np.ndarray, np.ndarray]],
) -> Breakdown:
    """``breakdown`` of two sides; ``group_intervals()`` gives the groups' shares' intervals
    (asked for only when there are respondents). ``strata`` breaks a question down by two
    grouping questions taken as one side this way."""
    check_pair_counts(side_a, side_b, counts)
    z = z_value(confidence)
    n, k_a, k_b = counts.n, side_a.k, side_b.k
    if n == 0:
        unknown_a, unknown = np.full(k_a, np.nan), np.full((k_a, k_b), np.nan)
        zeros, ones = np.zeros((k_a, k_b)), np.ones((k_a, k_b))
        return Breakdown(
            0, *map(read_only, (unknown_a, zeros[:, 0], ones[:, 0], unknown_a)),
            *map(read_only, (unknown, zeros, ones, unknown, zeros, ones)),
            read_only(np.ones(k_a, dtype=bool)), association_test(side_a, side_b, counts),
        )
    pi = fit_joint(side_a, side_b, counts)
    unbiased = unbiased_joint(side_a, side_b, counts)
    model = JointModel(side_a, side_b, pi)

    # Cells: score intervals from the unbiased estimate, widened to contain the headline.
    low, high = score_interval(unbiased, np.ones_like(pi), model.cell_variance(), n, z)
    joint_low, joint_high = widen(low, high, pi)

    # Shares within groups: the fitted rows, normalised; score-Fieller intervals for N / D.
    rows = pi.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n * rows[:, None] >= EMPTY_GROUP_SIZE, pi / rows[:, None], np.nan)
    totals = unbiased.sum(axis=1)
    low, high = score_interval(
        unbiased, np.repeat(totals[:, None], k_b, axis=1), model.share_variance(), n, z
    )
    share_low, share_high = widen(low, high, share)
    share_low, share_high = np.nan_to_num(share_low, nan=0.0), np.nan_to_num(share_high, nan=1.0)
    small = totals < SMALL_GROUP_RATIO * z * np.sqrt(np.maximum(model.total_variance(), 0) / n)

    # Group shares: their own intervals (A's, from its support counts), widened to contain
    # the rows.
    group_low, group_high = widen(*group_intervals(), rows)
    return Breakdown(
        n=n,
        group_share=read_only(rows),
        group_ci_low=read_only(group_low),
        group_ci_high=read_only(group_high),
        group_size=read_only(n * rows),
        joint=read_only(pi),
        joint_ci_low=read_only(joint_low),
        joint_ci_high=read_only(joint_high),
        share=read_only(share),
        share_ci_low=read_only(share_low),
        share_ci_high=read_only(share_high),
        small_group=read_only(small),
        association=association_test(side_a, side_b, counts),
        model=model,
    )




# Planning ---------------------------------------------------------------------------------------


_PLANNING_SHARES = np.linspace(0, 1, 201)
"""Answer shares over which ``answer_share=None`` takes the worst case."""


def _share_variance_times_n(
    mech_a: Mechanism, mech_b: Mechanism, group_share: float, answer_share: float | None
) -> float:
    """n Var of the share of an answer within a group (the delta-method variance of
    ``JointModel.share_covariance``) when the group holds ``group_share`` of the respondents, the
    other groups share the rest evenly, and in every group the answer has ``answer_share``
    (None: the worst over [0, 1]) and the other answers share the rest evenly. Worst over the
    group and the answer among categories 0 and 1, which covers every case: mechanisms with
    k >= 3 treat all categories alike. O(k^2) per answer share."""
    if not (is_real(group_share) and 0 < group_share <= 1):
        raise ValueError(f"group_share must be a number in (0, 1], got {group_share!r}")
    if answer_share is None:
        thetas = _PLANNING_SHARES
    elif is_real(answer_share) and 0 <= answer_share <= 1:
        thetas = np.array([float(answer_share)])
    else:
        raise ValueError(
            f"answer_share must be a number from 0 to 1 (or None), got {answer_share!r}"
        )
    side_a, side_b = Side(mech_a), Side(mech_b)
    k_a, k_b = side_a.k, side_b.k
    w_bar = side_b.inverse.sum(axis=0)
    worst = 0.0
    for g in range(2):
        groups = np.full(k_a, (1 - group_share) / (k_a - 1))
        groups[g] = group_share
        u = side_a.inverse[[g]]
        left = float(side_a.moment(u, u)[0] @ groups)  # q_A(u_g, u_g)^T (row totals of Pi)
        for j in range(2):
            # Every group's answers: theta on answer j, the rest evenly (one row per theta).
            answers = np.repeat(((1 - thetas) / (k_b - 1))[:, None], k_b, axis=1)
            answers[:, j] = thetas
            h = side_b.inverse[j] - thetas[:, None] * w_bar
            right = np.sum(answers * side_b.moment(h, h), axis=1)
            worst = max(worst, float(np.max(left * right)) / group_share**2)
    return worst


def margin_within_group(
    mech_a: Mechanism,
    mech_b: Mechanism,
    n: int,
    group_share: float,
    answer_share: float | None = None,
    confidence: float = 0.95,
) -> float:
    """Planner: half-width z * sd of the interval for the share of an answer of B within a
    group of A that holds ``group_share`` of the n respondents (delta method; see
    ``_share_variance_times_n`` for the assumed population). ``answer_share`` is the
    expected share of the answer within the group; None takes the worst case. n = 0 gives
    infinity."""
    variance_times_n = _share_variance_times_n(mech_a, mech_b, group_share, answer_share)
    n = check_n(n)
    z = z_value(confidence)
    return math.inf if n == 0 else z * math.sqrt(variance_times_n / n)


def n_for_margin_within_group(
    mech_a: Mechanism,
    mech_b: Mechanism,
    margin: float,
    group_share: float,
    answer_share: float | None = None,
    confidence: float = 0.95,
) -> int:
    """Smallest n with ``margin_within_group(...) <= margin``. ValueError for a margin outside
    (0, 1) or a target needing more than ``planning.MAX_PLANNED_RESPONDENTS`` respondents."""
    if not (is_real(margin) and math.isfinite(margin) and 0 < margin < 1):
        raise ValueError(f"margin must be a number strictly between 0 and 1, got {margin!r}")
    variance = _share_variance_times_n(mech_a, mech_b, group_share, answer_share)
    return fewest_respondents(
        z_value(confidence) ** 2 * variance / margin**2,
        margin,
        lambda n: margin_within_group(mech_a, mech_b, n, group_share, answer_share, confidence),
        f"a margin of {margin:g} within a group of {group_share:.3g} of the respondents at "
        f"{confidence:.0%} confidence",
        "raise epsilon, plan for a larger group or accept a wider margin",
    )
