"""The demo survey: a realistic 20-question study of students' health and substance use that
asks each respondent a random few of its questions under one whole-survey budget (docs/ldp.md,
"Long questionnaires"), with the true answers its simulated respondents are drawn from.

Each question is defined once below, with its truth: either its own distribution, or one
distribution per answer of an earlier question (``given``), whose mixture is then its own
truth, so that the truths agree with one another and every breakdown by the grouping
questions shows a real difference. The results page shows each truth beside its estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from surveys.actions.designs import set_design
from surveys.actions.simulate import load_demo_responses
from surveys.actions.surveys import open_survey
from surveys.kinds import CATEGORICAL, CHECK_ALL, NUMBER, RATING, YES_NO
from surveys.models import Choice, Question, Survey

DEMO_TITLE = "Student health and substance use (demo)"
DEMO_RESPONDENTS = 10_000
"""Simulated respondents: enough for each question drawn at random, answered by one
respondent in 17, to have a margin a study can use (about ±6 points for a yes/no share)."""
DEMO_BUDGET = 3.0
"""The whole-survey epsilon, the site's default limit: everything a respondent sends can make
anyone at most e^3 = 20 times more sure of anything about them."""
DEMO_ASKED = 1
"""Blocks drawn at random per respondent: the number the site recommends for this survey and
``DEMO_RESPONDENTS`` (the design page), which gives each question drawn at random the
narrowest margin. Every question can be broken down by the grouping questions, asked of
everyone; two questions drawn at random are never answered together."""
DEMO_ALWAYS_EPSILON = 0.5
"""The epsilon of each question asked of everyone: the two grouping questions, whose groups
every breakdown rests on, and the follow-up that goes with the second."""

YEARS = (0.40, 0.35, 0.25)
"""Year of study: first, second, third or later."""
USE_BY_YEAR = ((0.86, 0.10, 0.04), (0.71, 0.25, 0.04), (0.50, 0.45, 0.05))
"""Used cannabis in the past 12 months (No, Yes, "Prefer not to say") within each year."""


def _mixture(groups: Sequence[float], within: Sequence[Sequence[float]]) -> list[float]:
    """The overall distribution of a question drawn within the groups of another."""
    return [
        round(sum(g * row[answer] for g, row in zip(groups, within, strict=True)), 12)
        for answer in range(len(within[0]))
    ]


def _yes_no(*yes: float) -> tuple[tuple[float, ...], ...]:
    """One (No, Yes) distribution per answer of the use question from each group's yes share."""
    return tuple((round(1 - share, 12), share) for share in yes)


FREQUENCY = RATING.scale_labels(5, "Never", "Daily")
STRESS = RATING.scale_labels(5, "None at all", "Extreme")
SUBSTANCES = ("Alcohol", "Tobacco or nicotine", "Cannabis", "Ecstasy (MDMA)", "Cocaine")

