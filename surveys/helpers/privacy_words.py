"""Plain words for what a mechanism's randomization means to a respondent.

Consequences and odds rather than definitions: respondents trust randomized response when
told how often their true answer gets through and how little a received answer proves ("a
“yes” we receive is only 3 times more likely to come from someone whose true answer is
yes"). Pure functions of a mechanism.
"""

from __future__ import annotations

import math

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from surveys import ldp
from surveys.helpers.numbers import epsilon as epsilon_text
from surveys.helpers.numbers import percent_number

EXAMPLE_SUSPICION = 0.1
"""The suspicion in the survey's example sentence: "if someone thought there was a 10%
chance that something about you is true"."""


def percent(x: float) -> str:
    """A probability as a rounded percentage that never claims certainty: "73%", and
    "over 99%" / "under 1%" near the ends."""
    if x > 0.99:
        return _("over 99%")
    if x < 0.01:
        return _("under 1%")
    return percent_number(round(100 * x))


def times(ratio: float) -> str:
    """A likelihood ratio (> 1) with just enough digits to differ from 1: "3", "2.7",
    "1.05", "55", "1,097" (in the active language's number format: "1.097" in German)."""
    if ratio >= 10:
        return number_format(round(ratio), force_grouping=True)
    digits = max(1, -math.floor(math.log10(ratio - 1)))
    shown = f"{ratio:.{digits}f}".rstrip("0").rstrip(".")
    return number_format(float(shown), decimal_pos=len(shown.partition(".")[2]))


def _likely(ratio: float) -> str:
    if ratio < 10:
        return _("only %(ratio)s times more likely") % {"ratio": times(ratio)}
    return _("%(ratio)s times more likely") % {"ratio": times(ratio)}


def describe_protection(mechanism: ldp.Mechanism, not_asked: bool = False) -> str:
    """How often the true answer gets through and how much a received report proves, for
    one question randomized with `mechanism` (yes/no: p = P(yes | yes), q = P(no | no);
    index: truth w.p. p, each other answer w.p. q; unary: own box ticked w.p. p, others q;
    sampled: one box picked at random, kept w.p. p; number: a cell of the window w.p. p, among
    all its cells, those of its extra answers' windows included). A question asked only
    under a condition (``not_asked``) has one box the respondent never sees, "Not asked":
    where the sentence counts boxes, it says so."""
    p, q, k = mechanism.p, mechanism.q, mechanism.k
    if mechanism.encoding == "bit":
        if math.isclose(p, q):
            chance = _(
                "We receive your true answer in %(p)s of cases; in the others, we receive the "
                "opposite."
            ) % {"p": percent(p)}
        else:
            chance = _(
                "If your true answer is yes, we receive “yes” in %(p)s of cases; if it is no, "
                "we receive “no” in %(q)s of cases. In the other cases we receive the opposite."
            ) % {"p": percent(p), "q": percent(q)}
        yes, no = p / (1 - q), q / (1 - p)
        if math.isclose(yes, no):
            odds = _(
                "A “yes” we receive is %(likely)s to come from someone whose true answer is "
                "yes than from someone whose true answer is no, and the same goes for a “no”."
            ) % {"likely": _likely(yes)}
        else:
            odds = _(
                "A “yes” we receive is %(yes)s to come from someone whose true answer is yes "
                "than from someone whose true answer is no; a “no” we receive is %(no)s to "
                "come from someone whose true answer is no than from someone whose true answer "
                "is yes."
            ) % {"yes": _likely(yes), "no": _likely(no)}
        return f"{chance} {odds}"
    if mechanism.encoding == "index":
        return ngettext(
            "We receive your true answer in %(p)s of cases; in the others, the other answer. "
            "Whatever answer we receive is %(likely)s to come from someone who really chose it "
            "than from someone who chose the other.",
            "We receive your true answer in %(p)s of cases; in the others, one of the other "
            "%(others)s answers, picked at random. Whatever answer we receive is %(likely)s to "
            "come from someone who really chose it than from someone who chose any one of the "
            "others.",
            k - 1,
        ) % {"p": percent(p), "others": k - 1, "likely": _likely(p / q)}
    likely = _likely(_odds_limit(mechanism))
    if mechanism.encoding == "sampled":
        picked = _(
            "Your browser picks one of %(k)s boxes at random, the %(shown)s you see and one "
            "for “Not asked”, and sends only that box:"
        ) if not_asked else _(
            "Your browser picks one of the %(k)s options at random and sends only that "
            "option's box:"
        )
        return (picked + " " + _(
            "as you set it in %(p)s of cases, the opposite in the others. Whatever we receive "
            "is %(likely)s to come from one set of ticked boxes than from any other."
        )) % {"k": k, "shown": k - 1, "p": percent(p), "likely": likely}
    if mechanism.encoding == "number":
        return _(
            "Your browser sends one of %(cells)s cells of a grid over the range instead of "
            "your number: in %(p)s of cases one of a window of cells around your number, in "
            "the others any other cell. Whatever we receive is %(likely)s to come from one "
            "number than from any other."
        ) % {"cells": mechanism.tally_size, "p": percent(p),
             "likely": likely}
    row = _(
        "Your answer is sent as a row of %(k)s boxes, one per choice you see and one for "
        "“Not asked”, with only your choice ticked."
    ) if not_asked else _(
        "Your answer is sent as a row of %(k)s boxes, one per choice, with only your choice "
        "ticked."
    )
    return (row + " " + _(
        "Before anything is sent, your browser redraws every box at random: the box of your "
        "choice stays ticked in %(p)s of cases, and each other box gets ticked in %(q)s of "
        "cases. So what we receive may have several boxes ticked, or none, and it is "
        "%(likely)s to come from one answer than from any other."
    )) % {"k": k, "p": percent(p), "q": percent(q), "likely": likely}


