"""Check all that apply: k options the researcher types (2 to ``ldp.MAX_OPTIONS``), of which a
respondent ticks any subset, none included. One epsilon covers the whole ticked set: the
browser samples one option and randomizes its box (``ldp.sampled_boxes``; why this mechanism:
``surveys/ldp/checkall.py`` and docs/ldp.md). Results give each option's share and the mean
number of options ticked. Its questions may offer "Prefer not to say" and be conditional, each
one more box its mechanism randomizes ("No answer", "Not asked", ticked alone by those who
give it: ``browser_answer``), but not be optional: ticking none is already an answer."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys import ldp
from surveys.kinds.base import QuestionKind


class CheckAllKind(QuestionKind):
    def mechanism(
        self, epsilon: float, k: int, override: str = "", **settings: object
    ) -> ldp.SampledBoxes:
        return ldp.sampled_boxes(epsilon, min(max(k, 2), ldp.MAX_BOXES))

    def browser_answer(self, index: int, k: int) -> list[int]:
        """The k boxes with only box ``index`` (an extra answer's) ticked."""
        return [int(box == index) for box in range(k)]

    def mechanism_reason(self, epsilon: float, k: int, override: str = "") -> str:
        return gettext(
            "Each respondent's browser picks one option at random and sends only whether its "
            "box is ticked, randomized at the full epsilon: more precise than randomizing "
            "every box with a share of epsilon."
        )

    def answer_problems(self, labels: list[str]) -> list[str]:
        if len(labels) > ldp.MAX_OPTIONS:
            return [gettext("A check-all question can have at most %(limit)d options.")
                    % {"limit": ldp.MAX_OPTIONS}]
        return super().answer_problems(labels)

    def readiness_problems(
        self, text: str, labels: list[str], settings: dict | None = None
    ) -> list[str]:
        if len(labels) > ldp.MAX_OPTIONS:
            return [gettext("“%(text)s” has more than %(limit)d options.")
                    % {"text": text, "limit": ldp.MAX_OPTIONS}]
        return super().readiness_problems(text, labels)


CHECK_ALL = CheckAllKind(
    value="checkall",
    label=_("Check all that apply"),
    choices=True,
    min_choices=2,
    headline_template="surveys/results/kinds/checkall.html",
    answer_control="check_all",
    groups=False,
    skippable=False,
    cannot_skip=_(
        "A check-all question cannot be optional: ticking none is already an answer. Offer "
        "“Prefer not to say” to let respondents decline it."
    ),
    cannot_group=_(
        "A check-all question cannot group respondents: each ticks a set, not one answer."
    ),
)
"""Check-all-that-apply questions; results add the mean number of options ticked, and
breakdowns give each option's share within groups (``ldp.checkall.option_breakdowns``)."""
