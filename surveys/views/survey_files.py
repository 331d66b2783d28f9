"""Survey files: downloading a survey's whole definition, and importing one (or an XLSForm)
as a new draft (docs/survey-files.md)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from surveys.actions.survey_files import import_survey
from surveys.forms import SurveyFileForm
from surveys.queries.survey_files import survey_file_bytes
from surveys.views.access import get_survey, researcher_required, token_or_login_required


@require_safe
@token_or_login_required
def survey_file(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "view")
    return HttpResponse(
        survey_file_bytes(survey),
        content_type="application/json; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="survey-{survey.pk}.json"'},
    )


@require_http_methods(["GET", "POST"])
@researcher_required
def survey_import(request: HttpRequest) -> HttpResponse:
    form = SurveyFileForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            survey, notes = import_survey(request.user, form.definition)
        except ValidationError as error:
            for message in error.messages:
                form.add_error("file", message)
        else:
            messages.success(request, imported_message(form.notes + notes))
            return redirect(survey)
    status = 400 if form.errors else 200
    return render(request, "surveys/survey_import.html", {"form": form}, status=status)


def imported_message(notes: list[str]) -> str:
    """What the survey's page says after an import: that it is a new draft, and what was not
    imported (or was changed) and why, as a list."""
    done = _("The survey was imported as a new draft: check it before you open it.")
    if not notes:
        return done
    return format_html(
        '{} <span id="import-notes-title">{}</span><ul class="mb-0" aria-labelledby='
        '"import-notes-title">{}</ul>',
        done,
        _("Not imported, or changed:"),
        format_html_join("", "<li>{}</li>", ((note,) for note in notes)),
    )
