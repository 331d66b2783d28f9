"""The site-wide privacy rules (edited in the Django admin) and the checks of an epsilon."""

from __future__ import annotations

import math

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from surveys import ldp
from surveys.helpers.numbers import epsilon as epsilon_text

EPSILON_TOO_SMALL_MESSAGE = gettext_noop(
    "Epsilon must be at least %(min)s: below that, even millions of responses would not give "
    "usable estimates."
)
EPSILON_TOO_SMALL = EPSILON_TOO_SMALL_MESSAGE % {"min": epsilon_text(ldp.MIN_EPSILON)}
"""The refusal of an epsilon below ``ldp.MIN_EPSILON``, wherever one is entered (in English;
``epsilon_too_small`` gives it in the active language)."""


def epsilon_too_small() -> str:
    """``EPSILON_TOO_SMALL`` in the active language."""
    return gettext(EPSILON_TOO_SMALL_MESSAGE) % {"min": epsilon_text(ldp.MIN_EPSILON)}


def validate_epsilon_value(value: float) -> None:
    """A privacy parameter must be a finite number from ``ldp.MIN_EPSILON`` to
    ``ldp.MAX_EPSILON``: no question or policy may use an epsilon the mechanisms refuse."""
    if value is None or not math.isfinite(value):
        raise ValidationError(gettext("Epsilon must be a finite number."))
    if value < ldp.MIN_EPSILON:
        raise ValidationError(epsilon_too_small())
    if value > ldp.MAX_EPSILON:
        raise ValidationError(
            gettext("Epsilon can be at most %(max)s.") % {"max": epsilon_text(ldp.MAX_EPSILON)}
        )


class PrivacyPolicy(models.Model):
    """The site-wide epsilon rules. A single record (pk=1), edited in the Django admin."""

    default_epsilon = models.FloatField(
        default=1.0,
        validators=[validate_epsilon_value],
        help_text=_("Epsilon given to a new question, which its researcher may change."),
    )
    # The site's defaults. A total of 3 per survey (e^3 = 20) lets everything a respondent
    # sends raise a 10% suspicion about them to at most 69.1% (raised_suspicion): a real
    # protection, where the former 10 allowed 99.96%. No question may spend more than the whole.
    max_question_epsilon = models.FloatField(
        default=3.0,
        validators=[validate_epsilon_value],
        help_text=_(
            "The largest epsilon a researcher may choose for one question. For the people "
            "answering: any one of their answers can make anyone at most e^ε times more sure "
            "of their true answer to that question (e^1 = 2.7, e^3 = 20)."
        ),
    )
    max_survey_epsilon = models.FloatField(
        default=3.0,
        validators=[validate_epsilon_value],
        help_text=_(
            "The largest total epsilon a survey may spend on each respondent (the sum over the "
            "questions they are asked). For the people answering: everything they send, taken "
            "together, can make anyone at most e^total times more sure of anything about them "
            "(e^3 = 20), and never certain."
        ),
    )
    allow_mechanism_override = models.BooleanField(
        default=False,
        help_text=_(
            "Let researchers choose a categorical question's mechanism themselves "
            "instead of the automatic, lowest-variance choice."
        ),
    )

    class Meta:
        verbose_name = _("privacy policy")
        verbose_name_plural = _("privacy policy")
        constraints = [
            models.CheckConstraint(condition=models.Q(pk=1), name="privacy_policy_single_record"),
            models.CheckConstraint(
                condition=models.Q(default_epsilon__gte=ldp.MIN_EPSILON)
                & models.Q(max_question_epsilon__gte=ldp.MIN_EPSILON)
                & models.Q(max_survey_epsilon__gte=ldp.MIN_EPSILON)
                & models.Q(max_question_epsilon__lte=ldp.MAX_EPSILON)
                & models.Q(default_epsilon__lte=models.F("max_question_epsilon")),
                name="privacy_policy_epsilons_valid",
            ),
        ]

    def __str__(self) -> str:
        return "Privacy policy"

    def save(self, *args, **kwargs) -> None:
        self.pk = 1
        super().save(*args, **kwargs)

    def clean(self) -> None:
        errors = {}
        if self.default_epsilon and self.max_question_epsilon:
            if self.default_epsilon > self.max_question_epsilon:
                errors["default_epsilon"] = gettext(
                    "The default cannot exceed the per-question maximum."
                )
        if self.max_question_epsilon and self.max_survey_epsilon:
            if self.max_question_epsilon > self.max_survey_epsilon:
                errors["max_question_epsilon"] = _(
                    "The per-question limit cannot be above the per-survey limit (%(limit)s): "
                    "no survey could use it."
                ) % {"limit": epsilon_text(self.max_survey_epsilon)}
        if errors:
            raise ValidationError(errors)

    @classmethod
    def current(cls) -> PrivacyPolicy:
        policy, _ = cls.objects.get_or_create(pk=1)
        return policy
