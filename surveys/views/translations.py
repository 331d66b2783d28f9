"""The researcher's pages for a survey's translations: which languages have one, and each one's
texts. Wording, not mechanism: allowed whatever the survey's status."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from surveys.actions.wording import remove_translation, save_translation
from surveys.forms import TranslationForm
from surveys.helpers.languages import language_name
from surveys.views.access import get_survey, researcher_required


@require_safe
@researcher_required
def translation_list(request: HttpRequest, pk: int) -> HttpResponse:
    """The site's languages other than the survey's main one, each with how much of the
    survey its translation gives (``state``: "none", "partial" or "complete") and its texts
    whose main text was corrected since (``review``: how many, ``since``: the first time)."""
    survey = get_survey(request, pk, "edit")
    questions = list(survey.ordered_questions())
    translations = {t.language: t for t in survey.translations.all()}
    languages = []
    for code, _name in settings.LANGUAGES:
        if code == survey.language:
            continue
        translation = translations.get(code)
        form = TranslationForm(
            survey=survey, questions=questions, language=code,
            texts=translation.texts if translation else None,
        )
        filled, total = form.progress()
        state = "none" if not filled else "complete" if filled == total else "partial"
        review = translation.needs_review if translation else {}
        languages.append(
            {"code": code, "name": language_name(code), "filled": filled, "total": total,
             "state": state, "review": len(review),
             "since": datetime.datetime.fromisoformat(min(review.values())) if review else None}
        )
    context = {"survey": survey, "main_name": language_name(survey.language),
               "languages": languages}
    return render(request, "surveys/translations.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def translation_edit(request: HttpRequest, pk: int, language: str) -> HttpResponse:
    """Create or edit the survey's translation into ``language``; with ``remove`` in the
    POST, delete it. The main language has no translation: that is refused."""
    survey = get_survey(request, pk, "edit")
    if language not in dict(settings.LANGUAGES):
        raise Http404("No such language.")
    name = language_name(language)
    if language == survey.language:
        messages.error(request, _(
            "%(language)s is this survey's main language: change its texts on the survey's "
            "and questions' own pages."
        ) % {"language": name})
        return redirect("survey-translations", survey.pk)
    translation = survey.translations.filter(language=language).first()
    if request.method == "POST" and "remove" in request.POST:
        if translation:
            remove_translation(translation, request.user)
            messages.success(request, _("The %(language)s translation was removed.") % {
                "language": name})
        return redirect("survey-translations", survey.pk)
    form = TranslationForm(
        request.POST or None,
        survey=survey,
        questions=list(survey.ordered_questions()),
        language=language,
        texts=translation.texts if translation else None,
        needs_review=translation.needs_review if translation else None,
    )
    if request.method == "POST" and form.is_valid():
        save_translation(survey, language, form.texts(), request.user)
        messages.success(request, _("The %(language)s translation was saved.") % {
            "language": name})
        return redirect("survey-translations", survey.pk)
    context = {"survey": survey, "form": form, "language": language, "name": name,
               "main_name": form.main_name, "translation": translation}
    return render(request, "surveys/translation_form.html", context)
