"""What every kind of question answers for the rest of the code: the seam.

A kind (yes/no, multiple choice, ...) is one instance of ``QuestionKind``, defined in one
module of this package and listed in ``surveys.kinds.KINDS``. The models, queries, actions,
forms, views and templates ask it, never test ``question.kind`` themselves:

- authoring: its name (``label``), whether the researcher types its answers (``choices``:
  one per line, at least ``min_choices``) or the site gives them (``fixed_answers``), and
  ``answer_problems`` for what a researcher typed;
- privacy: ``mechanism``, the randomizer its reports are drawn with (frozen in the
  question's ``spec`` when the survey opens), and ``mechanism_reason`` in words;
- reports, tallies, estimates and exports follow from that mechanism (``surveys.ldp``: its
  report format, ``validate_report``, ``support`` and ``estimate``), whatever the kind;
- results: ``scored`` (a mean score of points 1..k), ``headline_template``, the part of its
  card above the chart (or None), in ``templates/surveys/results/kinds/``;
- respondents: ``answer_control``, how the true answer is given: its template
  (``templates/surveys/respond/controls/<control>.html``) and the script that reads it
  (``static/surveys/controls/<control>.js``), which then randomizes it by the mechanism's
  ``encoding`` (``static/surveys/ldp.js``, the JavaScript twin of ``surveys.ldp``).

docs/kinds.md says how to add a kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import formats, translation
from django.utils.functional import Promise
from django.utils.translation import gettext

from surveys import ldp
from surveys.helpers import numbers

MAX_CHOICE_LENGTH = 200
"""The longest answer a researcher may type (``Choice.label``)."""


def choice_reason(epsilon: float, k: int) -> str:
    """One sentence on why ``ldp.choose_categorical`` picks what it picks for ``k`` answers."""
    threshold = ldp.grr_threshold(epsilon)
    values = {
        "k": k,
        "epsilon": numbers.epsilon(epsilon),
        "threshold": formats.number_format(round(threshold, 1), 1),  # it cuts, not rounds
    }
    if k < threshold:
        return gettext(
            "With %(k)s categories and epsilon %(epsilon)s, generalized randomized response "
            "(GRR) gives the more precise estimates, because %(k)s is below 3e^epsilon + 2 = "
            "%(threshold)s; with more categories than that, its noise would spread too thin."
        ) % values
    return gettext(
        "With %(k)s categories and epsilon %(epsilon)s, optimized unary encoding (OUE) gives "
        "the more precise estimates, because %(k)s is at least 3e^epsilon + 2 = "
        "%(threshold)s: the error of generalized randomized response grows with the number "
        "of categories, that of OUE does not."
    ) % values


@dataclass(frozen=True)
class QuestionKind:
    value: str
    """What ``Question.kind`` stores."""
    label: Promise
    """Its name on researchers' pages."""
    choices: bool
    """Whether the researcher types its answers (``Choice`` rows, translatable and
    correctable once opened); otherwise its answers are ``fixed_answers``."""
    fixed_answers: tuple[Promise, ...] = ()
    """The site's own answers, in the page's language (``Question.labels`` gives their
    English text, which exports and stored wordings hold)."""
    min_choices: int = 0
    """How many answers a researcher must type, for a kind with ``choices``."""
    headline_template: str | None = None
    """The part of its results card above the chart, or None."""
    answer_control: str = "one_choice"
    """How a respondent gives the true answer (see the module's docstring)."""
    groups: bool = True
    """Whether its questions can group others in breakdowns: one answer per respondent (a
    check-all question has a set, not one answer)."""
    cannot_group: Promise | None = None
    """Why its questions cannot group others, in a sentence (for a kind without ``groups``)."""
    scored: bool = False
    """Whether its answers are the ordered points 1..k of a scale, whose mean score results
    and breakdowns show (``surveys.ldp.scores``)."""
    anchor_answer: int | None = None
    """The answer whose true share a validation anchor states (``Question.known_share``;
    ``surveys.ldp.anchors``), or None where this kind cannot be an anchor."""
    fields: tuple[str, ...] = ()
    """The ``Question`` fields it takes besides its answers (a number question's range,
    places and bins): the question form shows them for it only, the authoring panel sends
    them, and ``field_problems`` checks them; ``settings`` turns them into its mechanism's."""
    extras: bool = True
    """Whether its questions may offer "Prefer not to say", be optional or be conditional:
    each adds one answer its mechanism randomizes like the others ("No answer", "Not
    asked": ``Question.all_labels``): one answer among k, or for a check-all question one
    box more, ticked alone (``browser_answer``)."""
    min_answers: int = 2
    """The fewest answers k its mechanism takes: 2, but 0 for a number question, whose
    answers besides its numbers are only its extra ones."""
    skippable: bool = True
    """Whether its questions may be optional (left blank, randomized as "No answer"): not
    where giving no answer is already an answer (a check-all question's ticking none), which
    only "Prefer not to say" can tell from a refusal."""
    cannot_skip: Promise | None = None
    """Why its questions cannot be optional, in a sentence (for a kind not ``skippable``)."""
    method_choice: bool = False
    """Whether the researcher may choose its randomization method (``mechanism``'s
    ``override``, where the site's policy allows it); otherwise it has one method."""

    def form_facts(self) -> dict:
        """What the authoring page's script needs to know of this kind, to show the fields
        that apply and count the answers (``static/surveys/epsilon.js``)."""
        return {
            "fixed_answers": len(self.fixed_answers),
            "typed": self.choices and not self.scored,
            "scale": self.scored,
            "groups": self.groups,
            "anchor": self.anchor_answer is not None,
            "method_choice": self.method_choice,
            "extras": self.extras,
            "skippable": self.extras and self.skippable,
            "fields": list(self.fields),
        }

    @property
    def answer_template(self) -> str:
        return f"surveys/respond/controls/{self.answer_control}.html"

    def answers_in(self, language: str) -> list[str]:
        """The site's fixed answers in ``language`` (for a kind without ``choices``)."""
        with translation.override(language):
            return [str(answer) for answer in self.fixed_answers]

    def field_problems(self, values: Any) -> dict[str, list[str]]:
        """What is wrong with the question form's values of the fields this kind takes
        besides its answers (``values``: an object with them as attributes, like a
        ``Question``), by field: none, but a number question's range, places and bins."""
        return {}

    def settings(self, question: Any) -> dict[str, Any]:
        """What else of ``question`` (a ``Question``) its mechanism needs, as keyword
        arguments of ``mechanism``: none, but a number question's range and bins."""
        return {}

    def browser_answer(self, index: int, k: int) -> Any:
        """The true answer the browser randomizes for answer ``index`` of the ``k`` its
        mechanism takes, as the respondent page's data gives an extra answer ("No answer",
        "Not asked"): the index itself for a kind with one answer among k."""
        return index

    def mechanism(
        self, epsilon: float, k: int, override: str = "", **settings: Any
    ) -> ldp.Mechanism:
        """The randomizer of a question of this kind with ``k`` answers at ``epsilon``
        (``override``: a mechanism the researcher chose, where the policy allows it;
        ``settings``: ``settings(question)``)."""
        raise NotImplementedError

    def mechanism_reason(self, epsilon: float, k: int, override: str = "") -> str:
        """Why it gets that mechanism, in one sentence for the authoring panel."""
        raise NotImplementedError

    def answer_problems(self, labels: list[str]) -> list[str]:
        """What is wrong with the answers a researcher typed (none for fixed answers)."""
        if not self.choices:
            return []
        if len(labels) < self.min_choices:
            return [gettext("A multiple-choice question needs at least two choices.")]
        if len({label.casefold() for label in labels}) != len(labels):
            return [gettext("Each choice must be different.")]
        if any(len(label) > MAX_CHOICE_LENGTH for label in labels):
            return [gettext("A choice can be at most %(limit)d characters long.")
                    % {"limit": MAX_CHOICE_LENGTH}]
        return []

    def readiness_problems(
        self, text: str, labels: list[str], settings: dict[str, Any] | None = None
    ) -> list[str]:
        """What stops a question of this kind with these answers (and ``settings``) from
        being opened."""
        if self.choices and len(labels) < self.min_choices:
            return [gettext("“%(text)s” needs at least two choices.") % {"text": text}]
        return []
