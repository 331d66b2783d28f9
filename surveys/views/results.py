"""The researcher's dashboard, its JSON endpoint, and the exports.

Only the survey's owner sees them (staff who may view surveys in the admin too); anyone else
gets 404, so the existence of a survey is not revealed. Every page costs O(k) per question:
the numbers come from tallies (``surveys.results``), never from the reports, and the reports
export streams. The dashboard's question cards are cached with the results they show (per
results snapshot), so a repeated view renders little; a deployment that changes their
templates and keeps a shared cache (REDIS_URL) should clear it.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from surveys import results, simulate
from surveys.models import Survey

CSV_CHUNK = 64 * 1024
"""Characters of CSV sent per chunk: large enough to be cheap, small enough to stay flat."""


def _get_survey_for_user(request: HttpRequest, pk: int) -> Survey:
    """The survey if the user owns it, or is staff allowed to view surveys; else 404."""
    surveys = Survey.objects.all()
    if not (request.user.is_staff and request.user.has_perm("surveys.view_survey")):
        surveys = surveys.filter(owner=request.user)
    return get_object_or_404(surveys, pk=pk)


def _results(survey: Survey) -> dict[str, Any]:
    return results.survey_results(survey, truth=simulate.demo_truth(survey))


@require_safe
@login_required
def survey_results(request: HttpRequest, pk: int) -> HttpResponse:
    survey = _get_survey_for_user(request, pk)
    data = _results(survey)
    questions = [_display(question) for question in data["questions"]]
    return render(
        request,
        "surveys/results.html",
        {
            "survey": survey,
            "data": data,
            "questions": questions,
            "is_demo": any(q["has_truth"] for q in questions),
            "target_points": round(100 * results.TARGET_MARGIN),
            "cache_seconds": results.CACHE_SECONDS,
        },
    )


@require_safe
@login_required
def survey_results_json(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(_results(_get_survey_for_user(request, pk)))


@require_safe
@login_required
def export_reports_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    survey = _get_survey_for_user(request, pk)
    return _csv_response(results.report_rows(survey), f"survey-{survey.pk}-reports.csv")


@require_safe
@login_required
def export_metadata(request: HttpRequest, pk: int) -> HttpResponse:
    survey = _get_survey_for_user(request, pk)
    return HttpResponse(
        json.dumps(results.export_metadata(survey), indent=2, ensure_ascii=False),
        content_type="application/json; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="survey-{survey.pk}-metadata.json"'},
    )


@require_safe
@login_required
def export_estimates_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    survey = _get_survey_for_user(request, pk)
    rows = results.estimate_rows(_results(survey))
    return _csv_response(rows, f"survey-{survey.pk}-estimates.csv")


def _csv_response(rows: Iterable[Sequence[Any]], filename: str) -> StreamingHttpResponse:
    return StreamingHttpResponse(
        _csv_chunks(rows),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def _csv_chunks(rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """RFC 4180 CSV (the csv module quotes commas, quotes and newlines), in chunks of about
    ``CSV_CHUNK`` characters."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow(row)
        if buffer.tell() >= CSV_CHUNK:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


# Chart geometry, in SVG user units: the viewBox is CHART_WIDTH wide and the SVG scales to
# its container, so on a 360-pixel phone a 14-unit font still renders at about 13 pixels.
CHART_WIDTH = 360
PLOT_LEFT, PLOT_RIGHT = 16, 288
ROW_HEIGHT, BAR_HEIGHT, HEADER_HEIGHT, AXIS_HEIGHT = 50, 18, 22, 50
LABEL_CHARACTERS = 40


def _display(question: dict[str, Any]) -> dict[str, Any]:
    """One question's results plus what the template needs: percentages as text and the
    chart's coordinates (server-rendered SVG, so the page needs no script)."""
    rows = [_display_row(category, HEADER_HEIGHT + i * ROW_HEIGHT)
            for i, category in enumerate(question["categories"] or [])]
    axis_y = HEADER_HEIGHT + len(rows) * ROW_HEIGHT
    margin = question["margin_of_error"]
    return {
        **question,
        "rows": rows,
        "yes": rows[1] if question["kind"] == "yesno" and rows else None,
        "has_truth": any(row["truth_x"] is not None for row in rows),
        "margin_text": None if margin is None else _points(margin),
        "chart": {
            "width": CHART_WIDTH,
            "height": axis_y + AXIS_HEIGHT,
            "plot_left": PLOT_LEFT,
            "plot_right": PLOT_RIGHT,
            "axis_y": axis_y,
            "value_x": CHART_WIDTH - 2,
            "ticks": [{"x": _x(t / 100), "text": f"{t}%"} for t in (0, 25, 50, 75, 100)],
            "title_y": axis_y + 44,
            "center_x": (PLOT_LEFT + PLOT_RIGHT) / 2,
        },
    }


def _display_row(category: dict[str, Any], top: int) -> dict[str, Any]:
    """One bar: its label above, the bar, the interval's whisker, the demo's truth marker."""
    label, truth = category["label"], category["truth"]
    bar_y = top + 20
    return {
        **category,
        "text": _percent(category["estimate"]),
        "interval": f"{_percent(category['ci_low'])}–{_percent(category['ci_high'])}",
        "unbiased_text": _percent(category["unbiased"]),
        "unbiased_interval": f"{_percent(category['unbiased_ci_low'])}–"
        f"{_percent(category['unbiased_ci_high'])}",
        "std_error_text": _points(category["std_error"]),
        "mle_text": _percent(category["mle"]),
        "truth_text": None if truth is None else _percent(truth),
        "short_label": label if len(label) <= LABEL_CHARACTERS
        else label[: LABEL_CHARACTERS - 1] + "…",
        "label_y": top + 14,
        "bar_y": bar_y,
        "bar_height": BAR_HEIGHT,
        "bar_width": round(_x(category["estimate"]) - PLOT_LEFT, 1),
        "whisker_y": bar_y + BAR_HEIGHT / 2,
        "cap_top": bar_y - 4,
        "cap_bottom": bar_y + BAR_HEIGHT + 4,
        "value_y": bar_y + BAR_HEIGHT / 2 + 5,
        "low_x": _x(category["ci_low"]),
        "high_x": _x(category["ci_high"]),
        "truth_x": None if truth is None else _x(truth),
        "truth_bottom": bar_y + BAR_HEIGHT + 8,
    }


def _x(proportion: float) -> float:
    return round(PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * proportion, 1)


def _percent(proportion: float) -> str:
    return f"{100 * proportion:.1f}%"


def _points(proportion: float) -> str:
    """A difference of proportions, in percentage points: 0.043 -> "4.3"."""
    return f"{100 * proportion:.1f}"
