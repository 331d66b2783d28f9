"""A question broken down by another: the page, its JSON and its CSV.

Same access rule as the dashboard (whoever may view the survey, and staff who may view
surveys; the JSON and the CSV also with an API token). A breakdown by the question itself, by
a question of another survey, or of a draft survey is refused with status 400 and a message,
and computes nothing. With ``within`` (a second grouping question) the breakdown is
three-way: one table per group of that question (``breakdowns.stratified_results``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe

from surveys.forms import BreakdownForm
from surveys.models import Question, Survey
from surveys.queries import breakdowns
from surveys.queries.results import CACHE_SECONDS
from surveys.views.access import get_survey, token_or_login_required
from surveys.views.common import Refused, csv_response, refuse_unless_answerable

DRAFT = gettext_lazy(
    "This survey is still a draft: breakdowns appear once it is open and has responses."
)


def _query(
    request: HttpRequest, pk: int, question_pk: int
) -> tuple[Survey, Question, BreakdownForm]:
    survey = get_survey(request, pk, "view", staff_may_view=True)
    questions = list(survey.ordered_questions())  # with their choices: two queries
    question = next((q for q in questions if q.pk == question_pk), None)
    if question is None:
        raise Http404("This survey has no such question.")
    return survey, question, BreakdownForm(request.GET, questions=questions, question=question)


def _results(survey: Survey, question: Question, form: BreakdownForm) -> dict[str, Any]:
    refuse_unless_answerable(survey, form, str(DRAFT))
    data = form.cleaned_data
    if data["within"] is not None:
        return breakdowns.stratified_results(survey, question, data["by"], data["within"])
    return breakdowns.breakdown_results(survey, question, data["by"], data["compare"])


@require_safe
@login_required
def question_breakdown(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, question, form = _query(request, pk, question)
    context = {"survey": survey, "question": question, "form": form}
    if "by" not in request.GET:  # arrived without a choice yet: only the form
        form = BreakdownForm(None, questions=list(form.questions.values()), question=question)
        return render(request, "surveys/breakdown.html", {**context, "form": form})
    try:
        data = _results(survey, question, form)
    except Refused as refusal:
        return render(
            request, "surveys/breakdown.html", {**context, "error": refusal.message}, status=400
        )
    if "difference" in data:  # show the groups compared, also by default
        first, second = data["difference"]["groups"]
        form.data = {**request.GET.dict(), "first": first, "second": second}
    return render(
        request, "surveys/breakdown.html", {**context, "data": data, "cache_seconds": CACHE_SECONDS}
    )


@require_safe
@token_or_login_required
def question_breakdown_json(request: HttpRequest, pk: int, question: int) -> JsonResponse:
    try:
        return JsonResponse(_results(*_query(request, pk, question)))
    except Refused as refusal:
        return refusal.json()


@require_safe
@token_or_login_required
def question_breakdown_csv(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, question, form = _query(request, pk, question)
    try:
        data = _results(survey, question, form)
    except Refused as refusal:
        return refusal.text()
    positions = data["question"]["position"], data["by"]["position"]
    filename = f"survey-{survey.pk}-q{positions[0]}-by-q{positions[1]}"
    if "strata" in data:
        filename += f"-within-q{data['within']['position']}"
        return csv_response(breakdowns.stratified_rows(data), f"{filename}.csv")
    return csv_response(breakdowns.breakdown_rows(data), f"{filename}.csv")
