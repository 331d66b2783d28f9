"""Simulated respondents, for the demo survey and the benchmarks.

True answers are drawn from known distributions and randomized with each question's frozen
mechanism by the core's reference randomizer (``Mechanism.perturb``), then stored through
the same write path as a browser's reports (``surveys.submissions.store``), thousands of
respondents per transaction, so that a million take a minute rather than hours.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping

import numpy as np

from surveys.models import Submission, Survey
from surveys.submissions import store, stored_form

DEMO_TITLE = "Cannabis use (demo)"
DEMO_TRUTH: tuple[tuple[float, ...], ...] = (
    (0.75, 0.25),  # Used cannabis in the past 12 months? No / Yes
    (0.70, 0.10, 0.06, 0.05, 0.04, 0.05),  # How often? Never ... Daily, Prefer not to say
)
"""The true distribution of each demo question, by position, which the demo command stores on
the questions (``Question.simulated_truth``). Only the demo knows its truth: the dashboard
shows it beside the estimates so that people trying the site can judge them."""

BATCH = 5000
"""Respondents written per transaction."""


def load_demo_responses(survey: Survey, n: int = 3000, seed: int = 20240917) -> None:
    """Fill the (open) demo survey with ``n`` simulated respondents drawn from the true shares
    stored on its questions (``Question.simulated_truth``); ValueError if one has none."""
    truth = {
        question.pk: question.simulated_truth
        for question in survey.ordered_questions()
        if question.simulated_truth is not None
    }
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
    question, as ``Mechanism.perturb`` returns them) through the one write path
    (``surveys.submissions.store``), ``BATCH`` respondents per transaction. Every question of
    the survey needs its n reports."""
    questions = list(survey.ordered_questions())
    sizes = {len(reports.get(question.pk, ())) for question in questions}
    if len(sizes) != 1:
        raise ValueError("Every question needs the same number of reports.")
    n = sizes.pop()
    mechanisms = {question.pk: question.mechanism() for question in questions}
    for start in range(0, n, BATCH):
        batch = {pk: reports[pk][start : start + BATCH] for pk in mechanisms}
        columns = {pk: rows.tolist() for pk, rows in batch.items()}
        submissions = [
            Submission(
                survey=survey,
                idempotency_key=secrets.token_urlsafe(24),
                reports=stored_form(
                    {pk: mechanisms[pk].validate_report(column[i])
                     for pk, column in columns.items()}
                ),
            )
            for i in range(len(batch[questions[0].pk]))
        ]
        support = {
            (pk, index): count
            for pk, rows in batch.items()
            for index, count in enumerate(mechanisms[pk].support_counts(rows).tolist())
        }
        store(survey, submissions, support)
    survey.refresh_from_db(fields=["response_count"])
