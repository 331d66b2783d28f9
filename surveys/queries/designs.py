"""Planning a survey's design before it opens: for a number of respondents, each question's
epsilon, how many respondents answer it and its margin of error, when every question is
asked (the budget split evenly) and under a design that asks each respondent a random few
(docs/ldp.md, "Long questionnaires"); and the number of questions to ask that the site
recommends."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from surveys import ldp
from surveys.ldp import joint
from surveys.models import Question, Survey, build_mechanism, design_blocks, drawn_at_random
from surveys.queries.results import WARN_MARGIN

PLANNED_RESPONDENTS = (200, 1_000, 5_000, 20_000)
"""Numbers of respondents the design page offers to plan for (any other may be typed)."""


def _mechanism(question: Question, epsilon: float) -> ldp.Mechanism:
    """``question``'s mechanism were its epsilon ``epsilon``."""
    return build_mechanism(
        question.kind, epsilon, len(question.all_labels()), question.mechanism_override,
        **question.question_kind.settings(question),
    )


def margin(question: Question, epsilon: float, n: float) -> float:
    """The worst-case 95% margin of error of ``question``'s estimates with ``epsilon`` and
    ``n`` respondents answering it: of a share, or of a number's mean as a share of its
    range (infinite without respondents)."""
    return _mechanism(question, epsilon).margin_of_error(max(int(n), 0))


def margin_within(
    grouping: Question, grouping_epsilon: float, other: Question, epsilon: float, n: float
) -> float | None:
    """The worst-case 95% margin of error of the share of an answer of ``other`` (at
    ``epsilon``) within one group of ``grouping`` (at ``grouping_epsilon``), its answers
    taken as evenly spread (a group of 1 / k of the respondents), when ``n`` respondents
    answer both (``joint.margin_within_group``); None for a question whose breakdown the
    planner cannot foresee (a number or a check-all question: their answers are not one of
    k)."""
    mechanism = _mechanism(other, epsilon)
    if isinstance(mechanism, (ldp.NumberWindow, ldp.SampledBoxes)):
        return None
    return joint.margin_within_group(
        _mechanism(grouping, grouping_epsilon), mechanism, max(int(n), 0),
        1 / len(grouping.labels()),
    )


def plan(
    questions: Sequence[Question], budget: float, asked: int | None, respondents: int
) -> dict[str, Any]:
    """The design page's figures for ``respondents``: ``rows``, one per question in order,
    each with its ``question``, whether it is ``always`` asked, and for the two designs
    ("every": every question asked, the ``budget`` split evenly; "sampled": ``asked`` blocks
    drawn from those not always asked, the always-asked questions at their own epsilon) its
    ``epsilon``, ``answered`` (respondents who answer it) and ``margin``, with ``wide``
    above ``WARN_MARGIN``, and for a grouping question ``within`` (``_widest_within``: the
    widest margin of a share within one of its groups, of the questions it can break down);
    ``recommended``, the number of blocks with the narrowest widest margin
    (``ldp.recommended_asked``); ``has_grouping``, whether a question groups others; and
    ``problem``, why the sampled design cannot be (None when it can, or when ``asked`` is
    None)."""
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
    block_of = {q.pk: i for i, b in enumerate(sampled) for q in b}

    def under_design(question: Question) -> tuple[float, float]:
        """Its epsilon and the respondents who answer it under the sampled design."""
        if question.pk in block_of:
            return sampled_epsilon, ldp.expected_asked(respondents, len(sampled), asked)
        return question.epsilon, respondents

    def together(first: Question, second: Question) -> float:
        """The respondents who answer both under the sampled design."""
        blocks = {block_of.get(first.pk), block_of.get(second.pk)} - {None}
        if len(blocks) < 2:
            return min(under_design(first)[1], under_design(second)[1])
        return respondents * ldp.both_asked_share(len(sampled), asked)

    rows = []
    for question in questions:
        others = [q for q in questions if q.pk != question.pk]
        every = _figures(question, even, respondents)
        if every and question.used_for_breakdowns:
            every["within"] = _widest_within(
                question, even, [(q, even, respondents) for q in others])
        mine = None
        if sampled_epsilon is not None:
            mine = _figures(question, *under_design(question))
            if mine and question.used_for_breakdowns:
                mine["within"] = _widest_within(question, mine["epsilon"], [
                    (q, under_design(q)[0], together(question, q)) for q in others])
        rows.append({"question": question, "always": question.pk not in block_of,
                     "every": every, "sampled": mine})
    return {"rows": rows, "recommended": recommended, "problem": problem,
            "sampled_epsilon": sampled_epsilon, "even_epsilon": even,
            "has_grouping": any(q.used_for_breakdowns for q in questions)}


def _figures(question: Question, epsilon: float | None, answered: float) -> dict[str, Any] | None:
    if epsilon is None:
        return None
    found = margin(question, epsilon, answered)
    return {"epsilon": epsilon, "answered": round(answered), "margin": found,
            "wide": found > WARN_MARGIN}


def _widest_within(
    grouping: Question, epsilon: float, others: Sequence[tuple[Question, float, float]]
) -> dict[str, Any] | None:
    """The widest ``margin_within`` a group of ``grouping`` (at ``epsilon``) of the questions
    it can break down, each (question, its epsilon, the respondents who answer both; none
    when no respondent answers both): its ``margin``, ``wide`` above ``WARN_MARGIN``, and the
    ``group_share`` assumed; None when it can break none down."""
    found = [
        margin_within(grouping, epsilon, other, other_epsilon, n)
        for other, other_epsilon, n in others if n >= 1
    ]
    widest = max((m for m in found if m is not None), default=None)
    if widest is None:
        return None
    return {"margin": widest, "wide": widest > WARN_MARGIN,
            "group_share": 1 / len(grouping.labels())}


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
