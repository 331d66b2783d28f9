"""Logistic regression with a randomized outcome and randomized predictors
(surveys.ldp.regression): the likelihood's gradient, recovery of the truth, intervals,
likelihood-ratio tests, predicted shares, and the questions it refuses.

Statistical tests use fixed seeds and tolerances from sampling theory, stated at each test.
"Expected counts" are the reports' law times n, without sampling noise: on them the maximum
likelihood estimate is the truth itself (the model holds and is identified), so those tests
only allow for the optimizer's precision.
"""

import math

import numpy as np
import pytest
from scipy import special, stats

from surveys import ldp
from surveys.ldp import regression
from surveys.ldp.regression import Term

SCORES = (1.0, 2.0, 3.0, 4.0, 5.0)
YEAR = np.array([0.30, 0.27, 0.23, 0.20])
YES_BY_YEAR = np.array([0.30, 0.40, 0.50, 0.60])


def joint_of_predictors(rating: bool) -> np.ndarray:
    """w[year, yes(, rating)]: dependent predictors (the yes share rises with the year, the
    rating depends on the yes answer; the rating has a sixth answer "No answer")."""
    pair = YEAR[:, None] * np.stack([1 - YES_BY_YEAR, YES_BY_YEAR], axis=1)
    if not rating:
        return pair
    by_yes = np.array([[0.10, 0.20, 0.30, 0.22, 0.13, 0.05], [0.24, 0.28, 0.24, 0.11, 0.07, 0.06]])
    return pair[:, :, None] * by_yes[None, :, :]


def true_table(beta, rating: bool, no_answer: float = 0.0) -> np.ndarray:
    """pi[y, year, yes(, rating)] under the logistic model with coefficients ``beta`` (intercept,
    year 2..4, yes, and with ``rating`` its score's slope and its "No answer" dummy), and a
    share ``no_answer`` of "No answer" to the outcome rising with the year."""
    w = joint_of_predictors(rating)
    design = np.zeros((*w.shape, len(beta)))
    design[..., 0] = 1.0
    for year in (1, 2, 3):
        design[year, ..., year] = 1.0
    design[:, 1, ..., 4] = 1.0
    if rating:
        design[..., :5, 5] = np.array(SCORES)
        design[..., 5, 6] = 1.0
    share = special.expit(design @ np.asarray(beta))
    if not no_answer:
        return np.stack([w * (1 - share), w * share])
    extra = no_answer * np.array([1.5, 1.0, 0.8, 0.7]).reshape(4, *[1] * (w.ndim - 1))
    return np.stack([w * (1 - extra) * (1 - share), w * (1 - extra) * share, w * extra])


def terms(epsilon: float, rating: bool, no_answer: bool = False):
    outcome = Term(ldp.grr(epsilon, 3) if no_answer else ldp.randomized_response(epsilon), 2)
    predictors = [Term(ldp.grr(epsilon, 4), 4), Term(ldp.randomized_response(epsilon), 2)]
    if rating:
        predictors.append(Term(ldp.grr(epsilon, 6), 5, SCORES))
    return outcome, predictors


def expected_counts(outcome, predictors, table, n) -> np.ndarray:
    """n times the reports' law: each question's matrix applied along its axis."""
    law = np.asarray(table, dtype=float)
    for axis, term in enumerate((outcome, *predictors)):
        law = np.moveaxis(np.tensordot(term.mechanism.matrix(), law, axes=(1, axis)), 0, axis)
    return n * law


BETA_PAIR = [-0.8, 0.3, 0.6, 0.9, 0.0]
BETA_RATING = [0.1, 0.3, 0.6, 0.9, 0.0, -0.3, -0.5]


@pytest.mark.parametrize("rating, no_answer", [(False, False), (True, True)],
                         ids=["two predictors", "rating and an outcome with No answer"])
