"""Planning a survey's design before it opens: for a number of respondents, each question's
epsilon, how many respondents answer it and its margin of error, when every question is
asked (the budget split evenly) and under a design that asks each respondent a random few
(docs/ldp.md, "Long questionnaires"); and the number of questions to ask that the site
recommends."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from surveys import ldp
from surveys.models import Question, Survey, build_mechanism, design_blocks, drawn_at_random
from surveys.queries.results import WARN_MARGIN

PLANNED_RESPONDENTS = (200, 1_000, 5_000, 20_000)
"""Numbers of respondents the design page offers to plan for (any other may be typed)."""


def margin(question: Question, epsilon: float, n: float) -> float:
    """The worst-case 95% margin of error of ``question``'s estimates with ``epsilon`` and
    ``n`` respondents answering it: of a share, or of a number's mean as a share of its
    range (infinite without respondents)."""
    mechanism = build_mechanism(
        question.kind, epsilon, len(question.all_labels()), question.mechanism_override,
        **question.question_kind.settings(question),
    )
    return mechanism.margin_of_error(max(int(n), 0))


def plan(
    questions: Sequence[Question], budget: float, asked: int | None, respondents: int
) -> dict[str, Any]:
    """The design page's figures for ``respondents``: ``rows``, one per question in order,
    each with its ``question``, whether it is ``always`` asked, and for the two designs
    ("every": every question asked, the ``budget`` split evenly; "sampled": ``asked`` blocks
    drawn from those not always asked, the always-asked questions at their own epsilon) its
    ``epsilon``, ``answered`` (respondents who answer it) and ``margin``, with ``wide``
    above ``WARN_MARGIN``; ``recommended``, the number of blocks with the narrowest widest
    margin (``ldp.recommended_asked``); and ``problem``, why the sampled design cannot be
    (None when it can, or when ``asked`` is None)."""
    even = budget / len(questions) if questions else None
    always, sampled = design_blocks(questions)
    always_eps = [q.epsilon for b in always for q in b]
    sizes = [len(b) for b in sampled]

    def widest(epsilon: float, n: float) -> float:
        return max(margin(q, epsilon, n) for b in sampled for q in b)

    recommended = problem = sampled_epsilon = None
    if sampled and even:
        try:
            recommended = ldp.recommended_asked(budget, always_eps, sizes, respondents, widest)
        except ValueError:
            recommended = None
    if asked is not None:
        try:
            sampled_epsilon = ldp.sampled_epsilon(budget, always_eps, sizes, asked)
        except ValueError as error:
            problem = str(error)
    drawn = {q.pk for b in sampled for q in b}
    rows = []
    for question in questions:
        every = _figures(question, even, respondents)
        if sampled_epsilon is None:
            mine = None
        elif question.pk in drawn:
            mine = _figures(question, sampled_epsilon,
                            ldp.expected_asked(respondents, len(sampled), asked))
        else:
            mine = _figures(question, question.epsilon, respondents)
        rows.append({"question": question, "always": question.pk not in drawn,
                     "every": every, "sampled": mine})
    return {"rows": rows, "recommended": recommended, "problem": problem,
            "sampled_epsilon": sampled_epsilon, "even_epsilon": even}


def _figures(question: Question, epsilon: float | None, answered: float) -> dict[str, Any] | None:
    if epsilon is None:
        return None
    found = margin(question, epsilon, answered)
    return {"epsilon": epsilon, "answered": round(answered), "margin": found,
            "wide": found > WARN_MARGIN}


def design_of(survey: Survey, questions: Sequence[Question]) -> dict[str, Any]:
    """The survey's design as its page states it: ``asked`` (None: every question), its
    ``budget``, and how many ``blocks`` are drawn from, among its ``questions``."""
    return {"asked": survey.asked, "budget": survey.budget,
            "blocks": len(design_blocks(questions)[1])}


EXPECTED_RESPONDENTS = 1_000
"""What the warnings before opening assume without a response target."""


def wide_margins(survey: Survey) -> tuple[int, list[dict[str, Any]]]:
    """The respondents ``survey`` expects (its response target, else
    ``EXPECTED_RESPONDENTS``) and its questions whose worst-case margin of error would then
    be above ``WARN_MARGIN``, each with its ``question``, ``answered`` (the respondents who
    answer it: a share of them for a question drawn at random) and ``margin``: what the page
    before opening warns of."""
    respondents = survey.response_target or EXPECTED_RESPONDENTS
    questions = list(survey.ordered_questions())
    drawn = drawn_at_random(survey, questions)
    blocks = len(design_blocks(questions)[1])
    wide = []
    for question in questions:
        answered = (ldp.expected_asked(respondents, blocks, survey.asked) if question.pk in drawn
                    else respondents)
        found = margin(question, question.epsilon, answered)
        if found > WARN_MARGIN:
            wide.append({"question": question, "answered": round(answered), "margin": found})
    return respondents, wide
