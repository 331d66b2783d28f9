"""One question of a pair as the formulas of joint estimation see it (``Side``).

Notation. The same n respondents answer question A (the grouping question: rows, k_a
categories, "groups") and question B (the question broken down: columns, k_b categories,
"answers"). Pi[i, j] is the true share of respondents whose answers are (i, j). Each answer is
randomized by its question's mechanism, independently given the true pair. e_A, e_B are the
0/1 support vectors of one respondent's two reports (a "bit"/"index" report supports the one
category it names, a "unary" report the categories of its 1-bits) and S_A, S_B the
mechanisms' matrices, S[c, i] = P(report supports c | true category i).

Counts (``pair_counts.PairCounts``): joint = sum e_A e_B^T, a = sum e_A, b = sum e_B and n.
The unbiased joint is Pi_hat = S_A^-1 (joint / n) S_B^-T (``joint_fit``).

Every figure of joint estimation is a mean over respondents of (u . e_A)(w . e_B) for some
vectors u, w, or a sum of such: row i of S_A^-1 and row j of S_B^-1 give the cell
Pi_hat[i, j]. Their variances follow from one fact: given the true category i,

    E[(u . e)(u' . e) | i] = q(u, u')_i = c (u^T S)_i (u'^T S)_i + ((u * u')^T (S - c S*S))_i

(* is elementwise; c = 0 for one-hot reports, whose E[e e^T | i] = diag(S[:, i]); c = 1 for
unary reports, whose bits are independent: E[e e^T | i] = s s^T + diag(s - s*s)). Since the
two reports are independent given the true pair,

    E[(u.e_A)(w.e_B)(u'.e_A)(w'.e_B)] = q_A(u, u')^T Pi q_B(w, w'),

so any variance or covariance costs a few k x k matrix products (``Side.moment``), with the
fitted Pi plugged in (``joint_model``); respondents are taken to be a random sample of the
population. Pure numpy; no Django. Guide: docs/ldp.md, "Breakdowns".
"""

from __future__ import annotations

import numpy as np

from .mechanisms import Mechanism


class Side:
    """One question of a pair: its matrix S, S^-1, and what the likelihood and the moment
    formula need (see the module docstring). Every estimate about two or three questions
    together (``joint_fit``, ``joint_model``, ``association``, ``joint``, ``strata``,
    ``asked``, ``scores``, ``numbers``) reads its questions through one."""

    def __init__(self, mech: Mechanism | None, matrix: np.ndarray | None = None) -> None:
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
        # share f_c = (mean(e_c) - b_c) / (a_c - b_c) divides (``SupportEstimates.unbiased``).
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
