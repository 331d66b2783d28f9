"""Storing a respondent's randomized reports: the one write path for submissions.

Used by the respondent's endpoint, by tests and by demo data. Everything is validated before
anything is written, and everything is written atomically, so a submission is stored
completely or not at all. Nothing here records who sent a submission, from where, or at what
time of day; and no report is ever logged.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.db.models import Model
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from surveys import ldp
from surveys.models import Invitation, Submission, Survey, Tally

IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")
PUBLIC_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The alphabet of secrets.token_urlsafe, which makes survey ids and invitation tokens."""

INVITATION_USED = "This invitation link has already been used."

ReportValue = int | tuple[int, ...]
StoredReports = dict[str, int | list[int]]


class SubmissionError(Exception):
    """A submission that cannot be stored, with a message for the respondent and the HTTP
    status that fits (400 malformed, 403 invitation needed, 404 not open yet, 410 closed,
    422 idempotency key reused with other reports)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def stored_form(values: Mapping[int, ReportValue]) -> StoredReports:
    """Validated reports as they are stored (`Submission.reports`) and echoed to the browser:
    question id, as a string -> the report as JSON, a number or a list of 0s and 1s. A
    mechanism's `validate_report` reads a stored report back."""
    return {str(pk): list(value) if isinstance(value, tuple) else value
            for pk, value in values.items()}


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

    Questions, choices and mechanisms are frozen once a survey leaves the draft state, and tally
    rows exist whenever it is open (`Survey.open` creates them before it sets the status) and
    are never removed. So the key is the pk, the random public_id (a recreated pk, as in
    rolled-back tests, is another survey) and the status: an entry loaded while the survey is
    open has every tally row. Loading a deleted survey raises Survey.DoesNotExist."""
    return _load_frozen_questions(survey.pk, survey.public_id, survey.status)


@functools.lru_cache(maxsize=256)
def _load_frozen_questions(
    survey_pk: int, public_id: str, status: str
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

    `survey` may be out of date (the endpoint keeps open surveys in memory): the write
    itself checks that the survey is still open with the same invitation setting, and if
    not, `survey` is read again (in place) and everything decided anew.
    """
    if not isinstance(idempotency_key, str) or not IDEMPOTENCY_KEY.fullmatch(idempotency_key):
        raise SubmissionError(
            "The idempotency key must be 8 to 64 letters, digits, '-' or '_'.", 400
        )
    try:
        return _create(survey, reports, idempotency_key, invitation_token)
    except (SurveyChanged, Survey.DoesNotExist):
        try:
            survey.refresh_from_db(fields=["status", "invitation_only"])
        except Survey.DoesNotExist:
            raise SubmissionError("There is no survey at this address.", 404) from None
    try:
        return _create(survey, reports, idempotency_key, invitation_token)
    except SurveyChanged:  # changed again in between: let the respondent send again
        raise SubmissionError(
            "This survey was changed while your answers were on their way. Nothing was "
            "stored; please send them again.",
            409,
        ) from None


class SurveyChanged(Exception):
    """The survey was closed, deleted, or its invitation setting changed since it was read."""


@sensitive_variables()
def _create(
    survey: Survey, reports: dict[int, object], idempotency_key: str, token: str | None
) -> tuple[Submission, bool]:
    if survey.is_draft:
        raise SubmissionError("This survey is not open yet.", 404)
    questions = frozen_questions(survey)
    values = _validated_reports(questions, reports)
    stored = stored_form(values)
    try:
        if not survey.is_open:
            raise SubmissionError("This survey is closed and no longer accepts answers.", 410)
        tally_ids = _tally_ids(questions, values)
        _check_invitation(survey, token)
        submission = _store(survey, stored, tally_ids, idempotency_key, token)
    except (SubmissionError, IntegrityError):
        # Insert first, look for a replay only when refused: a retry is answered as before
        # even if the survey closed or the invitation was used since (by this very request),
        # and a concurrent request with the same key that won the race (IntegrityError on
        # the unique key) makes this one a replay.
        existing = _replay(survey, idempotency_key, stored)
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


def _replay(survey: Survey, idempotency_key: str, stored: StoredReports) -> Submission | None:
    submission = Submission.objects.filter(survey=survey, idempotency_key=idempotency_key).first()
    if submission is None:
        return None
    if submission.reports != stored:
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
        raise SubmissionError(INVITATION_USED, 403)


