"""Linear regression of a rating score when the outcome and every predictor are randomized.

Pure numpy and scipy; no Django. Guide: docs/ldp.md, "Regression". Terms, designs and limits
as in ``surveys.ldp.regression`` (its logistic twin for yes/no outcomes).

The outcome Y is a rating scale: its own answers 0..m-1 scored s_0..s_{m-1} (points 1..m),
then its extra answers ("No answer", "Not asked"), which are set aside. The coefficients are
those of least squares of the score on the design among those who answered, in the
population:

    beta = A^-1 b,  A = sum_t [y_t < m] D(x_t) D(x_t)^T pi_t,  b = sum_t [y_t < m] s_y D(x_t) pi_t,

over the cells t = (y, x) of the true table pi. No model of the score's distribution is
assumed: beta is what ordinary least squares would estimate if the true answers were seen.
Both A and b are linear in pi, so they are estimated without bias from the reports: with
S the Kronecker product of the questions' matrices (reports given truths), the unbiased
table is S^-1 lambda (lambda: the reports' shares), and each respondent's report r carries
the weight column S^-1[:, r]. beta_hat = A_hat^-1 b_hat is a smooth function of report
means, so its covariance is the sandwich (1/n) Cov(IF_r), with the influence of report r

    IF_r = A_hat^-1 (b_r - A_r beta_hat)   (A_r, b_r: A and b from the weights S^-1[:, r]).

Intervals are Wald intervals beta_j +- 1.96 se; each predictor's test is the Wald test of
all its coefficients (chi-square with as many degrees of freedom). Predicted mean scores
per group set the predictor to the group and average over the estimated distribution of
the others among those who answered; their standard errors come from their own influence
functions (a ratio of means).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from . import mechanisms as ldp
from ._words import gettext_noop
from .regression import Coefficient, Prediction, PredictorTest, Term, check_terms

METHOD = gettext_noop("Least squares on the unbiased table of true answers")
DESCRIPTION = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Linear regression of the score among those who answered: the least-squares "
    "coefficients computed from the unbiased estimate of the table of true answers (each "
    "question's randomization undone), which is what least squares on the true answers "
    "would estimate. 95% Wald intervals and Wald tests with the sandwich (influence-function) "
    "variance of the estimates; predicted mean scores set one question's answer and average "
    "over the others."
)


@dataclass(frozen=True)
class LinearRegression:
    n: int
    coefficients: list[Coefficient]  # estimate: points of the scale (per point for "score")
    tests: list[PredictorTest]
    predictions: list[Prediction]  # share: the predicted mean score
    answered: float  # estimated share who answered the outcome


def check_linear_terms(outcome: Term, predictors: Sequence[Term]) -> None:
    """ValueError with a reason unless these questions can make a linear regression."""
    if outcome.scores is None:
        raise ValueError("the outcome of a linear regression must be a rating scale")
    check_terms(Term(outcome.mechanism, 2), predictors)  # the predictors' checks


def fit(outcome: Term, predictors: Sequence[Term], counts: np.ndarray) -> LinearRegression:
    """The linear regression of ``outcome``'s score on ``predictors`` from the report counts
    ``counts`` (shape (k_Y, k_1, ..., k_p): respondents per combination of reports)."""
    check_linear_terms(outcome, predictors)
    shape = tuple(t.mechanism.k for t in (outcome, *predictors))
    counts = np.asarray(counts, dtype=float)
    if counts.shape != shape:
        raise ValueError("counts must have one axis per question, one entry per report")
    n = float(counts.sum())
    if n <= 0:
        raise ValueError("no reports")
    inverses = [np.linalg.inv(t.mechanism.matrix()) for t in (outcome, *predictors)]
    design = _design(predictors, shape[1:])  # cells x p
    cells, p = design.shape
    answered = np.zeros(shape[0])
    answered[: outcome.answers] = 1.0
    score = np.zeros(shape[0])
    score[: outcome.answers] = outcome.scores
    # Per true cell t = (y, x): its terms of A (p x p) and b (p), then per report r the
    # same weighted by S^-1[t, r]: one pass of the inverses over the table's axes.
    per_cell_a = answered[:, None, None, None] * np.einsum("xi,xj->xij", design, design)[None]
    per_cell_b = (answered * score)[:, None, None] * design[None]
    a_r = _weigh(inverses, per_cell_a.reshape(shape + (p * p,))).reshape(-1, p, p)
    b_r = _weigh(inverses, np.broadcast_to(per_cell_b, (shape[0], cells, p)).reshape(
        shape + (p,))).reshape(-1, p)
    share = counts.ravel() / n
    a = np.einsum("r,rij->ij", share, a_r)
    b = share @ b_r
    beta = np.linalg.solve(a, b)
    influence = np.linalg.solve(a, (b_r - a_r @ beta).T).T  # reports x p
    covariance = _covariance(influence, share, n)
    se = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    names = [(-1, "intercept", -1)] + [
        (j, kind, c) for j, term in enumerate(predictors) for kind, c in term.columns()
    ]
    coefficients = [
        Coefficient(j, kind, c, float(beta[i]), float(beta[i] - ldp.Z95 * se[i]),
                    float(beta[i] + ldp.Z95 * se[i]), float(se[i]))
        for i, (j, kind, c) in enumerate(names)
    ]
    tests, column = [], 1
    for term in predictors:
        width = len(term.columns())
        block = slice(column, column + width)
        inverse = np.linalg.pinv(covariance[block, block], hermitian=True)
        statistic = float(beta[block] @ inverse @ beta[block])
        tests.append(PredictorTest(statistic, width, float(stats.chi2.sf(statistic, width))))
        column += width
    # The predictors' distribution among those who answered, per report: report (y, x)
    # weighs predictor cell c by alpha[y] S_X^-1[c, x] (alpha: S_Y^-T on "answered"; S_X:
    # the predictors' Kronecker product), and the same without the outcome (alpha = 1).
    alpha = inverses[0].T @ answered
    marginal = share.reshape(shape[0], -1)  # outcome report x predictors' reports
    answered_cells = _weigh(inverses[1:], (alpha @ marginal).reshape(shape[1:]), False).ravel()
    all_cells = _weigh(inverses[1:], marginal.sum(axis=0).reshape(shape[1:]), False).ravel()

    def per_report(values: np.ndarray) -> np.ndarray:
        """sum_c values[c] times report r's weight on cell c among those who answered."""
        return np.outer(alpha, _weigh(inverses[1:], values.reshape(shape[1:])).ravel()).ravel()

    predictions = _predictions(
        predictors, shape[1:], design, beta, influence, share, n,
        answered_cells, all_cells, per_report,
    )
    answered_share = float(answered_cells.sum())
    return LinearRegression(int(n), coefficients, tests, predictions, answered_share)


