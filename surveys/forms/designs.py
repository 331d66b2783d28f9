"""A draft's design: its whole-survey budget, whether each respondent answers every question
or a random few, and which questions are always asked (``surveys.actions.designs``)."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.utils.translation import gettext_lazy as _

from surveys import ldp
from surveys.actions.designs import set_design
from surveys.helpers.numbers import epsilon as epsilon_text
from surveys.models import PrivacyPolicy, Survey, blocks_of

EVERY, SAMPLED = "every", "sampled"


class DesignForm(forms.Form):
    budget = forms.FloatField(
        label=_("Privacy budget of the whole survey (epsilon)"),
        min_value=ldp.MIN_EPSILON,
        widget=forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
        help_text=_(
            "Everything one respondent sends, taken together, reveals at most what one answer "
            "with this epsilon would."
        ),
    )
    design = forms.ChoiceField(
        label=_("Who answers which questions"),
        choices=[
            (EVERY, _("Ask every respondent every question (each question's epsilon is its own)")),
            (SAMPLED, _("Ask each respondent a random few of the questions (under the budget)")),
        ],
        widget=forms.RadioSelect,
    )
    asked = forms.IntegerField(
        label=_("Questions drawn for each respondent"),
        required=False,
        min_value=1,
        help_text=_(
            "Besides the questions always asked. A question and its follow-ups count as one."
        ),
    )
    always = forms.MultipleChoiceField(
        label=_("Always asked"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "Grouping questions, a validation anchor, a key outcome: asked of everyone, at "
            "their own epsilon, from the same budget."
        ),
    )

    def __init__(self, *args, survey: Survey, **kwargs) -> None:
        self.survey = survey
        self.questions = list(survey.ordered_questions())
        self.policy = PrivacyPolicy.current()
        heads = [block[0] for block in blocks_of(self.questions)]
        initial = {
            "budget": survey.budget or self.policy.max_survey_epsilon,
            "design": EVERY if survey.asked is None else SAMPLED,
            "asked": survey.asked,
            "always": [str(q.pk) for q in heads if q.always_asked],
        }
        super().__init__(*args, initial=initial, **kwargs)
        self.fields["budget"].widget.attrs["max"] = f"{self.policy.max_survey_epsilon:g}"
        self.fields["budget"].validators.append(MaxValueValidator(
            self.policy.max_survey_epsilon,
            _("The site allows at most %(limit)s per survey.")
            % {"limit": epsilon_text(self.policy.max_survey_epsilon)},
        ))
        self.fields["always"].choices = [(str(q.pk), q.text) for q in heads]

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("design") == SAMPLED and not cleaned.get("asked"):
            self.add_error("asked", _("Say how many questions each respondent is asked."))
        return cleaned

    def save(self) -> bool:
        """Store the design (``set_design``); whether it was, its refusals becoming the
        form's errors."""
        sampled = self.cleaned_data["design"] == SAMPLED
        try:
            set_design(
                self.survey,
                self.cleaned_data["budget"] if sampled else None,
                self.cleaned_data["asked"] if sampled else None,
                {int(pk) for pk in self.cleaned_data["always"]},
            )
        except ValidationError as error:
            self.add_error(None, error)
            return False
        return True