@sensitive_variables()
def _store(
    survey: Survey,
    stored: StoredReports,
    tally_ids: list[int],
    idempotency_key: str,
    invitation_token: str | None,
) -> Submission:
    """Write everything, or nothing: check that the survey is still open with the invitation
    setting `survey` says (SurveyChanged if not), mark the invitation used (if any), insert
    the submission row with its reports, count the response and add one to each supported
    tally.

    Plain SQL, because this is the hot path and Django spends more time building each
    statement than the database spends running it (the ORM made the endpoint several times
    slower than a one-row insert). On PostgreSQL all of it is one statement, atomic by itself:
    every statement is a round trip to the server, and a transaction adds two more. Elsewhere
    (SQLite, in the same process) it is a few statements in one transaction."""
    received_on = timezone.localdate()
    row = [survey.pk, received_on, idempotency_key, json.dumps(stored, separators=(",", ":"))]
    write = _write_one_statement if connection.vendor == "postgresql" else _write_statements
    # Inside a caller's transaction the write needs a savepoint of its own, so that a refused
    # insert (a replayed key) leaves that transaction usable for looking up the replay.
    needs_block = write is _write_statements or connection.in_atomic_block
    with transaction.atomic() if needs_block else contextlib.nullcontext():
        with connection.cursor() as cursor:
            submission_pk = write(cursor, row, survey.invitation_only, invitation_token, tally_ids)
    submission = Submission(
        pk=submission_pk,
        survey=survey,
        received_on=received_on,
        idempotency_key=idempotency_key,
        reports=stored,
    )
    submission._state.adding, submission._state.db = False, connection.alias
    return submission


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _placeholders(count: int) -> str:
    return ", ".join(["%s"] * count)


INSERT_COLUMNS = "(survey_id, received_on, idempotency_key, reports)"
UNCHANGED = "status = %s AND invitation_only = %s"
"""The survey facts a submission was accepted on, checked again as it is written (parameters:
the open status, and the invitation setting)."""


@sensitive_variables()
def _write_statements(
    cursor, row: list, invitation_only: bool, invitation_token: str | None, tally_ids: list[int]
) -> int:
    """`_store` as a sequence of statements; call in a transaction, which an exception rolls
    back. The new submission's pk."""
    survey_pk = row[0]
    cursor.execute(
        f"UPDATE {_table(Survey)} SET response_count = response_count + 1"
        f" WHERE id = %s AND {UNCHANGED}",
        [survey_pk, Survey.Status.OPEN, invitation_only],
    )
    if cursor.rowcount != 1:
        raise SurveyChanged
    if invitation_token is not None:
        # Conditional update: of two concurrent uses of one link, exactly one sees a row.
        # The invitation gets no reference to the submission, so they cannot be joined.
        cursor.execute(
            f"UPDATE {_table(Invitation)} SET used = %s"
            " WHERE survey_id = %s AND token = %s AND NOT used",
            [True, survey_pk, invitation_token],
        )
        if cursor.rowcount != 1:
            raise SubmissionError(INVITATION_USED, 403)
    cursor.execute(
        f"INSERT INTO {_table(Submission)} {INSERT_COLUMNS} VALUES ({_placeholders(4)})"
        " RETURNING id",
        row,
    )
    submission_pk = cursor.fetchone()[0]
    if tally_ids:
        cursor.execute(
            f"UPDATE {_table(Tally)} SET count = count + 1"
            f" WHERE id IN ({_placeholders(len(tally_ids))})",
            tally_ids,
        )
    return submission_pk


@sensitive_variables()
def _write_one_statement(
    cursor, row: list, invitation_only: bool, invitation_token: str | None, tally_ids: list[int]
) -> int:
    """`_write_statements` as one PostgreSQL statement (data-modifying WITH queries). Each part
    runs only if the one before it found or wrote a row, which also fixes the order in which
    rows are locked, so that concurrent submissions cannot deadlock: the invitation (if any),
    the new submission, the survey (which every submission updates), then the tallies."""
    survey_pk = row[0]
    parts = [f"unchanged AS (SELECT FROM {_table(Survey)} WHERE id = %s AND {UNCHANGED})"]
    params = [survey_pk, Survey.Status.OPEN, invitation_only]
    inserted_if = "EXISTS (SELECT FROM unchanged)"
    if invitation_token is not None:
        parts.append(
            f"used AS (UPDATE {_table(Invitation)} SET used = true"
            f" WHERE survey_id = %s AND token = %s AND NOT used AND {inserted_if} RETURNING 1)"
        )
        params += [survey_pk, invitation_token]
        inserted_if = "EXISTS (SELECT FROM used)"
    parts.append(
        f"new AS (INSERT INTO {_table(Submission)} {INSERT_COLUMNS}"
        f" SELECT %s, %s, %s, %s::jsonb WHERE {inserted_if} RETURNING id)"
    )
    params += row
    parts.append(
        f"counted AS (UPDATE {_table(Survey)} SET response_count = response_count + 1"
        " WHERE id = %s AND EXISTS (SELECT FROM new) RETURNING 1)"
    )
    params.append(survey_pk)
    if tally_ids:
        parts.append(
            f"tallied AS (UPDATE {_table(Tally)} SET count = count + 1"
            f" WHERE id IN ({_placeholders(len(tally_ids))}) AND EXISTS (SELECT FROM counted))"
        )
        params += tally_ids
    cursor.execute(
        f"WITH {', '.join(parts)} SELECT (SELECT id FROM new), EXISTS (SELECT FROM unchanged)",
        params,
    )
    submission_pk, unchanged = cursor.fetchone()
    if not unchanged:
        raise SurveyChanged
    if submission_pk is None:
        raise SubmissionError(INVITATION_USED, 403)
    return submission_pk
