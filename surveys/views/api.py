"""The API for scripts, version 1 (``/api/v1/``, docs/results-api.md): the surveys an API
token's owner may see, each one's definition, results, breakdowns, regressions, answers by
wording and exports, and with a token of the write scope, new drafts from survey files and
opening and closing surveys.

django-ninja describes every operation in an OpenAPI 3 document (``/api/v1/openapi.json``,
with an interactive page at ``/api/v1/docs`` drawn by the Swagger UI files it ships, served
by the site) from the types below and the read side's contracts
(``surveys.queries.contracts``). Each operation is thin: the same queries and actions as
the researchers' pages. Every answer but the document and its page needs a token; every
refusal is JSON, ``{"code": <stable identifier>, "error": <sentence>}``, never a page or a
redirect.
"""

from __future__ import annotations

from datetime import datetime
from functools import wraps
from typing import Annotated, Any, Literal

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.urls import re_path
from django.utils.translation import gettext as _
from ninja import Field, File, NinjaAPI, Path, Query, Schema, Status
from ninja.errors import ValidationError as RequestInvalid
from ninja.files import UploadedFile
from ninja.security import HttpBearer

from surveys.actions.survey_files import import_survey
from surveys.actions.surveys import close_if_due, close_survey, open_survey
from surveys.forms import SurveyFileForm
from surveys.models import Survey
from surveys.queries import results
from surveys.queries.access import is_researcher, surveys_for
from surveys.queries.contracts import (
    BreakdownResults,
    Metadata,
    RegressionResults,
    StratifiedResults,
    SurveyResults,
)
from surveys.queries.survey_files import survey_file
from surveys.views.access import get_survey, token_user
from surveys.views.common import Refused, after_response, csv_response
from surveys.views.figures import (
    BUNDLES,
    breakdown,
    breakdown_csv,
    breakdown_query,
    bundle,
    by_wording_csv,
    by_wording_of,
    by_wording_query,
    library_zip,
    redo_script,
    regression_csv,
    regression_of,
    regression_query,
    stats_file,
)

LARGEST_ID = 2**63 - 1
"""The largest id a database row can have: a larger one is refused before any query."""
PAGE_SIZE, LARGEST_PAGE = 20, 100
"""Surveys listed per page by default, and at most."""


class Problem(Schema):
    """Every refusal."""

    code: str
    error: str


class TokenAuth(HttpBearer):
    """The request's API token (``surveys.views.access.token_user``), or a refusal."""

    def __call__(self, request: HttpRequest):
        return token_user(request)

    def authenticate(self, request: HttpRequest, token: str):  # ``__call__`` does it all
        raise NotImplementedError


class Api(NinjaAPI):
    def get_openapi_operation_id(self, operation) -> str:
        """Each operation named by its function, as a generated client names its method."""
        return operation.view_func.__name__


api = Api(
    title="Private surveys API",
    version="1",
    description=(
        "Read the surveys an API token's owner may see: their definitions, results, "
        "breakdowns, regressions, answers by wording and exports; with a token of the write "
        "scope, make drafts from survey files and open and close surveys. Send the token as "
        "`Authorization: Bearer <token>`. Every refusal is JSON with a stable `code` and a "
        "sentence, `error`."
    ),
    auth=TokenAuth(),
    urls_namespace="api-v1",
)

REFUSALS: dict[int, Any] = {400: Problem, 401: Problem, 404: Problem, 429: Problem, 503: Problem}
"""What any operation may answer besides its own: a request it cannot answer (400), no
valid token (401), a survey or question that is not one the token's owner may see (404),
too many requests (429) and a database that cannot be reached (503)."""
WRITES: dict[int, Any] = {**REFUSALS, 403: Problem, 409: Problem}
"""And those that write: a token that may only read, or an owner who is not a researcher
(403); a survey whose status does not allow it (409)."""

SurveyId = Annotated[int, Path(ge=1, le=LARGEST_ID, description="The survey's id (`id` in the "
                                                                 "list)")]
QuestionId = Annotated[int, Path(ge=1, le=LARGEST_ID, description="A question's id "
                                                                  "(`questions[].id` in the "
                                                                  "results)")]


def refusal(status: int, code: str, message: str, headers: dict | None = None) -> JsonResponse:
    return Refused(message, status=status, code=code, headers=headers).json()


@api.exception_handler(Refused)
def _refused(request: HttpRequest, refused: Refused) -> HttpResponse:
    return refused.json()


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, error: Http404) -> HttpResponse:
    return refusal(404, "not_found", _("There is no such survey or question, or it is not one "
                                       "you may see."))


@api.exception_handler(RequestInvalid)
def _invalid(request: HttpRequest, error: RequestInvalid) -> HttpResponse:
    """A parameter of the wrong type or out of range, named with what it should be."""
    problems = "; ".join(
        f"{'.'.join(str(part) for part in problem['loc'][1:]) or problem['loc'][0]}: "
        f"{problem['msg']}"
        for problem in error.errors
    )
    return refusal(400, "invalid_request", f"{problems}.")


