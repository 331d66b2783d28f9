"""Simulated respondents, for the demo survey and the benchmarks.

True answers are drawn from known distributions and randomized with each question's frozen
mechanism by the core's reference randomizer (``Mechanism.perturb``), then stored exactly as
``surveys.submissions.submission_create`` stores a browser's reports: the same stored form,
tallies raised by each report's support, and ``response_count`` raised by one per respondent,
all in one transaction. Only the bulk writing differs, so that thousands (or, for the
benchmark, a million) of respondents take seconds rather than minutes.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping

import numpy as np
from django.db import transaction
from django.db.models import F

from surveys.models import Submission, Survey, Tally
from surveys.submissions import stored_form

DEMO_TITLE = "Cannabis use (demo)"
DEMO_USERNAME = "researcher"
DEMO_TRUTH: tuple[tuple[float, ...], ...] = (
    (0.75, 0.25),  # Used cannabis in the past 12 months? No / Yes
    (0.70, 0.10, 0.06, 0.05, 0.04, 0.05),  # How often? Never ... Daily, Prefer not to say
)
"""The true distribution of each demo question, by position. Only the demo knows its truth:
the dashboard shows it beside the estimates so that people trying the site can judge them."""

BATCH = 5000
"""Respondents written per round of bulk inserts."""


def demo_truth(survey: Survey) -> dict[int, list[float]] | None:
    """Question id -> true distribution for the demo survey (titled ``DEMO_TITLE``, owned by
    ``DEMO_USERNAME``, with questions shaped like ``DEMO_TRUTH``); None for any other."""
    if survey.title != DEMO_TITLE or survey.owner.get_username() != DEMO_USERNAME:
        return None
    questions = list(survey.ordered_questions())
    if [len(t) for t in DEMO_TRUTH] != [q.mechanism().k for q in questions]:
        return None
    return {question.pk: list(t) for question, t in zip(questions, DEMO_TRUTH, strict=True)}


def load_demo_responses(survey: Survey, n: int = 3000, seed: int = 20240917) -> None:
    """Fill the (open) demo survey with ``n`` simulated respondents drawn from ``DEMO_TRUTH``."""
    truth = demo_truth(survey)
    if truth is None:
        raise ValueError(
            f"The demo survey must be titled {DEMO_TITLE!r}, be owned by {DEMO_USERNAME!r} and "
            f"have questions with {[len(t) for t in DEMO_TRUTH]} answers."
        )
    simulate_responses(survey, n, truth, seed)


def simulate_responses(
    survey: Survey, n: int, truth: Mapping[int, list[float]], seed: int
) -> None:
    """Store ``n`` respondents whose true answers to each question are drawn independently
    from ``truth[question id]`` (a distribution over its k answers), randomized with the
    question's mechanism. The survey must be open. Same seed, same reports."""
    if not survey.is_open:
        raise ValueError("Only an open survey can receive responses.")
    rng = np.random.default_rng(seed)
    reports = {}
    for question in survey.ordered_questions():
        mechanism = question.mechanism()
        distribution = np.asarray(truth.get(question.pk, ()), dtype=float)
        if distribution.shape != (mechanism.k,) or not math.isclose(distribution.sum(), 1) or (
            distribution.min() < 0
        ):
            raise ValueError(
                f"The truth for “{question.text}” must be {mechanism.k} shares adding up to 1."
            )
        values = rng.choice(mechanism.k, size=n, p=distribution)
        reports[question.pk] = mechanism.perturb(values, rng)
    store_reports(survey, reports)


def store_reports(survey: Survey, reports: Mapping[int, np.ndarray]) -> None:
    """Store one submission per row of ``reports`` (question id -> the n reports of every
    question, as ``Mechanism.perturb`` returns them), with tallies and response count, in one
    transaction. Every question of the survey needs its n reports."""
    questions = list(survey.ordered_questions())
    sizes = {len(reports.get(question.pk, ())) for question in questions}
    if len(sizes) != 1:
        raise ValueError("Every question needs the same number of reports.")
    n = sizes.pop()
    mechanisms = {question.pk: question.mechanism() for question in questions}
    with transaction.atomic():
        for start in range(0, n, BATCH):
            columns = {
                question.pk: reports[question.pk][start : start + BATCH].tolist()
                for question in questions
            }
            Submission.objects.bulk_create(
                Submission(
                    survey=survey,
                    idempotency_key=secrets.token_urlsafe(24),
                    reports=stored_form(
                        {pk: mechanisms[pk].validate_report(column[i])
                         for pk, column in columns.items()}
                    ),
                )
                for i in range(min(BATCH, n - start))
            )
        for question in questions:
            support = mechanisms[question.pk].support_counts(reports[question.pk])
            for index, count in enumerate(support.tolist()):
                Tally.objects.filter(question=question, index=index).update(
                    count=F("count") + count
                )
        Survey.objects.filter(pk=survey.pk).update(response_count=F("response_count") + n)
    survey.refresh_from_db(fields=["response_count"])
