"""Multiple choice, one answer among k the researcher types: the lower-variance of GRR and
optimized unary encoding for its k and epsilon (``ldp.choose_categorical``), or the
mechanism the researcher chose where the site's policy allows it."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys import ldp
from surveys.kinds.base import QuestionKind, choice_reason


class CategoricalKind(QuestionKind):
    def mechanism(
        self, epsilon: float, k: int, override: str = "", **settings: object
    ) -> ldp.Mechanism:
        return ldp.choose_categorical(epsilon, max(k, 2), override or None)

    def mechanism_reason(self, epsilon: float, k: int, override: str = "") -> str:
        if override:
            return gettext("You chose this method.")
        return choice_reason(epsilon, k)


CATEGORICAL = CategoricalKind(
    value="categorical",
    label=_("Multiple choice (one answer)"),
    choices=True,
    min_choices=2,
    method_choice=True,
)
