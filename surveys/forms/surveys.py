"""Forms for researchers. Epsilon rules come from the site's privacy policy."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from crispy_forms.layout import HTML, Fieldset, Layout
from django import forms
from django.core.validators import URLValidator
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.html import format_html
from django.utils.translation import get_language_info, gettext
from django.utils.translation import gettext_lazy as _

from surveys import ldp
from surveys.models import Choice, PrivacyPolicy, Question, Survey, max_length
from surveys.schedule import researcher_time
from surveys.templatetags.numbers import epsilon as epsilon_text
from surveys.templatetags.numbers import thousands
from surveys.wording import translate

WEB_LINK_ONLY = _(
    "Enter a full web link starting with https:// (or http://), for example "
    "https://app.prolific.com/submissions/complete?cc=C1234ABC."
)

SCHEDULE_FIELDS = ["opens_at", "closes_at", "response_target", "completion_url",
                   "thank_you_message"]
"""The survey's schedule and distribution: not mechanism settings, so editable while it is
open (``surveys.schedule``)."""

MINUTES = "%Y-%m-%dT%H:%M"  # what the browser's datetime-local input sends and shows


class WebLinkField(forms.URLField):
    """A URL field that takes only http(s) links (no javascript:, data: or ftp:)."""

    default_validators = [URLValidator(schemes=["http", "https"])]
    default_error_messages = {"invalid": WEB_LINK_ONLY}


class SurveyForm(forms.ModelForm):
    completion_url = WebLinkField(
        label=_("Completion link"),
        required=False,
        max_length=Survey._meta.get_field("completion_url").max_length,
        assume_scheme="https",
        help_text=_(
            "Optional. Where respondents are sent once their answers are stored, for "
            "example a recruitment panel's completion link: paste the panel's whole link, with "
            "its completion code (https://app.prolific.com/submissions/complete?cc=C1234ABC). "
            "Respondents are told before sending that they will be taken there; nothing of "
            "their answers is added to it."
        ),
    )

    class Meta:
        model = Survey
        fields = ["title", "language", "introduction", "invitation_only", *SCHEDULE_FIELDS]
        widgets = {
            "introduction": forms.Textarea(attrs={"rows": 4}),
            "opens_at": forms.DateTimeInput(attrs={"type": "datetime-local"}, format=MINUTES),
            "closes_at": forms.DateTimeInput(attrs={"type": "datetime-local"}, format=MINUTES),
            "response_target": forms.NumberInput(attrs={"min": 1, "step": 1}),
            "thank_you_message": forms.Textarea(attrs={"rows": 3}),
        }
        labels = {
            "title": _("Title"),
            "language": _("Language"),
            "introduction": _("Introduction"),
            "invitation_only": _("Invitation only"),
            "opens_at": _("Opens at (UTC)"),
            "closes_at": _("Closes at (UTC)"),
            "response_target": _("Response target"),
            "thank_you_message": _("Thank-you message"),
        }
        error_messages = {
            "response_target": {"min_value": _("A response target must be at least 1.")},
        }
        help_texts = {
            "title": _("Respondents see this title."),
            "invitation_only": _(
                "Only people with a single-use invitation link can answer. "
                "You can create the links once the survey exists."
            ),
            "opens_at": _(
                "Optional, in UTC. Once the survey is open, respondents are told it "
                "opens at this time, and can answer from then on."
            ),
            "closes_at": _("Optional, in UTC. The survey closes itself at this time."),
            "response_target": _(
                "Optional. The survey closes itself once it has this many responses."
            ),
            "thank_you_message": _(
                "Optional. Shown to respondents after they answer, above the "
                "explanations (in the survey's language)."
            ),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].required = False
        self.fields["response_target"].widget.attrs["min"] = 1
        self.helper = FormHelper()
        self.helper.form_tag = False
        self.helper.layout = Layout(
            *[name for name in self.fields if name not in SCHEDULE_FIELDS],
            Fieldset(
                gettext("Schedule and distribution"),
                HTML(
                    format_html(
                        '<p class="form-text mt-0">{}</p>',
                        gettext(
                            "Times are in UTC. All of these can be changed at any time, also "
                            "while the survey is open."
                        ),
                    )
                ),
                *SCHEDULE_FIELDS,
                css_id="schedule-and-distribution",
            ),
        )

    def clean(self) -> dict:
        """A closing time after the opening time and not already past (for an open survey,
        or when it is being set), and a response target above the responses received."""
        cleaned = super().clean()
        survey, now = self.instance, timezone.now()
        opens, closes = cleaned.get("opens_at"), cleaned.get("closes_at")
        if opens and closes and closes <= opens:
            self.add_error("closes_at", gettext("The closing time must be after the opening time."))
        elif closes and closes <= now and (survey.is_open or "closes_at" in self.changed_data):
            self.add_error(
                "closes_at",
                gettext(
                    "This time has passed (it is now %(now)s): choose a later closing time, or "
                    "leave it empty."
                ) % {"now": researcher_time(now)},
            )
        target, count = cleaned.get("response_target"), survey.response_count
        # Equal to the count, an open survey would close at once; a closed one may keep it.
        too_low = target is not None and (target < count or (target == count and survey.is_open))
        if count and too_low and target >= 1:  # below 1: the model's own message
            self.add_error(
                "response_target",
                gettext(
                    "This survey already has %(count)s responses: choose a target above that "
                    "(or close the survey)."
                ) % {"count": thousands(count)},
            )
        return cleaned

    def clean_language(self) -> str:
        """Left out of the data, the survey keeps its language."""
        return self.cleaned_data["language"] or self.instance.language


def language_name(code: str) -> str:
    """A language of ``settings.LANGUAGES`` by its name in the page's language ("Spanish")."""
    return get_language_info(code)["name_translated"]


