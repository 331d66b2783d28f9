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
from surveys.models import STUDY_TEXTS, Choice, Question, Survey, SurveyTranslation, Tally
from surveys.queries import schedule


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
    choices and epsilons, and no answers."""
    with transaction.atomic():
        copy = Survey.objects.create(
            owner=survey.owner,
            title=f"{survey.title} (copy)"[:200],
            introduction=survey.introduction,
            **{name: getattr(survey, name) for name in STUDY_TEXTS},
            consent_required=survey.consent_required,
            invitation_only=survey.invitation_only,
            language=survey.language,
        )
        new_ids = {}  # question id -> its copy's id, as text (the keys of translations)
        for question in survey.ordered_questions():
            new = Question.objects.create(
                survey=copy,
                order=question.order,
                text=question.text,
                help_text=question.help_text,
                kind=question.kind,
                epsilon=question.epsilon,
                mechanism_override=question.mechanism_override,
                used_for_breakdowns=question.used_for_breakdowns,
                known_share=question.known_share,
                offers_refusal=question.offers_refusal,
                optional=question.optional,
                # Conditions come before the questions that depend on them: copied already.
                asked_if_id=new_ids.get(str(question.asked_if_id)),
                asked_if_answer=question.asked_if_answer,
                number_min=question.number_min,
                number_max=question.number_max,
                number_decimals=question.number_decimals,
                number_bins=question.number_bins,
            )
            Choice.objects.bulk_create(
                [
                    Choice(question=new, order=c.order, label=c.label)
                    for c in question.choices.all()
                ]
            )
            new_ids[str(question.pk)] = str(new.pk)
        SurveyTranslation.objects.bulk_create(
            [
                SurveyTranslation(
                    survey=copy,
                    language=translation.language,
                    texts=translation.texts_for(new_ids),
                )
                for translation in survey.translations.all()
            ]
        )
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
