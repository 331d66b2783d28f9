"""What a researcher's pages and the API both serve of a survey's figures: a question's
breakdown, regression and answers by wording, each with its query checked (a draft, or a
query that cannot be answered, is ``Refused`` in words and computes nothing), and the files
the results page exports that no query makes (the scripts that redo the estimates, the
estimation library, the labelled SPSS and Stata files, and the zipped downloads, each with
its README.txt)."""

from __future__ import annotations

import csv
import io
import json
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext_lazy

from surveys import ldp
from surveys.forms import BreakdownForm, RegressionForm
from surveys.models import Question, Survey
from surveys.queries import breakdowns, by_wording, codebook, regression, results, stats_files
from surveys.queries.contracts import RegressionResults
from surveys.views.access import get_survey
from surveys.views.common import Refused, csv_response, refuse_unless_answerable

BREAKDOWN_DRAFT = gettext_lazy(
    "This survey is still a draft: breakdowns appear once it is open and has responses."
)
REGRESSION_DRAFT = gettext_lazy(
    "This survey is still a draft: a regression can be fitted once it is open and has "
    "responses."
)
BY_WORDING_DRAFT = gettext_lazy(
    "This survey is still a draft: answers by wording appear once it is open and has "
    "responses."
)


def _question_of(questions: list[Question], question_pk: int) -> Question:
    question = next((q for q in questions if q.pk == question_pk), None)
    if question is None:
        raise Http404("This survey has no such question.")
    return question


def breakdown_query(
    request: HttpRequest, pk: int, question_pk: int
) -> tuple[Survey, Question, BreakdownForm]:
    """The survey the request may view, its question ``question_pk`` (else 404) and the
    breakdown asked for in the request's query string, not yet checked."""
    survey = get_survey(request, pk, "view", staff_may_view=True)
    questions = list(survey.ordered_questions())  # with their choices: two queries
    question = _question_of(questions, question_pk)
    return survey, question, BreakdownForm(request.GET, questions=questions, question=question)


def breakdown(survey: Survey, question: Question, form: BreakdownForm) -> dict[str, Any]:
    """The two-way breakdown the form asks for, or the three-way one with ``within``."""
    refuse_unless_answerable(survey, form, str(BREAKDOWN_DRAFT))
    data = form.cleaned_data
    if data["within"] is not None:
        return breakdowns.stratified_results(survey, question, data["by"], data["within"])
    return breakdowns.breakdown_results(survey, question, data["by"], data["compare"])


def breakdown_csv(survey: Survey, data: dict[str, Any]) -> StreamingHttpResponse:
    """A breakdown's figures, one row per (group, answer), or per (stratum, group, answer)."""
    positions = data["question"]["position"], data["by"]["position"]
    filename = f"survey-{survey.pk}-q{positions[0]}-by-q{positions[1]}"
    if "strata" in data:
        filename += f"-within-q{data['within']['position']}"
        return csv_response(breakdowns.stratified_rows(data), f"{filename}.csv")
    return csv_response(breakdowns.breakdown_rows(data), f"{filename}.csv")


def regression_query(
    request: HttpRequest, pk: int, question_pk: int
) -> tuple[Survey, Question, RegressionForm]:
    """The survey the request may view, the question ``question_pk`` to explain (else 404)
    and the questions to explain it by in the request's query string, not yet checked."""
    survey = get_survey(request, pk, "view", staff_may_view=True)
    # Without their choices: a view of cached figures needs only the questions' texts, kinds
    # and frozen mechanisms (one query fewer, measured at 0.7 ms on PostgreSQL); a fit reads
    # the few it uses.
    questions = list(survey.questions.order_by("order", "pk"))
    outcome = _question_of(questions, question_pk)
    return survey, outcome, RegressionForm(request.GET, questions=questions, outcome=outcome)


def regression_of(survey: Survey, outcome: Question, form: RegressionForm) -> RegressionResults:
    refuse_unless_answerable(survey, form, str(REGRESSION_DRAFT))
    problem = regression.problem(outcome, form.cleaned_data["by"])
    if problem:
        raise Refused(problem)
    return regression.regression_results(survey, outcome, form.cleaned_data["by"])


def regression_csv(survey: Survey, data: RegressionResults) -> StreamingHttpResponse:
    """A regression's figures, one row per coefficient."""
    positions = "-".join(f"q{p['position']}" for p in data["predictors"])
    filename = f"survey-{survey.pk}-q{data['outcome']['position']}-by-{positions}.csv"
    return csv_response(regression.regression_rows(data), filename)


def by_wording_query(request: HttpRequest, pk: int, question_pk: int) -> tuple[Survey, Question]:
    survey = get_survey(request, pk, "view", staff_may_view=True)
    question = survey.questions.filter(pk=question_pk).first()
    if question is None:
        raise Http404("This survey has no such question.")
    return survey, question


def by_wording_of(survey: Survey, question: Question) -> dict[str, Any]:
    if survey.is_draft:
        raise Refused(str(BY_WORDING_DRAFT))
    return by_wording.by_wording_results(survey, question)


