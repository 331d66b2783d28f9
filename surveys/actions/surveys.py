"""Writes that change where a survey stands: opening it (which freezes its questions'
mechanisms), closing it (by hand, or once its closing time or response target has come),
and duplicating it as a new draft."""

from __future__ import annotations

import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Case, F, QuerySet, Value, When
from django.utils import timezone

from surveys.actions import wording
from surveys.actions.survey_files import create_draft
from surveys.models import Question, Survey, Tally
from surveys.queries import schedule
from surveys.queries.survey_files import survey_file

SCHEDULE_FIELDS = (
    "opens_at", "closes_at", "response_target", "completion_url", "thank_you_message",
)
"""What a duplicate does not keep: the original's schedule and distribution."""


def open_survey(survey: Survey) -> None:
    """Freeze every question's mechanism (its ``spec``: reports are randomized with exactly
    it from now on) and start accepting answers. Raises ValidationError with
    ``surveys.queries.schedule.opening_problems``, storing nothing, when the survey cannot open."""
    problems = schedule.opening_problems(survey)
    if problems:
        raise ValidationError(problems)
    with transaction.atomic():
        for question in survey.ordered_questions():
            if question.spec is None:
                question.spec = question.mechanism().spec()
                Question.objects.filter(pk=question.pk).update(spec=question.spec)
            Tally.objects.bulk_create(
                [Tally(question=question, index=i) for i in range(question.mechanism().tally_size)],
                ignore_conflicts=True,
            )
        survey.status = Survey.Status.OPEN
        survey.opened_at = survey.opened_at or timezone.now()
        survey.closed_at = None
        survey.save(update_fields=["status", "opened_at", "closed_at"])
        wording.on_open(survey)  # the wording respondents see from now on


def close_survey(survey: Survey) -> None:
    survey.status = Survey.Status.CLOSED
    survey.closed_at = timezone.now()
    survey.save(update_fields=["status", "closed_at"])


def duplicate_survey(survey: Survey) -> Survey:
    """A new draft with the same text, translations, questions (with their known shares),
    choices and epsilons, and no answers, schedule or completion link."""
    definition = survey_file(survey)
    definition["survey"] |= {
        "title": f"{survey.title} (copy)"[:200],
        **{name: Survey._meta.get_field(name).get_default() for name in SCHEDULE_FIELDS},
    }
    copy, _notes = create_draft(survey.owner, definition, check=False)
    return copy


def close_due(surveys: QuerySet[Survey], now: datetime.datetime | None = None) -> int:
    """Close every open survey of `surveys` that is due, in one statement; returns how many.
    A survey closed by its closing time is recorded as closed at that time, one closed by its
    target at `now`. The condition is evaluated on the rows themselves, so a survey whose
    schedule was changed meanwhile (a later closing time, a larger target) stays open."""
    now = now or timezone.now()
    return surveys.filter(schedule.due(now), status=Survey.Status.OPEN).update(
        status=Survey.Status.CLOSED,
        closed_at=Case(When(closes_at__lte=now, then=F("closes_at")), default=Value(now)),
    )


def close_if_due(survey: Survey, now: datetime.datetime | None = None) -> bool:
    """Close the open `survey` if its closing time has come or its target is reached.
    Returns whether this call closed it. When it looks due, `survey` is read again
    (`STATE_FIELDS`), so it then shows its current status whoever closed it."""
    now = now or timezone.now()
    if not survey.is_open or not schedule.is_due(survey, now):
        return False
    closed = close_due(Survey.objects.filter(pk=survey.pk), now)
    survey.refresh_from_db(fields=schedule.STATE_FIELDS)
    return closed == 1
