"""Numbers: a bounded number (whole, or with up to ``ldp.numbers.MAX_DECIMALS`` places) in a
range the researcher sets, with optional bins for its distribution. The browser puts the
number on the grid of the range and randomizes it by a sliding window (``ldp.number_window``;
why this mechanism: ``surveys/ldp/numbers.py`` and docs/ldp.md, "Numbers"). Results give the
mean with its 95% interval, in the question's unit, and the distribution over the bins."""

from __future__ import annotations

import math
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys import ldp
from surveys.kinds.base import QuestionKind
from surveys.ldp import numbers

DEFAULT_RANGE = (0.0, 100.0)
"""The range the planner assumes before the researcher gives one."""
DEFAULT_BINS = 5
"""Equal bins a question gets when the researcher gives no edges."""


def parse_edges(text: str) -> list[float]:
    """Bin edges typed as numbers separated by commas or spaces; ValueError if one is not a
    number."""
    parts = [part for part in text.replace(",", " ").split() if part]
    edges = [float(part) for part in parts]
    if not all(math.isfinite(edge) for edge in edges):
        raise ValueError("not a finite number")
    return edges


def default_edges(low: float, high: float, decimals: int) -> list[float]:
    """``DEFAULT_BINS`` equal bins' inner edges, rounded to the question's places (fewer
    bins where the grid is too coarse for them)."""
    edges = sorted({
        round(low + (high - low) * b / DEFAULT_BINS, decimals) for b in range(1, DEFAULT_BINS)
    })
    return [edge for edge in edges if low < edge < high]


class NumberKind(QuestionKind):
    def settings(self, question: Any) -> dict[str, Any]:
        """The range, places and bins of ``question`` (a ``Question``), for ``mechanism``."""
        low, high = question.number_min, question.number_max
        decimals = question.number_decimals or 0
        if low is None or high is None:
            return {}
        try:
            edges = parse_edges(question.number_bins or "")
        except ValueError:
            edges = []
        return {"low": low, "high": high, "decimals": decimals,
                "edges": edges or default_edges(low, high, decimals)}

    def mechanism(
        self, epsilon: float, k: int, override: str = "", **settings: Any
    ) -> ldp.NumberWindow:
        """``k``: its answers besides numbers, that is its extra ones ("No answer", "Not
        asked": ``Question.all_labels``), each randomized as one more window."""
        low, high = DEFAULT_RANGE
        return ldp.number_window(
            epsilon,
            settings.get("low", low),
            settings.get("high", high),
            settings.get("decimals", 0),
            settings.get("edges", default_edges(low, high, 0)),
            extras=k,
        )

    def browser_answer(self, index: int, k: int) -> Any:
        """``{"extra": index}``: the browser's number randomizer takes an extra answer so."""
        return {"extra": index}

    def mechanism_reason(self, epsilon: float, k: int, override: str = "") -> str:
        return gettext(
            "Each respondent's browser sends one cell of a grid over the range: with high "
            "probability one of a window of cells around the true number, otherwise any "
            "other. The mean is corrected for this exactly; the bins are estimated from the "
            "same reports."
        )

    def settings_problems(self, text: str, settings: dict[str, Any]) -> list[str]:
        """What is wrong with a number question's range, places and bins."""
        if not settings:
            return [gettext("“%(text)s” needs a smallest and a largest number.") % {"text": text}]
        try:
            ldp.number_window(1.0, **settings)
        except ValueError:
            return [number_problem(settings)]
        return []

    def field_problems(self, values: Any) -> dict[str, list[str]]:
        """Both ends of the range given, the bins' edges numbers, then ``settings_problems``
        (under the largest number)."""
        needs = {"number_min": gettext("A number question needs its smallest number."),
                 "number_max": gettext("A number question needs its largest number.")}
        missing = {name: [need] for name, need in needs.items() if getattr(values, name) is None}
        if missing:
            return missing
        try:
            parse_edges(values.number_bins or "")
        except ValueError:
            return {"number_bins": [gettext(
                "Type the bins' edges as numbers separated by commas, for example 25, 45, 65."
            )]}
        problems = self.settings_problems("", self.settings(values))
        return {"number_max": problems} if problems else {}

    def readiness_problems(
        self, text: str, labels: list[str], settings: dict[str, Any] | None = None
    ) -> list[str]:
        return self.settings_problems(text, settings or {})

    def form_facts(self) -> dict:
        return {**super().form_facts(), "number": True}


def number_problem(settings: dict[str, Any]) -> str:
    """The first thing wrong with a range, places and bins, in words."""
    low, high, decimals = settings["low"], settings["high"], settings["decimals"]
    scale = 10**decimals
    if not low < high:
        return gettext("The smallest number must be below the largest.")
    if not all(math.isclose(round(x * scale), x * scale, abs_tol=1e-6) for x in (low, high)):
        return gettext("The ends of the range must have at most %(places)d decimal places.") % {
            "places": decimals}
    if (high - low) * scale > numbers.MAX_STEPS:
        return gettext(
            "The range is too fine: at most %(steps)s steps between the smallest and the "
            "largest number. Use fewer decimal places or a narrower range."
        ) % {"steps": f"{numbers.MAX_STEPS:,}"}
    return gettext(
        "The bins' edges must be numbers inside the range, in increasing order (at most "
        "%(edges)d of them)."
    ) % {"edges": numbers.MAX_BINS - 1}


NUMBER = NumberKind(
    value="number",
    label=_("Number"),
    choices=False,
    headline_template="surveys/results/kinds/number.html",
    answer_control="number",
    fields=("number_min", "number_max", "number_decimals", "number_bins"),
    min_answers=0,
    groups=False,
    cannot_group=_(
        "A number question cannot group respondents: use a multiple-choice question with "
        "ranges as its answers to group by a number."
    ),
)
"""Number questions; results give the mean with its interval and the bins' shares, and
breakdowns the mean within each group (``ldp.numbers.group_means``)."""
