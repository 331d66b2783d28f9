"""The kinds of question, each defined in one module of this package (``base`` says what a
kind answers). Below the models: a kind knows the LDP core and the helpers, nothing else."""

from surveys.kinds.base import MAX_CHOICE_LENGTH, QuestionKind
from surveys.kinds.categorical import CATEGORICAL
from surveys.kinds.checkall import CHECK_ALL
from surveys.kinds.numbers import NUMBER
from surveys.kinds.rating import RATING, SCALE_POINTS
from surveys.kinds.yesno import YES_NO

KINDS: dict[str, QuestionKind] = {
    kind.value: kind for kind in (YES_NO, CATEGORICAL, RATING, CHECK_ALL, NUMBER)
}
"""Every kind, by the value ``Question.kind`` stores, in the order forms offer them."""

CHOICES = [(kind.value, kind.label) for kind in KINDS.values()]
"""``Question.kind``'s choices."""

__all__ = [
    "CATEGORICAL", "CHECK_ALL", "CHOICES", "KINDS", "MAX_CHOICE_LENGTH", "NUMBER", "RATING",
    "SCALE_POINTS", "YES_NO",
    "QuestionKind",
]