def _design(predictors: Sequence[Term], shape: tuple[int, ...]) -> np.ndarray:
    cells = math.prod(shape)
    rows = [np.ones((cells, 1))]
    for axis, term in enumerate(predictors):
        index = np.unravel_index(np.arange(cells), shape)[axis]
        rows.append(term.design()[index])
    return np.hstack(rows)


def _weigh(inverses: list[np.ndarray], table: np.ndarray, transpose: bool = True) -> np.ndarray:
    """The inverses (transposed: for each report combination r, sum_t S^-1[t, r] table[t])
    applied along the table's leading axes, one per question."""
    for axis, inverse in enumerate(inverses):
        matrix = inverse.T if transpose else inverse
        table = np.moveaxis(np.tensordot(matrix, table, axes=(1, axis)), 0, axis)
    return table


def _covariance(influence: np.ndarray, share: np.ndarray, n: int) -> np.ndarray:
    """The sandwich: (1/n) times the covariance of the influences over the reports."""
    centred = influence - share @ influence
    return (centred.T * share) @ centred / n


def _predictions(
    predictors: Sequence[Term],
    shape: tuple[int, ...],
    design: np.ndarray,
    beta: np.ndarray,
    influence: np.ndarray,
    share: np.ndarray,
    n: float,
    answered_cells: np.ndarray,
    all_cells: np.ndarray,
    per_report: Callable[[np.ndarray], np.ndarray],
) -> list[Prediction]:
    """Mean score with each predictor set to each answer, averaged over the others among
    those who answered: mu = (sum_x a(x) D_g(x) . beta) / (sum_x a(x)), a ratio of means
    whose influence is (num_r - mu den_r) / den."""
    den, den_r = float(answered_cells.sum()), per_report(np.ones(len(answered_cells)))
    cube = design.reshape(*shape, -1)
    predictions = []
    for j, term in enumerate(predictors):
        others = tuple(i for i in range(len(shape)) if i != j)
        group_shares = all_cells.reshape(shape).sum(axis=others)
        for c in range(term.mechanism.k):
            rows = np.repeat(np.take(cube, [c], axis=j), shape[j], axis=j).reshape(-1, len(beta))
            values = rows @ beta
            mu = float(answered_cells @ values) / den
            num_r = per_report(values) + influence @ (answered_cells @ rows)
            ratio = (num_r - mu * den_r) / den
            centred = ratio - share @ ratio
            se = math.sqrt(max(float(share @ centred**2) / n, 0.0))
            predictions.append(Prediction(
                j, c, mu, mu - ldp.Z95 * se, mu + ldp.Z95 * se, float(group_shares[c])
            ))
    return predictions
