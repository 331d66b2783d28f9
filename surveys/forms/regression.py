"""The query of a regression page: which questions explain the question."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys.ldp.regression import MAX_PREDICTORS
from surveys.models import Question, asked_together


class RegressionForm(forms.Form):
    """Up to MAX_PREDICTORS questions of the survey to explain ``outcome`` by. Offered: the
    questions that can group a breakdown; any other (or the outcome itself, or a question
    of another survey) is refused with a reason."""

    by = forms.TypedMultipleChoiceField(
        coerce=int,
        label=_("Explain it by (up to three questions)"),
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "required": _("Choose at least one question to explain it by."),
            "invalid_choice": _("This survey has no question %(value)s to explain it by."),
        },
    )

    def __init__(self, data, *, questions: list[Question], outcome: Question) -> None:
        super().__init__(data)
        self.outcome = outcome
        self.questions = {q.pk: q for q in questions}
        choices = [(q, (q.pk, f"{position}. {q.text}")) for position, q in enumerate(questions, 1)]
        self.fields["by"].choices = [choice for _, choice in choices]
        self.fields["by"].widget.choices = [
            c for q, c in choices if q.question_kind.groups and q.pk != outcome.pk
        ]

    def clean_by(self) -> list[Question]:
        chosen = [self.questions[pk] for pk in dict.fromkeys(self.cleaned_data["by"])]
        for question in chosen:
            if question.pk == self.outcome.pk:
                raise forms.ValidationError(gettext("A question cannot explain itself."))
            if not question.question_kind.groups:
                raise forms.ValidationError(str(question.question_kind.cannot_group))
        if len(chosen) > MAX_PREDICTORS:
            raise forms.ValidationError(
                gettext("Choose at most %(count)d questions to explain it by.")
                % {"count": MAX_PREDICTORS}
            )
        survey = self.outcome.survey
        if not asked_together(survey, list(self.questions.values()), [self.outcome, *chosen]):
            raise forms.ValidationError(gettext(
                "No respondent is asked these questions together: each respondent answers "
                "only %(asked)s of the questions drawn at random (the survey's design)."
            ) % {"asked": survey.asked})
        return chosen
