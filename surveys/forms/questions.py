"""A question: its kind, text, epsilon (within the site's privacy policy) and answers."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys import kinds, ldp
from surveys.actions.questions import save_question
from surveys.helpers.numbers import epsilon as epsilon_text
from surveys.models import PrivacyPolicy, Question, condition_problem, design_epsilon


class QuestionForm(forms.ModelForm):
    """A question and, for multiple choice, its choices typed one per line; for a rating
    scale, its number of points and the labels of its two ends."""

    choices = forms.CharField(
        label=_("Choices"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_(
            "One choice per line, in the order respondents will see them. "
            "At least two, each different."
        ),
    )

    known_percent = forms.FloatField(
        label=_("Known true share of “Yes”, in % (optional: a validation anchor)"),
        required=False,
        min_value=0,
        max_value=100,
        widget=forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
        help_text=_(
            "For a control question whose true answer you know, such as 0 for “Have you "
            "ever been to Mars?” or a share from official figures. The results test the "
            "answers against it, to detect careless or misunderstood answering. Yes/no "
            "questions only."
        ),
    )
    scale_points = forms.TypedChoiceField(
        label=_("Points on the scale"),
        choices=[(points, str(points)) for points in kinds.SCALE_POINTS],
        coerce=int,
        initial=kinds.SCALE_POINTS[0],
        required=False,
    )
    scale_low = forms.CharField(
        label=_("Label of point 1 (the lowest)"),
        required=False,
        max_length=kinds.MAX_CHOICE_LENGTH,
        help_text=_("For example “Never” or “Strongly disagree”."),
    )
    scale_high = forms.CharField(
        label=_("Label of the highest point"),
        required=False,
        max_length=kinds.MAX_CHOICE_LENGTH,
        help_text=_("For example “Daily” or “Strongly agree”. The points between are numbered."),
    )

    condition = forms.ChoiceField(
        label=_("Asked of"),
        required=False,
        help_text=_(
            "A follow-up question can be shown only to respondents who gave one answer to an "
            "earlier question. Everyone else's browser still sends a randomized report for "
            "it, as “Not asked”, so no report shows who saw it."
        ),
    )

    class Meta:
        model = Question
        fields = [
            "text", "help_text", "kind", "number_min", "number_max", "number_decimals",
            "number_bins", "used_for_breakdowns", "epsilon", "always_asked",
            "mechanism_override", "offers_refusal", "optional",
        ]
        labels = {
            "text": _("Question"),
            "help_text": _("Help text (optional)"),
            "kind": _("Answer type"),
            "epsilon": _("Privacy level (epsilon)"),
            "mechanism_override": _("Randomization method"),
            "used_for_breakdowns": _("Used for breakdowns (a grouping question)"),
            "number_min": _("Smallest number"),
            "number_max": _("Largest number"),
            "number_decimals": _("Decimal places"),
            "number_bins": _("Bins for the distribution (optional)"),
        }
        help_texts = {
            "epsilon": lazy(
                lambda: gettext(
                    "Smaller means stronger protection for respondents but a wider margin of "
                    "error (the smallest allowed is %(min)s); see what your choice means on the "
                    "right."
                ) % {"min": epsilon_text(ldp.MIN_EPSILON)},
                str,
            )(),
        }
        widgets = {
            "number_min": forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
            "number_max": forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
            "number_decimals": forms.NumberInput(
                attrs={"min": 0, "max": 3, "inputmode": "numeric"}
            ),
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
        if self.instance.pk and self.instance.question_kind.choices:
            labels = self.instance.labels()
            self.initial["choices"] = "\n".join(labels)
            if self.instance.question_kind.scored and labels:
                self.initial.update(
                    scale_points=len(labels), scale_low=labels[0], scale_high=labels[-1]
                )
        if self.instance.number_decimals is None:
            self.initial["number_decimals"] = 0
        if self.instance.known_share is not None:
            self.initial["known_percent"] = 100 * self.instance.known_share
        if not policy.allow_mechanism_override:
            del self.fields["mechanism_override"]
        survey = self.instance.survey
        if survey.asked is None:
            del self.fields["always_asked"]  # every question is asked
        else:
            try:
                drawn = design_epsilon(survey, list(survey.ordered_questions()))
            except ValueError:
                drawn = None
            self.fields["epsilon"].help_text = gettext(
                "This survey asks each respondent a random few of its questions: a question "
                "not always asked gets the epsilon its design works out (now %(drawn)s), "
                "whatever is typed here; one always asked keeps this one, from the same "
                "budget."
            ) % {"drawn": epsilon_text(drawn) if drawn is not None else "—"}
        self.fields["condition"].choices = condition_choices(self.instance)
        if self.instance.conditional:
            self.initial["condition"] = (
                f"{self.instance.asked_if_id}:{self.instance.asked_if_answer}"
            )
        self.helper = FormHelper()
        self.helper.form_tag = False

    def clean_choices(self) -> list[str]:
        lines = [line.strip() for line in self.cleaned_data["choices"].splitlines()]
        return [line for line in lines if line]

    def clean_condition(self) -> str:
        """Sets the instance's condition before the model's checks (``Question.clean``) run."""
        value = self.cleaned_data["condition"]
        question, _, answer = value.partition(":")
        self.instance.asked_if_id = int(question) if value else None
        self.instance.asked_if_answer = int(answer) if value else None
        return value

    def clean(self) -> dict:
        cleaned = super().clean()
        kind = kinds.KINDS.get(cleaned.get("kind"))
        if kind is None:
            return cleaned
        if kind.scored:
            cleaned["choices"] = kinds.RATING.scale_labels(
                cleaned.get("scale_points") or kinds.SCALE_POINTS[0],
                cleaned.get("scale_low", ""),
                cleaned.get("scale_high", ""),
            )
        # The question as the model would have it, asked what its kind finds wrong.
        known = cleaned.get("known_percent")
        values = self.instance.__class__(
            **{name: cleaned.get(name) for name in self._meta.fields if name in cleaned},
            known_share=None if known is None else known / 100,
            asked_if_id=self.instance.asked_if_id,
        )
        answers = "scale_low" if kind.scored else "choices"
        fields = {"known_share": "known_percent", "labels": answers}
        for field, problems in values.kind_problems(cleaned.get("choices", [])).items():
            field = fields.get(field, field)
            for problem in problems:
                if field not in kind.fields or field not in self.errors:
                    self.add_error(field, problem)
        return cleaned

    def save(self, commit: bool = True) -> Question:
        """The question with its answers, through ``surveys.actions.questions``."""
        question = super().save(commit=False)
        if question.conditional:  # a follow-up is drawn, or always asked, with its condition
            question.always_asked = question.asked_if.always_asked
        known = self.cleaned_data.get("known_percent")
        question.known_share = None if known is None else known / 100
        return save_question(question, self.cleaned_data["choices"])


def condition_choices(question: Question) -> list[tuple[str, object]]:
    """The conditions a question may have: everyone, or each answer of each earlier question
    of its survey that can be one (``condition_problem``), grouped by question."""
    choices: list[tuple[str, object]] = [("", gettext("Everyone"))]
    for position, earlier in enumerate(question.survey.ordered_questions(), start=1):
        if condition_problem(earlier, question) is None:
            choices.append((
                gettext("If question %(position)d, “%(text)s”, is answered")
                % {"position": position, "text": earlier.text},
                [(f"{earlier.pk}:{i}", label) for i, label in enumerate(earlier.labels())],
            ))
    return choices
