"""Yes/no questions: Warner's randomized response, the most accurate method for them. The
answers are the site's own "No" and "Yes" (index 0 and 1), in every language."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys import ldp
from surveys.kinds.answers import YES_NO_ANSWERS
from surveys.kinds.base import QuestionKind, choice_reason


class YesNoKind(QuestionKind):
    """With an extra answer ("No answer", "Not asked") a yes/no question has three or four
    answers, randomized like multiple choice."""

    def mechanism(
        self, epsilon: float, k: int = 2, override: str = "", **settings: object
    ) -> ldp.Mechanism:
        if k > 2:
            return ldp.choose_categorical(epsilon, k)
        return ldp.randomized_response(epsilon)

    def mechanism_reason(self, epsilon: float, k: int = 2, override: str = "") -> str:
        if k > 2:
            return choice_reason(epsilon, k)
        return gettext(
            "Yes/no questions use randomized response, the most accurate method for them."
        )


YES_NO = YesNoKind(
    value="yesno",
    label=_("Yes / no"),
    choices=False,
    fixed_answers=YES_NO_ANSWERS,
    headline_template="surveys/results/kinds/yesno.html",
    anchor_answer=1,
)