def test_the_gradient_is_the_likelihoods_derivative(rating, no_answer):
    """At a random point, the exact gradient equals central differences of the loss (step
    1e-6: their error is about 1e-12 / 1e-6 from rounding plus 1e-12 from the step)."""
    outcome, predictors = terms(1.5, rating, no_answer)
    table = true_table(BETA_RATING if rating else BETA_PAIR, rating, 0.1 if no_answer else 0)
    counts = regression.simulate_counts(
        outcome, predictors, table, 3000, np.random.default_rng(2)
    )
    model = regression.Model(outcome, predictors, counts)
    theta = np.random.default_rng(3).normal(0, 1, model.size)
    _, gradient = model.value(theta)
    step = 1e-6
    numeric = np.array([
        (model.value(theta + e)[0] - model.value(theta - e)[0]) / (2 * step)
        for e in np.eye(model.size) * step
    ])
    assert model.extras == (1 if no_answer else 0)
    assert np.allclose(gradient, numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("rating, no_answer", [(False, False), (True, True)],
                         ids=["two predictors", "rating and an outcome with No answer"])
def test_on_expected_counts_the_estimate_is_the_truth(rating, no_answer):
    """Without sampling noise: every coefficient within 1e-3 of the truth, the test of the
    predictor without effect (yes) has statistic ~0 (the restricted model is the truth too),
    the others are large, and the predicted shares are the true ones."""
    beta = BETA_RATING if rating else BETA_PAIR
    outcome, predictors = terms(2.0, rating, no_answer)
    table = true_table(beta, rating, 0.1 if no_answer else 0)
    found = regression.fit(
        outcome, predictors, expected_counts(outcome, predictors, table, 100_000)
    )
    assert [c.predictor for c in found.coefficients] == [-1, 0, 0, 0, 1] + [2, 2] * rating
    kinds = [(c.kind, c.category) for c in found.coefficients]
    assert kinds[:5] == [("intercept", -1), ("answer", 1), ("answer", 2), ("answer", 3),
                         ("answer", 1)]
    if rating:
        assert kinds[5:] == [("score", -1), ("answer", 5)]
    assert np.allclose([c.estimate for c in found.coefficients], beta, atol=1e-3)
    year, yes, *rest = found.tests
    assert year.df == 3 and yes.df == 1
    assert yes.statistic < 1e-3 and yes.p_value > 0.97
    assert year.statistic > 50 and all(t.statistic > 50 for t in rest)
    assert found.answered == pytest.approx(table[:2].sum(), abs=1e-4)
    w = table.sum(axis=0)
    given = table[1] / table[:2].sum(axis=0)  # P(Yes | answered, cell)
    logits = special.logit(given)
    for p in found.predictions:  # set predictor j to c, the others at their distribution
        others = w.sum(axis=p.predictor)
        cut = np.take(logits, p.category, axis=p.predictor)
        assert p.share == pytest.approx(float(others.ravel() @ special.expit(cut.ravel())),
                                        abs=1e-4)
        axes = tuple(a for a in range(w.ndim) if a != p.predictor)
        assert p.group_share == pytest.approx(w.sum(axis=axes)[p.category], abs=1e-4)
        assert p.ci_low < p.share < p.ci_high


def test_at_large_n_the_estimates_recover_the_truth_and_intervals_are_wald_like():
    """One study of 200,000 at epsilon 2 with a rating: every coefficient within 5 standard
    errors of its truth (probability of failing under 1e-5 for all seven together); each
    profile interval contains its estimate, and at this size the likelihood is nearly
    quadratic, so its ends are within half a standard error of the Wald ones."""
    outcome, predictors = terms(2.0, rating=True)
    table = true_table(BETA_RATING, rating=True)
    counts = regression.simulate_counts(
        outcome, predictors, table, 200_000, np.random.default_rng(5)
    )
    found = regression.fit(outcome, predictors, counts)
    assert found.n == 200_000
    for c, truth in zip(found.coefficients, BETA_RATING, strict=True):
        assert abs(c.estimate - truth) <= 5 * c.std_error, (c, truth)
        assert c.ci_low < c.estimate < c.ci_high
        assert abs(c.ci_low - (c.estimate - 1.96 * c.std_error)) < 0.5 * c.std_error, c
        assert abs(c.ci_high - (c.estimate + 1.96 * c.std_error)) < 0.5 * c.std_error, c
    year, yes, rating = found.tests
    assert yes.p_value > 1e-3  # no effect: rejected at 0.1% with probability 0.001
    assert year.p_value < 1e-6 and rating.p_value < 1e-6


def test_the_likelihood_ratio_test_has_its_size_under_no_effect():
    """80 studies of 20,000 at epsilon 2 without any effect of "yes": its rejection rate at
    5% is within 3 binomial standard errors (3 * 0.024) of 5%, and a strong effect of the
    year is rejected in every study (at these sizes its power is 1 to many digits). The size
    and power over many settings at 400 studies each are bench/bench_regression.py's
    (docs/ldp.md, regression, "Measured")."""
    outcome, predictors = terms(2.0, rating=False)
    table = true_table(BETA_PAIR, rating=False)
    rng = np.random.default_rng(9)
    rejected, studies = 0, 80
    for _ in range(studies):
        counts = regression.simulate_counts(outcome, predictors, table, 20_000, rng)
        found = regression.fit(outcome, predictors, counts, profile=False)
        rejected += found.tests[1].p_value < 0.05
        assert found.tests[0].p_value < 0.05
    assert abs(rejected / studies - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / studies)


def test_without_profiles_the_intervals_are_wald_intervals():
    outcome, predictors = terms(2.0, rating=False)
    counts = regression.simulate_counts(
        outcome, predictors, true_table(BETA_PAIR, False), 5000, np.random.default_rng(4)
    )
    found = regression.fit(outcome, predictors, counts, profile=False)
    for c in found.coefficients:
        assert c.ci_low == pytest.approx(c.estimate - ldp.Z95 * c.std_error)
        assert c.ci_high == pytest.approx(c.estimate + ldp.Z95 * c.std_error)
    assert found.tests[0].p_value == pytest.approx(stats.chi2.sf(found.tests[0].statistic, 3))


def test_simulated_counts_have_one_axis_per_question():
    outcome, predictors = terms(1.0, rating=True, no_answer=True)
    table = true_table(BETA_RATING, rating=True, no_answer=0.1)
    counts = regression.simulate_counts(outcome, predictors, table, 500, np.random.default_rng(1))
    assert counts.shape == (3, 4, 2, 6) and counts.sum() == 500 and counts.min() >= 0


def test_it_refuses_questions_that_cannot_make_a_regression():
    yes_no = Term(ldp.randomized_response(1.0), 2)
    year = Term(ldp.grr(1.0, 4), 4)
    regression.check_terms(yes_no, [year, year, year])
    with pytest.raises(ValueError, match="1 to 3 predictors"):
        regression.check_terms(yes_no, [year] * (regression.MAX_PREDICTORS + 1))
    with pytest.raises(ValueError, match="1 to 3 predictors"):
        regression.check_terms(yes_no, [])
    with pytest.raises(ValueError, match="one category per report"):
        regression.check_terms(yes_no, [Term(ldp.oue(1.0, 4), 4)])
    with pytest.raises(ValueError, match="one category per report"):
        regression.check_terms(Term(ldp.oue(1.0, 2), 2), [year])
    with pytest.raises(ValueError, match="yes/no"):
        regression.check_terms(Term(ldp.grr(1.0, 3), 3), [year])
    with pytest.raises(ValueError, match="yes/no"):
        regression.check_terms(Term(ldp.grr(1.0, 5), 5, SCORES), [year])
    regression.check_terms(Term(ldp.grr(1.0, 3), 2), [year])  # yes/no with "No answer"
    many = Term(ldp.grr(1.0, 11), 11)
    with pytest.raises(ValueError, match="more than 1000 combinations"):
        regression.check_terms(yes_no, [many, Term(ldp.grr(1.0, 10), 10), many])
    with pytest.raises(ValueError, match="one axis per question"):
        regression.fit(yes_no, [year], np.ones((2, 3)))
    with pytest.raises(ValueError, match="no reports"):
        regression.fit(yes_no, [year], np.zeros((2, 4)))


def test_a_rating_enters_as_its_score_plus_a_dummy_per_extra():
    rating = Term(ldp.grr(1.0, 6), 5, SCORES)
    assert rating.columns() == [("score", -1), ("answer", 5)]
    assert rating.design().tolist() == [[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [0, 1]]
    year = Term(ldp.grr(1.0, 4), 4)
    assert year.columns() == [("answer", 1), ("answer", 2), ("answer", 3)]
    assert year.design().tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]


def test_with_little_information_the_intervals_are_unbounded():
    """200 respondents at epsilon 0.5, expected counts: the maximum is still the truth, but
    the likelihood is so flat that no odds ratio of the predictors can be ruled out."""
    outcome, predictors = terms(0.5, rating=False)
    table = true_table(BETA_PAIR, rating=False)
    found = regression.fit(outcome, predictors, expected_counts(outcome, predictors, table, 200))
    assert np.allclose([c.estimate for c in found.coefficients], BETA_PAIR, atol=1e-3)
    for c in found.coefficients[1:]:
        assert c.ci_low == -math.inf and c.ci_high == math.inf


def test_where_the_maximum_is_at_infinity_no_interval_or_test_is_given():
    """33 respondents at epsilon 1 whose reports fit best with the predictor's odds ratio at
    infinity (like separation in ordinary logistic regression): the chi-square calibration
    fails there, so every interval is unbounded and no test is given."""
    question = Term(ldp.randomized_response(1.0), 2)
    found = regression.fit(question, [question], np.array([[15, 6], [7, 5]]))
    assert not found.identified
    assert found.coefficients[1].estimate == pytest.approx(regression.UNBOUNDED)
    for c in found.coefficients:
        assert (c.ci_low, c.ci_high, c.std_error) == (-math.inf, math.inf, math.inf)
    (test,) = found.tests
    assert math.isnan(test.statistic) and math.isnan(test.p_value) and test.df == 1
    assert [(p.ci_low, p.ci_high) for p in found.predictions] == [(0.0, 1.0)] * 2
    bounded = regression.fit(question, [question], np.array([[15, 10], [10, 15]]))
    assert bounded.identified and math.isfinite(bounded.tests[0].p_value)


def test_the_profile_search_finds_where_the_signed_root_reaches_its_bound():
    """On a linear signed root r(d) = d / 2 the end is 2 * 1.96 (to the search's 1e-3 in r);
    on a curved one, where it crosses; never reached before the limit, it is unbounded."""
    z = math.sqrt(regression.CHI2_95)
    assert regression.crossing(lambda d: d / 2 - z, 1.0, 30.0) == pytest.approx(2 * z, abs=2e-3)
    curved = regression.crossing(lambda d: math.sqrt(d) - z, 0.1, 30.0)
    assert curved == pytest.approx(z**2, abs=2 * z * 1e-3 * 1.01)
    assert regression.crossing(lambda d: d / 100 - z, 1.0, 30.0) == math.inf
    assert regression.crossing(lambda d: -z, 1.0, 30.0) == math.inf
    assert regression.crossing(lambda d: d - z, 1.0, 0.0) == math.inf  # already at the bound


@pytest.mark.parametrize("jump", [30.0, 12.0])
def test_a_worse_local_maximum_beyond_a_jump_is_not_an_end(jump):
    """A fit started far from its point (more than 1 away, past ``jump``) lands in a worse
    local maximum, above the cut-off; started next to it, it finds the profile's own, which
    stays below: the search must not stop at the jump (it used to, at the bound, 30)."""
    z = math.sqrt(regression.CHI2_95)
    path = [0.0]  # the points found below the cut-off, which the fits start from

    def excess(d: float) -> float:
        start = max(k for k in path if k < d)
        value = 1.0 if d >= jump and d - start > 1.0 else 1.5 - z
        if value < 0:
            path.append(d)
        return value

    assert regression.crossing(excess, 3.0, 30.0) == math.inf


def test_a_profile_that_levels_off_below_the_cut_off_is_unbounded():
    """The two-predictor truth at epsilon 1 with 2,000 respondents (the benchmark's setting;
    seed 7): the profile of the second year's coefficient rises to r = 1.13 by 10 and stays
    there, below 1.96, however large the coefficient (the other coefficients compensate it),
    so its interval is unbounded above. Fits started far out land in a worse local maximum
    (r 3.0), and with the other coefficients held within +-30, those that compensate it stop
    there first; the search used to end the interval at 29.99999999999889."""
    outcome, predictors = terms(1.0, rating=False)
    table = true_table(BETA_PAIR, rating=False)
    counts = regression.simulate_counts(outcome, predictors, table, 2000,
                                        np.random.default_rng(7))
    found = regression.fit(outcome, predictors, counts)
    year_2 = found.coefficients[1]
    assert found.identified and year_2.ci_high == math.inf
    assert year_2.ci_low == pytest.approx(0.416, abs=0.01)  # a bounded end stays where it was
