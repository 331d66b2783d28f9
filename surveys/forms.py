"""Forms for researchers. Epsilon rules come from the site's privacy policy."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms

from surveys import ldp
from surveys.models import Choice, PrivacyPolicy, Question, Survey


class SurveyForm(forms.ModelForm):
    class Meta:
        model = Survey
        fields = ["title", "introduction", "invitation_only"]
        widgets = {"introduction": forms.Textarea(attrs={"rows": 4})}
        help_texts = {
            "title": "Respondents see this title.",
            "invitation_only": "Only people with a single-use invitation link can answer. "
            "You can create the links once the survey exists.",
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_tag = False


class QuestionForm(forms.ModelForm):
    """A question and, for multiple choice, its choices typed one per line."""

    choices = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="One choice per line, in the order respondents will see them. "
        "At least two, each different.",
    )

    class Meta:
        model = Question
        fields = [
            "text", "help_text", "kind", "used_for_breakdowns", "epsilon", "mechanism_override",
        ]
        labels = {
            "text": "Question",
            "help_text": "Help text (optional)",
            "kind": "Answer type",
            "epsilon": "Privacy level (epsilon)",
            "mechanism_override": "Randomization method",
            "used_for_breakdowns": "Used for breakdowns (a grouping question)",
        }
        help_texts = {
            "epsilon": "Smaller means stronger protection for respondents but a wider margin "
            f"of error (the smallest allowed is {ldp.MIN_EPSILON:g}); see what your choice means "
            "on the right.",
        }
        widgets = {
            "epsilon": forms.NumberInput(
                attrs={"step": "any", "min": f"{ldp.MIN_EPSILON:g}", "inputmode": "decimal"}
            ),
        }

    def __init__(self, *args, policy: PrivacyPolicy, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.policy = policy
        self.fields["epsilon"].widget.attrs["max"] = f"{policy.max_question_epsilon:g}"
        if self.instance.epsilon is None:
            self.initial["epsilon"] = policy.default_epsilon
        if self.instance.pk and self.instance.kind == Question.Kind.CATEGORICAL:
            self.initial["choices"] = "\n".join(self.instance.labels())
        if not policy.allow_mechanism_override:
            del self.fields["mechanism_override"]
        self.helper = FormHelper()
        self.helper.form_tag = False

    def clean_choices(self) -> list[str]:
        lines = [line.strip() for line in self.cleaned_data["choices"].splitlines()]
        return [line for line in lines if line]

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("kind") == Question.Kind.CATEGORICAL:
            labels = cleaned.get("choices", [])
            if len(labels) < 2:
                self.add_error("choices", "A multiple-choice question needs at least two choices.")
            elif len({label.casefold() for label in labels}) != len(labels):
                self.add_error("choices", "Each choice must be different.")
            elif any(len(label) > 200 for label in labels):
                self.add_error("choices", "A choice can be at most 200 characters long.")
        return cleaned

    def save(self, commit: bool = True) -> Question:
        question = super().save(commit=True)
        question.choices.all().delete()
        if question.kind == Question.Kind.CATEGORICAL:
            Choice.objects.bulk_create(
                [
                    Choice(question=question, order=i, label=label)
                    for i, label in enumerate(self.cleaned_data["choices"])
                ]
            )
        return question


class ConfirmDeleteForm(forms.Form):
    confirm = forms.BooleanField(
        required=True,
        label="I understand that all responses to this survey will be deleted for good.",
    )


class InvitationForm(forms.Form):
    count = forms.IntegerField(
        label="Number of new links", min_value=1, max_value=10_000, initial=100
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_tag = False



class BreakdownForm(forms.Form):
    """The query of a breakdown page: the question to break down by and, optionally, the two
    of its groups to compare. Refuses the question itself and questions of other surveys."""

    by = forms.TypedChoiceField(
        coerce=int,
        label="Break down by",
        error_messages={
            "required": "Choose a question to break down by.",
            "invalid_choice": "This survey has no question %(value)s to break down by.",
        },
    )
    first = forms.TypedChoiceField(
        coerce=int, required=False, empty_value=None, label="Compare the group"
    )
    second = forms.TypedChoiceField(
        coerce=int, required=False, empty_value=None, label="with the group"
    )

    def __init__(self, data, *, questions: list[Question], question: Question) -> None:
        super().__init__(data)
        self.question = question
        self.questions = {q.pk: q for q in questions}
        self.fields["by"].choices = [
            (q.pk, f"{position}. {q.text}") for position, q in enumerate(questions, 1)
        ]
        by = self.questions.get(_as_int(self.data.get("by")))
        groups = list(enumerate(by.labels())) if by else []
        self.fields["first"].choices = self.fields["second"].choices = [("", "—"), *groups]

    def clean_by(self) -> Question:
        group = self.questions[self.cleaned_data["by"]]
        if group.pk == self.question.pk:
            raise forms.ValidationError("A question cannot be broken down by itself.")
        return group

    def clean(self) -> dict:
        cleaned = super().clean()
        pair = cleaned.get("first"), cleaned.get("second")
        if any(g is None for g in pair):
            if pair != (None, None) and not self.errors:
                self.add_error("second", "Choose both groups to compare, or neither.")
            cleaned["compare"] = None
        elif pair[0] == pair[1]:
            self.add_error("second", "Choose two different groups to compare.")
        else:
            cleaned["compare"] = pair
        return cleaned


def _as_int(value: object) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
