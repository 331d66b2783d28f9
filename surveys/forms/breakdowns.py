"""The query of a breakdown page."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys.models import Question


class BreakdownForm(forms.Form):
    """The query of a breakdown page: the question to break down by and, optionally, the two
    of its groups to compare. Refuses the question itself and questions of other surveys."""

    by = forms.TypedChoiceField(
        coerce=int,
        label=_("Break down by"),
        error_messages={
            "required": _("Choose a question to break down by."),
            "invalid_choice": _("This survey has no question %(value)s to break down by."),
        },
    )
    first = forms.TypedChoiceField(
        coerce=int, required=False, empty_value=None, label=_("Compare the group")
    )
    second = forms.TypedChoiceField(
        coerce=int, required=False, empty_value=None, label=_("with the group")
    )

    def __init__(self, data, *, questions: list[Question], question: Question) -> None:
        super().__init__(data)
        self.question = question
        self.questions = {q.pk: q for q in questions}
        choices = [(q, (q.pk, f"{position}. {q.text}")) for position, q in enumerate(questions, 1)]
        self.fields["by"].choices = [choice for _, choice in choices]
        # Offered: the questions that can group; any other is refused in words (clean_by).
        self.fields["by"].widget.choices = [c for q, c in choices if q.question_kind.groups]
        by = self.questions.get(_as_int(self.data.get("by")))
        groups = list(enumerate(by.all_labels())) if by else []
        self.fields["first"].choices = self.fields["second"].choices = [("", "—"), *groups]

    def clean_by(self) -> Question:
        group = self.questions[self.cleaned_data["by"]]
        if group.pk == self.question.pk:
            raise forms.ValidationError(gettext("A question cannot be broken down by itself."))
        if not group.question_kind.groups:
            raise forms.ValidationError(str(group.question_kind.cannot_group))
        return group

    def clean(self) -> dict:
        cleaned = super().clean()
        pair = cleaned.get("first"), cleaned.get("second")
        if any(g is None for g in pair):
            if pair != (None, None) and not self.errors:
                self.add_error("second", gettext("Choose both groups to compare, or neither."))
            cleaned["compare"] = None
        elif pair[0] == pair[1]:
            self.add_error("second", gettext("Choose two different groups to compare."))
        else:
            cleaned["compare"] = pair
        return cleaned


def _as_int(value: object) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
