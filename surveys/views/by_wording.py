"""Answers by wording: one question's estimates per wording version, its JSON and its CSV.

Same access rule as the dashboard and breakdowns (whoever may view the survey, and staff who
may view surveys; the JSON and the CSV also with an API token). A question of another survey
is not found (404); a draft, which has no responses, is refused with status 400 and a
message.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_safe

from surveys.queries.results import CACHE_SECONDS
from surveys.views.access import token_or_login_required
from surveys.views.common import Refused
from surveys.views.figures import by_wording_csv, by_wording_of, by_wording_query


@require_safe
@login_required
def question_by_wording(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, question = by_wording_query(request, pk, question)
    context = {"survey": survey, "question": question, "cache_seconds": CACHE_SECONDS}
    try:
        data = by_wording_of(survey, question)
    except Refused as refusal:
        return render(request, "surveys/by_wording.html",
                      context | {"data": None, "error": refusal.message}, status=400)
    rows = [
        wording | {
            "from_time": parse_datetime(wording["from"]) if wording["from"] else None,
            "until_time": parse_datetime(wording["until"]) if wording["until"] else None,
        }
        for wording in data["wordings"]
    ]
    return render(request, "surveys/by_wording.html", context | {"data": data, "rows": rows})


@require_safe
@token_or_login_required
def question_by_wording_json(request: HttpRequest, pk: int, question: int) -> JsonResponse:
    try:
        return JsonResponse(by_wording_of(*by_wording_query(request, pk, question)))
    except Refused as refusal:
        return refusal.json()


@require_safe
@token_or_login_required
def question_by_wording_csv(request: HttpRequest, pk: int, question: int) -> HttpResponse:
    survey, question = by_wording_query(request, pk, question)
    try:
        return by_wording_csv(survey, by_wording_of(survey, question))
    except Refused as refusal:
        return refusal.text()
