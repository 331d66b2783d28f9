"""Linear regression of a randomized rating score on randomized predictors
(``surveys.ldp.linear``): it finds the least-squares coefficients of the true answers, its
standard errors match the spread over repeated studies, and it refuses what it cannot do."""

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp import linear
from surveys.ldp.regression import Term, simulate_counts

OUTCOME = Term(ldp.grr(2.0, 6), 5, [1, 2, 3, 4, 5])  # five points, then "No answer"
PREDICTORS = [Term(ldp.grr(2.0, 3), 3), Term(ldp.randomized_response(2.0), 2)]
CELLS = np.array([[0.25, 0.10], [0.15, 0.15], [0.05, 0.30]])  # dependent predictors


def true_table() -> np.ndarray:
    """Mean score rising with both predictors; 10% refuse in every cell."""
    table = np.zeros((6, 3, 2))
    for i in range(3):
        for j in range(2):
            centre = 1.5 + 0.8 * i + 0.6 * j
            points = np.exp(-0.9 * (np.arange(1, 6) - centre) ** 2)
            table[:5, i, j] = CELLS[i, j] * 0.9 * points / points.sum()
            table[5, i, j] = CELLS[i, j] * 0.1
    return table


def true_coefficients(table: np.ndarray) -> np.ndarray:
    """Least squares of the score on the design among those who answered, true answers."""
    design = linear.design_matrix(PREDICTORS, (3, 2))
    answered = table[:5].reshape(5, -1)
    scores = np.arange(1, 6)
    a = np.einsum("yx,xi,xj->ij", answered, design, design)
    b = np.einsum("yx,y,xi->i", answered, scores, design)
    return np.linalg.solve(a, b)


def test_it_finds_the_true_coefficients_and_the_answered_share():
    table = true_table()
    counts = simulate_counts(OUTCOME, PREDICTORS, table, 200_000, np.random.default_rng(1))
    fitted = linear.fit(OUTCOME, PREDICTORS, counts)
    truth = true_coefficients(table)
    for coefficient, true in zip(fitted.coefficients, truth, strict=True):
        assert abs(coefficient.estimate - true) < 5 * coefficient.std_error
        assert coefficient.ci_low < coefficient.estimate < coefficient.ci_high
    assert abs(fitted.answered - 0.9) < 0.02  # about 5 standard errors at this n
    first, second = fitted.tests
    assert first.df == 2 and second.df == 1
    assert first.p_value < 1e-6 and second.p_value < 1e-6  # strong true effects
    assert sum(p.group_share for p in fitted.predictions if p.predictor == 0) == pytest.approx(1)


def test_its_standard_errors_match_the_spread_over_studies():
    """200 studies of 3,000: the mean reported standard error is within 20% of the
    standard deviation of the estimates (the sample SD itself varies by about 5%)."""
    rng = np.random.default_rng(2)
    table = true_table()
    estimates, errors = [], []
    for _ in range(200):
        fitted = linear.fit(OUTCOME, PREDICTORS, simulate_counts(
            OUTCOME, PREDICTORS, table, 3000, rng))
        estimates.append([c.estimate for c in fitted.coefficients])
        errors.append([c.std_error for c in fitted.coefficients])
    ratio = np.mean(errors, axis=0) / np.std(estimates, axis=0)
    assert np.all(np.abs(ratio - 1) < 0.2), ratio


def test_an_outcome_that_is_not_a_scale_and_unary_predictors_are_refused():
    counts = np.ones((2, 3, 2), dtype=int)
    with pytest.raises(ValueError, match="rating scale"):
        linear.fit(Term(ldp.randomized_response(1.0), 2), PREDICTORS, counts)
    with pytest.raises(ValueError, match="one category per report"):
        linear.fit(OUTCOME, [Term(ldp.oue(1.0, 3), 3)], np.ones((6, 3), dtype=int))


def test_a_number_is_explained_like_a_score_and_refusals_are_set_aside():
    """Days of drinking (0-30, whole numbers, 10% "No answer") rising with year and campus:
    the estimate is within 5 standard errors of least squares on the same respondents'
    true answers, and the share who answered is found."""
    rng = np.random.default_rng(4)
    n = 100_000
    number = ldp.number_window(2.0, 0, 30, extras=1)
    outcome = Term(number, 0)
    year = rng.choice(3, size=n, p=[0.4, 0.35, 0.25])
    campus = (rng.random(n) < 0.3 + 0.2 * year).astype(int)
    days = np.clip(np.round(5 + 4 * year + 3 * campus + rng.normal(0, 4, n)), 0, 30)
    refused = rng.random(n) < 0.1
    reports = (
        number.perturb(days, rng, extra=np.where(refused, 0, -1)),
        PREDICTORS[0].mechanism.perturb(year, rng),
        PREDICTORS[1].mechanism.perturb(campus, rng),
    )
    counts = np.zeros((linear.report_size(outcome), 3, 2), dtype=np.int64)
    np.add.at(counts, reports, 1)
    fitted = linear.fit(outcome, PREDICTORS, counts)
    design = linear.design_matrix(PREDICTORS, (3, 2))[year * 2 + campus][~refused]
    truth = np.linalg.lstsq(design, days[~refused], rcond=None)[0]
    for coefficient, true in zip(fitted.coefficients, truth, strict=True):
        assert abs(coefficient.estimate - true) < 5 * coefficient.std_error
    assert abs(fitted.answered - 0.9) < 0.02
