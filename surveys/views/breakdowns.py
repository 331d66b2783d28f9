"""A question broken down by another: the page, its JSON and its CSV.

Same access rule as the dashboard (whoever may view the survey, and staff who may view
surveys; the JSON and the CSV also with an API token). A breakdown by the question itself, by
a question of another survey, or of a draft survey is refused with status 400 and a message,
and computes nothing. With ``within`` (a second grouping question) the breakdown is
three-way: one table per group of that question (``breakdowns.stratified_results``).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from surveys.forms import BreakdownForm
from surveys.queries.results import CACHE_SECONDS
from surveys.views.access import token_or_login_required
from surveys.views.common import Refused
from surveys.views.figures import breakdown, breakdown_csv, breakdown_query


@require_safe
@login_required
def question_breakdown(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, question, form = breakdown_query(request, pk, question)
    context = {"survey": survey, "question": question, "form": form}
    if "by" not in request.GET:  # arrived without a choice yet: only the form
        form = BreakdownForm(None, questions=list(form.questions.values()), question=question)
        return render(request, "surveys/breakdown.html", {**context, "form": form})
    try:
        data = breakdown(survey, question, form)
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
        return JsonResponse(breakdown(*breakdown_query(request, pk, question)))
    except Refused as refusal:
        return refusal.json()


@require_safe
@token_or_login_required
def question_breakdown_csv(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, question, form = breakdown_query(request, pk, question)
    try:
        return breakdown_csv(survey, breakdown(survey, question, form))
    except Refused as refusal:
        return refusal.text()
