"""Simulated respondents, for the demo survey (``surveys.actions.demo``) and the benchmarks.

True answers are drawn from known distributions and randomized with each question's frozen
mechanism by the core's reference randomizer (``Mechanism.perturb``), then stored through
the same write path as a browser's reports (``surveys.actions.submissions.store``), thousands of
respondents per transaction, so that a million take a minute rather than hours.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping

import numpy as np

from surveys import ldp
from surveys.actions.submissions import store, stored_form
from surveys.models import Submission, Survey, design_blocks

BATCH = 5000
"""Respondents written per transaction."""


def load_demo_responses(survey: Survey, n: int, seed: int = 20261127) -> None:
    """Fill the (open) demo survey with ``n`` simulated respondents drawn from the true shares
    stored on its questions (``Question.simulated_truth``, ``Question.simulated_given``);
    ValueError if one has none."""
    questions = list(survey.ordered_questions())
    truth = {q.pk: q.simulated_truth for q in questions if q.simulated_truth is not None}
    given = {q.pk: q.simulated_given for q in questions if q.simulated_given is not None}
    simulate_responses(survey, n, truth, seed, given)


Given = Mapping[str, object]
"""{"question": id, "shares": one distribution per answer of that question}."""


def simulate_responses(
    survey: Survey,
    n: int,
    truth: Mapping[int, list[float]],
    seed: int,
    given: Mapping[int, Given] | None = None,
) -> None:
    """Store ``n`` respondents whose true answers to each question are drawn independently
    from ``truth[question id]`` (a distribution over its k answers; for a check-all question,
    the share who tick each of its k options, each option drawn on its own; for a number
    question, over its k bins, the number uniform on the grid within the bin) or, for the
    questions in ``given``, from ``given[id]["shares"][a]`` where a is the respondent's answer
    to the question ``given[id]["question"]`` (drawn before it: from its truth, or within the
    groups of an earlier question); each randomized with its question's mechanism. The
    survey must be open. Same seed, same reports."""
    if not survey.is_open:
        raise ValueError("Only an open survey can receive responses.")
    given = given or {}
    rng = np.random.default_rng(seed)
    questions = list(survey.ordered_questions())
    values: dict[int, np.ndarray] = {}
    for question in sorted(questions, key=lambda q: q.pk in given):  # groups drawn first
        if question.pk in given:
            condition = given[question.pk]
            shares = np.array([_shares(question, row) for row in condition["shares"]])
            rows = shares[values[condition["question"]]]
        else:
            shares = _shares(question, truth.get(question.pk, ()))
            rows = np.broadcast_to(shares, (n, len(shares)))
        values[question.pk] = _draw(rows, rng, ticks_each=_ticks_each(question))
    store_reports(
        survey, {q.pk: _perturb(q, values[q.pk], rng) for q in questions},
        _draws(survey, questions, n, rng),
    )


def _draws(
    survey: Survey, questions: list, n: int, rng: np.random.Generator
) -> dict[int, np.ndarray] | None:
    """In a survey that asks each respondent a random few: question id -> whether each of
    the n respondents drew it (``ldp.draw_blocks``, as the browser draws), for the questions
    drawn at random; None otherwise."""
    if survey.asked is None:
        return None
    sampled = design_blocks(questions)[1]
    drawn = np.zeros((n, len(sampled)), dtype=bool)
    for respondent in range(n):
        drawn[respondent, ldp.draw_blocks(len(sampled), survey.asked, rng)] = True
    return {q.pk: drawn[:, b] for b, block in enumerate(sampled) for q in block}


def _perturb(question, drawn: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The reports of the answers drawn; for a number question, whose truth is the share of
    respondents in each of its bins, then in each extra answer, a number drawn uniformly from
    the grid of the range within each respondent's bin, or the extra answer drawn."""
    mechanism = question.mechanism()
    if mechanism.encoding != "number":
        return mechanism.perturb(drawn, rng)
    bins = mechanism.bins
    extra = np.where(drawn >= bins, drawn - bins, -1)
    return mechanism.perturb(
        _numbers(question, np.minimum(drawn, bins - 1), rng), rng, extra=extra
    )


