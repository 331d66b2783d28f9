"""A yes/no question explained by up to three others: logistic regression where the outcome
and the predictors are all randomized (mathematics in ``surveys.ldp.regression``).

The database counts the submissions per combination of the questions' reports
(``ReportOf``, one grouped statement: no submission's JSON is loaded in Python), and the
fit runs on those counts. Cached under the results snapshot, like breakdowns: a new response
or a new wording makes a new key.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from django.core.cache import cache
from django.db.models import Count
from django.utils.translation import gettext

from surveys.helpers import numbers
from surveys.kinds.yesno import YES_NO
from surveys.ldp import regression
from surveys.models import Question, Survey
from surveys.queries.breakdowns import SIGNIFICANCE, ReportOf
from surveys.queries.contracts import (
    RegressionCoefficient,
    RegressionPrediction,
    RegressionPredictor,
    RegressionResults,
)
from surveys.queries.results import CACHE_SECONDS, snapshot


def term(question: Question, role: str = "predictor") -> regression.Term:
    """The question as a term of a regression: a rating scale as its score (points 1..m)."""
    mechanism = question.mechanism()
    answers = len(question.labels())
    scored = role == "predictor" and question.question_kind.scored
    return regression.Term(mechanism, answers, list(range(1, answers + 1)) if scored else None)


def outcome_problem(outcome: Question) -> str | None:
    """Why this question cannot be explained by others, in a sentence, or None."""
    if outcome.question_kind is not YES_NO:
        return gettext("Only a yes/no question can be explained by others.")
    return None


def problem(outcome: Question, predictors: Sequence[Question]) -> str | None:
    """Why these questions cannot make a regression, in a sentence, or None."""
    if outcome_problem(outcome):
        return outcome_problem(outcome)
    if not predictors:
        return gettext("Choose at least one question to explain it by.")
    if len(predictors) > regression.MAX_PREDICTORS:
        return gettext("Choose at most %(count)d questions to explain it by.") % {
            "count": regression.MAX_PREDICTORS
        }
    for question in (outcome, *predictors):
        if question.mechanism().encoding not in regression.ONE_HOT:
            return gettext(
                "“%(text)s” has so many answers for its privacy setting that each of its "
                "answers is randomized on its own (unary encoding): it cannot take part in a "
                "regression."
            ) % {"text": question.text}
    try:
        regression.check_terms(term(outcome, "outcome"), [term(q) for q in predictors])
    except ValueError:
        return gettext(
            "These questions have too many combinations of answers together (more than "
            "%(cells)d): choose fewer, or questions with fewer answers."
        ) % {"cells": regression.MAX_CELLS}
    return None


def report_counts(survey: Survey, questions: Sequence[Question]) -> np.ndarray:
    """Respondents per combination of the questions' reports (one axis per question), from
    one grouped statement."""
    names = [f"r{i}" for i in range(len(questions))]
    rows = (
        survey.submissions.order_by()
        .values(**{name: ReportOf(q.pk) for name, q in zip(names, questions, strict=True)})
        .annotate(n=Count("pk"))
        .values_list(*names, "n")
    )
    counts = np.zeros([q.mechanism().k for q in questions], dtype=np.int64)
    for *reports, n in rows:
        if None not in reports:
            counts[tuple(int(r) for r in reports)] += n
    return counts


def regression_results(
    survey: Survey, outcome: Question, predictors: Sequence[Question]
) -> RegressionResults:
    """The regression of ``outcome`` on ``predictors`` (questions of the opened ``survey``
    for which ``problem`` is None), as JSON-ready data, cached like a breakdown."""
    ids = "-".join(str(q.pk) for q in (outcome, *predictors))
    key = f"regression:{snapshot(survey, survey.response_count)}-{ids}"
    computed = cache.get(key)
    if computed is None:
        counts = report_counts(survey, [outcome, *predictors])
        computed = _computed(survey, outcome, predictors, counts)
        computed["snapshot"] = f"{snapshot(survey, computed['n'])}-{ids}"
        cache.set(f"regression:{computed['snapshot']}", computed, CACHE_SECONDS)
    return computed


def _computed(
    survey: Survey, outcome: Question, predictors: Sequence[Question], counts: np.ndarray
) -> RegressionResults:
    positions = {q.pk: position for position, q in enumerate(survey.ordered_questions(), 1)}
    n = int(counts.sum())
    if n == 0:
        fitted = None
    else:
        fitted = regression.fit(term(outcome, "outcome"), [term(q) for q in predictors], counts)

    def coefficients(j: int) -> list[RegressionCoefficient]:
        if fitted is None:
            return []
        labels = predictors[j].all_labels()
        return [
            {
                "kind": c.kind,
                "label": (
                    gettext("Each point more on the scale") if c.kind == "score"
                    else labels[c.category]
                ),
                "index": c.category if c.kind == "answer" else None,
                "log_odds": _number(c.estimate),
                "odds_ratio": _exp(c.estimate),
                "ci_low": _exp(c.ci_low),
                "ci_high": _exp(c.ci_high),
                "std_error": _number(c.std_error),
            }
            for c in fitted.coefficients
            if c.predictor == j
        ]

    def predictions(j: int) -> list[RegressionPrediction]:
        if fitted is None:
            return []
        labels = predictors[j].all_labels()
        return [
            {
                "index": p.category,
                "label": labels[p.category],
                "share": _number(p.share),
                "ci_low": _number(p.ci_low),
                "ci_high": _number(p.ci_high),
                "group_share": _number(p.group_share),
            }
            for p in fitted.predictions
            if p.predictor == j
        ]

    def predictor(j: int, question: Question) -> RegressionPredictor:
        test = fitted.tests[j] if fitted else None
        p_value = test.p_value if test else None
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
            "p_value": _number(p_value) if p_value is not None else None,
            "evidence": bool(p_value is not None and p_value < SIGNIFICANCE),
            "summary": test_summary(p_value, outcome.text) if p_value is not None else "",
            "predictions": predictions(j),
        }

    return {
        "survey": {"id": survey.pk, "title": survey.title, "status": survey.status},
        "n": n,
        "outcome": {
            "id": outcome.pk,
            "position": positions[outcome.pk],
            "text": outcome.text,
            "labels": outcome.all_labels(),
        },
        "answered": _number(fitted.answered) if fitted else None,
        "predictors": [predictor(j, q) for j, q in enumerate(predictors)],
        "method": {
            "name": gettext(regression.METHOD),
            "description": gettext(regression.DESCRIPTION),
        },
        "snapshot": "",
    }


def test_summary(p_value: float, outcome: str) -> str:
    """A predictor's likelihood-ratio test in words."""
    shown = {"p": numbers.p_value(p_value), "outcome": outcome}
    if p_value < SIGNIFICANCE:
        return gettext(
            "Evidence that the share answering Yes to “%(outcome)s” differs between this "
            "question's answers, the others held equal (%(p)s)."
        ) % shown
    return gettext(
        "No evidence that the share answering Yes to “%(outcome)s” differs between this "
        "question's answers, the others held equal (%(p)s). That is not proof that it is "
        "the same: with more responses a difference may show."
    ) % shown


def _number(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _exp(x: float) -> float | None:
    """e^x, None where it is not finite (an interval unbounded on that side)."""
    with np.errstate(over="ignore"):
        return _number(float(np.exp(x)))


def regression_rows(results: RegressionResults) -> Iterator[list[Any]]:
    """The coefficients as CSV rows (header first), one per odds ratio."""
    yield ["predictor_position", "predictor", "term", "answer_index", "odds_ratio", "ci_low",
           "ci_high", "log_odds", "std_error", "p_value"]
    for predictor in results["predictors"]:
        for c in predictor["coefficients"]:
            yield [predictor["position"], predictor["text"], c["kind"], c["index"],
                   c["odds_ratio"], c["ci_low"], c["ci_high"], c["log_odds"], c["std_error"],
                   predictor["p_value"]]
