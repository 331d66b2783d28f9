"""Making a new draft from a survey's definition, as a survey file holds it
(``surveys.queries.survey_files``; docs/survey-files.md): importing a file, and duplicating
a survey. Everything is written in one transaction, so a definition with any problem leaves
nothing behind."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext

from surveys import kinds
from surveys.actions.designs import apply_design
from surveys.actions.questions import save_question
from surveys.helpers.times import researcher_time
from surveys.models import PrivacyPolicy, Question, Survey, SurveyTranslation, design_problem
from surveys.queries.survey_files import (
    FORMAT,
    QUESTION_FIELDS,
    SCHEDULE_TIMES,
    SURVEY_FIELDS,
    VERSION,
)

MAX_QUESTIONS = 200
"""The most questions a survey file may hold."""

MAX_ANSWERS = 100
"""The most answers one of its questions may have."""

MAX_DEPTH = 10
"""The deepest a survey file nests lists and objects (its own deepest are 6 deep: a
translation's answer labels)."""


def import_survey(owner: Any, definition: object) -> tuple[Survey, list[str]]:
    """A new draft of ``owner``'s from ``definition`` (a survey file's parsed JSON), checked as
    the researchers' forms check what they type; with what was left out of it and why.
    Raises ValidationError, having stored nothing, if anything in it is wrong."""
    _check_shape(definition)
    return create_draft(owner, definition, check=True)


def create_draft(owner: Any, definition: dict, *, check: bool) -> tuple[Survey, list[str]]:
    """A new draft of ``owner``'s with ``definition`` (shaped as ``survey_file`` makes it),
    checked first when ``check`` (an import), as it is otherwise (a duplicate of a survey
    already checked); with what was left out and why."""
    notes: list[str] = []
    with transaction.atomic():
        survey = Survey(owner=owner, **_survey_fields(definition["survey"], notes, check))
        if check:
            _validate(survey, gettext("The survey"))
        survey.save()
        new_ids: dict[str, str] = {}  # position in the file -> question id, as text
        policy = PrivacyPolicy.current()
        for position, item in enumerate(definition["questions"], start=1):
            question, labels = _question(survey, position, item, new_ids, policy, notes, check)
            save_question(question, labels)
            new_ids[str(position)] = str(question.pk)
        problem = design_problem(survey, list(survey.ordered_questions()))
        if check and problem:
            raise ValidationError(
                gettext("The survey's design: %(problem)s") % {"problem": problem}
            )
        apply_design(survey)
        for language, texts in definition["translations"].items():
            translation = SurveyTranslation(survey=survey, language=language, texts=texts)
            if isinstance(texts, dict) and isinstance(texts.get("questions"), dict):
                unknown = texts["questions"].keys() - new_ids.keys()
                if check and unknown:
                    raise ValidationError(gettext(
                        "Translation into “%(language)s”: there is no question %(position)s."
                    ) % {"language": language, "position": ", ".join(sorted(unknown))})
                translation.texts = translation.texts_for(new_ids)
            if check:
                _validate(translation, gettext("Translation into “%(language)s”")
                          % {"language": language})
            translation.save()
    return survey, notes


def _check_shape(definition: object) -> None:
    """The outline of a survey file: its format and version, and the parts it has."""
    if not isinstance(definition, dict) or definition.get("format") != FORMAT:
        raise ValidationError(gettext(
            "This is not a survey file: its \"format\" must be \"%(format)s\"."
        ) % {"format": FORMAT})
    version = definition.get("version")
    if type(version) is not int or version != VERSION:  # the text "1", or true, is not 1
        raise ValidationError(gettext(
            "A survey file's \"version\" must be the number %(ours)s, the version this site "
            "reads; this file has %(version)s."
        ) % {"version": json.dumps(version, ensure_ascii=False)[:40], "ours": VERSION})
    if _depth(definition) > MAX_DEPTH:
        raise ValidationError(gettext(
            "This survey file nests lists and objects %(limit)d deep or more: a survey file "
            "never does. Export the survey again from the site."
        ) % {"limit": MAX_DEPTH + 1})
    parts = {"survey": dict, "questions": list, "translations": dict}
    for name, kind in parts.items():
        if not isinstance(definition.get(name), kind):
            raise ValidationError(gettext(
                "A survey file needs \"survey\" (an object), \"questions\" (a list) and "
                "\"translations\" (an object)."
            ))
    if len(definition["questions"]) > MAX_QUESTIONS:
        raise ValidationError(gettext(
            "A survey can have at most %(limit)d questions; this file has %(count)d."
        ) % {"limit": MAX_QUESTIONS, "count": len(definition["questions"])})


def _depth(value: object) -> int:
    """How deeply ``value`` nests lists and objects (1 for a value of neither), counted
    without recursion: a file nested 50,000 deep must not exhaust the stack."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        value, depth = pending.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_DEPTH:
            children = value.values() if isinstance(value, dict) else value
            if isinstance(value, dict | list):
                pending.extend((child, depth + 1) for child in children)
    return deepest


def _survey_fields(values: dict, notes: list[str], check: bool) -> dict[str, Any]:
    """The survey's fields from the file's "survey" object: its times read, a closing time
    already past left out (noted), and any field missing left at its default."""
    fields = {name: values[name] for name in SURVEY_FIELDS if name in values}
    for name in SCHEDULE_TIMES:
        value = fields.get(name)
        if value is not None:
            fields[name] = _time(name, value)
    for name in set(SURVEY_FIELDS) - {*SCHEDULE_TIMES, "response_target", "budget", "asked"}:
        if name in fields and fields[name] is None:  # a text left empty
            fields[name] = ""
    opens, closes = fields.get("opens_at"), fields.get("closes_at")
    if check and closes and closes <= timezone.now():
        notes.append(gettext(
            "The closing time (%(time)s) has passed: it was left out. Set a new one on the "
            "survey's page if you want one."
        ) % {"time": researcher_time(closes)})
        fields["closes_at"] = closes = None
    if check and opens and closes and closes <= opens:
        raise ValidationError(gettext("The closing time must be after the opening time."))
    return fields


def _time(name: str, value: object) -> datetime:
    """The time ``value`` of the survey's field ``name``: ISO 8601 text, in UTC unless it
    says otherwise."""
    try:
        time = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:  # well formed, but no such day or hour
        time = None
    if time is None:
        raise ValidationError(gettext(
            "The survey: “%(name)s” must be a time written as text, such as "
            "\"2026-09-01T08:00:00Z\", or null; it is %(value)s."
        ) % {"name": name, "value": json.dumps(value, ensure_ascii=False)[:60]})
    return time if timezone.is_aware(time) else timezone.make_aware(time, UTC)


def _question(
    survey: Survey, position: int, item: object, new_ids: dict[str, str],
    policy: PrivacyPolicy, notes: list[str], check: bool,
) -> tuple[Question, list[str]]:
    """Question ``position`` of the file, unsaved, with its answers; checked as the question
    form checks one, when ``check``."""
    where = gettext("Question %(position)d") % {"position": position}
    if not isinstance(item, dict):
        raise ValidationError(gettext("%(where)s must be an object.") % {"where": where})
    if not isinstance(item.get("kind"), str) or item["kind"] not in kinds.KINDS:
        raise ValidationError(gettext(
            "%(where)s: “%(kind)s” is not a kind of question this site has (it has %(kinds)s)."
        ) % {"where": where, "kind": item.get("kind"), "kinds": ", ".join(kinds.KINDS)})
    fields = {name: item[name] for name in QUESTION_FIELDS if name in item}
    for name in ("help_text", "mechanism_override", "number_bins"):
        if fields.get(name, "") is None:
            fields[name] = ""
    if fields.get("mechanism_override") and check and not policy.allow_mechanism_override:
        notes.append(gettext(
            "%(where)s: this site does not let researchers choose the randomization method, "
            "so it gets the automatic one."
        ) % {"where": where})
        fields["mechanism_override"] = ""
    labels = item.get("answers") or []
    if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
        raise ValidationError(gettext("%(where)s: \"answers\" must be a list of texts.")
                              % {"where": where})
    if len(labels) > MAX_ANSWERS:
        raise ValidationError(gettext(
            "%(where)s: a question can have at most %(limit)d answers."
        ) % {"where": where, "limit": MAX_ANSWERS})
    question = Question(survey=survey, order=position, **fields)
    condition = item.get("asked_if")
    if condition is not None:
        if not (
            isinstance(condition, dict)
            and str(condition.get("question")) in new_ids
            and isinstance(condition.get("answer"), int)
        ):
            raise ValidationError(gettext(
                "%(where)s: \"asked_if\" must name an earlier question by its position (1 to "
                "%(last)d) and one of its answers by its number (from 0)."
            ) % {"where": where, "last": position - 1})
        question.asked_if_id = int(new_ids[str(condition["question"])])
        question.asked_if_answer = condition["answer"]
    if check:
        _validate(question, where)
        problems = question.kind_problems(labels)
        if problems:
            raise ValidationError([f"{where}: {problem}" for found in problems.values()
                                   for problem in found])
    return question, labels


def _validate(instance: Any, where: str) -> None:
    """``instance``'s model checks, its fields' first (so that its own checks see values of
    the right types), each problem prefixed with ``where``. An empty value ("", [] or {}) of
    a field that may be empty becomes None first: Django's checks skip empty values, and a
    number's column cannot store a text."""
    for field in instance._meta.concrete_fields:
        value = getattr(instance, field.attname)
        if field.null and value is not None and value in field.empty_values:
            setattr(instance, field.attname, None)
    try:
        instance.clean_fields()
        instance.full_clean()
    except ValidationError as error:
        # A field's validators may say the same thing twice (a link's own and its scheme's).
        messages = dict.fromkeys(error.messages)
        raise ValidationError([f"{where}: {message}" for message in messages]) from None
