"""When a survey takes answers (its schedule and response target), and what stops it opening.

An open survey takes answers from ``opens_at`` (if set) on, and closes itself once
``closes_at`` (if set) has come or it has ``response_target`` (if set) responses. No worker
watches the clock: the views that show a survey or take a submission call
``surveys.actions.surveys.close_if_due`` first, so whoever looks next finds it closed. The
write path (``surveys.actions.submissions.store``) checks
the same conditions under the survey row's lock (`accepting`), so no submission is ever
stored after the closing time or beyond the target, and closes the survey in the
transaction of the submission that reaches the target.

Datetimes are timezone-aware; the site's TIME_ZONE is UTC, which is what researchers enter
and what pages show.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from surveys.helpers.numbers import epsilon as epsilon_text
from surveys.helpers.numbers import thousands
from surveys.helpers.times import relative, researcher_time
from surveys.models import PrivacyPolicy, Survey, design_problem, survey_epsilon

STATE_FIELDS = (
    "status", "closed_at", "opens_at", "closes_at", "response_target", "response_count",
)
"""The fields that decide whether a survey takes answers now: read again after a change."""


def _now(now: datetime.datetime | None) -> datetime.datetime:
    return now or timezone.now()


def deadline_passed(survey: Survey, now: datetime.datetime | None = None) -> bool:
    """Whether the survey's closing time has come."""
    return survey.closes_at is not None and _now(now) >= survey.closes_at


def target_reached(survey: Survey) -> bool:
    """Whether the survey has as many responses as its target (or more)."""
    return survey.response_target is not None and survey.response_count >= survey.response_target


def is_due(survey: Survey, now: datetime.datetime | None = None) -> bool:
    """Whether an open survey should close now: its closing time came or its target is met."""
    return deadline_passed(survey, now) or target_reached(survey)


def due(now: datetime.datetime) -> Q:
    """`is_due` as a query condition, on the values in the database."""
    return Q(closes_at__lte=now) | Q(
        response_target__isnull=False, response_count__gte=F("response_target")
    )


def accepting(now: datetime.datetime, responses: int = 1) -> Q:
    """The surveys whose schedule and target let them take `responses` more responses at
    `now`, as a query condition (the status is checked apart): opened (``opens_at``), not
    closed by time, and with room under the target."""
    return (
        (Q(opens_at__isnull=True) | Q(opens_at__lte=now))
        & (Q(closes_at__isnull=True) | Q(closes_at__gt=now))
        & (
            Q(response_target__isnull=True)
            | Q(response_target__gte=F("response_count") + responses)
        )
    )


def not_yet_open(survey: Survey, now: datetime.datetime | None = None) -> bool:
    """Whether the survey is open but its opening time has not come yet: respondents are
    told when it opens, and their answers refused (as for a draft, with 404)."""
    return survey.is_open and survey.opens_at is not None and _now(now) < survey.opens_at


def schedule_problems(survey: Survey, now: datetime.datetime | None = None) -> list[str]:
    """What stops the survey from being opened (or reopened) because of its schedule: it
    would close again at once."""
    problems = []
    if deadline_passed(survey, now):
        problems.append(
            _(
                "Its closing time (%(time)s) has passed. Edit the survey to set a later one, or "
                "none."
            ) % {"time": researcher_time(survey.closes_at)}
        )
    if target_reached(survey):
        problems.append(
            _(
                "It has reached its response target (%(target)s responses). Edit the survey to "
                "raise the target, or remove it."
            ) % {"target": thousands(survey.response_target)}
        )
    return problems


def opening_problems(survey: Survey, now: datetime.datetime | None = None) -> list[str]:
    """What stops ``survey`` from being opened or reopened: a draft's readiness, and a
    schedule that would close it again at once."""
    problems = readiness_problems(survey) if survey.is_draft else []
    return problems + schedule_problems(survey, now)


def readiness_problems(survey: Survey) -> list[str]:
    """What stops this draft from being opened, in words a researcher can act on."""
    problems = []
    questions = list(survey.ordered_questions())
    if not questions:
        problems.append(gettext("Add at least one question."))
    for question in questions:
        kind = question.question_kind
        problems += kind.readiness_problems(
            question.text, question.labels(), kind.settings(question)
        )
        problems += [
            f"“{question.text}”: {problem}" for problem in question.condition_problems().values()
        ]
    policy = PrivacyPolicy.current()
    design = design_problem(survey, questions)
    if design:
        problems.append(design)
    total = survey_epsilon(survey, questions)
    if total > policy.max_survey_epsilon + 1e-9:
        problems.append(
            gettext(
                "The total epsilon %(total)s is above the site's limit of %(limit)s. Lower "
                "some questions' epsilon."
            ) % {"total": epsilon_text(total), "limit": epsilon_text(policy.max_survey_epsilon)}
        )
    for question in questions:
        if question.epsilon > policy.max_question_epsilon + 1e-9:
            problems.append(
                gettext(
                    "“%(text)s” has epsilon %(epsilon)s, above the site's per-question limit "
                    "of %(limit)s."
                ) % {
                    "text": question.text,
                    "epsilon": epsilon_text(question.epsilon),
                    "limit": epsilon_text(policy.max_question_epsilon),
                }
            )
    return problems


def summary(survey: Survey, now: datetime.datetime | None = None) -> dict[str, Any] | None:
    """The schedule and progress line of the researcher's survey page, or None when the
    survey has no schedule and no target: ``parts`` (texts, joined with " · ") and
    ``progress`` (None without a target, else ``value``, ``max`` and ``percent``), e.g.
    "Closes 30 Nov 2026 18:00 UTC (in 7 days) · 134 of 500 responses (27%)"."""
    now = _now(now)
    parts: list[str] = []
    if survey.opens_at and (survey.is_draft or now < survey.opens_at):
        when = {"time": researcher_time(survey.opens_at),
                "relative": relative(survey.opens_at, now)}
        if now < survey.opens_at:
            parts.append(_("Opens %(time)s (%(relative)s)") % when)
        else:
            parts.append(_("Opening time %(time)s (%(relative)s)") % when)
    if survey.closes_at:
        passed = now >= survey.closes_at
        when = {"time": researcher_time(survey.closes_at),
                "relative": relative(survey.closes_at, now)}
        if not passed:
            parts.append(_("Closes %(time)s (%(relative)s)") % when)
        elif survey.status == Survey.Status.CLOSED:
            parts.append(_("Closed at its closing time, %(time)s (%(relative)s)") % when)
        else:
            parts.append(_("Closing time passed: %(time)s (%(relative)s)") % when)
    progress = None
    if survey.response_target:
        count, target = survey.response_count, survey.response_target
        percent = 100 if count >= target else min(99, round(100 * count / target))
        progress = {"value": min(count, target), "max": target, "percent": percent}
        text = _("%(count)s of %(target)s responses (%(percent)d%%)") % {
            "count": thousands(count), "target": thousands(target), "percent": percent}
        parts.append(_("%(progress)s: target reached") % {"progress": text} if count >= target
                     else text)
    if not parts:
        return None
    return {"parts": parts, "text": " · ".join(parts), "progress": progress}

