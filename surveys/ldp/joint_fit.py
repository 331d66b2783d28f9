"""The joint table of two questions from their pair counts: the counts checked, the unbiased
estimate and the maximum (composite) likelihood fit. Notation: ``sides``.

Because the two reports are independent given the truth, E[joint] = n S_A Pi S_B^T, so

    Pi_hat = S_A^-1 (joint / n) S_B^-T                                     (unbiased)

The headline joint is the maximum likelihood on the simplex (``fit_joint``): the multinomial
likelihood of the table of report pairs for one-hot x one-hot; for pairs involving a unary
question the composite likelihood of its bits, as ``estimation.SupportEstimates.mle`` does
for one question. EM with SQUAREM acceleration. Pure numpy; no Django.
"""

from __future__ import annotations

import numpy as np

from .estimation import project_simplex
from .pair_counts import PairCounts
from .sides import Side

FIT_TOLERANCE: float = 0.01
"""EM stops once the log-likelihood is provably within this of its maximum (see ``fit_joint``)."""

FIT_MAX_ROUNDS: int = 2000
"""Most SQUAREM rounds (three EM steps each) of ``fit_joint``."""


def check_pair_counts(side_a: Side, side_b: Side, counts: PairCounts) -> None:
    """ValueError unless ``counts`` are pair counts that reports of these two sides can give:
    the shape of their tallies, one category per one-hot report, joint within its margins."""
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


def unbiased_joint(side_a: Side, side_b: Side, counts: PairCounts) -> np.ndarray:
    """Pi_hat = S_A^-1 (joint / n) S_B^-T, unbiased for the joint table (n > 0)."""
    return side_a.inverse @ (counts.joint / counts.n) @ side_b.inverse.T


def fit_joint(
    side_a: Side, side_b: Side, counts: PairCounts, allowed: np.ndarray | None = None
) -> np.ndarray:
    """Maximum (composite) likelihood joint on the simplex; with ``allowed`` (a boolean
    (k_a, k_b) array), on the face of the simplex where every other cell is 0 (structural
    zeros, ``surveys.ldp.asked``).

    With T the table of observed outcome pairs (``Side.extract``: the report-pair table for
    one-hot x one-hot; for a unary question each of its bits seen as 1 and as 0) and O_A, O_B
    the outcome probabilities (``Side.outcomes``), the fitted outcome probabilities are
    P = O_A Pi O_B^T and the log-likelihood is l(Pi) = sum T log P; for unary questions this
    is a composite likelihood (a sum of proper likelihoods, one per bit), as in
    ``Mechanism.mle``.

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
        project_simplex(side.unbiased(support, counts.n))
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
