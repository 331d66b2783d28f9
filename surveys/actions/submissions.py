"""Storing respondents' randomized reports: the one write path for submissions.

`submission_create` takes one respondent's reports from the endpoint; `store` writes
submissions, for it and for simulated respondents alike. Everything is validated before
anything is written, and everything is written atomically, so a submission is stored
completely or not at all. Nothing here records who sent a submission, from where, or at what
time of day; and no report is ever logged.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import reduce
from operator import or_

from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.debug import sensitive_variables

from surveys import ldp
from surveys.actions.surveys import close_due, close_if_due
from surveys.helpers.times import respondent_time
from surveys.models import (
    PUBLIC_TOKEN,
    Invitation,
    Question,
    Submission,
    Survey,
    Tally,
    design_blocks,
    drawn_at_random,
)
from surveys.queries import schedule

IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")
ATTEMPTS = 3
"""How many times `submission_create` tries when the survey changed as it wrote: after a
change seen on the first attempt, the second may still find the target's last place taken
meanwhile; the third then sees the survey closed and answers 410, not 409."""

INVITATION_USED = gettext_lazy("This invitation link has already been used.")

ReportValue = int | tuple[int, ...] | None
StoredReports = dict[str, int | list[int] | None]
Support = Mapping[tuple[int, int], int]
"""(question id, category index) -> how many of the reports being stored support it."""
Drawn = Mapping[int, int]
"""In a survey with a design: question id -> how many of the submissions being stored drew
it, for the questions drawn at random (``Question.drawn_count``)."""


class SubmissionError(Exception):
    """A submission that cannot be stored, with a message for the respondent and the HTTP
    status that fits (400 malformed, 403 invitation needed, 404 not open yet (a draft, or an
    open survey before its opening time), 409 changed while on its way, 410 closed (also by
    its closing time or response target), 422 idempotency key reused with other reports).

    Messages a respondent answering on the survey page can meet are in their language; those
    about a malformed request (400), which only another program sends, are for its
    developer and stay in English."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class OutcomeUnknown(Exception):
    """The database was lost while it committed a submission: the commit was sent, and its
    answer never came back, so the submission may or may not be stored. Sending the same
    submission again (same idempotency key and reports) is safe: it is stored if it was
    not, and answered as a replay if it was, never counted twice."""


class SurveyChanged(Exception):
    """The survey was closed, deleted, or its invitation setting, schedule or target changed
    (or another submission reached the target) since it was read."""


def stored_form(values: Mapping[int, ReportValue]) -> StoredReports:
    """Validated reports as they are stored (`Submission.reports`) and echoed to the browser:
    question id, as a string -> the report as JSON, a number or a list of 0s and 1s, or null
    for a question a design's draw left out. A mechanism's `validate_report` reads a stored
    report back."""
    return {str(pk): list(value) if isinstance(value, tuple) else value
            for pk, value in values.items()}


@sensitive_variables()
def store(
    survey: Survey,
    submissions: Sequence[Submission],
    support: Support,
    invitation_token: str | None = None,
    drawn: Drawn | None = None,
) -> None:
    """Write `submissions` (unsaved, with validated reports) of the open `survey`, whose
    reports support `support` (and, in a survey with a design, drew the questions `drawn`):
    all of it or nothing.

    In one transaction: count the responses, provided the survey is still open with the
    invitation setting `survey` says, its opening time has come, its closing time has not,
    and its response target leaves room for them all (else SurveyChanged, having stored
    nothing: checked in the statement that locks the row, so concurrent submissions can
    never exceed the target); mark the invitation used, provided
    it is unused (else SubmissionError 403); insert the submissions (IntegrityError for an
    idempotency key the survey already has); add the support to the tallies, checking that
    every row it names exists (else RuntimeError: a survey that was never opened). The survey
    row is locked first, so concurrent submissions to one survey queue there and can never
    deadlock on the rows after it. The invitation gets no reference to the submission, so
    they cannot be joined. Once the submissions reach the survey's response target, the
    survey is closed in the same transaction.

    A database error before the commit rolls everything back and is raised as it is; one
    raised by the commit itself (the connection lost while the database committed, or not)
    becomes OutcomeUnknown: the submissions may or may not be stored.
    """
    now = timezone.now()
    committing = False
    try:
        with transaction.atomic():
            _write(survey, submissions, support, invitation_token, now, drawn or {})
            committing = True  # everything is written: the commit is all that is left
    except (OperationalError, InterfaceError) as error:
        if committing:
            raise OutcomeUnknown from error
        raise  # before the commit: rolled back, nothing stored