@api.exception_handler(MultiPartParserError)
def _unreadable(request: HttpRequest, error: MultiPartParserError) -> HttpResponse:
    return refusal(400, "invalid_request", _("The request's body could not be read as the "
                                             "form its Content-Type header says it is."))


@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def _unavailable(request: HttpRequest, error: Exception) -> HttpResponse:
    """The database cannot be reached: nothing was stored, as every write is a transaction."""
    return refusal(503, "unavailable", _("The service is briefly unavailable. Nothing was "
                                         "stored; please try again in a minute."),
                   {"Retry-After": "30"})


def file_answer(media_type: str, description: str) -> dict[str, Any]:
    """The OpenAPI description of an operation whose answer is a file, not JSON."""
    return {"responses": {200: {
        "description": description,
        "content": {media_type: {"schema": {"type": "string", "format": "binary"}}},
    }}}


# --- surveys ----------------------------------------------------------------------------------


class SurveyInfo(Schema):
    id: int
    title: str
    status: Literal["draft", "open", "closed"]
    language: str
    role: Literal["owner", "editor", "viewer"] | None
    responses: int
    opened_at: datetime | None
    closed_at: datetime | None


class SurveyPage(Schema):
    count: int
    items: list[SurveyInfo]


class NewDraft(SurveyInfo):
    notes: list[str]


def summary(survey: Survey) -> dict[str, Any]:
    return {
        "id": survey.pk, "title": survey.title, "status": survey.status,
        "language": survey.language, "role": survey.access_role,
        "responses": survey.response_count, "opened_at": survey.opened_at,
        "closed_at": survey.closed_at,
    }


@api.get("/surveys", response={200: SurveyPage, **REFUSALS}, tags=["surveys"])
def list_surveys(
    request: HttpRequest,
    limit: Annotated[int, Query(ge=1, le=LARGEST_PAGE, description="Surveys per page")] = PAGE_SIZE,
    offset: Annotated[int, Query(ge=0, le=LARGEST_ID, description="Surveys to skip")] = 0,
):
    """The surveys the token's owner may see (owned, or shared with them), newest first."""
    surveys = surveys_for(request.user, "view").order_by("-created_at", "-pk")
    return {"count": surveys.count(),
            "items": [summary(survey) for survey in surveys[offset:offset + limit]]}


@api.post("/surveys", response={201: NewDraft, **WRITES}, tags=["surveys"])
def create_survey(request: HttpRequest, file: Annotated[UploadedFile, File()]):
    """A new draft from a survey file (.json) or an XLSForm (.xlsx), as the import page makes
    one (write scope). Bad input: 400 naming what is wrong, and nothing is stored."""
    writer(request)
    form = SurveyFileForm(request.POST, request.FILES)
    if not form.is_valid():
        raise Refused(" ".join(form.errors["file"]), code="invalid_file")
    try:
        survey, notes = import_survey(request.user, form.definition)
    except DjangoValidationError as error:
        raise Refused(" ".join(error.messages), code="invalid_file") from None
    survey.access_role = "owner"
    return Status(201, summary(survey) | {"notes": form.notes + notes})


def writer(request: HttpRequest) -> None:
    """Refuses a token that may only read, or whose owner may not author surveys."""
    if not request.auth.writes:
        raise Refused(_("This API token may only read: create a token that may also write."),
                      status=403, code="read_only_token")
    if not is_researcher(request.user):
        raise Refused(_("Only researcher accounts can author surveys."), status=403,
                      code="not_a_researcher")


@api.get("/surveys/{survey_id}", response={200: SurveyInfo, **REFUSALS}, tags=["surveys"])
def get_one_survey(request: HttpRequest, survey_id: SurveyId):
    survey = get_survey(request, survey_id, "view", staff_may_view=True)
    close_if_due(survey)
    return summary(survey)


@api.get("/surveys/{survey_id}/definition", response={200: dict[str, Any], **REFUSALS},
         tags=["surveys"])
def survey_definition(request: HttpRequest, survey_id: SurveyId):
    """The survey file: the survey's whole definition (docs/survey-files.md), which
    ``POST /surveys`` imports as a new draft."""
    return JsonResponse(survey_file(get_survey(request, survey_id, "view")))


@api.post("/surveys/{survey_id}/open", response={200: SurveyInfo, **WRITES},
          tags=["surveys"])
