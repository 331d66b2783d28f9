"""A yes/no question or a rating scale explained by up to three others (logistic or linear
regression): the page, its JSON and its CSV.

Same access rule as breakdowns (whoever may view the survey, and staff who may view surveys;
the JSON and the CSV also with an API token). A draft, a question that is neither yes/no nor
a rating scale, or questions that cannot take part are refused with status 400 and a
message, and nothing is computed.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from surveys.forms import RegressionForm
from surveys.queries import regression
from surveys.queries.results import CACHE_SECONDS
from surveys.views.access import token_or_login_required
from surveys.views.common import Refused
from surveys.views.figures import regression_csv, regression_of, regression_query


@require_safe
@login_required
def question_regression(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, outcome, form = regression_query(request, pk, question)
    context = {"survey": survey, "question": outcome, "form": form,
               "cache_seconds": CACHE_SECONDS}
    if "by" not in request.GET:  # arrived without a choice yet: only the form
        form = RegressionForm(None, questions=list(form.questions.values()), outcome=outcome)
        context["form"] = form
        problem = regression.outcome_problem(outcome)
        if problem:
            return render(request, "surveys/regression.html", context | {"error": problem},
                          status=400)
        return render(request, "surveys/regression.html", context)
    try:
        data = regression_of(survey, outcome, form)
    except Refused as refusal:
        return render(
            request, "surveys/regression.html", context | {"error": refusal.message}, status=400
        )
    context |= {"data": data, "logistic": data["model"] == "logistic"}  # else: linear
    return render(request, "surveys/regression.html", context)


@require_safe
@token_or_login_required
def question_regression_json(request: HttpRequest, pk: int, question: int) -> JsonResponse:
    try:
        return JsonResponse(regression_of(*regression_query(request, pk, question)))
    except Refused as refusal:
        return refusal.json()


@require_safe
@token_or_login_required
def question_regression_csv(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, outcome, form = regression_query(request, pk, question)
    try:
        return regression_csv(survey, regression_of(survey, outcome, form))
    except Refused as refusal:
        return refusal.text()
