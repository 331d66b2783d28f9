"""The researcher's dashboard, its JSON endpoint, and the exports.

Whoever may view the survey sees them: its owner, researchers it is shared with, and staff
who may view surveys in the admin; anyone else gets 404, so the existence of a survey is not
revealed. The JSON and the exports also accept such a user's API token
(``surveys.views.access.token_or_login_required``); the dashboard does not. Every page
costs O(k) per question: the numbers come from tallies (``surveys.queries.results``), never
from the reports, and the reports export streams. While responses arrive, the results are
recomputed at most once per refresh interval (``results.cached``), after the response of the
view that found the interval over; anyone who may view them may ask for a recompute now.
The dashboard's question cards are cached keyed by what they show (``charts.drawn_cards``),
so a view draws only the cards whose figures changed; a deployment that changes their
templates and keeps a shared cache (REDIS_URL) should clear it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from surveys import ldp
from surveys.actions.surveys import close_if_due
from surveys.models import Survey
from surveys.queries import results
from surveys.queries.contracts import SurveyResults
from surveys.views.access import get_survey, token_or_login_required
from surveys.views.common import after_response, csv_response
from surveys.views.figures import STATS_FILES, bundle, library_zip, redo_script, stats_file


@require_safe
@login_required
def survey_results(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "view", staff_may_view=True)
    close_if_due(survey)  # the status shown is current
    data = results.survey_results(survey, later=_recompute_later(request, survey))
    return _results_page(request, survey, data)


def _results_page(request: HttpRequest, survey: Survey, data: SurveyResults) -> HttpResponse:
    return render(
        request,
        "surveys/results.html",
        {
            "survey": survey,
            "data": data,
            "is_demo": any(results.shows_truth(question) for question in data["questions"]),
            "target_points": round(100 * results.TARGET_MARGIN),
            "planner_limit": ldp.MAX_PLANNED_RESPONDENTS,
            "refresh_seconds": round(settings.RESULTS_REFRESH_SECONDS),
        },
    )


def _recompute_later(
    request: HttpRequest, survey: Survey
) -> Callable[[Callable[[], object]], None]:
    """What the results' views hand a recompute due at the end of the refresh interval to:
    run it once the response is sent, then draw the page of the new figures, so that the
    cards whose figures changed are drawn and cached before the next view needs them."""
    def later(recompute: Callable[[], object]) -> None:
        def job() -> None:
            recompute()
            _results_page(request, survey, results.survey_results(survey))

        after_response(job)

    return later


@require_POST
@login_required
def survey_results_refresh(request: HttpRequest, pk: int) -> HttpResponse:
    """Recompute the results now rather than at the end of the refresh interval (at most once
    per ``results.REFRESH_NOW_SECONDS``), then show them. A signed-in form's POST only: an
    API token cannot make the server compute."""
    survey = get_survey(request, pk, "view", staff_may_view=True)
    close_if_due(survey)
    results.survey_results(survey, now_asked=True)
    return redirect("survey-results", pk=survey.pk)


@require_safe
@token_or_login_required
def survey_results_json(request: HttpRequest, pk: int) -> JsonResponse:
    survey = get_survey(request, pk, "view", staff_may_view=True)
    close_if_due(survey)
    return JsonResponse(results.survey_results(survey, later=_recompute_later(request, survey)))


@require_safe
@token_or_login_required
def export_reports_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    survey = get_survey(request, pk, "view", staff_may_view=True)
    return csv_response(results.report_rows(survey), f"survey-{survey.pk}-reports.csv")


@require_safe
@token_or_login_required
def export_reports_file(request: HttpRequest, pk: int, extension: str) -> FileResponse:
    """The reports as an SPSS or Stata file, with labels."""
    if extension not in STATS_FILES:
        raise Http404
    return stats_file(get_survey(request, pk, "view", staff_may_view=True), extension)


@require_safe
@token_or_login_required
def export_bundle(request: HttpRequest, pk: int, name: str) -> FileResponse:
    """A zipped download of the results page, with its README.txt (``figures.BUNDLES``)."""
    return bundle(get_survey(request, pk, "view", staff_may_view=True), name)


@require_safe
@token_or_login_required
def export_redo_script(request: HttpRequest, pk: int) -> HttpResponse:
    """The Python script that redoes this survey's estimates from its reports and metadata."""
    return redo_script(get_survey(request, pk, "view", staff_may_view=True), "py")


@require_safe
@token_or_login_required
def export_redo_r_script(request: HttpRequest, pk: int) -> HttpResponse:
    """The R script that redoes this survey's estimates from its reports and metadata."""
    return redo_script(get_survey(request, pk, "view", staff_may_view=True), "R")


@require_safe
@token_or_login_required
def export_library(request: HttpRequest) -> HttpResponse:
    """ldp.zip: the folder of the estimation library, for the script above."""
    return library_zip()


@require_safe
@token_or_login_required
def export_metadata(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "view", staff_may_view=True)
    return HttpResponse(
        json.dumps(results.export_metadata(survey), indent=2, ensure_ascii=False),
        content_type="application/json; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="survey-{survey.pk}-metadata.json"'},
    )


@require_safe
@token_or_login_required
def export_estimates_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    survey = get_survey(request, pk, "view", staff_may_view=True)
    rows = results.estimate_rows(results.survey_results(survey))
    return csv_response(rows, f"survey-{survey.pk}-estimates.csv")
