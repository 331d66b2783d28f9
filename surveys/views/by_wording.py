"""Answers by wording: one question's estimates per wording version, its JSON and its CSV.

Same access rule as the dashboard and breakdowns (whoever may view the survey, and staff who
may view surveys; the JSON and the CSV also with an API token). A question of another survey
is not found (404); a draft, which has no responses, is refused with status 400 and a
message.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe

from surveys.models import Question, Survey
from surveys.queries import by_wording
from surveys.queries.results import CACHE_SECONDS
from surveys.views.access import get_survey, token_or_login_required
from surveys.views.common import csv_response

DRAFT = gettext_lazy(
    "This survey is still a draft: answers by wording appear once it is open and has "
    "responses."
)


def _query(request: HttpRequest, pk: int, question_pk: int) -> tuple[Survey, Question]:
    survey = get_survey(request, pk, "view", staff_may_view=True)
    question = survey.questions.filter(pk=question_pk).first()
    if question is None:
        raise Http404("This survey has no such question.")
    return survey, question


def _results(survey: Survey, question: Question) -> dict[str, Any] | None:
    """The figures, or None for a draft."""
    if survey.is_draft:
        return None
    return by_wording.by_wording_results(survey, question)


@require_safe
@login_required
def question_by_wording(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, question = _query(request, pk, question)
    data = _results(survey, question)
    context = {"survey": survey, "question": question, "data": data,
               "cache_seconds": CACHE_SECONDS}
    if data is None:
        return render(request, "surveys/by_wording.html", context | {"error": DRAFT}, status=400)
    rows = [
        wording | {
            "from_time": parse_datetime(wording["from"]) if wording["from"] else None,
            "until_time": parse_datetime(wording["until"]) if wording["until"] else None,
        }
        for wording in data["wordings"]
    ]
    return render(request, "surveys/by_wording.html", context | {"rows": rows})


@require_safe
@token_or_login_required
def question_by_wording_json(request: HttpRequest, pk: int, question: int) -> JsonResponse:
    data = _results(*_query(request, pk, question))
    if data is None:
        return JsonResponse({"error": str(DRAFT)}, status=400)
    return JsonResponse(data)


@require_safe
@token_or_login_required
def question_by_wording_csv(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, question = _query(request, pk, question)
    data = _results(survey, question)
    if data is None:
        return HttpResponse(str(DRAFT), status=400, content_type="text/plain; charset=utf-8")
    filename = f"survey-{survey.pk}-q{data['question']['position']}-by-wording.csv"
    return csv_response(by_wording.by_wording_rows(data), filename)
