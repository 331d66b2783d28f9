"""Validation anchors (surveys.ldp.anchors): the exact test of the reports against a known
share, and the share of careless respondents it implies.

Fixed seeds; tolerances from sampling theory: a rate estimated from R studies has binomial
standard error sqrt(r (1 - r) / R)."""

import math

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp.anchors import check_anchor

STUDIES = 400


def studies(epsilon: float, n: int, true_yes: float, seed: int):
    """The estimates of STUDIES studies of a yes/no question whose reports are drawn from
    their exact law (Binomial(n, P(report yes)))."""
    mechanism = ldp.randomized_response(epsilon)
    rng = np.random.default_rng(seed)
    report_yes = (mechanism.matrix() @ [1 - true_yes, true_yes])[1]
    for yes in rng.binomial(n, report_yes, size=STUDIES):
        yield mechanism, mechanism.estimate([n - yes, yes], n)


def tolerance(rate: float) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / STUDIES)


@pytest.mark.parametrize(("epsilon", "n", "known"), [(1.0, 500, 0.0), (2.0, 2000, 0.3)])
def test_when_the_answers_are_true_the_test_rejects_at_most_5_percent(epsilon, n, known):
    """Respondents answer truly and the known share is the truth: the exact test (which is
    conservative) rejects at 5% in at most 5% of studies, and the interval agrees with the
    known share in about 95%."""
    checks = [check_anchor(m, e, 1, known) for m, e in studies(epsilon, n, known, seed=7)]
    rejected = np.mean([check.p_value < 0.05 for check in checks])
    agrees = np.mean([check.agrees for check in checks])
    assert rejected <= 0.05 + tolerance(0.05)
    assert agrees >= 0.93 - tolerance(0.95)


def test_it_estimates_the_share_of_careless_respondents():
    """10% answer at random (half of them "yes") and the known share is 0: the reports look
    like a true share of 5%. The careless estimate is about 0.10 on average (within 5
    standard errors of the mean over studies), its interval covers 0.10 in about 95% of
    studies, and the test finds the disagreement in most of them at n = 5,000."""
    careless = 0.10
    checks = [check_anchor(m, e, 1, 0.0)
              for m, e in studies(2.0, 5000, careless / 2, seed=11)]
    estimates = np.array([check.careless for check in checks])
    assert abs(estimates.mean() - careless) <= 5 * estimates.std() / math.sqrt(STUDIES)
    covered = np.mean([c.careless_low <= careless <= c.careless_high for c in checks])
    assert covered >= 0.93 - tolerance(0.95)
    assert np.mean([check.p_value < 0.05 for check in checks]) > 0.9


def test_an_even_split_cannot_reveal_careless_answers_and_no_reports_say_nothing():
    mechanism = ldp.randomized_response(1.0)
    even = check_anchor(mechanism, mechanism.estimate([40, 60], 100), 1, 0.5)
    assert math.isnan(even.careless)  # random answers look like the truth
    assert 0 <= even.p_value <= 1
    empty = check_anchor(mechanism, mechanism.estimate([0, 0], 0), 1, 0.0).to_dict()
    assert empty == {"known": 0.0, "p_value": None, "agrees": True, "careless": None,
                     "careless_low": None, "careless_high": None}


def test_a_known_share_outside_0_to_1_is_refused():
    mechanism = ldp.randomized_response(1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        check_anchor(mechanism, mechanism.estimate([50, 50], 100), 1, 1.5)
