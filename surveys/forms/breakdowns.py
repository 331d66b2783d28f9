"""The query of a breakdown page."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys.ldp import strata
from surveys.models import Question, asked_together


class BreakdownForm(forms.Form):
    """The query of a breakdown page: the question to break down by and, optionally, the two
    of its groups to compare, or a second grouping question to break it down within
    (``within``: a three-way breakdown, which compares no groups). Refuses the question
    itself, questions of other surveys, and for ``within``, the first grouping question
    again and grouping questions whose reports are unary (``surveys.ldp.strata``)."""

    by = forms.TypedChoiceField(
        coerce=int,
        label=_("Break down by"),
        error_messages={
            "required": _("Choose a question to break down by."),
            "invalid_choice": _("This survey has no question %(value)s to break down by."),
        },
    )
    within = forms.TypedChoiceField(
        coerce=int,
        required=False,
        empty_value=None,
        label=_("Within the groups of (optional)"),
        error_messages={
            "invalid_choice": _("This survey has no question %(value)s to break down within."),
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
        # Offered: the other questions that can group; any other is refused in words (clean_by).
        self.fields["by"].widget.choices = [
            c for q, c in choices if q.question_kind.groups and q.pk != question.pk
        ]
        self.fields["within"].choices = [("", "—"), *self.fields["by"].choices]
        self.fields["within"].widget.choices = [("", "—"), *self.fields["by"].widget.choices]
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

    def clean_within(self) -> Question | None:
        """The second grouping question of a three-way breakdown, or None."""
        pk = self.cleaned_data["within"]
        if pk is None:
            return None
        stratum = self.questions[pk]
        if stratum.pk == self.question.pk:
            raise forms.ValidationError(
                gettext("A question cannot be broken down within its own groups.")
            )
        if not stratum.question_kind.groups:
            raise forms.ValidationError(str(stratum.question_kind.cannot_group))
        if self.question.mechanism().encoding not in (*strata.ONE_HOT, "unary"):
            raise forms.ValidationError(gettext(
                "Only yes/no, multiple-choice and rating questions can be broken down within "
                "the groups of a second question."
            ))
        return stratum

    def clean(self) -> dict:
        cleaned = super().clean()
        group, stratum = cleaned.get("by"), cleaned.get("within")
        if group is not None and stratum is not None:
            if group.pk == stratum.pk:
                self.add_error("within", gettext(
                    "Choose a second grouping question other than the first."
                ))
            for grouping in (group, stratum):
                if grouping.mechanism().encoding not in strata.ONE_HOT:
                    self.add_error("within", gettext(
                        "“%(text)s” has so many answers for its privacy setting that each of "
                        "its answers is randomized on its own (unary encoding): it can group a "
                        "breakdown, but not one within the groups of a second question."
                    ) % {"text": grouping.text})
        together = [q for q in (self.question, group, stratum) if q is not None]
        questions = list(self.questions.values())
        if group is not None and not asked_together(self.question.survey, questions, together):
            self.add_error("by", gettext(
                "No respondent is asked these questions together: each respondent answers "
                "only %(asked)s of the questions drawn at random (the survey's design)."
            ) % {"asked": self.question.survey.asked})
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
