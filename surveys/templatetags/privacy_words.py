"""Plain words for what a mechanism's randomization means to a respondent.

Consequences and odds rather than definitions: respondents trust randomized response when
told how often their true answer gets through and how little a received answer proves ("a
“yes” we receive is only 3 times more likely to come from someone whose true answer is
yes"). Pure functions of a mechanism; also template filters (`{% load privacy_words %}`,
`{{ question.mechanism|describe_protection }}`).
"""

from __future__ import annotations

import math

from django import template

from surveys import ldp

register = template.Library()


def percent(x: float) -> str:
    """A probability as a rounded percentage that never claims certainty: "73%", and
    "over 99%" / "under 1%" near the ends."""
    if x > 0.99:
        return "over 99%"
    if x < 0.01:
        return "under 1%"
    return f"{round(100 * x)}%"


def times(ratio: float) -> str:
    """A likelihood ratio (> 1) with just enough digits to differ from 1: "3", "2.7",
    "1.05", "55", "1,097"."""
    if ratio >= 10:
        return f"{ratio:,.0f}"
    digits = max(1, -math.floor(math.log10(ratio - 1)))
    return f"{ratio:.{digits}f}".rstrip("0").rstrip(".")


def _likely(ratio: float) -> str:
    return f"{'only ' if ratio < 10 else ''}{times(ratio)} times more likely"


@register.filter
def describe_protection(mechanism: ldp.Mechanism) -> str:
    """How often the true answer gets through and how much a received report proves, for
    one question randomized with `mechanism` (yes/no: p = P(yes | yes), q = P(no | no);
    index: truth w.p. p, each other answer w.p. q; unary: own box ticked w.p. p, others q)."""
    p, q, k = mechanism.p, mechanism.q, mechanism.k
    if mechanism.encoding == "bit":
        if math.isclose(p, q):
            chance = (
                f"We receive your true answer in {percent(p)} of cases; in the others, we "
                "receive the opposite."
            )
        else:
            chance = (
                f"If your true answer is yes, we receive “yes” in {percent(p)} of cases; if it "
                f"is no, we receive “no” in {percent(q)} of cases. In the other cases we "
                "receive the opposite."
            )
        yes, no = p / (1 - q), q / (1 - p)
        odds = (
            f"A “yes” we receive is {_likely(yes)} to come from someone whose true answer "
            "is yes than from someone whose true answer is no"
        )
        if math.isclose(yes, no):
            return f"{chance} {odds}, and the same goes for a “no”."
        return (
            f"{chance} {odds}; a “no” we receive is {_likely(no)} to come from someone "
            "whose true answer is no."
        )
    if mechanism.encoding == "index":
        return (
            f"We receive your true answer in {percent(p)} of cases; in the others, one of "
            f"the other {k - 1} answers, picked at random. Whatever answer we receive is "
            f"{_likely(p / q)} to come from someone who really chose it than from someone "
            "who chose any one of the others."
        )
    return (
        f"Your answer is sent as a row of {k} boxes, one per choice, with only your choice "
        "ticked. Before anything is sent, your browser redraws every box at random: the box "
        f"of your choice stays ticked in {percent(p)} of cases, and each other box gets "
        f"ticked in {percent(q)} of cases. So what we receive may have several boxes "
        f"ticked, or none, and it is {_likely(_odds_limit(mechanism))} to come from one "
        "answer than from any other."
    )


def describe_survey_protection(mechanisms: list[ldp.Mechanism]) -> str:
    """A summary for a whole survey: the range of chances that a true answer gets through
    and the largest odds ratio over its questions (by how much the most revealing received
    answer favours one true answer over another). Empty for no questions."""
    if not mechanisms:
        return ""
    chances = [
        chance
        for m in mechanisms
        if m.encoding != "unary"
        for chance in ((m.p, m.q) if m.encoding == "bit" else (m.p,))
    ]
    worst = max(_odds_limit(m) for m in mechanisms)
    odds = (
        f"Whatever we receive is at most {times(worst)} times more likely to come from "
        "someone with one true answer than from someone with another."
    )
    if not chances:
        return odds
    low, high = min(chances), max(chances)
    if percent(low) == percent(high):
        return f"We receive your true answer in {percent(low)} of cases. {odds}"
    return (
        f"Depending on the question, we receive your true answer in {percent(low)} to "
        f"{percent(high)} of cases. {odds}"
    )


def _odds_limit(mechanism: ldp.Mechanism) -> float:
    """e^epsilon for the probabilities as stored: the largest ratio, over any report, of its
    probability under one true answer to that under another."""
    return math.exp(mechanism.exact_epsilon())
