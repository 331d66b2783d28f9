"""Correcting the wording of an opened survey, and the history of its wordings.

A draft's texts are edited on its own pages; once a survey is open, only its texts may be
corrected, on one page (``survey_wording``): never the number or order of answers, a
question's type, epsilon or mechanism (``surveys.actions.wording``). Every wording respondents saw
is kept, and listed with what changed (``survey_wording_history``).
"""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from crispy_forms.layout import HTML, Fieldset, Layout
from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from surveys.actions.wording import MECHANISM_KEYS, correct
from surveys.helpers.numbers import epsilon as epsilon_text
from surveys.models import STUDY_TEXTS, Choice, Question, Survey, max_length
from surveys.queries import revisions
from surveys.views.access import get_survey, researcher_required


class WordingForm(forms.Form):
    """The main-language texts of an opened survey: its title, introduction and texts about
    the study, each
    question's text and help text, and each label of its multiple-choice questions (a yes/no
    question's are fixed). Nothing else: no field changes how reports were randomized."""

    def __init__(self, *args, survey: Survey, questions: list[Question], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.survey, self.questions = survey, questions
        self.fields["title"] = forms.CharField(
            label=_("Title"), max_length=max_length(Survey, "title"),
            initial=survey.title,
        )
        self.fields["introduction"] = forms.CharField(
            label=_("Introduction"), required=False, initial=survey.introduction,
            widget=forms.Textarea(attrs={"rows": 4}),
        )
        for name in STUDY_TEXTS:  # checked by ``correct`` (a contact: e-mail or web address)
            self.fields[name] = Survey._meta.get_field(name).formfield(
                initial=getattr(survey, name)
            )
        layout = [Fieldset(_("Survey"), "title", "introduction", *STUDY_TEXTS)]
        for position, question in enumerate(questions, start=1):
            prefix = f"q{question.pk}-"
            self.fields[prefix + "text"] = forms.CharField(
                label=_("Question"), max_length=max_length(Question, "text"),
                initial=question.text,
            )
            self.fields[prefix + "help_text"] = forms.CharField(
                label=_("Help text (optional)"), required=False, initial=question.help_text,
                max_length=max_length(Question, "help_text"),
            )
            names = [prefix + "text", prefix + "help_text"]
            if question.question_kind.choices:
                for i, label in enumerate(question.labels()):
                    name = f"{prefix}label{i}"
                    self.fields[name] = forms.CharField(
                        label=_("Answer %(n)d") % {"n": i + 1}, initial=label,
                        max_length=max_length(Choice, "label"),
                    )
                    names.append(name)
            fixed = _("%(kind)s · epsilon %(epsilon)s · %(mechanism)s: fixed.") % {
                "kind": question.get_kind_display(),
                "epsilon": epsilon_text(question.epsilon),
                "mechanism": _(question.mechanism().label),
            }
            if not question.question_kind.choices:
                fixed += " " + _("Its answers are “No” and “Yes”.")
            note = HTML(format_html('<p class="small text-body-secondary">{}</p>', fixed))
            layout.append(Fieldset(_("Question %(n)d") % {"n": position}, *names, note))
        self.helper = FormHelper()
        self.helper.form_tag = False
        self.helper.layout = Layout(*layout)

    def texts(self) -> dict:
        """The corrected texts for ``surveys.actions.wording.correct``, from the valid form, with
        anything posted beyond its fields that would change how reports were randomized (an
        extra answer, a yes/no question's labels, a type, epsilon or mechanism), which
        ``correct`` then refuses."""
        data = self.cleaned_data
        texts = {
            "title": data["title"],
            "introduction": data["introduction"],
            **{name: data[name] for name in STUDY_TEXTS},
            "questions": {},
        }
        for question in self.questions:
            prefix = f"q{question.pk}-"
            corrected = {"text": data[prefix + "text"], "help_text": data[prefix + "help_text"]}
            labels = [
                data[f"{prefix}label{i}"] for i in range(len(question.labels()))
                if f"{prefix}label{i}" in self.fields
            ]
            i = len(labels)
            while f"{prefix}label{i}" in self.data:  # posted beyond the form's answers
                labels.append(self.data[f"{prefix}label{i}"])
                i += 1
            if question.question_kind.choices or labels:
                corrected["labels"] = labels
            for name in MECHANISM_KEYS:  # posted by a crafted form: refused
                if prefix + name in self.data:
                    corrected[name] = self.data[prefix + name]
            texts["questions"][str(question.pk)] = corrected
        for name in MECHANISM_KEYS:  # posted by a crafted form: refused
            if name in self.data:
                texts[name] = self.data[name]
        return texts

    def refused(self, error: ValidationError) -> None:
        """Show ``correct``'s refusal on the fields it names, or above them."""
        if not hasattr(error, "error_dict"):
            self.add_error(None, error)
            return
        for field, errors in error.error_dict.items():
            self.add_error(field if field in self.fields else None, errors)


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def survey_wording(request: HttpRequest, pk: int) -> HttpResponse:
    """Correct an opened (or closed) survey's texts. A draft's are edited on its own pages:
    this page sends there."""
    survey = get_survey(request, pk, "edit")
    if survey.is_draft:
        messages.info(request, _(
            "This survey is a draft: edit its title, introduction and questions directly."
        ))
        return redirect(survey)
    questions = list(survey.ordered_questions())
    form = WordingForm(request.POST or None, survey=survey, questions=questions)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            revision = correct(survey, form.texts(), request.user)
        except ValidationError as error:
            form.refused(error)
            if any(e.code == "mechanism" for e in form.non_field_errors().as_data()):
                status = 409
        else:
            if revision is None:
                messages.info(request, _("Nothing changed: the wording is as it was."))
            else:
                messages.success(request, _(
                    "The wording was corrected: respondents see the new texts from now on, and "
                    "the earlier wording is kept in the survey's wording history."
                ))
            return redirect(survey)
    context = {"survey": survey, "form": form, "wordings": revisions.summary(survey)}
    return render(request, "surveys/wording_form.html", context, status=status)


@require_safe
@login_required
def survey_wording_history(request: HttpRequest, pk: int) -> HttpResponse:
    """Every wording respondents saw, newest first, with what changed from the one before.
    Anyone who may read the survey's results may read it."""
    survey = get_survey(request, pk, "view", staff_may_view=True)
    context = {
        "survey": survey,
        "entries": revisions.history(survey),
        "questions": [] if survey.is_draft else list(survey.questions.order_by("order", "pk")),
    }
    return render(request, "surveys/wording_history.html", context)