QUESTIONS: tuple[dict[str, Any], ...] = (
    # Asked of everyone: the grouping questions (their follow-up travels with the second).
    {"name": "year", "kind": CATEGORICAL, "always": True, "groups": True,
     "text": "Which year of your studies are you in?",
     "choices": ("First year", "Second year", "Third year or later"), "truth": YEARS},
    {"name": "use", "kind": YES_NO, "always": True, "groups": True, "refusal": True,
     "text": "Have you used cannabis in the past 12 months?",
     "given": ("year", USE_BY_YEAR)},
    {"name": "frequency", "kind": RATING, "asked_if": ("use", 1),
     "text": "How often do you use cannabis?",
     "help": "Think of a typical month this year.", "choices": FREQUENCY,
     # Asked only of those who used it (some have stopped): everyone else is "Not asked".
     "given": ("use", ((0, 0, 0, 0, 0, 1), (0.15, 0.35, 0.20, 0.20, 0.10, 0),
                       (0, 0, 0, 0, 0, 1)))},
    # Drawn at random: each respondent answers DEMO_ASKED of these 17.
    {"name": "drinking", "kind": NUMBER, "range": (0, 30, "1, 5, 10, 20"),
     "text": "On how many of the past 30 days did you drink alcohol?",
     # Bins: none, 1-4, 5-9, 10-19, 20 or more. At least as many drank on no day as did not
     # tick "Alcohol" for the past 12 months below.
     "given": ("use", ((0.30, 0.40, 0.18, 0.10, 0.02), (0.10, 0.35, 0.25, 0.22, 0.08),
                       (0.20, 0.38, 0.22, 0.15, 0.05)))},
    {"name": "binge", "kind": YES_NO,
     "text": "In the past two weeks, have you had six or more drinks on one occasion?",
     "given": ("use", _yes_no(0.25, 0.50, 0.35))},
    {"name": "substances", "kind": CHECK_ALL,
     "text": "Which of these have you used in the past 12 months?",
     "help": "Tick all that apply, or none.", "choices": SUBSTANCES,
     # "Cannabis" is ticked exactly by those who used it (half of those who would not say).
     "given": ("use", ((0.80, 0.25, 0.0, 0.01, 0.01), (0.95, 0.55, 1.0, 0.15, 0.10),
                       (0.90, 0.40, 0.5, 0.08, 0.05)))},
    {"name": "nicotine", "kind": YES_NO,
     "text": "Have you smoked tobacco or vaped nicotine in the past 30 days?",
     # At most the share who used tobacco or nicotine in the past 12 months, in each group.
     "given": ("use", _yes_no(0.18, 0.45, 0.30))},
    {"name": "stimulants", "kind": YES_NO,
     "text": "Have you taken prescription stimulants that were not prescribed to you, "
             "to help you study?",
     "given": ("use", _yes_no(0.06, 0.25, 0.12))},
    {"name": "anchor", "kind": YES_NO, "known": 0.0,
     "text": "Have you ever used Relevin?",
     "help": "Relevin does not exist: this question checks that the randomization was "
             "understood (a validation anchor).",
     "truth": (1.0, 0.0)},
    {"name": "driving", "kind": YES_NO, "refusal": True,
     "text": "In the past 12 months, have you driven after drinking alcohol or using drugs?",
     "given": ("use", ((0.95, 0.03, 0.02), (0.72, 0.22, 0.06), (0.85, 0.08, 0.07)))},
    {"name": "skipped", "kind": YES_NO,
     "text": "This term, have you missed a class because of drinking or drug use?",
     "given": ("use", _yes_no(0.10, 0.35, 0.20))},
    {"name": "spending", "kind": NUMBER, "range": (0, 200, "10, 25, 50, 100"),
     "text": "How much do you spend on alcohol, tobacco and drugs in a typical week, in euros?",
     # Bins: under 10, 10-24, 25-49, 50-99, 100 or more.
     "given": ("use", ((0.50, 0.30, 0.14, 0.05, 0.01), (0.15, 0.30, 0.30, 0.18, 0.07),
                       (0.30, 0.30, 0.24, 0.12, 0.04)))},
    {"name": "sleep", "kind": NUMBER, "range": (0, 12, "5, 7, 9"),
     "text": "How many hours do you sleep on a typical night?",
     # Bins: under 5, 5-6, 7-8, 9 or more.
     "truth": (0.08, 0.34, 0.48, 0.10)},
    {"name": "stress", "kind": RATING, "choices": STRESS,
     "text": "How stressed have you felt over the past month?",
     "truth": (0.08, 0.22, 0.35, 0.25, 0.10)},
    {"name": "low", "kind": YES_NO, "refusal": True,
     "text": "In the past 12 months, have you felt so low that it was hard to get through "
             "the day?",
     "truth": (0.58, 0.36, 0.06)},
    {"name": "help", "kind": YES_NO,
     "text": "This year, have you sought help from a professional for your mental health?",
     "truth": (0.78, 0.22)},
    {"name": "cheating", "kind": YES_NO,
     "text": "This year, have you cheated on an exam or an assessed piece of work?",
     "given": ("year", _yes_no(0.10, 0.16, 0.20))},
    {"name": "gambling", "kind": YES_NO,
     "text": "In the past 12 months, have you gambled money online?",
     "truth": (0.83, 0.17)},
    {"name": "condom", "kind": YES_NO, "refusal": True,
     "text": "In the past 12 months, have you had sex with a new partner without a condom?",
     "given": ("use", ((0.78, 0.14, 0.08), (0.58, 0.34, 0.08), (0.62, 0.20, 0.18)))},
    {"name": "unwanted", "kind": YES_NO, "refusal": True,
     "text": "Since starting university, has anyone touched you sexually without your "
             "consent?",
     "truth": (0.83, 0.11, 0.06)},
)
"""The demo's questions in order, by name: their kind, text, answers and truth."""