@sensitive_variables()
def _write(
    survey: Survey,
    submissions: Sequence[Submission],
    support: Support,
    invitation_token: str | None,
    now: datetime,
    drawn: Drawn,
) -> None:
    """`store`'s writes, inside its transaction."""
    counted = (
        Survey.objects.filter(
            pk=survey.pk, status=Survey.Status.OPEN, invitation_only=survey.invitation_only
        )
        .filter(schedule.accepting(now, len(submissions)))
        .update(response_count=F("response_count") + len(submissions))
    )
    if counted != 1:
        raise SurveyChanged
    if invitation_token is not None:
        used = Invitation.objects.filter(
            survey=survey, token=invitation_token, used=False
        ).update(used=True)
        if used != 1:
            raise SubmissionError(INVITATION_USED, 403)
    Submission.objects.bulk_create(submissions)
    _add_support(support)
    _add_drawn(drawn)
    if survey.response_target is not None:  # still under the row's lock
        close_due(Survey.objects.filter(pk=survey.pk), now)


def _add_support(support: Support) -> None:
    """Raise each tally by its support: one UPDATE per distinct amount (a single submission
    adds 1 to each supported category, so it needs one)."""
    by_amount: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for (question, index), amount in support.items():
        if amount:
            by_amount[amount][question].append(index)
    for amount, indexes in by_amount.items():
        rows = [Q(question_id=question, index__in=found) for question, found in indexes.items()]
        raised = Tally.objects.filter(reduce(or_, rows)).update(count=F("count") + amount)
        if raised != sum(len(found) for found in indexes.values()):
            raise RuntimeError("A question of this survey lacks tally rows: was it opened?")


def _add_drawn(drawn: Drawn) -> None:
    """Raise each question's ``drawn_count`` by how many submissions drew it: one UPDATE per
    distinct amount."""
    by_amount: dict[int, list[int]] = defaultdict(list)
    for question, amount in drawn.items():
        if amount:
            by_amount[amount].append(question)
    for amount, questions in by_amount.items():
        Question.objects.filter(pk__in=questions).update(drawn_count=F("drawn_count") + amount)


@sensitive_variables()
def submission_create(
    *,
    survey: Survey,
    reports: dict[int, object],
    idempotency_key: str,
    invitation_token: str | None = None,
    wording: object = None,
) -> tuple[Submission, bool]:
    """Store one respondent's reports (question id -> raw JSON report) and update tallies.

    ``wording``: the wording version (``Survey.wording_version``) the respondent's page
    showed, a whole number from 0 to the survey's current version (``check_wording``, else
    SubmissionError 400), stored as ``Submission.wording``. The endpoint always passes one;
    None (callers that know none) stores None, as for submissions stored before it was kept.

    Requires: the survey is open, every question has exactly one valid report for its
    frozen mechanism, and (for invitation-only surveys, or whenever a token is given) an
    unused invitation of this survey. Raises SubmissionError otherwise, having stored
    nothing. Returns (submission, True) when stored. If this survey already has a
    submission with `idempotency_key` and the same reports, returns (it, False) and
    stores nothing, even if the survey closed or the invitation was used since: that is a
    retry of a request whose answer was lost. The same key with other reports is refused.

    A survey whose closing time has come or whose response target is reached is closed
    first (``close_if_due``), and the submission refused with 410; an open survey
    before its opening time refuses it with 404, like a draft. The submission that reaches
    the target is stored, and the survey closed in its transaction.

    If the survey changed between being read and being written (closed, deleted, invitation
    setting, schedule, target, or another submission took the last place), it is read again
    (in place) and everything decided anew.

    OutcomeUnknown if the database was lost as it committed the submission: sending the same
    again is safe.
    """
    if not isinstance(idempotency_key, str) or not IDEMPOTENCY_KEY.fullmatch(idempotency_key):
        raise SubmissionError(
            "The idempotency key must be 8 to 64 letters, digits, '-' or '_'.", 400
        )
    if wording is not None:
        check_wording(survey, wording)
    for _attempt in range(ATTEMPTS):
        try:
            return _create(survey, reports, idempotency_key, invitation_token, wording)
        except SurveyChanged:
            try:
                survey.refresh_from_db(fields=["invitation_only", *schedule.STATE_FIELDS])
            except Survey.DoesNotExist:
                raise SubmissionError(_("There is no survey at this address."), 404) from None
    # Changed again and again in between: let the respondent send again.
    raise SubmissionError(
        _(
            "This survey was changed while your answers were on their way. Nothing was "
            "stored; please send them again."
        ),
        409,
    )


def check_wording(survey: Survey, wording: object) -> None:
    """Refuse (SubmissionError 400) a wording version that is not a whole number from 0 to
    ``survey``'s current one. Versions only ever go up, so one valid when read stays valid
    until the submission is written."""
    if isinstance(wording, bool) or not isinstance(wording, int):
        raise SubmissionError(
            _("“wording” must be the wording version the page showed: a whole number."), 400
        )
    if not 0 <= wording <= survey.wording_version:
        raise SubmissionError(
            _(
                "“wording” must be a wording version of this survey, from 0 to %(latest)d; "
                "%(given)d is not one. Nothing was stored."
            )
            % {"latest": survey.wording_version, "given": wording},
            400,
        )