def describe_survey_protection(mechanisms: list[ldp.Mechanism]) -> str:
    """A summary for a whole survey: the range of chances that a true answer gets through.
    Empty for no questions, and when every question sends a row of boxes, one box of a
    check-all question or a number's cell (no such chance: not a whole answer). The odds
    are ``survey_odds``'s, said once on the page, not here again."""
    chances = [
        chance
        for m in mechanisms
        if m.encoding not in ("unary", "sampled", "number")
        for chance in ((m.p, m.q) if m.encoding == "bit" else (m.p,))
    ]
    if not chances:
        return ""
    low, high = min(chances), max(chances)
    if percent(low) == percent(high):
        return _("We receive your true answer in %(p)s of cases.") % {"p": percent(low)}
    return _(
        "Depending on the question, we receive your true answer in %(low)s to %(high)s of "
        "cases."
    ) % {"low": percent(low), "high": percent(high)}


def _odds_limit(mechanism: ldp.Mechanism) -> float:
    """e^epsilon for the probabilities as stored: the largest ratio, over any report, of its
    probability under one true answer to that under another."""
    return math.exp(mechanism.exact_epsilon())


def raised_suspicion(total_epsilon: float, suspicion: float = EXAMPLE_SUSPICION) -> float:
    """The most that everything a respondent sends (total epsilon) can raise anyone's
    `suspicion` that something about them is true: prior odds times e^total, as a
    probability."""
    odds = suspicion / (1 - suspicion) * math.exp(total_epsilon)
    return odds / (1 + odds)


def limit_meaning(epsilon: float, *, whole_survey: bool = False) -> str:
    """What an epsilon means for the people answering, in the active language: one answer
    randomized with it (or, ``whole_survey``, everything one respondent sends, whose epsilons
    add up to it) can make anyone at most e^epsilon times more sure, and for a whole survey,
    where that takes a 10% suspicion (rounded up, as ``survey_odds`` says it to respondents).
    The privacy policy's limits in the admin say this of their saved values."""
    words = {"epsilon": epsilon_text(epsilon), "ratio": times(math.exp(epsilon))}
    if not whole_survey:
        return _(
            "At %(epsilon)s, one answer can make anyone at most %(ratio)s times more sure of "
            "the respondent's true answer to that question."
        ) % words
    chance = _raised_chance(epsilon)
    if chance is None:
        return _(
            "At %(epsilon)s, everything a respondent sends can make anyone at most %(ratio)s "
            "times more sure of anything about them: someone who sees all of it could become "
            "almost sure of some of their true answers."
        ) % words
    return _(
        "At %(epsilon)s, everything a respondent sends can make anyone at most %(ratio)s times "
        "more sure of anything about them: a 10%% chance that something about them is true "
        "could rise to at most %(chance)s."
    ) % {**words, "chance": chance}


def _raised_chance(total_epsilon: float) -> str | None:
    """Where everything sent under ``total_epsilon`` can take a 10% suspicion
    (``raised_suspicion``), rounded up (a bound stays one), as respondents read it; None
    above 99%, where the sentences say "almost sure" instead."""
    raised = raised_suspicion(total_epsilon)
    return None if raised > 0.99 else percent_number(math.ceil(100 * raised))


def survey_odds(epsilons: list[float], total: float | None = None) -> list[tuple[str, str]]:
    """What a survey whose questions have these `epsilons` tells respondents anyone could
    learn about them, as (name, sentence) pairs in the active language: how many times more
    sure one answer (the largest epsilon) and everything they send (e^ the `total`: by
    default the sum; a design that asks each respondent a random few accounts less) can make
    anyone, and where that takes a 10% suspicion (rounded up: a bound stays one). The
    respondent's page and the authoring page both show these; empty without questions."""
    if not epsilons:
        return []
    total = sum(epsilons) if total is None else total
    everything = times(math.exp(total))
    if len(epsilons) == 1:
        sentences = [("all", _(
            "Your answer can make anyone who sees it at most %(ratio)s times more sure of your "
            "true answer than they were before. It can never make them certain."
        ) % {"ratio": everything})]
    else:
        sentences = [
            ("one", _(
                "Any one answer we receive can make anyone who sees it at most %(ratio)s times "
                "more sure of your true answer to that question than they were before."
            ) % {"ratio": times(math.exp(max(epsilons)))}),
            ("all", _(
                "Everything you send, taken together, can make anyone who sees all of it at "
                "most %(ratio)s times more sure of anything about your true answers than they "
                "were before. It can never make them certain."
            ) % {"ratio": everything}),
        ]
    chance = _raised_chance(total)
    if chance is not None:
        example = _(
            "For example, if someone thought there was a 10%% chance that something about you "
            "is true, everything you send could raise that to at most %(chance)s."
        ) % {"chance": chance}
    else:
        example = _(
            "This survey asks a lot: someone who sees everything you send could become almost "
            "sure of some of your true answers."
        )
    return [*sentences, ("example", example)]