def _truths() -> dict[str, list[float]]:
    """Every question's true distribution, by name: its own, or the mixture of its groups'."""
    found: dict[str, list[float]] = {}
    for spec in QUESTIONS:
        if "given" in spec:
            condition, within = spec["given"]
            found[spec["name"]] = _mixture(found[condition], within)
        else:
            found[spec["name"]] = [float(share) for share in spec["truth"]]
    return found


DEMO_TRUTH = _truths()
"""The true distribution of each demo question, by name, which ``create_demo_survey`` stores
on the questions (``Question.simulated_truth``): for a check-all question the share who tick
each option, for a number question the share in each bin, then any extra answer ("Prefer not
to say", "Not asked"). Only the demo knows its truth: the results page shows it beside the
estimates so that people trying the site can judge them."""


@transaction.atomic
def create_demo_survey(owner, respondents: int = DEMO_RESPONDENTS) -> Survey:
    """Create the demo survey for ``owner`` with its design, open it and fill it with
    ``respondents`` simulated respondents drawn from its truths."""
    survey = Survey.objects.create(
        owner=owner,
        title=DEMO_TITLE,
        introduction="A demonstration survey about students' health, drinking and drug use. "
        "You will be asked a few of its questions, drawn at random. Your answers are "
        "randomized on your device before they are sent.",
        study_by="Student Health Research Group, University of Exampleton (a demo)",
        study_contact="health-survey@example.org",
        ethics_reference="HREC 2026/117 (demo)",
        consent_required=True,
    )
    made: dict[str, Question] = {}
    for order, spec in enumerate(QUESTIONS, start=1):
        made[spec["name"]] = _question(survey, order, spec, made)
    set_design(survey, DEMO_BUDGET, DEMO_ASKED,
               {made[spec["name"]].pk for spec in QUESTIONS if spec.get("always")})
    open_survey(survey)
    load_demo_responses(survey, respondents)
    return survey


def _question(survey: Survey, order: int, spec: dict, made: dict[str, Question]) -> Question:
    """Create one demo question from its ``spec`` (``QUESTIONS``), with its answers and truth;
    ``made``: the questions before it, by name."""
    low, high, bins = spec.get("range", (None, None, ""))
    asked_if, asked_if_answer = spec.get("asked_if", (None, None))
    given = None
    if "given" in spec:
        condition, within = spec["given"]
        given = {"question": made[condition].pk, "shares": [list(row) for row in within]}
    question = Question.objects.create(
        survey=survey,
        order=order,
        kind=spec["kind"].value,
        # The design gives each question drawn at random its epsilon (set_design).
        epsilon=DEMO_ALWAYS_EPSILON,
        text=spec["text"],
        help_text=spec.get("help", ""),
        used_for_breakdowns=spec.get("groups", False),
        offers_refusal=spec.get("refusal", False),
        asked_if=made[asked_if] if asked_if else None,
        asked_if_answer=asked_if_answer,
        known_share=spec.get("known"),
        number_min=low,
        number_max=high,
        number_decimals=0 if spec["kind"] is NUMBER else None,
        number_bins=bins,
        simulated_truth=DEMO_TRUTH[spec["name"]],
        simulated_given=given,
    )
    Choice.objects.bulk_create(
        [Choice(question=question, order=i, label=label)
         for i, label in enumerate(spec.get("choices", ()))]
    )
    return question
