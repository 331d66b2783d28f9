"""The variances of the joint estimates of two questions, with a joint table plugged in
(``JointModel``): of each cell, of the share of each answer within each group, of each
group's total, and the covariance of two groups' shares. Each is a few k x k matrix
products of the moment formula (``sides``). Pure numpy; no Django.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sides import Side


@dataclass(frozen=True)
class JointModel:
    """The variances of the estimates, with a joint Pi (the fitted one, ``joint_fit``)
    plugged in.

    Notation: u_g = row g of S_A^-1, w_j = row j of S_B^-1, w_bar = 1^T S_B^-1. The unbiased
    cell N[g, j] = Pi_hat[g, j] is the mean of (u_g . e_A)(w_j . e_B); the unbiased group
    total D[g] = Pi_hat[g, +] the mean of (u_g . e_A)(w_bar . e_B)."""

    side_a: Side
    side_b: Side
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
