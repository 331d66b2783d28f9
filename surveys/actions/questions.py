"""Writing a draft's questions and their answers: saving one with its answers, deleting one,
moving one. "Frozen once opened" is checked here, before anything is written: once a survey
has opened, reports were randomized with its questions, so none of these may touch it. The
only writes to an opened survey's questions are ``surveys.actions.surveys.open_survey`` (the
frozen ``spec``, once) and ``surveys.actions.wording.correct`` (texts only)."""

from __future__ import annotations

from django.db import transaction

from surveys.actions.designs import apply_design
from surveys.models import Choice, Question, refuse_if_frozen


def save_question(question: Question, labels: list[str]) -> Question:
    """Save ``question`` (new or changed) with ``labels`` as its answers when its kind takes
    the researcher's answers (ignored otherwise), replacing any it had; in a survey with a
    design, the questions drawn at random get the epsilon it now works out."""
    refuse_if_frozen(question.survey)
    with transaction.atomic():
        question.save()
        question.choices.all().delete()
        if question.question_kind.choices:
            Choice.objects.bulk_create(
                [Choice(question=question, order=i, label=label) for i, label in enumerate(labels)]
            )
        apply_design(question.survey)
    question.refresh_from_db(fields=["epsilon"])
    return question


def delete_question(question: Question) -> None:
    refuse_if_frozen(question.survey)
    with transaction.atomic():
        question.delete()
        apply_design(question.survey)


def move_question(question: Question, up: bool) -> None:
    """Swap ``question`` with its neighbour above (``up``) or below; at either end, nothing."""
    survey = question.survey
    refuse_if_frozen(survey)
    questions = list(survey.ordered_questions())
    i = questions.index(question)
    j = i - 1 if up else i + 1
    if not 0 <= j < len(questions):
        return
    questions[i], questions[j] = questions[j], questions[i]
    with transaction.atomic():
        for order, item in enumerate(questions, start=1):
            Question.objects.filter(pk=item.pk).update(order=order)
