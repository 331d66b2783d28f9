"""Linear regression of a rating score or a number when the outcome and every predictor are
randomized.

Pure numpy and scipy; no Django. Guide: docs/ldp.md, "Regression". Terms, designs and limits
as in ``surveys.ldp.regression`` (its logistic twin for yes/no outcomes).

The outcome Y is a rating scale (its own answers scored 1..m) or a number (its value), and
its extra answers ("No answer", "Not asked") are set aside. The coefficients are those of
least squares of the value y on the design among those who answered, in the population:

    beta = A^-1 b,  A = E[answered D(x) D(x)^T],  b = E[answered y D(x)],

over the true answers (y, x). No model of the value's distribution is assumed: beta is what
ordinary least squares would estimate if the true answers were seen. A and b are means of
functions of the true answers that are linear in each question's answer, so they are
estimated without bias from the reports: each outcome report y carries alpha[y] and
value[y], whose means are "answered" and "answered times the value" (``outcome_values``),
and each combination x of the predictors' reports carries column x of S_X^-1 (S_X: the
Kronecker product of the predictors' matrices, reports given truths), so report (y, x)
contributes A_r = alpha[y] P[x] and b_r = value[y] Q[x] with P[x] = sum_c S_X^-1[c, x]
D(c) D(c)^T and Q[x] = sum_c S_X^-1[c, x] D(c). beta_hat = A_hat^-1 b_hat is a smooth
function of report means, so its covariance is the sandwich (1/n) sum_r lambda_r IF_r IF_r^T
(lambda: the reports' shares), with the influence of report r

    IF_r = A_hat^-1 (b_r - A_r beta_hat) = value[y] u[x] - alpha[y] w[x],
    u = A_hat^-1 Q,  w = A_hat^-1 P beta_hat.

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

from .mechanisms import randomized_response
from .numbers import NumberWindow
from .planning import Z95
from .regression import Coefficient, Prediction, PredictorTest, Term, check_terms
from .words import gettext_noop

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
    if outcome.scores is None and not isinstance(outcome.mechanism, NumberWindow):
        raise ValueError("the outcome of a linear regression must be a rating scale or a number")
    check_terms(Term(randomized_response(1.0), 2), predictors)  # the predictors' checks


def outcome_values(outcome: Term) -> tuple[np.ndarray, np.ndarray]:
    """Per report of the outcome, (alpha, beta): values whose means are, for a respondent
    who answered with value y, 1 and y, and for one who did not, 0 and 0. For a rating
    scale, S^-T applied to "answered" and to the score; for a number, its mechanism's
    unbiased values (``numbers``: a and the position v, in the question's unit)."""
    mechanism = outcome.mechanism
    if isinstance(mechanism, NumberWindow):
        return mechanism.answered_values(), mechanism.unbiased_values()
    inverse = np.linalg.inv(mechanism.matrix())
    answered = np.zeros(mechanism.k)
    answered[: outcome.answers] = 1.0
    score = np.zeros(mechanism.k)
    score[: outcome.answers] = outcome.scores
    return inverse.T @ answered, inverse.T @ score


def report_size(term: Term) -> int:
    """How many different reports the question's mechanism sends (an axis of the counts)."""
    mechanism = term.mechanism
    return mechanism.outputs if isinstance(mechanism, NumberWindow) else mechanism.k


def fit(outcome: Term, predictors: Sequence[Term], counts: np.ndarray) -> LinearRegression:
    """The linear regression of ``outcome``'s score (or number) on ``predictors`` from the
    report counts ``counts`` (shape (outcome's reports, k_1, ..., k_p): respondents per
    combination of reports)."""
    check_linear_terms(outcome, predictors)
    shape = tuple(t.mechanism.k for t in predictors)
    counts = np.asarray(counts, dtype=float)
    if counts.shape != (report_size(outcome), *shape):
        raise ValueError("counts must have one axis per question, one entry per report")
    n = float(counts.sum())
    if n <= 0:
        raise ValueError("no reports")
    inverses = [np.linalg.inv(t.mechanism.matrix()) for t in predictors]
    design = design_matrix(predictors, shape)  # cells x p
    cells, p = design.shape
    alpha, value = outcome_values(outcome)
    # Report (y, x) stands for alpha[y] (answered) and value[y] (answered times the value)
    # times column x of the predictors' S^-1: A_r = alpha[y] P[x], b_r = value[y] Q[x].
    outer = np.einsum("ci,cj->cij", design, design).reshape(*shape, p * p)
    p_x = _weigh(inverses, outer).reshape(-1, p, p)
    q_x = _weigh(inverses, design.reshape(*shape, p)).reshape(-1, p)
    share = counts.reshape(len(alpha), -1) / n  # outcome report x predictors' reports
    a = np.einsum("x,xij->ij", alpha @ share, p_x)
    beta = np.linalg.solve(a, (value @ share) @ q_x)
    # Influence of report (y, x): A^-1 (b_r - A_r beta) = value[y] u[x] - alpha[y] w[x].
    u = np.linalg.solve(a, q_x.T).T
    w = np.linalg.solve(a, (p_x @ beta).T).T
    moments = {
        "uu": (value**2) @ share, "uw": (value * alpha) @ share, "ww": (alpha**2) @ share,
    }
    covariance = (
        np.einsum("x,xi,xj->ij", moments["uu"], u, u)
        - np.einsum("x,xi,xj->ij", moments["uw"], u, w)
        - np.einsum("x,xi,xj->ij", moments["uw"], w, u)
        + np.einsum("x,xi,xj->ij", moments["ww"], w, w)
    ) / n  # the influence has mean 0 at beta_hat
    se = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    names = [(-1, "intercept", -1)] + [
        (j, kind, c) for j, term in enumerate(predictors) for kind, c in term.columns()
    ]
    coefficients = [
        Coefficient(j, kind, c, float(beta[i]), float(beta[i] - Z95 * se[i]),
                    float(beta[i] + Z95 * se[i]), float(se[i]))
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
    # The predictors' distribution among those who answered, and among everyone.
    answered_cells = _weigh(inverses, (alpha @ share).reshape(shape), False).ravel()
    all_cells = _weigh(inverses, share.sum(axis=0).reshape(shape), False).ravel()
    influence = (value[:, None, None] * u[None] - alpha[:, None, None] * w[None]).reshape(-1, p)

    def per_report(values: np.ndarray) -> np.ndarray:
        """sum_c values[c] times report r's weight on cell c among those who answered."""
        return np.outer(alpha, _weigh(inverses, values.reshape(shape)).ravel()).ravel()

    predictions = _predictions(
        predictors, shape, design, beta, influence, share.ravel(), n,
        answered_cells, all_cells, per_report,
    )
    return LinearRegression(int(n), coefficients, tests, predictions,
                            float(answered_cells.sum()))


def design_matrix(predictors: Sequence[Term], shape: tuple[int, ...]) -> np.ndarray:
    """The regression's design: one row per combination of the predictors' answers (``shape``:
    their numbers of categories, in C order), an intercept column then each predictor's
    columns (``Term.design``)."""
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
                j, c, mu, mu - Z95 * se, mu + Z95 * se, float(group_shares[c])
            ))
    return predictions
