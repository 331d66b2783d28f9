"""Breakdowns: what randomized reports to two questions say about how their answers go together.

Pure numpy + standard library; no Django. Guide: docs/ldp.md, "Breakdowns".

Notation. The same n respondents answer question A (the grouping question: rows, k_a
categories, "groups") and question B (the question broken down: columns, k_b categories,
"answers"). Pi[i, j] is the true share of respondents whose answers are (i, j). Each answer is
randomized by its question's mechanism (``surveys.ldp``), independently given the true pair.
e_A, e_B are the 0/1 support vectors of one respondent's two reports (a "bit"/"index" report
supports the one category it names, a "unary" report the categories of its 1-bits) and
S_A, S_B the mechanisms' matrices, S[c, i] = P(report supports c | true category i).

Counts (``PairCounts``): joint = sum e_A e_B^T, a = sum e_A, b = sum e_B and n. Because the
two reports are independent given the truth, E[joint] = n S_A Pi S_B^T, so

    Pi_hat = S_A^-1 (joint / n) S_B^-T                                     (unbiased)

Every figure below is a mean over respondents of (u . e_A)(w . e_B) for some vectors u, w,
or a sum of such: row i of S_A^-1 and row j of S_B^-1 give the cell Pi_hat[i, j]. Their
variances follow from one fact: given the true category i,

    E[(u . e)(u' . e) | i] = q(u, u')_i = c (u^T S)_i (u'^T S)_i + ((u * u')^T (S - c S*S))_i

(* is elementwise; c = 0 for one-hot reports, whose E[e e^T | i] = diag(S[:, i]); c = 1 for
unary reports, whose bits are independent: E[e e^T | i] = s s^T + diag(s - s*s)). Since the
two reports are independent given the true pair,

    E[(u.e_A)(w.e_B)(u'.e_A)(w'.e_B)] = q_A(u, u')^T Pi q_B(w, w'),

so any variance or covariance costs a few k x k matrix products (``_Side.moment``), with the
fitted Pi plugged in; respondents are taken to be a random sample of the population.

What ``breakdown`` reports (formulas, the alternatives measured and the figures in
docs/ldp.md, "Breakdowns"; bench/bench_joint.py measures them):

- headline joint: maximum likelihood on the simplex (``_fit``): the multinomial likelihood of
  the table of report pairs for one-hot x one-hot; for pairs involving a unary question the
  composite likelihood of its bits, as ``ldp.Mechanism.mle`` does for one question. EM with
  SQUAREM acceleration. Shares within groups are its rows, normalised.
- cells: score (Wilson-type) intervals around Pi_hat, the variance taken at each candidate
  value (``_score_interval``, ``_Model.cell_variance``).
- shares within groups, theta = Pi[g, j] / Pi[g, +]: Fieller's interval for the ratio of the
  unbiased cell to the unbiased group total, again with the variance at each candidate
  share (``_Model.share_variance``).
- groups: question A's own Feldman-Cousins intervals (``ldp.Mechanism.intervals``).
- differences between two groups: MOVER (Zou & Donner 2008) from the two share intervals
  and their delta-method correlation (``_Model.share_covariance``), the wider side's
  spread where a share's interval stops at 0 or 1 (``_mover``).
- association: Pearson's chi-square test generalised to support vectors (``_association``).

Every interval is widened where needed to contain its headline estimate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import gammaincc

from . import bounded
from . import mechanisms as ldp
from ._checks import check_n, is_integer, is_real, read_only
from ._words import gettext_noop

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

FIT_TOLERANCE: float = 0.01
"""EM stops once the log-likelihood is provably within this of its maximum (see ``_fit``)."""

FIT_MAX_ROUNDS: int = 2000
"""Most SQUAREM rounds (three EM steps each) of ``_fit``."""


# Counts ----------------------------------------------------------------------------------------


def _int_array(name: str, value: Any, ndim: int) -> np.ndarray:
    """``value`` as an int64 array of ``ndim`` dimensions with no negative entry."""
    try:
        array = np.asarray(value)
    except ValueError as error:  # ragged nested lists
        raise ValueError(f"{name} must be a {ndim}-D array of whole numbers") from error
    if array.size == 0 and array.ndim == ndim:
        return array.astype(np.int64)
    if array.ndim != ndim or array.dtype.kind not in "iu":
        raise ValueError(f"{name} must be a {ndim}-D array of whole numbers")
    if np.any(array < 0):
        raise ValueError(f"{name} must not be negative")
    return array.astype(np.int64)


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Sufficient statistics of n pairs of reports (rows: question A, columns: question B).

    ``joint[i, j]``: reports whose A report supports i and whose B report supports j;
    ``a[i]``, ``b[j]``: reports supporting i (of A), j (of B). Arrays are read-only int64;
    ``==`` compares the numbers."""

    n: int
    joint: np.ndarray
    a: np.ndarray
    b: np.ndarray

    def __post_init__(self) -> None:
        if not (is_integer(self.n) and self.n >= 0):
            raise ValueError(f"n must be a whole number >= 0, got {self.n!r}")
        for name in ("joint", "a", "b"):
            array = np.array(getattr(self, name))
            if array.size and (array.dtype.kind not in "iu" or np.any(array < 0)):
                raise ValueError(f"{name} must hold whole numbers >= 0")
            array = array.astype(np.int64)
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        object.__setattr__(self, "n", int(self.n))
        if self.joint.ndim != 2 or self.joint.shape != (self.a.size, self.b.size):
            raise ValueError(
                f"joint must have shape (len(a), len(b)) = ({self.a.size}, {self.b.size}), "
                f"got {self.joint.shape}"
            )

    @classmethod
    def zero(cls, k_a: int, k_b: int) -> PairCounts:
        """No reports yet."""
        return cls(0, np.zeros((k_a, k_b), int), np.zeros(k_a, int), np.zeros(k_b, int))

    def __add__(self, other: PairCounts) -> PairCounts:
        if not isinstance(other, PairCounts):
            return NotImplemented
        if self.joint.shape != other.joint.shape:
            raise ValueError(
                f"cannot add counts of shapes {self.joint.shape} and {other.joint.shape}"
            )
        return PairCounts(
            self.n + other.n, self.joint + other.joint, self.a + other.a, self.b + other.b
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PairCounts):
            return NotImplemented
        return (
            self.n == other.n
            and self.joint.shape == other.joint.shape
            and bool(np.all(self.joint == other.joint))
            and bool(np.all(self.a == other.a))
            and bool(np.all(self.b == other.b))
        )

    __hash__ = None  # type: ignore[assignment]

    def transposed(self) -> PairCounts:
        """The same counts with A and B swapped."""
        return PairCounts(self.n, self.joint.T, self.b, self.a)

    def to_json(self) -> dict[str, Any]:
        """Plain ints and lists, for a JSONField; ``from_json`` reads it back."""
        return {
            "n": int(self.n),
            "joint": self.joint.tolist(),
            "a": self.a.tolist(),
            "b": self.b.tolist(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PairCounts:
        """Read ``to_json`` output; ValueError unless shapes and counts are coherent (no
        negatives, joint[i, j] <= a[i], b[j] <= n). Encoding-specific checks are
        ``breakdown``'s."""
        if not isinstance(data, dict) or set(data) != {"n", "joint", "a", "b"}:
            raise ValueError("pair counts must be a dict with exactly the keys n, joint, a, b")
        n = data["n"]
        if not (is_integer(n) and n >= 0):
            raise ValueError(f"n must be a whole number >= 0, got {n!r}")
        a, b = _int_array("a", data["a"], 1), _int_array("b", data["b"], 1)
        joint = data["joint"]
        if not (isinstance(joint, list) and len(joint) == a.size and all(
            isinstance(row, list) and len(row) == b.size for row in joint
        )):
            raise ValueError(f"joint must be a list of {a.size} lists of {b.size} numbers")
        joint = _int_array("joint", joint, 2).reshape(a.size, b.size)
        if a.size < 1 or b.size < 1:
            raise ValueError("each question needs at least one category")
        if np.any(a > n) or np.any(b > n) or np.any(joint > np.minimum.outer(a, b)):
            raise ValueError("inconsistent counts: joint[i, j] <= a[i], b[j] <= n must hold")
        return cls(int(n), joint, a, b)


def _support_matrix(mech: ldp.Mechanism, reports: Any, name: str) -> np.ndarray:
    """Validated reports of one question: a 1-D int array of categories (one-hot encodings),
    of tally cells (check-all questions, ``tally_size`` of them) or an (rows, k) 0/1 array
    (unary)."""
    message = (
        f"{name} must be lists of {mech.k} zeros and ones (unary reports)"
        if mech.encoding == "unary"
        else f"{name} must be whole numbers from 0 to {mech.tally_size - 1}"
    )
    try:
        r = np.asarray(reports)
    except ValueError as error:
        raise ValueError(message) from error
    shape_ok = r.ndim == 2 and r.shape[1] == mech.k if mech.encoding == "unary" else r.ndim == 1
    if r.size == 0 and r.shape[0] == 0:
        return np.zeros((0, mech.k) if mech.encoding == "unary" else 0, dtype=np.int64)
    if not shape_ok or r.dtype.kind not in "iu":
        raise ValueError(message)
    if mech.encoding == "unary":
        if np.any((r != 0) & (r != 1)):
            raise ValueError(message)
    elif r.min() < 0 or r.max() >= mech.tally_size:
        raise ValueError(message)
    return r.astype(np.int64)


def pair_counts(
    mech_a: ldp.Mechanism,
    mech_b: ldp.Mechanism,
    reports_a: Sequence[Any],
    reports_b: Sequence[Any],
    weights: Sequence[int] | None = None,
) -> PairCounts:
    """Counts of paired reports: ``reports_a[r]`` and ``reports_b[r]`` come from one respondent
    (ints for "bit"/"index", lists of 0/1 for "unary", tally cells for check-all questions'
    "sampled" reports), ``weights[r]`` (default 1) is how many respondents sent that pair.
    ValueError for a malformed report or weight. O(rows x k)."""
    ra = _support_matrix(mech_a, reports_a, "reports_a")
    rb = _support_matrix(mech_b, reports_b, "reports_b")
    if len(ra) != len(rb):
        raise ValueError(f"reports_a and reports_b differ in length ({len(ra)} and {len(rb)})")
    return _count_pairs(ra, rb, _weights(weights, len(ra)), mech_a.tally_size, mech_b.tally_size)


def _weights(weights: Any, rows: int) -> np.ndarray:
    """How many respondents sent each of ``rows`` rows of reports: ``weights``, or 1 each."""
    if weights is None:
        return np.ones(rows, dtype=np.int64)
    w = _int_array("weights", weights, 1)
    if w.size != rows:
        raise ValueError(f"weights must have one entry per row of reports ({rows}), got {w.size}")
    return w


def _count_pairs(ra: np.ndarray, rb: np.ndarray, w: np.ndarray, k_a: int, k_b: int) -> PairCounts:
    """``pair_counts`` of validated reports (``_support_matrix``) and weights."""
    if len(ra) == 0:
        return PairCounts.zero(k_a, k_b)
    unary_a, unary_b = ra.ndim == 2, rb.ndim == 2
    if not unary_a and not unary_b:
        joint = np.bincount(ra * k_b + rb, weights=w, minlength=k_a * k_b).reshape(k_a, k_b)
    elif unary_a and unary_b:
        joint = (ra * w[:, None]).T @ rb
    elif unary_b:  # one-hot A: add each weighted B report to the row its A report names
        joint = _rows_by_category(ra, rb, w, k_a)
    else:
        joint = _rows_by_category(rb, ra, w, k_b).T

    def marginal(r: np.ndarray, k: int) -> np.ndarray:
        return w @ r if r.ndim == 2 else np.bincount(r, weights=w, minlength=k).astype(np.int64)

    return PairCounts(int(w.sum()), joint.astype(np.int64), marginal(ra, k_a), marginal(rb, k_b))


def _rows_by_category(
    one_hot: np.ndarray, unary: np.ndarray, w: np.ndarray, k: int
) -> np.ndarray:
    """(k, bits) sums of the weighted unary rows by the category each one-hot report names:
    a bincount per bit (much faster than np.add.at: 0.5 against 2.4 s a million reports)."""
    return np.stack(
        [np.bincount(one_hot, weights=unary[:, j] * w, minlength=k) for j in range(unary.shape[1])],
        axis=1,
    ).round().astype(np.int64)


# The two questions as the formulas see them -----------------------------------------------------


class _Side:
    """One question of the pair: its matrix S, S^-1, and what the likelihood and the moment
    formula need (see the module docstring)."""

    def __init__(self, mech: ldp.Mechanism | None, matrix: np.ndarray | None = None) -> None:
        """``mech``'s side; or, with ``mech`` None, a one-hot question whose randomization
        matrix is ``matrix`` (``surveys.ldp.strata``: two questions taken as one)."""
        self.mech = mech
        self.S = mech.matrix() if mech is not None else np.asarray(matrix, dtype=float)
        self.k = mech.k if mech is not None else self.S.shape[1]
        self.unary = mech is not None and mech.encoding == "unary"
        self.inverse = np.linalg.inv(self.S)  # row u_c satisfies u_c^T S = e_c^T
        self.c = 1.0 if self.unary else 0.0
        self.noise = self.S - self.c * self.S * self.S
        # a_c - b_c: P(supports c | true c) less P(supports c | another), by which the unbiased
        # share f_c = (mean(e_c) - b_c) / (a_c - b_c) divides (``ldp.Mechanism.unbiased``).
        self.slope = np.diag(self.S) - self.S[np.arange(self.k), (np.arange(self.k) + 1) % self.k]
        # The likelihood's outcomes and their probabilities given the true category:
        # "supports c" (S) for one-hot reports; "bit c is 1" (S) and "bit c is 0" (1 - S)
        # for unary ones. ``extract`` takes them from the rows of [[joint, a], [b, n]].
        eye, zero = np.eye(self.k), np.zeros((self.k, 1))
        self.extract = (
            np.block([[eye, zero], [-eye, zero + 1]]) if self.unary else np.hstack([eye, zero])
        )
        self.outcomes = self.extract @ np.vstack([self.S, np.ones(self.k)])

    def moment(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Row r: E[(x_r . e)(y_r . e) | true category i] for each i (x, y: rows of vectors)."""
        return self.c * (x @ self.S) * (y @ self.S) + (x * y) @ self.noise

    def unbiased(self, support: np.ndarray, n: int) -> np.ndarray:
        """The unbiased marginal shares from the support counts (n > 0)."""
        if self.mech is not None:
            return self.mech.unbiased(support, n)
        return self.inverse @ (support / n)

    def centered_moments(self, mean: np.ndarray) -> np.ndarray:
        """(i, c, d): E[(e - mean)(e - mean)^T | true category i], from
        E[e e^T | i] = c s s^T + diag(s - c s*s) with s = S[:, i] (module docstring)."""
        s = self.S.T  # (i, c)
        second = self.c * s[:, :, None] * s[:, None, :]
        second[:, np.arange(self.k), np.arange(self.k)] += self.noise.T
        return (
            second - mean[None, :, None] * s[:, None, :] - s[:, :, None] * mean[None, None, :]
            + np.outer(mean, mean)[None]
        )


def _check_counts(side_a: _Side, side_b: _Side, counts: PairCounts) -> None:
    if not isinstance(counts, PairCounts):
        raise ValueError("counts must be a PairCounts")
    if counts.joint.shape != (side_a.k, side_b.k):
        raise ValueError(
            f"counts have shape {counts.joint.shape}, the questions ({side_a.k}, {side_b.k})"
        )
    n, joint, a, b = counts.n, counts.joint, counts.a, counts.b
    problems = []
    if not side_a.unary and (a.sum() != n or np.any(joint.sum(axis=0) != b)):
        problems.append("each A report supports one category: sum(a) = n, column sums = b")
    if not side_b.unary and (b.sum() != n or np.any(joint.sum(axis=1) != a)):
        problems.append("each B report supports one category: sum(b) = n, row sums = a")
    if np.any(a > n) or np.any(b > n) or np.any(joint > np.minimum.outer(a, b)):
        problems.append("joint[i, j] <= a[i], b[j] <= n")
    if np.any(joint < np.add.outer(a, b) - n):
        problems.append("joint[i, j] >= a[i] + b[j] - n")
    if problems:
        raise ValueError("inconsistent pair counts: " + "; ".join(problems))


# Estimation ---------------------------------------------------------------------------------------


def _unbiased(side_a: _Side, side_b: _Side, counts: PairCounts) -> np.ndarray:
    """Pi_hat = S_A^-1 (joint / n) S_B^-T."""
    return side_a.inverse @ (counts.joint / counts.n) @ side_b.inverse.T


def _fit(
    side_a: _Side, side_b: _Side, counts: PairCounts, allowed: np.ndarray | None = None
) -> np.ndarray:
    """Maximum (composite) likelihood joint on the simplex; with ``allowed`` (a boolean
    (k_a, k_b) array), on the face of the simplex where every other cell is 0 (structural
    zeros, ``surveys.ldp.asked``).

    With T the table of observed outcome pairs (``_Side.extract``: the report-pair table for
    one-hot x one-hot; for a unary question each of its bits seen as 1 and as 0) and O_A, O_B
    the outcome probabilities (``_Side.outcomes``), the fitted outcome probabilities are
    P = O_A Pi O_B^T and the log-likelihood is l(Pi) = sum T log P; for unary questions this
    is a composite likelihood (a sum of proper likelihoods, one per bit), as in
    ``ldp.Mechanism.mle``.

    EM: Pi <- Pi * G / sum(T) with gradient G = O_A^T (T / P) O_B, accelerated by SQUAREM
    (Varadhan & Roland 2008: extrapolate from two EM steps, shortened until Pi stays
    positive, kept if it does not lower l, else plain EM). l is concave, so
    l(Pi*) <= l(Pi) + <G, Pi* - Pi> <= l(Pi) + max(G) - sum(T): iteration stops once that
    bound is below ``FIT_TOLERANCE``, or after ``FIT_MAX_ROUNDS``. Never builds
    (k_a k_b)^2 matrices: a step costs a few products of the k x k matrices. EM and SQUAREM
    keep a cell that starts at 0 at 0, so the structural zeros start and stay at 0, and the
    bound then takes the gradient's largest entry over the allowed cells only."""
    mask = np.ones(counts.joint.shape, dtype=bool) if allowed is None else allowed
    augmented = np.block(
        [[counts.joint, counts.a[:, None]], [counts.b[None, :], np.array([[counts.n]])]]
    ).astype(float)
    table = side_a.extract @ augmented @ side_b.extract.T  # T
    total = table.sum()
    o_a, o_b = side_a.outcomes, side_b.outcomes

    def em(pi: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """(EM step from pi, the gap bound at pi, P at pi)."""
        fitted = o_a @ pi @ o_b.T
        gradient = o_a.T @ (table / fitted) @ o_b
        return pi * gradient / total, float(gradient[mask].max() - total), fitted

    def log_likelihood(fitted: np.ndarray) -> float:
        return float(np.sum(table * np.log(fitted)))

    # Start from the product of the projected marginal estimates, kept away from 0 (EM keeps
    # zeros at zero).
    start = np.outer(*(
        ldp.project_simplex(side.unbiased(support, counts.n))
        for side, support in ((side_a, counts.a), (side_b, counts.b))
    ))
    if allowed is None:
        pi = 0.9 * start + 0.1 / start.size
    else:  # the product's mass on the allowed cells, rescaled, kept away from 0 on them
        start = np.where(mask, start, 0.0)
        start = start / start.sum() if start.sum() > 0 else mask / mask.sum()
        pi = np.where(mask, 0.9 * start + 0.1 / mask.sum(), 0.0)
    for _ in range(FIT_MAX_ROUNDS):
        first, gap, fitted = em(pi)
        if gap <= FIT_TOLERANCE:
            break
        second = em(first)[0]
        r, v = first - pi, second - 2 * first + pi
        norm_v = np.linalg.norm(v)
        step = min(-np.linalg.norm(r) / norm_v, -1.0) if norm_v > 0 else -1.0
        candidate = pi - 2 * step * r + step * step * v
        while step < -1 and not np.all(candidate[mask] > 0):
            step = (step - 1) / 2 if step < -1.02 else -1.0
            candidate = pi - 2 * step * r + step * step * v
        if step < -1:
            stabilised, _, candidate_fitted = em(candidate)
            if log_likelihood(candidate_fitted) >= log_likelihood(fitted):
                pi = stabilised
                continue
        pi = second
    return pi / pi.sum()


# Variances and intervals -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Model:
    """The variances of the estimates, with a joint Pi (the fitted one) plugged in.

    Notation: u_g = row g of S_A^-1, w_j = row j of S_B^-1, w_bar = 1^T S_B^-1. The unbiased
    cell N[g, j] = Pi_hat[g, j] is the mean of (u_g . e_A)(w_j . e_B); the unbiased group
    total D[g] = Pi_hat[g, +] the mean of (u_g . e_A)(w_bar . e_B)."""

    side_a: _Side
    side_b: _Side
    pi: np.ndarray

    def _rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """q_A(u_g, u_g) for every g (rows; columns: true category i), q_A(u_g, u_g)^T Pi
        (rows g), and the group totals of Pi."""
        u = self.side_a.inverse
        q_a = self.side_a.moment(u, u)
        return q_a, q_a @ self.pi, self.pi.sum(axis=1)

    def cell_variance(self) -> np.ndarray:
        """Coefficients (k_a, k_b, 4) of the polynomial n Var(N[g, j]) = V(p) when the cell's
        true share is p and the other cells keep the proportions of Pi, scaled to sum to
        1 - p: E_p[x^2] = p own + (1 - p) rest with own = E[x^2 | true pair (g, j)] =
        q_A(u_g, u_g)_g q_B(w_j, w_j)_j, rest the mean of E[x^2 | pair] over the other
        cells; V(p) = rest + (own - rest) p - p^2."""
        w = self.side_b.inverse
        q_a, left, _ = self._rows()
        q_b = self.side_b.moment(w, w)
        second = left @ q_b.T  # E[x^2] under Pi
        own = np.outer(np.diag(q_a), np.diag(q_b))
        with np.errstate(divide="ignore", invalid="ignore"):
            rest = np.where(self.pi < 1, (second - self.pi * own) / (1 - self.pi), own)
        return np.stack([rest, own - rest, -np.ones_like(rest), np.zeros_like(rest)], axis=-1)

    def share_variance(self) -> np.ndarray:
        """Coefficients (k_a, k_b, 4) of the cubic n Var(N[g, j] - t D[g]) = V(t) when the
        share of answer j within group g is t, the group keeps its size and its other answers
        their proportions, scaled to sum to 1 - t (that is Pi + (t - theta) rho with
        rho = Pi[g, +] (e_j - (others' shares) / (1 - theta)) in row g). The product
        (u_g . e_A)(h_t . e_B), h_t = w_j - t w_bar, has mean 0 then, so
        V(t) = q_A(u_g, u_g)^T Pi(t) q_B(h_t, h_t): linear times quadratic in t, using
        w_j^T S_B = e_j and w_bar^T S_B = 1."""
        side_b, k_b = self.side_b, self.side_b.k
        w = side_b.inverse
        w_bar = w.sum(axis=0)
        q_a, left, totals = self._rows()
        theta = np.where(totals[:, None] > 0, self.pi / np.where(totals > 0, totals, 1)[:, None],
                         1 / k_b)
        # q_B(h_t, h_t)_j' = B0 + t B1 + t^2 B2 (rows j, columns j').
        eye = np.eye(k_b)
        b0 = side_b.c * eye + (w * w) @ side_b.noise
        b1 = -2 * side_b.c * eye - 2 * (w * w_bar) @ side_b.noise
        b2 = np.broadcast_to(side_b.c + (w_bar * w_bar) @ side_b.noise, (k_b, k_b))
        rest = 1 - theta
        lone = rest < 1e-12  # the answer is all the group has: spread the others evenly

        def contract(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """(sum_j' left[g, j'] b[j, j'], sum_j' slope[g, j, j'] b[j, j']) where
            q_A^T Pi(t) = left + (t - theta) slope, slope = q_A(u_g, u_g)_g rho."""
            diagonal = np.diag(b)[None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                others = np.where(
                    lone,
                    (b.sum(axis=1)[None, :] - diagonal) / (k_b - 1),
                    (theta @ b.T - theta * diagonal) / np.where(lone, 1, rest),
                )
            slope = (np.diag(q_a) * totals)[:, None] * (diagonal - others)
            return left @ b.T, slope

        (l0, s0), (l1, s1), (l2, s2) = contract(b0), contract(b1), contract(b2)
        # V(t) = sum_j' (left - theta slope + t slope)(B0 + t B1 + t^2 B2).
        return np.stack([
            l0 - theta * s0,
            l1 - theta * s1 + s0,
            l2 - theta * s2 + s1,
            s2,
        ], axis=-1)

    def total_variance(self) -> np.ndarray:
        """n Var(D[g]) for every group: q_A(u_g, u_g)^T Pi q_B(w_bar, w_bar) - Pi[g, +]^2."""
        w_bar = self.side_b.inverse.sum(axis=0, keepdims=True)
        _, left, totals = self._rows()
        return (left @ self.side_b.moment(w_bar, w_bar)[0]) - totals**2

    def share_covariance(self, g1: int, g2: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """n Var of the shares of every answer within groups g1 and g2, and n times their
        covariance, by the delta method: theta_hat[g, j] - theta[g, j] is about the mean of
        (u_g . e_A)(h_gj . e_B) / Pi[g, +] with h_gj = w_j - theta[g, j] w_bar, a product
        whose mean is 0 under Pi."""
        u, w = self.side_a.inverse, self.side_b.inverse
        w_bar = w.sum(axis=0)
        totals = self.pi.sum(axis=1)
        theta = self.pi / np.where(totals > 0, totals, 1.0)[:, None]
        h = {g: w - theta[g][:, None] * w_bar for g in (g1, g2)}

        def moment(x: int, y: int) -> np.ndarray:
            q_a = self.side_a.moment(u[[x]], u[[y]])  # (1, k_a)
            return (q_a @ self.pi @ self.side_b.moment(h[x], h[y]).T)[0] / (
                totals[x] * totals[y]
            )

        return moment(g1, g1), moment(g2, g2), moment(g1, g2)


_GRID = np.linspace(0, 1, 257)
"""Trial values of ``_score_interval``, besides the point estimate; the ends found are then
refined by 40 halvings (to 1e-14)."""


def _score_interval(
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
        """Whether each t is rejected: t has the estimate's shape, or is ``_GRID`` (last axis)."""
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
        for _ in range(40):
            middle = (inside + outside) / 2
            out = rejected(middle)
            inside, outside = np.where(out, inside, middle), np.where(out, middle, outside)
        return inside

    # The rejected neighbours: the grid points just outside the accepted hull.
    below = _GRID[np.clip(np.ceil(low * last).astype(int) - 1, 0, last)]
    above = _GRID[np.clip(np.floor(high * last).astype(int) + 1, 0, last)]
    low = np.where(low > 0, refine(low, below), 0.0)
    high = np.where(high < 1, refine(high, above), 1.0)
    low, high = np.where(unknown, 0.0, low), np.where(unknown, 1.0, high)
    return np.where(none & ~unknown, np.nan, low), np.where(none & ~unknown, np.nan, high)


def _widen(
    low: np.ndarray, high: np.ndarray, estimate: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The interval widened to contain the headline ``estimate``; an empty interval (NaN)
    becomes the estimate alone; a NaN estimate leaves the interval as it is."""
    low = np.where(np.isnan(low), estimate, low)
    high = np.where(np.isnan(high), estimate, high)
    known = ~np.isnan(estimate)
    return (
        np.where(known, np.fmin(low, estimate), low),
        np.where(known, np.fmax(high, estimate), high),
    )


def _mover(
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


# Association ----------------------------------------------------------------------------------


def chi2_sf(x: float, df: int) -> float:
    """P(X > x) for X chi-square with df > 0 degrees of freedom: the regularized upper
    incomplete gamma function Q(df / 2, x / 2) (``scipy.special.gammaincc``)."""
    if not df > 0:
        raise ValueError(f"df must be positive, got {df!r}")
    return float(gammaincc(df / 2, max(x, 0.0) / 2))


def _report_covariance(side: _Side, support: np.ndarray, n: int) -> np.ndarray:
    """Covariance of one respondent's support vector e. One-hot: diag(m) - m m^T with
    m = support / n. Unary: bits c != d have E[e_c e_d] = sum_i f_i S[c, i] S[d, i] (true
    category i; f the marginal ``mle``) and the variances are m_c (1 - m_c)."""
    m = support / n
    if not side.unary:
        return np.diag(m) - np.outer(m, m)
    f = side.mech.mle(support, n)
    second = (side.S * f) @ side.S.T
    np.fill_diagonal(second, m)
    return second - np.outer(m, m)


def _pseudo_inverse(matrix: np.ndarray) -> tuple[np.ndarray, int]:
    """Moore-Penrose inverse of a symmetric positive semi-definite matrix, and its rank
    (eigenvalues above 1e-10 times the largest)."""
    values, vectors = np.linalg.eigh(matrix)
    keep = values > 1e-10 * max(values.max(), 0.0)
    kept = vectors[:, keep]
    return (kept / values[keep]) @ kept.T, int(keep.sum())


@dataclass(frozen=True)
class Association:
    """Test of independence of the two questions' true answers: ``statistic``, its degrees of
    freedom ``df`` and ``p_value``. n = 0: NaN, 0, NaN (no test); df = 0 (e.g. every report
    the same): statistic 0, p-value 1."""

    statistic: float
    df: int
    p_value: float


def _association(side_a: _Side, side_b: _Side, counts: PairCounts) -> Association:
    """If the true answers are independent so are the reports, hence the cross-covariance
    C = joint/n - a b^T / n^2 of e_A and e_B has mean 0 and, by the central limit theorem,
    T = n tr(C^T Sigma_A^+ C Sigma_B^+) is chi-square with rank(Sigma_A) rank(Sigma_B) degrees
    of freedom (Sigma: ``_report_covariance``). For one-hot x one-hot this is exactly
    Pearson's chi-square statistic of the table of reports."""
    n = counts.n
    if n == 0:
        return Association(math.nan, 0, math.nan)
    cross = counts.joint / n - np.outer(counts.a, counts.b) / n**2
    inverse_a, rank_a = _pseudo_inverse(_report_covariance(side_a, counts.a, n))
    inverse_b, rank_b = _pseudo_inverse(_report_covariance(side_b, counts.b, n))
    df = rank_a * rank_b
    if df == 0:
        return Association(0.0, 0, 1.0)
    statistic = float(n * np.sum((inverse_a @ cross) * (cross @ inverse_b)))
    return Association(statistic, df, chi2_sf(statistic, df))


# Results ----------------------------------------------------------------------------------------


def _floats(a: np.ndarray) -> Any:
    """Nested lists of floats with NaN -> None."""
    if np.ndim(a) == 0:
        return float(a) if math.isfinite(a) else None
    return [_floats(x) for x in a]


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
            "estimate": _floats(self.estimate),
            "ci_low": _floats(self.ci_low),
            "ci_high": _floats(self.ci_high),
        }


@dataclass(frozen=True, eq=False)
class Breakdown:
    """Question B broken down by the groups of question A (rows), from ``breakdown``.

    - ``group_share`` (row totals of ``joint``), ``group_ci_low``/``high`` (A's own
      Feldman-Cousins intervals, ``ldp.Mechanism.intervals``), ``group_size`` = n * share;
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
    _model: _Model | None = field(default=None, repr=False)

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
        model = self._model
        if model is not None and g1 != g2 and np.all(np.isfinite(estimate)):
            v_11, v_22, v_12 = model.share_covariance(g1, g2)
            with np.errstate(divide="ignore", invalid="ignore"):
                correlation = np.nan_to_num(np.clip(v_12 / np.sqrt(v_11 * v_22), -1, 1))
            mover_low, mover_high = _mover(
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
                name: _floats(getattr(self, name))
                for name in (
                    "group_share", "group_ci_low", "group_ci_high", "group_size", "joint",
                    "joint_ci_low", "joint_ci_high", "share", "share_ci_low", "share_ci_high",
                )
            },
            "small_group": [bool(x) for x in self.small_group],
            "association": {
                "statistic": _floats(self.association.statistic),
                "df": self.association.df,
                "p_value": _floats(self.association.p_value),
            },
        }


def breakdown(
    mech_a: ldp.Mechanism, mech_b: ldp.Mechanism, counts: PairCounts, confidence: float = 0.95
) -> Breakdown:
    """Question B (``mech_b``, columns) broken down by the groups of question A (``mech_a``,
    rows) from their pair counts: see ``Breakdown`` and the module docstring."""
    side_a, side_b = _Side(mech_a), _Side(mech_b)
    return _breakdown(
        side_a, side_b, counts, confidence, lambda: mech_a.intervals(counts.a, counts.n, confidence)
    )


def _breakdown(
    side_a: _Side,
    side_b: _Side,
    counts: PairCounts,
    confidence: float,
    group_intervals: Callable[[], tuple[np.ndarray, np.ndarray]],
) -> Breakdown:
    """``breakdown`` of two sides; ``group_intervals()`` gives the groups' shares' intervals
    (asked for only when there are respondents)."""
    _check_counts(side_a, side_b, counts)
    z = ldp.z_value(confidence)
    n, k_a, k_b = counts.n, side_a.k, side_b.k
    if n == 0:
        unknown_a, unknown = np.full(k_a, np.nan), np.full((k_a, k_b), np.nan)
        zeros, ones = np.zeros((k_a, k_b)), np.ones((k_a, k_b))
        return Breakdown(
            0, *map(read_only, (unknown_a, zeros[:, 0], ones[:, 0], unknown_a)),
            *map(read_only, (unknown, zeros, ones, unknown, zeros, ones)),
            read_only(np.ones(k_a, dtype=bool)), _association(side_a, side_b, counts),
        )
    pi = _fit(side_a, side_b, counts)
    unbiased = _unbiased(side_a, side_b, counts)
    model = _Model(side_a, side_b, pi)

    # Cells: score intervals from the unbiased estimate, widened to contain the headline.
    low, high = _score_interval(unbiased, np.ones_like(pi), model.cell_variance(), n, z)
    joint_low, joint_high = _widen(low, high, pi)

    # Shares within groups: the fitted rows, normalised; score-Fieller intervals for N / D.
    rows = pi.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n * rows[:, None] >= EMPTY_GROUP_SIZE, pi / rows[:, None], np.nan)
    totals = unbiased.sum(axis=1)
    low, high = _score_interval(
        unbiased, np.repeat(totals[:, None], k_b, axis=1), model.share_variance(), n, z
    )
    share_low, share_high = _widen(low, high, share)
    share_low, share_high = np.nan_to_num(share_low, nan=0.0), np.nan_to_num(share_high, nan=1.0)
    small = totals < SMALL_GROUP_RATIO * z * np.sqrt(np.maximum(model.total_variance(), 0) / n)

    # Group shares: their own intervals (A's, from its support counts), widened to contain
    # the rows.
    group_low, group_high = _widen(*group_intervals(), rows)
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
        association=_association(side_a, side_b, counts),
        _model=model,
    )


# Planning ---------------------------------------------------------------------------------------


_PLANNING_SHARES = np.linspace(0, 1, 201)
"""Answer shares over which ``answer_share=None`` takes the worst case."""


def _share_variance_times_n(
    mech_a: ldp.Mechanism, mech_b: ldp.Mechanism, group_share: float, answer_share: float | None
) -> float:
    """n Var of the share of an answer within a group (the delta-method variance of
    ``_Model.share_covariance``) when the group holds ``group_share`` of the respondents, the
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
    side_a, side_b = _Side(mech_a), _Side(mech_b)
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
    mech_a: ldp.Mechanism,
    mech_b: ldp.Mechanism,
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
    z = ldp.z_value(confidence)
    return math.inf if n == 0 else z * math.sqrt(variance_times_n / n)


def n_for_margin_within_group(
    mech_a: ldp.Mechanism,
    mech_b: ldp.Mechanism,
    margin: float,
    group_share: float,
    answer_share: float | None = None,
    confidence: float = 0.95,
) -> int:
    """Smallest n with ``margin_within_group(...) <= margin``. ValueError for a margin outside
    (0, 1) or a target needing more than ``ldp.MAX_PLANNED_RESPONDENTS`` respondents."""
    if not (is_real(margin) and math.isfinite(margin) and 0 < margin < 1):
        raise ValueError(f"margin must be a number strictly between 0 and 1, got {margin!r}")
    variance = _share_variance_times_n(mech_a, mech_b, group_share, answer_share)
    return ldp.fewest_respondents(
        ldp.z_value(confidence) ** 2 * variance / margin**2,
        margin,
        lambda n: margin_within_group(mech_a, mech_b, n, group_share, answer_share, confidence),
        f"a margin of {margin:g} within a group of {group_share:.3g} of the respondents at "
        f"{confidence:.0%} confidence",
        "raise epsilon, plan for a larger group or accept a wider margin",
    )