class TranslationForm(forms.Form):
    """A survey's texts in ``language``: one optional field per text of its main language that
    is not blank, which the field's help shows. Blank fields show the main language's text to
    respondents (``surveys.wording``)."""

    def __init__(
        self,
        *args,
        survey: Survey,
        questions: list[Question],
        language: str,
        texts: object = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.survey, self.questions = survey, questions
        translated = translate(survey, questions, language, texts)
        self.main_name = language_name(survey.language)

        def add(name: str, label: str, main: str, value: str, lang: str, limit=None) -> list:
            """The field ``name`` (none if the main text is blank), initially ``value`` if
            it is the translation's."""
            if not main.strip():
                return []
            attrs = {"lang": language}  # what the translator types, not the page
            widget = forms.TextInput(attrs) if limit else forms.Textarea(attrs | {"rows": 4})
            self.fields[name] = forms.CharField(
                label=label, required=False, max_length=limit, widget=widget,
                help_text=format_html(
                    '{}: <span lang="{}">{}</span>', self.main_name, survey.language, main
                ),
            )
            self.initial[name] = value if lang == language else ""
            return [name]

        layout = [Fieldset(
            _("Survey"),
            *add("title", _("Title"), survey.title, translated["title"], translated["lang"],
                 max_length(Survey, "title")),
            *add("introduction", _("Introduction"), survey.introduction,
                 translated["introduction"], translated["introduction_lang"]),
        )]
        for position, question in enumerate(questions, start=1):
            shown = translated["questions"][question.pk]
            prefix = f"q{question.pk}-"
            fields = [
                *add(prefix + "text", _("Question"), question.text, shown["text"], shown["lang"],
                     max_length(Question, "text")),
                *add(prefix + "help_text", _("Help text"), question.help_text,
                     shown["help_text"], shown["help_text_lang"],
                     max_length(Question, "help_text")),
            ]
            # A yes/no question's answers are the site's own Yes and No, in every language.
            translatable = question.kind != Question.Kind.YES_NO
            for i, (main, label, lang) in enumerate(
                zip(question.labels(), shown["labels"], shown["label_langs"], strict=True)
            ):
                if translatable:
                    fields += add(f"{prefix}label{i}", _("Answer %(n)d") % {"n": i + 1}, main,
                              label, lang, max_length(Choice, "label"))
            layout.append(Fieldset(_("Question %(n)d") % {"n": position}, *fields))
        self.helper = FormHelper()
        self.helper.form_tag = False
        self.helper.layout = Layout(*layout)

    def progress(self) -> tuple[int, int]:
        """How many of the texts to translate the translation gives, and how many there are."""
        return sum(1 for name in self.fields if self.initial[name]), len(self.fields)

    def texts(self) -> dict:
        """The translation's texts (``SurveyTranslation.texts``) from the valid form."""
        data = self.cleaned_data
        questions = {}
        for question in self.questions:
            prefix = f"q{question.pk}-"
            labels = [f"{prefix}label{i}" for i in range(len(question.labels()))]
            questions[str(question.pk)] = {
                "text": data.get(prefix + "text", ""),
                "help_text": data.get(prefix + "help_text", ""),
                # None for a yes/no question: its answers are the site's own words.
                "labels": [data.get(name, "") for name in labels if name in self.fields],
            }
        return {
            "title": data.get("title", ""),
            "introduction": data.get("introduction", ""),
            "questions": questions,
        }


class QuestionForm(forms.ModelForm):
    """A question and, for multiple choice, its choices typed one per line."""

    choices = forms.CharField(
        label=_("Choices"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_(
            "One choice per line, in the order respondents will see them. "
            "At least two, each different."
        ),
    )

    class Meta:
        model = Question
        fields = [
            "text", "help_text", "kind", "used_for_breakdowns", "epsilon", "mechanism_override",
        ]
        labels = {
            "text": _("Question"),
            "help_text": _("Help text (optional)"),
            "kind": _("Answer type"),
            "epsilon": _("Privacy level (epsilon)"),
            "mechanism_override": _("Randomization method"),
            "used_for_breakdowns": _("Used for breakdowns (a grouping question)"),
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
                self.add_error(
                    "choices", gettext("A multiple-choice question needs at least two choices.")
                )
            elif len({label.casefold() for label in labels}) != len(labels):
                self.add_error("choices", gettext("Each choice must be different."))
            elif any(len(label) > 200 for label in labels):
                self.add_error("choices", gettext("A choice can be at most 200 characters long."))
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
        label=_("I understand that all responses to this survey will be deleted for good."),
    )


class InvitationForm(forms.Form):
    count = forms.IntegerField(
        label=_("Number of new links"), min_value=1, max_value=10_000, initial=100
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
        self.fields["by"].choices = [
            (q.pk, f"{position}. {q.text}") for position, q in enumerate(questions, 1)
        ]
        by = self.questions.get(_as_int(self.data.get("by")))
        groups = list(enumerate(by.labels())) if by else []
        self.fields["first"].choices = self.fields["second"].choices = [("", "—"), *groups]

    def clean_by(self) -> Question:
        group = self.questions[self.cleaned_data["by"]]
        if group.pk == self.question.pk:
            raise forms.ValidationError(gettext("A question cannot be broken down by itself."))
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
