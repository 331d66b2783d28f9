"""Storing a respondent's randomized reports: the one write path for submissions.

Used by the respondent's endpoint, by tests and by demo data. Everything is validated before
anything is written, and everything is written in one transaction, so a submission is stored
completely or not at all. Nothing here records who sent a submission, from where, or at what
time of day; and no report is ever logged.
"""

from __future__ import annotations

import re

from django.db import IntegrityError, transaction
from django.db.models import F
from django.views.decorators.debug import sensitive_variables

from surveys import ldp
from surveys.models import Invitation, Question, Report, Submission, Survey, Tally

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
    value = mechanism.validate_report(report)
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
    questions = list(survey.ordered_questions())
    texts = _validate_reports(questions, reports)
    existing = _replay(survey, idempotency_key, texts)
    if existing is not None:
        return existing, False
    if not survey.is_open:
        raise SubmissionError("This survey is closed and no longer accepts answers.", 410)
    _check_invitation(survey, invitation_token)
    try:
        with transaction.atomic():
            submission = _store(survey, questions, texts, idempotency_key, invitation_token)
    except IntegrityError:
        # A concurrent request with the same key won the race: answer as a replay.
        existing = _replay(survey, idempotency_key, texts)
        if existing is None:
            raise
        return existing, False
    return submission, True


@sensitive_variables()
def _validate_reports(questions: list[Question], reports: object) -> dict[int, str]:
    """Question id -> canonical report text, or SubmissionError naming the first problem."""
    if not isinstance(reports, dict):
        raise SubmissionError("“reports” must map each question id to its report.", 400)
    known = {question.pk for question in questions}
    extra = [key for key in reports if key not in known]
    if extra:
        raise SubmissionError(f"This survey has no question {extra[0]!r}.", 400)
    texts = {}
    for question in questions:
        if question.pk not in reports:
            raise SubmissionError(
                f"Question {question.pk} (“{question.text}”) has no report.", 400
            )
        try:
            texts[question.pk] = report_to_text(question.mechanism(), reports[question.pk])
        except ValueError as error:
            raise SubmissionError(
                f"Question {question.pk} (“{question.text}”): {error}", 400
            ) from None
    return texts


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


def _store(
    survey: Survey,
    questions: list[Question],
    texts: dict[int, str],
    idempotency_key: str,
    invitation_token: str | None,
) -> Submission:
    """Write everything; call inside transaction.atomic(). Rows are locked in one fixed
    order (invitation, new rows, tallies by question order, survey) so that concurrent
    submissions cannot deadlock."""
    if invitation_token is not None:
        # Conditional update: of two concurrent uses of one link, exactly one sees a row.
        # The invitation gets no reference to the submission, so they cannot be joined.
        used = Invitation.objects.filter(
            survey=survey, token=invitation_token, used=False
        ).update(used=True)
        if used != 1:
            raise SubmissionError("This invitation link has already been used.", 403)
    submission = Submission.objects.create(survey=survey, idempotency_key=idempotency_key)
    Report.objects.bulk_create(
        [Report(submission=submission, question=q, value=texts[q.pk]) for q in questions]
    )
    for question in questions:
        mechanism = question.mechanism()
        support = mechanism.support(report_from_text(mechanism, texts[question.pk]))
        if support:
            updated = Tally.objects.filter(question=question, index__in=support).update(
                count=F("count") + 1
            )
            if updated != len(support):
                raise RuntimeError(f"Question {question.pk} lacks tally rows: was it opened?")
    Survey.objects.filter(pk=survey.pk).update(response_count=F("response_count") + 1)
    return submission
