"""A survey's texts in another language."""

from __future__ import annotations

import datetime

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Fieldset, Layout
from django import forms
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from surveys.helpers.languages import language_name
from surveys.helpers.times import researcher_time
from surveys.models import STUDY_TEXTS, Choice, Question, Survey, max_length
from surveys.queries.wording import translate


class TranslationForm(forms.Form):
    """A survey's texts in ``language``: one optional field per text of its main language that
    is not blank, which the field's help shows. Blank fields show the main language's text to
    respondents (``surveys.queries.wording``). ``needs_review``: the translation's texts
    whose main text was corrected since it was saved (``SurveyTranslation.needs_review``),
    which the form marks."""

    def __init__(
        self,
        *args,
        survey: Survey,
        questions: list[Question],
        language: str,
        texts: object = None,
        needs_review: dict[str, str] | None = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.survey, self.questions = survey, questions
        self.needs_review = needs_review or {}
        translated = translate(survey, questions, language, texts)
        self.main_name = language_name(survey.language)

        def add(
            name: str, label: str, main: str, value: str, lang: str, limit=None, validators=()
        ) -> list:
            """The field ``name`` (none if the main text is blank), initially ``value`` if
            it is the translation's."""
            if not main.strip():
                return []
            attrs = {"lang": language}  # what the translator types, not the page
            widget = forms.TextInput(attrs) if limit else forms.Textarea(attrs | {"rows": 4})
            help_text = format_html(
                '{}: <span lang="{}">{}</span>', self.main_name, survey.language, main
            )
            if name in self.needs_review:
                since = datetime.datetime.fromisoformat(self.needs_review[name])
                help_text = format_html(
                    '<strong class="d-block text-warning-emphasis">{}</strong>{}',
                    _("Corrected on %(time)s: check this translation still says the same.")
                    % {"time": researcher_time(since)},
                    help_text,
                )
            self.fields[name] = forms.CharField(
                label=label, required=False, max_length=limit, widget=widget,
                validators=list(validators), help_text=help_text,
            )
            self.initial[name] = value if lang == language else ""
            return [name]

        about = []  # the texts about the study; a contact is an e-mail or web address
        for text in STUDY_TEXTS:
            field = Survey._meta.get_field(text)
            about += add(text, capfirst(field.verbose_name), getattr(survey, text),
                         translated[text], translated[f"{text}_lang"], field.max_length,
                         field.validators)
        layout = [Fieldset(
            _("Survey"),
            *add("title", _("Title"), survey.title, translated["title"], translated["lang"],
                 max_length(Survey, "title")),
            *add("introduction", _("Introduction"), survey.introduction,
                 translated["introduction"], translated["introduction_lang"]),
            *about,
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
            # Only the researcher's own answers: the site translates its own (Yes and No).
            translatable = question.question_kind.choices
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
            **{text: data.get(text, "") for text in STUDY_TEXTS},
            "questions": questions,
        }
