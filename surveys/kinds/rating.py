"""Rating scales: 5 or 7 ordered points, numbered 1..k, with the researcher's labels at the
two ends ("Never" ... "Daily"). Randomized like multiple choice over the k points (the
lower-variance of GRR and OUE, ``ldp.choose_categorical``); results add the mean score.

The points are stored as the question's ``Choice`` rows, the ends with the researcher's
labels and the middle ones with their numbers, so that translations, wording corrections,
revisions and exports carry them as they carry any answers."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys.kinds.base import MAX_CHOICE_LENGTH
from surveys.kinds.categorical import CategoricalKind

SCALE_POINTS = (5, 7)
"""The number of points a rating scale may have."""


class RatingKind(CategoricalKind):
    def scale_labels(self, points: int, low: str, high: str) -> list[str]:
        """The labels of the ``points`` points: ``low``, the middle points' numbers, ``high``."""
        return [low.strip(), *(str(point) for point in range(2, points)), high.strip()]

    def answer_problems(self, labels: list[str]) -> list[str]:
        if len(labels) not in SCALE_POINTS:
            return [gettext("A rating scale has 5 or 7 points.")]
        low, high = labels[0], labels[-1]
        if not low or not high:
            return [gettext("Type the labels of both ends of the scale.")]
        if low.casefold() == high.casefold():
            return [gettext("The two ends of the scale need different labels.")]
        if len({label.casefold() for label in labels}) != len(labels):
            return [gettext("An end's label cannot be the number of a point between the ends "
                            "(2 to %(last)d).") % {"last": len(labels) - 1}]
        if max(len(low), len(high)) > MAX_CHOICE_LENGTH:
            return [gettext("A label can be at most %(limit)d characters long.")
                    % {"limit": MAX_CHOICE_LENGTH}]
        return []

    def readiness_problems(
        self, text: str, labels: list[str], settings: dict | None = None
    ) -> list[str]:
        if len(labels) not in SCALE_POINTS:
            return [gettext("“%(text)s” needs a scale of 5 or 7 points.") % {"text": text}]
        return []


RATING = RatingKind(
    value="rating",
    label=_("Rating scale (5 or 7 points)"),
    choices=True,
    min_choices=SCALE_POINTS[0],
    headline_template="surveys/results/kinds/rating.html",
    answer_control="rating_scale",
    scored=True,
    method_choice=True,
)
"""Rating scales; the points are scored 1..k (``surveys.ldp.scores``)."""
