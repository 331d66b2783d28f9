"""The test of independence of two questions' true answers from their randomized reports: the
true answers are independent exactly when the reports are, so it is Pearson's chi-square
test of the table of reports, generalised to unary reports' bits (``association_test``).
Notation: ``sides``. Pure numpy and scipy; no Django.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaincc

from .pair_counts import PairCounts
from .sides import Side


def chi2_sf(x: float, df: int) -> float:
    """P(X > x) for X chi-square with df > 0 degrees of freedom: the regularized upper
    incomplete gamma function Q(df / 2, x / 2) (``scipy.special.gammaincc``)."""
    if not df > 0:
        raise ValueError(f"df must be positive, got {df!r}")
    return float(gammaincc(df / 2, max(x, 0.0) / 2))


def _report_covariance(side: Side, support: np.ndarray, n: int) -> np.ndarray:
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


def pseudo_inverse(matrix: np.ndarray) -> tuple[np.ndarray, int]:
    """Moore-Penrose inverse of a symmetric positive semi-definite matrix, and its rank
    (eigenvalues above 1e-10 times the largest): the covariance of the statistic of a
    chi-square test, here and within strata (``strata``), whose rank is its degrees of
    freedom."""
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


def association_test(side_a: Side, side_b: Side, counts: PairCounts) -> Association:
    """The test of independence of the two questions (``joint.Breakdown.association``).

    If the true answers are independent so are the reports, hence the cross-covariance
    C = joint/n - a b^T / n^2 of e_A and e_B has mean 0 and, by the central limit theorem,
    T = n tr(C^T Sigma_A^+ C Sigma_B^+) is chi-square with rank(Sigma_A) rank(Sigma_B) degrees
    of freedom (Sigma: ``_report_covariance``). For one-hot x one-hot this is exactly
    Pearson's chi-square statistic of the table of reports."""
    n = counts.n
    if n == 0:
        return Association(math.nan, 0, math.nan)
    cross = counts.joint / n - np.outer(counts.a, counts.b) / n**2
    inverse_a, rank_a = pseudo_inverse(_report_covariance(side_a, counts.a, n))
    inverse_b, rank_b = pseudo_inverse(_report_covariance(side_b, counts.b, n))
    df = rank_a * rank_b
    if df == 0:
        return Association(0.0, 0, 1.0)
    statistic = float(n * np.sum((inverse_a @ cross) * (cross @ inverse_b)))
    return Association(statistic, df, chi2_sf(statistic, df))
