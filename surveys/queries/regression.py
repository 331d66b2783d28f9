"""A yes/no question or a rating scale explained by up to three others: logistic regression
of a yes/no question (``surveys.ldp.regression``) or linear regression of a rating score
(``surveys.ldp.linear``), where the outcome and the predictors are all randomized.

The database counts the submissions per combination of the questions' reports (one grouped
statement: no submission's JSON is loaded in Python), kept and folded forward as new ones
arrive (``counts.combination_counts``), and the fit runs on those counts. Cached like the
results, and like them recomputed at most once per refresh interval while responses arrive
(``results.cached``); a new wording makes a new snapshot at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from django.utils.translation import gettext

from surveys import ldp
from surveys.helpers import numbers
from surveys.kinds.yesno import YES_NO
from surveys.ldp import linear, regression
from surveys.models import Question, Survey
from surveys.queries.breakdowns import SIGNIFICANCE, number_unit
from surveys.queries.contracts import (
    RegressionCoefficient,
    RegressionPrediction,
    RegressionPredictor,
    RegressionResults,
)
from surveys.queries.counts import combination_counts
from surveys.queries.results import cached


def term(question: Question) -> regression.Term:
    """The question as a term of a regression: a rating scale as its score (points 1..m), a
    number as its value (its mechanism says how)."""
    mechanism = question.mechanism()
    if _is_number(mechanism):
        return regression.Term(mechanism, 0)
    answers = len(question.labels())
    scored = question.question_kind.scored
    return regression.Term(mechanism, answers, list(range(1, answers + 1)) if scored else None)


def model(outcome: Question) -> str:
    """"logistic" for a yes/no question, "linear" for a rating scale's score or a number."""
    return "logistic" if outcome.question_kind is YES_NO else "linear"


def _is_number(mechanism: ldp.Mechanism) -> bool:
    return isinstance(mechanism, ldp.NumberWindow)


def outcome_problem(outcome: Question) -> str | None:
    """Why this question cannot be explained by others, in a sentence, or None."""
    kind = outcome.question_kind
    if kind is not YES_NO and not kind.scored and not _is_number(outcome.mechanism()):
        return gettext(
            "Only a yes/no question, a rating scale or a number can be explained by others."
        )
    return None


def problem(outcome: Question, predictors: Sequence[Question]) -> str | None:
    """Why these questions cannot make a regression, in a sentence, or None. How many may
    explain it, and which kinds, the form checks (``forms.RegressionForm``)."""
    if reason := outcome_problem(outcome):
        return reason
    mechanisms = {q.pk: q.mechanism() for q in (outcome, *predictors)}
    # a number outcome has its own estimator
    explained = [] if _is_number(mechanisms[outcome.pk]) else [outcome]
    for question in (*explained, *predictors):
        if mechanisms[question.pk].encoding not in regression.ONE_HOT:
            return gettext(
                "“%(text)s” has so many answers for its privacy setting that each of its "
                "answers is randomized on its own (unary encoding): it cannot take part in a "
                "regression."
            ) % {"text": question.text}
    if math.prod(mechanisms[q.pk].k for q in predictors) > regression.MAX_CELLS:
        return gettext(
            "These questions have too many combinations of answers together (more than "
            "%(cells)d): choose fewer, or questions with fewer answers."
        ) % {"cells": regression.MAX_CELLS}
    return None


def report_counts(survey: Survey, questions: Sequence[Question]) -> np.ndarray:
    """Respondents per combination of the questions' reports (one axis per question), kept
    up to date by ``counts.combination_counts``."""
    shape = [linear.report_size(term(q)) for q in questions]
    return combination_counts(survey, questions, shape)


def regression_results(
    survey: Survey, outcome: Question, predictors: Sequence[Question]
) -> RegressionResults:
    """The regression of ``outcome`` on ``predictors`` (questions of the opened ``survey``
    for which ``problem`` is None), as JSON-ready data, cached like a breakdown."""
    ids = "-".join(str(q.pk) for q in (outcome, *predictors))
    return cached(
        f"regression-{ids}",
        survey,
        lambda: _computed(
            survey, outcome, predictors, report_counts(survey, [outcome, *predictors])
        ),
    ).value