def _numbers(question, drawn: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A number drawn uniformly from the grid of the range within each respondent's bin."""
    mechanism = question.mechanism()
    first, after = mechanism.bin_grid()
    if np.any(after <= first):
        raise ValueError(f"A bin of “{question.text}” holds no number of its grid.")
    index = first[drawn] + (rng.random(drawn.size) * (after - first)[drawn]).astype(np.int64)
    return mechanism.low + index / 10**mechanism.decimals


def _ticks_each(question) -> bool:
    """Whether respondents tick any of the question's options (check all that apply) rather
    than give one answer."""
    return question.mechanism().encoding == "sampled"


def _shares(question, shares: object) -> np.ndarray:
    """A question's true shares, checked: a distribution over its k answers, or for a
    check-all question the share who tick each option."""
    k = question.mechanism().k
    found = np.asarray(shares, dtype=float)
    if _ticks_each(question):
        if found.shape != (k,) or found.min() < 0 or found.max() > 1:
            raise ValueError(f"The truth for “{question.text}” must be {k} shares from 0 to 1.")
    elif found.shape != (k,) or not math.isclose(found.sum(), 1) or found.min() < 0:
        raise ValueError(f"The truth for “{question.text}” must be {k} shares adding up to 1.")
    return found


def _draw(shares: np.ndarray, rng: np.random.Generator, ticks_each: bool) -> np.ndarray:
    """True answers, one per row of ``shares`` (n, k): an answer index drawn from the row's
    distribution, or (``ticks_each``: a check-all question) a row of k boxes, each ticked (1)
    with its share, on its own."""
    if ticks_each:
        return (rng.random(shares.shape) < shares).astype(np.int64)
    cumulative = np.cumsum(shares, axis=1)
    return (rng.random((len(shares), 1)) > cumulative[:, :-1]).sum(axis=1)


def store_reports(
    survey: Survey, reports: Mapping[int, np.ndarray],
    draws: Mapping[int, np.ndarray] | None = None,
) -> None:
    """Store one submission per row of ``reports`` (question id -> the n reports of every
    question, as ``Mechanism.perturb`` returns them) through the one write path
    (``surveys.actions.submissions.store``), ``BATCH`` respondents per transaction. Every
    question of the survey needs its n reports; in a survey that asks each respondent a
    random few, ``draws`` says which respondents drew each question drawn at random (the
    others' reports are stored as null, not drawn)."""
    questions = list(survey.ordered_questions())
    sizes = {len(reports.get(question.pk, ())) for question in questions}
    if len(sizes) != 1:
        raise ValueError("Every question needs the same number of reports.")
    n = sizes.pop()
    mechanisms = {question.pk: question.mechanism() for question in questions}
    draws = draws or {}
    for start in range(0, n, BATCH):
        size = min(BATCH, n - start)
        batch = {pk: reports[pk][start : start + BATCH] for pk in mechanisms}
        asked = {pk: draws[pk][start : start + BATCH] if pk in draws else np.ones(size, bool)
                 for pk in mechanisms}
        columns = {pk: rows.tolist() for pk, rows in batch.items()}
        submissions = [
            Submission(
                survey=survey,
                idempotency_key=secrets.token_urlsafe(24),
                wording=survey.wording_version,  # simulated respondents see today's
                reports=stored_form(
                    {pk: mechanisms[pk].validate_report(column[i]) if asked[pk][i] else None
                     for pk, column in columns.items()}
                ),
            )
            for i in range(size)
        ]
        support = {
            (pk, index): count
            for pk, rows in batch.items()
            for index, count in enumerate(mechanisms[pk].support_counts(rows[asked[pk]]).tolist())
        }
        store(survey, submissions, support,
              drawn={pk: int(asked[pk].sum()) for pk in draws})
    survey.refresh_from_db(fields=["response_count"])
