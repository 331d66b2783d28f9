"""Storing a respondent's randomized reports: the one write path for submissions.

Used by the respondent's endpoint, by tests and by demo data. Everything is validated before
anything is written, and everything is written in one transaction, so a submission is stored
completely or not at all. Nothing here records who sent a submission, from where, or at what
time of day; and no report is ever logged.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.db.models import Model
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from surveys import ldp
from surveys.models import Invitation, Report, Submission, Survey, Tally

IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")
PUBLIC_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The alphabet of secrets.token_urlsafe, which makes survey ids and invitation tokens."""

ReportValue = int | tuple[int, ...]


class SubmissionError(Exception):
    """A submission that cannot be stored, with a message for the respondent and the HTTP
    status that fits (400 malformed, 403 invitation needed, 404 not open yet, 410 closed,
    422 idempotency key reused with other reports)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def report_to_text(mechanism: ldp.Mechanism, report: object) -> str:
    """The stored text of a report: "0"/"1" for a bit, "3" for an index, "0110" for a unary
    vector of k bits. Raises ValueError (with a human message) if `report` is not a valid
    report of `mechanism`."""
    return value_to_text(mechanism.validate_report(report))


def value_to_text(value: ReportValue) -> str:
    """The stored text of an already validated report."""
    if isinstance(value, tuple):
        return "".join(str(bit) for bit in value)
    return str(value)


def report_from_text(mechanism: ldp.Mechanism, text: str) -> ReportValue:
    """The inverse of `report_to_text`: an int for bit and index encodings, a tuple of k
    ints (0/1) for unary encodings. Raises ValueError if `text` is not a stored report of
    `mechanism`. Exports and the dashboard read stored reports with this."""
    if not text.isascii() or not text.isdigit():
        raise ValueError(f"{text!r} is not a stored report.")
    if mechanism.encoding == "unary":
        return mechanism.validate_report([int(c) for c in text])
    return mechanism.validate_report(int(text))


@dataclass(frozen=True)
class FrozenQuestion:
    """What storing a report needs of a question of an open survey: none of it can change once
    the survey has opened, so each process keeps it (see `frozen_questions`)."""

    pk: int
    text: str
    mechanism: ldp.Mechanism
    tally_ids: dict[int, int]
    """Category index -> id of its Tally row (rows that Survey.open() created)."""


def frozen_questions(survey: Survey) -> tuple[FrozenQuestion, ...]:
    """The questions of a survey that is not a draft, in order, cached per process.

    Questions, choices and mechanisms are frozen once a survey leaves the draft state, and its
    tally rows are created when it opens; so the cache is keyed by what changes when the survey
    (re)opens: pk, the random public_id (a recreated pk, as in rolled-back tests, is another
    survey) and opened_at. A deleted survey is never looked up: finding it fails first."""
    return _load_frozen_questions(survey.pk, survey.public_id, survey.opened_at)


@functools.lru_cache(maxsize=256)
def _load_frozen_questions(
    survey_pk: int, public_id: str, opened_at: datetime | None
) -> tuple[FrozenQuestion, ...]:
    tally_ids: dict[int, dict[int, int]] = {}
    for pk, question_id, index in Tally.objects.filter(question__survey=survey_pk).values_list(
        "pk", "question_id", "index"
    ):
        tally_ids.setdefault(question_id, {})[index] = pk
    survey = Survey.objects.get(pk=survey_pk)
    return tuple(
        FrozenQuestion(q.pk, q.text, q.mechanism(), tally_ids.get(q.pk, {}))
        for q in survey.ordered_questions()
    )


@sensitive_variables()
def submission_create(
    *,
    survey: Survey,
    reports: dict[int, object],
    idempotency_key: str,
    invitation_token: str | None = None,
) -> tuple[Submission, bool]:
    """Store one respondent's reports (question id -> raw JSON report) and update tallies.

    Requires: the survey is open, every question has exactly one valid report for its
    frozen mechanism, and (for invitation-only surveys, or whenever a token is given) an
    unused invitation of this survey. Raises SubmissionError otherwise, having stored
    nothing. Returns (submission, True) when stored. If this survey already has a
    submission with `idempotency_key` and the same reports, returns (it, False) and
    stores nothing, even if the survey closed or the invitation was used since: that is a
    retry of a request whose answer was lost. The same key with other reports is refused.
    """
    if not isinstance(idempotency_key, str) or not IDEMPOTENCY_KEY.fullmatch(idempotency_key):
        raise SubmissionError(
            "The idempotency key must be 8 to 64 letters, digits, '-' or '_'.", 400
        )
    if survey.is_draft:
        raise SubmissionError("This survey is not open yet.", 404)
    questions = frozen_questions(survey)
    values = _validated_reports(questions, reports)
    texts = {pk: value_to_text(value) for pk, value in values.items()}
    try:
        if not survey.is_open:
            raise SubmissionError("This survey is closed and no longer accepts answers.", 410)
        tally_ids = _tally_ids(questions, values)
        _check_invitation(survey, invitation_token)
        with transaction.atomic():
            submission = _store(survey, texts, tally_ids, idempotency_key, invitation_token)
    except (SubmissionError, IntegrityError):
        # Insert first, look for a replay only when refused: a retry is answered as before
        # even if the survey closed or the invitation was used since (by this very request),
        # and a concurrent request with the same key that won the race (IntegrityError on
        # the unique key) makes this one a replay.
        existing = _replay(survey, idempotency_key, texts)
        if existing is None:
            raise
        return existing, False
    return submission, True


@sensitive_variables()
def _validated_reports(
    questions: tuple[FrozenQuestion, ...], reports: object
) -> dict[int, ReportValue]:
    """Question id -> validated report (an int, or a tuple of bits for unary encodings), in
    question order, or SubmissionError naming the first problem."""
    if not isinstance(reports, dict):
        raise SubmissionError("“reports” must map each question id to its report.", 400)
    known = {question.pk for question in questions}
    extra = [key for key in reports if key not in known]
    if extra:
        raise SubmissionError(f"This survey has no question {extra[0]!r}.", 400)
    values = {}
    for question in questions:
        if question.pk not in reports:
            raise SubmissionError(
                f"Question {question.pk} (“{question.text}”) has no report.", 400
            )
        try:
            values[question.pk] = question.mechanism.validate_report(reports[question.pk])
        except ValueError as error:
            raise SubmissionError(
                f"Question {question.pk} (“{question.text}”): {error}", 400
            ) from None
    return values


@sensitive_variables()
def _tally_ids(
    questions: tuple[FrozenQuestion, ...], values: dict[int, ReportValue]
) -> list[int]:
    """Ids of the tally rows the reports support, sorted. Several categories of one question
    may be supported (unary encodings), each once, so each id appears at most once."""
    ids = []
    for question in questions:
        for category in question.mechanism.support(values[question.pk]):
            if category not in question.tally_ids:
                raise RuntimeError(f"Question {question.pk} lacks tally rows: was it opened?")
            ids.append(question.tally_ids[category])
    return sorted(ids)


def _replay(survey: Survey, idempotency_key: str, texts: dict[int, str]) -> Submission | None:
    submission = Submission.objects.filter(survey=survey, idempotency_key=idempotency_key).first()
    if submission is None:
        return None
    stored = dict(submission.reports.values_list("question_id", "value"))
    if stored != texts:
        raise SubmissionError(
            "Answers to this survey were already received from this browser, and they "
            "cannot be changed.",
            422,
        )
    return submission


def _check_invitation(survey: Survey, token: str | None) -> None:
    """Refuse early, with a clear message; `_store` re-checks under the transaction."""
    if token is None:
        if survey.invitation_only:
            raise SubmissionError(
                "This survey accepts answers only through a personal invitation link.", 403
            )
        return
    if not PUBLIC_TOKEN.fullmatch(token):
        raise SubmissionError("This invitation link is not valid for this survey.", 403)
    invitation = Invitation.objects.filter(survey=survey, token=token).first()
    if invitation is None:
        raise SubmissionError("This invitation link is not valid for this survey.", 403)
    if invitation.used:
        raise SubmissionError("This invitation link has already been used.", 403)


@sensitive_variables()
def _store(
    survey: Survey,
    texts: dict[int, str],
    tally_ids: list[int],
    idempotency_key: str,
    invitation_token: str | None,
) -> Submission:
    """Write everything; call inside transaction.atomic().

    Plain SQL, portable across SQLite and PostgreSQL, because this is the hot path and Django
    spends more time building each statement than the database spends running it (the ORM
    made the endpoint several times slower than a one-row insert). Rows are locked in one
    fixed order (invitation, new rows, the survey, tallies by id) so that concurrent
    submissions cannot deadlock: the survey row, which every submission updates, is taken
    before any tally row."""
    def table(model: type[Model]) -> str:
        return connection.ops.quote_name(model._meta.db_table)

    with connection.cursor() as cursor:
        if invitation_token is not None:
            # Conditional update: of two concurrent uses of one link, exactly one sees a row.
            # The invitation gets no reference to the submission, so they cannot be joined.
            cursor.execute(
                f"UPDATE {table(Invitation)} SET used = %s"
                " WHERE survey_id = %s AND token = %s AND NOT used",
                [True, survey.pk, invitation_token],
            )
            if cursor.rowcount != 1:
                raise SubmissionError("This invitation link has already been used.", 403)
        received_on = timezone.localdate()
        cursor.execute(
            f"INSERT INTO {table(Submission)} (survey_id, received_on, idempotency_key)"
            " VALUES (%s, %s, %s) RETURNING id",
            [survey.pk, received_on, idempotency_key],
        )
        submission_pk = cursor.fetchone()[0]
        cursor.execute(
            f"INSERT INTO {table(Report)} (submission_id, question_id, value) VALUES "
            + ", ".join(["(%s, %s, %s)"] * len(texts)),
            [param for pk, text in texts.items() for param in (submission_pk, pk, text)],
        )
        cursor.execute(
            f"UPDATE {table(Survey)} SET response_count = response_count + 1"
            " WHERE id = %s",
            [survey.pk],
        )
        if tally_ids:
            cursor.execute(
                f"UPDATE {table(Tally)} SET count = count + 1 WHERE id IN ("
                + ", ".join(["%s"] * len(tally_ids)) + ")",
                tally_ids,
            )
            if cursor.rowcount != len(tally_ids):
                raise RuntimeError(f"Survey {survey.pk} lacks tally rows: was it opened?")
    submission = Submission(
        pk=submission_pk, survey=survey, received_on=received_on, idempotency_key=idempotency_key
    )
    submission._state.adding, submission._state.db = False, connection.alias
    return submission