def open_one_survey(request: HttpRequest, survey_id: SurveyId):
    """Opens a draft or a closed survey the token's owner may edit (write scope): it takes
    answers from now on. 409 with what stops it."""
    writer(request)
    survey = get_survey(request, survey_id, "edit")
    if survey.is_open:
        raise Refused(_("This survey is already open."), status=409, code="already_open")
    try:
        open_survey(survey)
    except DjangoValidationError as error:
        raise Refused(" ".join(error.messages), status=409, code="cannot_open") from None
    return summary(survey)


@api.post("/surveys/{survey_id}/close", response={200: SurveyInfo, **WRITES},
          tags=["surveys"])
def close_one_survey(request: HttpRequest, survey_id: SurveyId):
    """Closes an open survey the token's owner may edit (write scope): it takes no more
    answers."""
    writer(request)
    survey = get_survey(request, survey_id, "edit")
    close_if_due(survey)
    if not survey.is_open:
        raise Refused(_("Only an open survey can be closed."), status=409, code="not_open")
    close_survey(survey)
    return summary(survey)


# --- results ----------------------------------------------------------------------------------


@api.get("/surveys/{survey_id}/results", response={200: SurveyResults, **REFUSALS},
         tags=["results"])
def survey_results(request: HttpRequest, survey_id: SurveyId):
    """Every question's estimates with their intervals (docs/results-api.md, "Response")."""
    survey = get_survey(request, survey_id, "view", staff_may_view=True)
    close_if_due(survey)
    return JsonResponse(results.survey_results(survey, later=after_response))


class BreakdownQuery(Schema):
    by: int = Field(..., ge=1, le=LARGEST_ID, description="The grouping question's id")
    within: int | None = Field(None, ge=1, le=LARGEST_ID,
                               description="A second grouping question's id: three-way")
    first: int | None = Field(None, ge=0, le=LARGEST_ID, description="A group to compare")
    second: int | None = Field(None, ge=0, le=LARGEST_ID, description="The other group")


@api.get("/surveys/{survey_id}/questions/{question_id}/breakdown",
         response={200: BreakdownResults | StratifiedResults, **REFUSALS}, tags=["results"])
def question_breakdown(request: HttpRequest, query: Query[BreakdownQuery],
                       survey_id: SurveyId, question_id: QuestionId):
    """The question's answers within each group of ``by`` (and of ``within``)."""
    return JsonResponse(breakdown(*breakdown_query(request, survey_id, question_id)))


@api.get("/surveys/{survey_id}/questions/{question_id}/breakdown.csv",
         response=REFUSALS, openapi_extra=file_answer("text/csv", "One row per group and answer"),
         tags=["results"])
def question_breakdown_csv(request: HttpRequest, query: Query[BreakdownQuery],
                           survey_id: SurveyId, question_id: QuestionId):
    survey, question, form = breakdown_query(request, survey_id, question_id)
    return breakdown_csv(survey, breakdown(survey, question, form))


class RegressionQuery(Schema):
    by: list[Annotated[int, Field(ge=1, le=LARGEST_ID)]] = Field(
        ..., description="The ids of one to three questions to explain it by")


@api.get("/surveys/{survey_id}/questions/{question_id}/regression",
         response={200: RegressionResults, **REFUSALS}, tags=["results"])
def question_regression(request: HttpRequest, query: Query[RegressionQuery],
                        survey_id: SurveyId, question_id: QuestionId):
    """The question explained by up to three others (logistic or linear regression)."""
    return JsonResponse(regression_of(*regression_query(request, survey_id, question_id)))


@api.get("/surveys/{survey_id}/questions/{question_id}/regression.csv",
         response=REFUSALS, openapi_extra=file_answer("text/csv", "One row per coefficient"),
         tags=["results"])
def question_regression_csv(request: HttpRequest, query: Query[RegressionQuery],
                            survey_id: SurveyId, question_id: QuestionId):
    survey, outcome, form = regression_query(request, survey_id, question_id)
    return regression_csv(survey, regression_of(survey, outcome, form))


@api.get("/surveys/{survey_id}/questions/{question_id}/by-wording",
         response={200: dict[str, Any], **REFUSALS}, tags=["results"])
def question_by_wording(request: HttpRequest, survey_id: SurveyId,
                        question_id: QuestionId):
    """The question's estimates among the respondents of each wording of the survey."""
    return JsonResponse(by_wording_of(*by_wording_query(request, survey_id, question_id)))


@api.get("/surveys/{survey_id}/questions/{question_id}/by-wording.csv",
         response=REFUSALS, openapi_extra=file_answer("text/csv", "One row per wording and answer"),
         tags=["results"])
def question_by_wording_csv(request: HttpRequest, survey_id: SurveyId,
                            question_id: QuestionId):
    survey, question = by_wording_query(request, survey_id, question_id)
    return by_wording_csv(survey, by_wording_of(survey, question))


# --- exports (docs/exports.md) ----------------------------------------------------------------


def readable(request: HttpRequest, survey_id: int) -> Survey:
    return get_survey(request, survey_id, "view", staff_may_view=True)