def by_wording_csv(survey: Survey, data: dict[str, Any]) -> StreamingHttpResponse:
    """A question's figures per wording, one row per (wording, answer)."""
    filename = f"survey-{survey.pk}-q{data['question']['position']}-by-wording.csv"
    return csv_response(by_wording.by_wording_rows(data), filename)


STATS_FILES = {"sav": "application/x-spss-sav", "dta": "application/x-stata-dta"}
"""The labelled files of the reports (``surveys.queries.stats_files``), by extension."""


def stats_file(survey: Survey, extension: str) -> FileResponse:
    """The reports as an SPSS or Stata file, with labels."""
    return FileResponse(
        stats_files.write(survey, extension),
        as_attachment=True,
        filename=f"survey-{survey.pk}-reports.{extension}",
        content_type=STATS_FILES[extension],
    )


REDO_SCRIPTS = {
    "py": (Path(settings.BASE_DIR) / "docs" / "redo_estimates.py", 'PREFIX = "survey-{}"',
           "text/x-python"),
    "R": (Path(settings.BASE_DIR) / "docs" / "redo_estimates.R", 'PREFIX <- "survey-{}"',
          "text/plain"),
}
"""The scripts that redo a survey's estimates from its exports, in Python and in R (base R
and jsonlite, needing no library of ours): file, the line naming the exports' prefix (for
survey 0 in the file), and the type served."""
LIBRARY = Path(ldp.__file__).parent
"""The estimation library, pure numpy and scipy, handed out as ldp.zip."""


def _script(survey: Survey, extension: str) -> str:
    """The text of the script (``REDO_SCRIPTS``) that redoes ``survey``'s estimates."""
    path, prefix, _ = REDO_SCRIPTS[extension]
    return path.read_text(encoding="utf-8").replace(
        prefix.format(0), prefix.format(survey.pk), 1
    ).replace("survey-N", f"survey-{survey.pk}")


def redo_script(survey: Survey, extension: str) -> HttpResponse:
    """The script (``REDO_SCRIPTS``) that redoes ``survey``'s estimates from its exports."""
    filename = f"survey-{survey.pk}-estimates.{extension}"
    return HttpResponse(
        _script(survey, extension), content_type=f"{REDO_SCRIPTS[extension][2]}; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def _add_library(archive: zipfile.ZipFile) -> None:
    for path in sorted(LIBRARY.glob("*.py")):
        archive.write(path, f"ldp/{path.name}")


def library_zip() -> HttpResponse:
    """ldp.zip: the folder of the estimation library, for the Python script."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        _add_library(archive)
    return HttpResponse(
        buffer.getvalue(), content_type="application/zip",
        headers={"Content-Disposition": 'attachment; filename="ldp.zip"'},
    )


BUNDLES = {
    "reports-csv": ["reports.csv", "metadata.json"],
    "reports-sav": ["reports.sav"],
    "reports-dta": ["reports.dta"],
    "estimates": ["estimates.csv"],
    "everything": ["reports.csv", "metadata.json", "reports.sav", "reports.dta",
                   "estimates.csv", "estimates.py", "estimates.R", "ldp"],
}
"""The zipped downloads of the results page, by name: their files (``codebook.FILES``), each
zipped with README.txt, which says what each file and column means. The single files stay
at their own addresses for scripts and the API."""


def _add_csv(archive: zipfile.ZipFile, name: str, rows: Iterable[Sequence[Any]]) -> None:
    """A CSV written straight into the archive, row by row: memory stays flat."""
    with archive.open(name, "w") as raw, io.TextIOWrapper(raw, "utf-8", newline="") as text:
        csv.writer(text).writerows(rows)


def _add(archive: zipfile.ZipFile, survey: Survey, name: str) -> None:
    """The file ``name`` of ``BUNDLES`` into the archive, named as its own download is."""
    path = f"survey-{survey.pk}-{name}"
    if name == "reports.csv":
        _add_csv(archive, path, results.report_rows(survey))
    elif name == "estimates.csv":
        _add_csv(archive, path, results.estimate_rows(results.survey_results(survey)))
    elif name == "metadata.json":
        metadata = results.export_metadata(survey)
        archive.writestr(path, json.dumps(metadata, indent=2, ensure_ascii=False))
    elif name in ("reports.sav", "reports.dta"):
        with stats_files.write(survey, name.split(".")[1]) as written:
            archive.write(written.name, path)
    elif name == "ldp":
        _add_library(archive)
    else:
        archive.writestr(path, _script(survey, name.split(".")[1]))


def bundle(survey: Survey, name: str) -> FileResponse:
    """The zipped download ``name`` of ``BUNDLES`` (404 for another name), built in a
    temporary file."""
    if name not in BUNDLES:
        raise Http404("There is no such download.")
    target = tempfile.TemporaryFile()  # noqa: SIM115 (the response closes it)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", codebook.readme(survey, BUNDLES[name]))
        for file in BUNDLES[name]:
            _add(archive, survey, file)
    target.seek(0)
    return FileResponse(target, as_attachment=True, filename=f"survey-{survey.pk}-{name}.zip",
                        content_type="application/zip")
