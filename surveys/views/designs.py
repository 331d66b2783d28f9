"""The design page of a survey: its whole-survey budget, whether each respondent answers every
question or a random few, and the plan that shows what each choice gives."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from surveys.forms import DesignForm
from surveys.queries.designs import PLANNED_RESPONDENTS, plan
from surveys.views.access import get_survey, researcher_required

MAX_PLANNED = 10_000_000
"""The most respondents the page plans for."""


def planned_respondents(value: str) -> int:
    """The respondents to plan for, from the page's address (1,000 when missing or not a
    whole number from 1 to ``MAX_PLANNED``)."""
    return int(value) if value.isdigit() and 1 <= int(value) <= MAX_PLANNED else 1_000


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def survey_design(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "view" if request.method != "POST" else "edit")
    form = DesignForm(request.POST or None, survey=survey)
    if request.method == "POST" and survey.is_frozen:
        messages.error(request, _("This survey has opened: its design is frozen."))
        return redirect("survey-design", pk=survey.pk)
    if request.method == "POST" and form.is_valid() and form.save():
        messages.success(request, _("Design saved: every question's epsilon follows it."))
        return redirect("survey-design", pk=survey.pk)
    respondents = planned_respondents(request.GET.get("respondents", ""))
    budget = survey.budget or form.policy.max_survey_epsilon
    context = {
        "survey": survey,
        "form": form,
        "respondents": respondents,
        "planned": PLANNED_RESPONDENTS,
        "plan": plan(form.questions, budget, survey.asked, respondents)
        if form.questions else None,
        "budget": budget,
    }
    return render(request, "surveys/survey_design.html", context)
