"""A draft's design: ask every question, or each respondent a random few under one budget
(docs/ldp.md, "Long questionnaires"). Setting it marks the blocks always asked and gives the
questions drawn at random the epsilon the design works out (``apply_design``), in one
transaction; saving or deleting a question of a draft with a design applies it again. Frozen
once the survey opens, with the mechanisms."""

from __future__ import annotations

from collections.abc import Collection

from django.core.exceptions import ValidationError
from django.db import transaction

from surveys.models import (
    Question,
    Survey,
    design_epsilon,
    design_problem,
    drawn_at_random,
    refuse_if_frozen,
)


def apply_design(survey: Survey) -> None:
    """Give every question drawn at random in ``survey``'s design the epsilon the design
    works out (``design_epsilon``). Nothing when every question is asked, or when the design
    cannot be as the questions stand (``design_problem`` says why, and the survey cannot
    open until it can)."""
    if survey.asked is None:
        return
    questions = list(survey.ordered_questions())
    try:
        epsilon = design_epsilon(survey, questions)
    except ValueError:
        return
    Question.objects.filter(pk__in=drawn_at_random(survey, questions)).update(epsilon=epsilon)


def set_design(
    survey: Survey, budget: float | None, asked: int | None, always: Collection[int]
) -> None:
    """Store the draft ``survey``'s design: its whole-survey ``budget``, the number of blocks
    ``asked`` of each respondent (None: every question), and the questions ``always`` asked
    (ids of the first questions of their blocks), then apply it. ValidationError saying why,
    having stored nothing, when the design cannot be."""
    refuse_if_frozen(survey)
    survey.budget, survey.asked = (budget, asked) if asked is not None else (None, None)
    questions = list(survey.ordered_questions())
    for question in questions:
        question.always_asked = question.pk in always
    problem = design_problem(survey, questions)
    if problem:
        raise ValidationError(problem)
    with transaction.atomic():
        survey.save(update_fields=["budget", "asked"])
        Question.objects.filter(survey=survey).update(always_asked=False)
        Question.objects.filter(survey=survey, pk__in=always).update(always_asked=True)
        apply_design(survey)