@sensitive_variables()
def _create(
    survey: Survey,
    reports: dict[int, object],
    idempotency_key: str,
    token: str | None,
    wording: int | None = None,
) -> tuple[Submission, bool]:
    if survey.is_draft:
        raise SubmissionError(_("This survey is not open yet."), 404)
    questions = list(survey.questions.order_by("order", "pk"))
    mechanisms = {question.pk: question.mechanism() for question in questions}
    left = left_out(survey, questions, reports)
    values = _validated_reports(questions, mechanisms, reports, left)
    submission = Submission(
        survey=survey, idempotency_key=idempotency_key, reports=stored_form(values),
        wording=wording,
    )
    try:
        close_if_due(survey)
        if not survey.is_open:
            raise SubmissionError(
                _("This survey is closed and no longer accepts answers."), 410
            )
        if schedule.not_yet_open(survey):
            raise SubmissionError(
                _("This survey is not open yet: it opens on %(time)s (UTC).")
                % {"time": respondent_time(survey.opens_at)},
                404,
            )
        _check_invitation(survey, token)
        support = Counter(
            (pk, category) for pk, value in values.items() if value is not None
            for category in mechanisms[pk].support(value)
        )
        store(survey, [submission], support, token, drawn_questions(survey, questions, left))
    except (SubmissionError, IntegrityError):
        # Insert first, look for a replay only when refused: a retry is answered as before
        # even if the survey closed or the invitation was used since (by this very request),
        # and a concurrent request with the same key that won the race (IntegrityError on
        # the unique key) makes this one a replay.
        existing = _replay(survey, idempotency_key, submission.reports)
        if existing is None:
            raise
        return existing, False
    return submission, True


def left_out(survey: Survey, questions: list[Question], reports: object) -> set[int]:
    """The questions (ids) a design's draw left out, whose report is null, checked: in a
    survey that asks each respondent a random few, the questions of exactly the blocks not
    drawn, whole blocks, never one always asked; none otherwise. SubmissionError 400 naming
    the problem."""
    if not isinstance(reports, dict):
        raise SubmissionError("“reports” must map each question id to its report.", 400)
    nulls = {pk for pk, value in reports.items() if value is None}
    if survey.asked is None:
        return set()  # a null report is then refused as any malformed one
    always, sampled = design_blocks(questions)
    for question in (q for block in always for q in block):
        if question.pk in nulls:
            raise SubmissionError(
                f"Question {question.pk} is asked of every respondent: its report cannot be "
                "null (not drawn).", 400
            )
    for block in sampled:
        if len({q.pk in nulls for q in block}) > 1:
            raise SubmissionError(
                f"Questions {', '.join(str(q.pk) for q in block)} are drawn together: all or "
                "none of their reports are null (not drawn).", 400
            )
    left = [block for block in sampled if block[0].pk in nulls]
    if len(left) != len(sampled) - survey.asked:
        raise SubmissionError(
            f"This survey asks each respondent {survey.asked} of its {len(sampled)} blocks "
            f"of questions drawn at random: {len(sampled) - survey.asked} must be left out "
            f"(their reports null), not {len(left)}.", 400
        )
    return {q.pk for block in left for q in block}


def drawn_questions(survey: Survey, questions: list[Question], left: set[int]) -> Drawn:
    """The questions drawn at random that a submission drew (each once): none without a
    design."""
    return {pk: 1 for pk in drawn_at_random(survey, questions) - left}


@sensitive_variables()
def _validated_reports(
    questions: list[Question], mechanisms: dict[int, ldp.Mechanism], reports: object,
    left: set[int] = frozenset(),
) -> dict[int, ReportValue]:
    """Question id -> validated report (an int, or a tuple of bits for unary encodings; None
    for the questions ``left`` out by a design's draw), in question order, or SubmissionError
    naming the first problem."""
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
        if question.pk in left:
            values[question.pk] = None
            continue
        try:
            values[question.pk] = mechanisms[question.pk].validate_report(reports[question.pk])
        except ValueError as error:
            raise SubmissionError(
                f"Question {question.pk} (“{question.text}”): {error}", 400
            ) from None
    return values


def _replay(survey: Survey, idempotency_key: str, stored: StoredReports) -> Submission | None:
    submission = Submission.objects.filter(survey=survey, idempotency_key=idempotency_key).first()
    if submission is None:
        return None
    if submission.reports != stored:
        raise SubmissionError(
            _(
                "Answers to this survey were already received from this browser, and they "
                "cannot be changed."
            ),
            422,
        )
    return submission


def _check_invitation(survey: Survey, token: str | None) -> None:
    """Refuse early, with a clear message; `store` checks again as it writes."""
    if token is None:
        if survey.invitation_only:
            raise SubmissionError(
                _("This survey accepts answers only through a personal invitation link."), 403
            )
        return
    if not PUBLIC_TOKEN.fullmatch(token):
        raise SubmissionError(_("This invitation link is not valid for this survey."), 403)
    invitation = Invitation.objects.filter(survey=survey, token=token).first()
    if invitation is None:
        raise SubmissionError(_("This invitation link is not valid for this survey."), 403)
    if invitation.used:
        raise SubmissionError(INVITATION_USED, 403)