@api.get("/surveys/{survey_id}/exports/estimates.csv", response=REFUSALS,
         openapi_extra=file_answer("text/csv", "One row per answer"), tags=["exports"])
def export_estimates(request: HttpRequest, survey_id: SurveyId):
    survey = readable(request, survey_id)
    rows = results.estimate_rows(results.survey_results(survey))
    return csv_response(rows, f"survey-{survey.pk}-estimates.csv")


@api.get("/surveys/{survey_id}/exports/reports.csv", response=REFUSALS,
         openapi_extra=file_answer("text/csv", "One row per response"), tags=["exports"])
def export_reports(request: HttpRequest, survey_id: SurveyId):
    """The randomized reports, one row per response."""
    survey = readable(request, survey_id)
    return csv_response(results.report_rows(survey), f"survey-{survey.pk}-reports.csv")


@api.get("/surveys/{survey_id}/exports/reports.sav", response=REFUSALS,
         openapi_extra=file_answer("application/x-spss-sav", "The reports, labelled, for SPSS"),
         tags=["exports"])
def export_reports_spss(request: HttpRequest, survey_id: SurveyId):
    return stats_file(readable(request, survey_id), "sav")


@api.get("/surveys/{survey_id}/exports/reports.dta", response=REFUSALS,
         openapi_extra=file_answer("application/x-stata-dta", "The reports, labelled, for Stata"),
         tags=["exports"])
def export_reports_stata(request: HttpRequest, survey_id: SurveyId):
    return stats_file(readable(request, survey_id), "dta")


@api.get("/surveys/{survey_id}/exports/metadata.json", response={200: Metadata, **REFUSALS},
         tags=["exports"])
def export_metadata(request: HttpRequest, survey_id: SurveyId):
    """Every question's description: its answers and the randomization of its reports."""
    return JsonResponse(results.export_metadata(readable(request, survey_id)))


@api.get("/surveys/{survey_id}/exports/estimates.py", response=REFUSALS,
         openapi_extra=file_answer("text/x-python", "The Python script"), tags=["exports"])
def export_python_script(request: HttpRequest, survey_id: SurveyId):
    """The Python script that redoes the estimates from the reports and the metadata."""
    return redo_script(readable(request, survey_id), "py")


@api.get("/surveys/{survey_id}/exports/estimates.R", response=REFUSALS,
         openapi_extra=file_answer("text/plain", "The R script"), tags=["exports"])
def export_r_script(request: HttpRequest, survey_id: SurveyId):
    """The R script that redoes the estimates from the reports and the metadata."""
    return redo_script(readable(request, survey_id), "R")


@api.get("/surveys/{survey_id}/exports/{name}.zip", response=REFUSALS,
         openapi_extra=file_answer("application/zip", "The files, with a README.txt"),
         tags=["exports"])
def export_bundle(request: HttpRequest, survey_id: SurveyId,
                  name: Path[Literal[tuple(BUNDLES)]]):  # type: ignore[valid-type]
    """A zipped download of the results page, with a README.txt that says what each file
    and column holds: ``everything`` (the reports in every format, the metadata, the
    estimates, both scripts and the library), ``reports-csv`` (with the metadata),
    ``reports-sav``, ``reports-dta`` or ``estimates``."""
    return bundle(readable(request, survey_id), name)


@api.get("/exports/ldp.zip", response=REFUSALS,
         openapi_extra=file_answer("application/zip", "The library's folder"), tags=["exports"])
def export_library(request: HttpRequest):
    """The estimation library the Python script imports (pure numpy and scipy)."""
    return library_zip()


# --- addresses ---------------------------------------------------------------------------------


def _json_refusals(view):
    """An operation's view whose 405 (a method it does not take) is JSON, after the token is
    checked like any other answer's."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if response.status_code != 405:
            return response
        try:
            token_user(request)
        except Refused as refused:
            return refused.json()
        return refusal(405, "method_not_allowed",
                       _("This address does not take the method %(method)s.")
                       % {"method": request.method}, {"Allow": response["Allow"]})

    return wrapper


def no_such_address(request: HttpRequest, rest: str) -> JsonResponse:
    """Any other address under the API: 401 without a valid token, else 404."""
    try:
        token_user(request)
    except Refused as refused:
        return refused.json()
    return refusal(404, "no_such_address", _("The API has no such address: its description "
                                             "is at /api/v1/openapi.json."))


def urls() -> tuple[list, str, str]:
    """The API's addresses, for ``include`` under ``api/v1/``; then any other address under
    ``api/`` (``no_such_address``)."""
    patterns, app_name, namespace = api.urls
    for pattern in patterns:
        pattern.callback = _json_refusals(pattern.callback)
    return patterns, app_name, namespace


ANY_OTHER = re_path(r"^api/(?P<rest>.*)$", no_such_address)