def _computed(
    survey: Survey, outcome: Question, predictors: Sequence[Question], counts: np.ndarray
) -> RegressionResults:
    positions = {q.pk: position for position, q in enumerate(survey.ordered_questions(), 1)}
    n = int(counts.sum())
    logistic = model(outcome) == "logistic"
    fitted: regression.Regression | linear.LinearRegression | None = None
    if n:
        fit = regression.fit if logistic else linear.fit
        fitted = fit(term(outcome), [term(q) for q in predictors], counts)
    shown = np.exp if logistic else (lambda x: x)  # odds ratios; differences of scores

    def coefficients(j: int) -> list[RegressionCoefficient]:
        labels = predictors[j].all_labels()
        return [
            {
                "kind": c.kind,
                "label": (
                    gettext("Each point more on the scale") if c.kind == "score"
                    else labels[c.category]
                ),
                "index": c.category if c.kind == "answer" else None,
                "estimate": _shown(shown, c.estimate),
                "ci_low": _shown(shown, c.ci_low),
                "ci_high": _shown(shown, c.ci_high),
                "coefficient": _number(c.estimate),
                "std_error": _number(c.std_error),
            }
            for c in (fitted.coefficients if fitted else [])
            if c.predictor == j
        ]

    def predictions(j: int) -> list[RegressionPrediction]:
        labels = predictors[j].all_labels()
        return [
            {
                "index": p.category,
                "label": labels[p.category],
                "estimate": _number(p.share),
                "ci_low": _number(p.ci_low),
                "ci_high": _number(p.ci_high),
                "group_share": _number(p.group_share),
            }
            for p in (fitted.predictions if fitted else [])
            if p.predictor == j
        ]

    def predictor(j: int, question: Question) -> RegressionPredictor:
        test = fitted.tests[j] if fitted else None
        return {
            "id": question.pk,
            "position": positions[question.pk],
            "text": question.text,
            "labels": question.all_labels(),
            "reference": None if question.question_kind.scored else question.all_labels()[0],
            "scored": question.question_kind.scored,
            "coefficients": coefficients(j),
            "statistic": _number(test.statistic) if test else None,
            "df": test.df if test else None,
            "p_value": _number(test.p_value) if test else None,
            "evidence": bool(test and test.p_value < SIGNIFICANCE),
            "summary": test_summary(test.p_value, outcome.text, logistic) if test else "",
            "predictions": predictions(j),
        }

    method = regression if logistic else linear
    # Where the reports cannot bound a coefficient, they say too little and the page says so
    # (docs/ldp.md, "Regression"); where they cannot identify the model, it gives no
    # interval or test at all.
    identified = not logistic or fitted is None or fitted.identified
    weak = logistic and fitted is not None and any(
        not (math.isfinite(c.ci_low) and math.isfinite(c.ci_high))
        for c in fitted.coefficients
    )
    return {
        "survey": {"id": survey.pk, "title": survey.title, "status": survey.status},
        "n": n,
        "model": model(outcome),
        "outcome": {
            "id": outcome.pk,
            "position": positions[outcome.pk],
            "text": outcome.text,
            "labels": outcome.all_labels(),
        },
        "answered": _number(fitted.answered) if fitted else None,
        "weak": weak,
        "identified": identified,
        "number": number_unit(outcome.mechanism()) if _is_number(outcome.mechanism()) else None,
        "predictors": [predictor(j, q) for j, q in enumerate(predictors)],
        "method": {"name": gettext(method.METHOD), "description": gettext(method.DESCRIPTION)},
        "snapshot": "",  # set by ``cached``
    }


def test_summary(p_value: float, outcome: str, logistic: bool) -> str:
    """A predictor's test in words."""
    if math.isnan(p_value):
        return gettext("Not tested: the responses cannot identify this regression yet.")
    shown = {"p": numbers.p_value(p_value), "outcome": outcome}
    if p_value < SIGNIFICANCE:
        return (gettext(
            "Evidence that the share answering Yes to “%(outcome)s” differs between this "
            "question's answers, the others held equal (%(p)s)."
        ) if logistic else gettext(
            "Evidence that the mean of “%(outcome)s” differs between this question's "
            "answers, the others held equal (%(p)s)."
        )) % shown
    return (gettext(
        "No evidence that the share answering Yes to “%(outcome)s” differs between this "
        "question's answers, the others held equal (%(p)s). That is not proof that it is "
        "the same: with more responses a difference may show."
    ) if logistic else gettext(
        "No evidence that the mean of “%(outcome)s” differs between this question's "
        "answers, the others held equal (%(p)s). That is not proof that it is the same: "
        "with more responses a difference may show."
    )) % shown


def _number(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _shown(shown: Callable[[float], float], x: float) -> float | None:
    """The coefficient as the page shows it (an odds ratio: e^x), None where it is not
    finite (an interval unbounded on that side)."""
    with np.errstate(over="ignore"):
        return _number(float(shown(x)))


def regression_rows(results: RegressionResults) -> Iterator[list[Any]]:
    """The coefficients as CSV rows (header first), one per odds ratio or difference."""
    yield ["model", "predictor_position", "predictor", "term", "answer_index", "estimate",
           "ci_low", "ci_high", "coefficient", "std_error", "p_value"]
    for predictor in results["predictors"]:
        for c in predictor["coefficients"]:
            yield [results["model"], predictor["position"], predictor["text"], c["kind"],
                   c["index"], c["estimate"], c["ci_low"], c["ci_high"], c["coefficient"],
                   c["std_error"], predictor["p_value"]]
