"""A survey's whole definition as a survey file (docs/survey-files.md): every text, kind,
answer, epsilon, method, translation, condition and the schedule, without ids, owner,
sharing or responses. ``surveys.actions.survey_files.import_survey`` makes a new draft of one,
and the file that draft exports is the same, byte for byte (``survey_file_bytes``)."""

from __future__ import annotations

import json
from typing import Any

from surveys.models import STUDY_TEXTS, Question, Survey

FORMAT = "private-surveys/survey"
VERSION = 1

SURVEY_FIELDS = (
    "title", "introduction", "language", *STUDY_TEXTS, "consent_required", "invitation_only",
    "opens_at", "closes_at", "response_target", "completion_url", "thank_you_message",
    "budget", "asked",
)
"""The survey's own fields a survey file holds, under "survey"."""

SCHEDULE_TIMES = ("opens_at", "closes_at")
"""Its times: in the file as ISO 8601 text in UTC, or null."""

QUESTION_FIELDS = (
    "text", "help_text", "kind", "epsilon", "mechanism_override", "used_for_breakdowns",
    "known_share", "offers_refusal", "optional", "always_asked",
    "number_min", "number_max", "number_decimals", "number_bins",
)
"""A question's own fields a survey file holds; besides them, "answers" (its typed answers),
"asked_if" (its condition, by position) and "frozen_mechanism" (for information only)."""


def survey_file(survey: Survey) -> dict[str, Any]:
    """``survey``'s definition as the object a survey file holds. Questions are numbered from
    1 in their order; conditions and translations name them by that number."""
    questions = list(survey.ordered_questions())
    positions = {question.pk: position for position, question in enumerate(questions, start=1)}
    survey_part = {name: getattr(survey, name) for name in SURVEY_FIELDS}
    for name in SCHEDULE_TIMES:
        survey_part[name] = survey_part[name] and survey_part[name].isoformat()
    return {
        "format": FORMAT,
        "version": VERSION,
        "survey": survey_part,
        "questions": [_question(question, positions) for question in questions],
        "translations": {
            translation.language: translation.texts_for(
                {str(pk): str(position) for pk, position in positions.items()}
            )
            for translation in survey.translations.all()
        },
    }


def _question(question: Question, positions: dict[int, int]) -> dict[str, Any]:
    condition = None
    if question.conditional:
        condition = {
            "question": positions[question.asked_if_id],
            "answer": question.asked_if_answer,
        }
    return {
        "position": positions[question.pk],
        **{name: getattr(question, name) for name in QUESTION_FIELDS},
        "answers": question.labels() if question.question_kind.choices else [],
        "asked_if": condition,
        "frozen_mechanism": question.spec,
    }


def survey_file_bytes(survey: Survey) -> bytes:
    """The survey file as it is downloaded: UTF-8 JSON, keys sorted, indented, so that the
    same definition always gives the same bytes."""
    text = json.dumps(survey_file(survey), ensure_ascii=False, indent=2, sort_keys=True)
    return (text + "\n").encode()
