"""Did the answers change with the wording? A test of homogeneity of randomized reports
across groups of respondents (the wordings they saw), pure numpy and scipy.

The randomizer does not depend on the wording: a respondent whose true answer is i sends a
report drawn from the same law, whichever wording they read. So the groups' report
distributions are equal exactly when their true shares are (the randomization matrix is
invertible), and a test of equal report distributions is a test of equal true shares, with
no estimate involved.

- One report per respondent in one of m cells (yes/no, GRR, a number's cells, a check-all
  question's [option, ticked] cells): Pearson's chi-square test of homogeneity on the
  groups x cells contingency table of the tally counts (``contingency_test``). Its size is
  the usual asymptotic one (expected counts of about 5 or more in most cells; empty cells
  are left out).
- Unary reports (OUE, SUE: k bits per respondent, several may be 1): the bits of one report
  are dependent, so the tally counts are no contingency table. Each bit is tested on its own
  (a 2 x groups table: reports with the bit set or not), and the k p-values combined by
  Bonferroni (``bitwise_test``): the smallest times k, at most 1. Its size is at most the
  nominal one (conservative), and it has less power than a joint test would.

Formulas and assumptions: docs/ldp.md, "Answers by wording".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .association import chi2_sf

MIN_EXPECTED = 5.0
"""Below this expected count in a cell the chi-square approximation is flagged as rough."""


@dataclass(frozen=True)
class Homogeneity:
    """A test of equal report distributions across groups: ``method`` ("chi2" for the
    contingency table, "bitwise-bonferroni" for unary reports), the ``statistic`` and its
    degrees of freedom ``df`` (for the bitwise test: the largest bit statistic, with 1
    degree of freedom per group but one), the ``p_value``, the smallest expected count of a
    cell tested (``min_expected``) and ``rough``: whether that is below ``MIN_EXPECTED``."""

    method: str
    statistic: float
    df: int
    p_value: float
    min_expected: float

    @property
    def rough(self) -> bool:
        return self.min_expected < MIN_EXPECTED

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "min_expected": self.min_expected,
            "rough": self.rough,
        }


def contingency_test(table: np.ndarray | list[list[int]]) -> Homogeneity | None:
    """Pearson's chi-square test of homogeneity of the rows of ``table`` (groups x cells,
    counts): X^2 = sum (O - E)^2 / E with E = row total x column total / N, on
    (rows - 1)(columns - 1) degrees of freedom, after leaving out empty rows and columns.
    None when fewer than two rows or two columns are left (nothing to compare)."""
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or np.any(counts < 0) or not np.all(np.isfinite(counts)):
        raise ValueError("the table must be a 2-D array of counts")
    counts = counts[counts.sum(axis=1) > 0]
    if counts.size:
        counts = counts[:, counts.sum(axis=0) > 0]
    if counts.shape[0] < 2 or counts.shape[1] < 2:
        return None
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / counts.sum()
    statistic = float(((counts - expected) ** 2 / expected).sum())
    df = (counts.shape[0] - 1) * (counts.shape[1] - 1)
    return Homogeneity("chi2", statistic, df, chi2_sf(statistic, df), float(expected.min()))


def bitwise_test(
    ones: np.ndarray | list[list[int]], n: np.ndarray | list[int]
) -> Homogeneity | None:
    """Unary reports: ``ones[g][c]`` reports of group g with bit c set, out of ``n[g]``. One
    contingency test per bit (set or not, by group), combined by Bonferroni: p = min(1,
    k x the smallest p). None when fewer than two groups have reports or no bit varies."""
    ones = np.asarray(ones, dtype=float)
    sizes = np.asarray(n, dtype=float)
    if ones.ndim != 2 or sizes.shape != (ones.shape[0],) or np.any(ones > sizes[:, None]):
        raise ValueError("ones must be groups x bits, each at most its group's n")
    tests = [
        contingency_test(np.stack([ones[:, c], sizes - ones[:, c]], axis=1))
        for c in range(ones.shape[1])
    ]
    found = [test for test in tests if test is not None]
    if not found:
        return None
    worst = min(found, key=lambda test: test.p_value)
    return Homogeneity(
        "bitwise-bonferroni",
        worst.statistic,
        worst.df,
        min(1.0, worst.p_value * ones.shape[1]),
        min(test.min_expected for test in found),
    )


def homogeneity(
    encoding: str, counts: np.ndarray | list[list[int]], n: np.ndarray | list[int]
) -> Homogeneity | None:
    """The test that fits a mechanism's ``encoding``, from each group's support counts
    (``counts[g]``, the mechanism's tally of group g's ``n[g]`` reports): ``bitwise_test``
    for "unary", ``contingency_test`` otherwise (one cell per report, so the tally counts of
    each group sum to its n)."""
    if encoding == "unary":
        return bitwise_test(counts, n)
    table = np.asarray(counts, dtype=float)
    if table.ndim == 2 and not np.allclose(table.sum(axis=1), np.asarray(n, dtype=float)):
        raise ValueError("each group's counts must sum to its n (one cell per report)")
    return contingency_test(table)


def simulate_reports(
    mechanism: Any, shares: np.ndarray | list[float], n: int, rng: np.random.Generator
) -> tuple[list[int], int]:
    """The support counts of ``n`` reports of respondents whose true answers are drawn from
    ``shares``, randomized by ``mechanism`` (its ``perturb`` and ``support_counts``): for
    the tests and the benchmark."""
    truths = rng.choice(len(shares), size=n, p=np.asarray(shares, dtype=float))
    reports = mechanism.perturb(truths, rng)
    return [int(c) for c in mechanism.support_counts(reports)], n
