"""The API for scripts (/api/v1/): its OpenAPI description validates and its interactive page
needs nothing from another site; every answer without a valid token is a 401 in JSON, every
refusal JSON with a stable code; each operation reads what the pages read, with the same
access rules; a token of the write scope makes drafts from survey files and XLSForms (bad
files: 400, nothing stored) and opens and closes surveys, a read-only one may not; a database
that cannot be reached is a 503. Schemathesis runs every operation against a live server."""

import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError
from django.test import Client
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from surveys.models import ApiToken, Survey, SurveyShare
from tests.helpers import submit

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    survey = make_survey(researcher, status="open")
    submit(survey, 40)
    return survey


def as_token(user: User, scope: str = ApiToken.Scope.READ) -> Client:
    """A client that sends a new token of ``user``'s with each request."""
    _token, secret = ApiToken.issue(user, "script", 30, scope)
    return Client(HTTP_AUTHORIZATION=f"Bearer {secret}")


def refused(response, status: int, code: str) -> str:
    """The sentence of a refusal, once its status, type and code are checked."""
    assert (response.status_code, response["Content-Type"]) == (status, "application/json")
    body = response.json()
    assert body["code"] == code and body["error"].endswith(".")
    return body["error"]


def addresses(survey: Survey) -> list[str]:
    """Every operation's address that reads ``survey``, with a valid query."""
    yes_no, categorical = (q.pk for q in survey.ordered_questions())
    question = f"{API}/surveys/{survey.pk}/questions/{yes_no}"
    return [
        f"{API}/surveys", f"{API}/surveys/{survey.pk}", f"{API}/surveys/{survey.pk}/definition",
        f"{API}/surveys/{survey.pk}/results",
        f"{question}/breakdown?by={categorical}", f"{question}/breakdown.csv?by={categorical}",
        f"{question}/regression?by={categorical}", f"{question}/regression.csv?by={categorical}",
        f"{question}/by-wording", f"{question}/by-wording.csv",
        *(f"{API}/surveys/{survey.pk}/exports/{name}" for name in [
            "estimates.csv", "reports.csv", "reports.sav", "reports.dta", "metadata.json",
            "estimates.py", "estimates.R"]),
        f"{API}/exports/ldp.zip",
    ]


def test_the_description_validates_and_lists_every_operation(client, survey):
    response = client.get(f"{API}/openapi.json")
    assert response.status_code == 200
    document = response.json()
    validate(document)
    listed = {re.sub(r"\{\w+\}", "{}", path) for path in document["paths"]}
    for address in addresses(survey):
        assert re.sub(r"/\d+", "/{}", address.split("?")[0]) in listed
    assert document["components"]["securitySchemes"]["TokenAuth"]["scheme"] == "bearer"


def test_the_interactive_page_draws_with_the_sites_own_files(client):
    page = client.get(f"{API}/docs").content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert sources and all(source.startswith("/static/") for source in sources)
    for source in sources:
        assert finders.find(source.removeprefix("/static/")), source


@pytest.mark.parametrize("header", [None, "Bearer pst_unknown", "Token abc", "Bearer"])
def test_without_a_valid_token_every_address_is_a_401_in_json(client, survey, header):
    headers = {"HTTP_AUTHORIZATION": header} if header else {}
    for address in [*addresses(survey), f"{API}/nowhere", f"{API}/surveys/{survey.pk}/open"]:
        response = client.get(address, **headers)
        code = "token_missing" if header is None else "token_invalid"
        refused(response, 401, code)
        assert response["WWW-Authenticate"].startswith("Bearer")
    refused(client.post(f"{API}/surveys/{survey.pk}/close", **headers), 401, code)
    assert Survey.objects.get().is_open


def test_a_token_reads_every_operation_as_its_description_says(client, researcher, survey):
    document = client.get(f"{API}/openapi.json").json()
    templates = {re.sub(r"\{\w+\}", r"\\d+", path): path for path in document["paths"]}
    api = as_token(researcher)
    for address in addresses(survey):
        response = api.get(address)
        assert response.status_code == 200, (address, response.content)
        template = next(templates[t] for t in templates if re.fullmatch(t, address.split("?")[0]))
        answer = document["paths"][template]["get"]["responses"]["200"]["content"]
        assert response["Content-Type"].split(";")[0] in answer
        if "application/json" in answer:  # the figures have every field, of its type
            schema = answer["application/json"]["schema"] | {"components": document["components"]}
            Draft202012Validator(schema).validate(response.json())
    assert api.get(f"{API}/surveys/{survey.pk}/results").json()["survey"]["responses"] == 40
    csv = b"".join(api.get(addresses(survey)[5]).streaming_content).decode()
    assert csv.startswith("group") or "," in csv.splitlines()[0]
    assert api.get(f"{API}/surveys/{survey.pk}/definition").json()["format"] == (
        "private-surveys/survey")


def test_the_list_is_paginated_and_holds_only_the_surveys_one_may_see(
    researcher, other_researcher, make_survey
):
    mine = [make_survey(researcher, title=f"Mine {i}") for i in range(3)]
    shared = make_survey(other_researcher, title="Shared")
    SurveyShare.objects.create(survey=shared, user=researcher, role="viewer")
    make_survey(other_researcher, title="Hidden")
    api = as_token(researcher)
    first = api.get(f"{API}/surveys?limit=2").json()
    rest = api.get(f"{API}/surveys?limit=2&offset=2").json()
    assert first["count"] == rest["count"] == 4
    items = first["items"] + rest["items"]
    assert [item["title"] for item in items] == ["Shared", "Mine 2", "Mine 1", "Mine 0"]
    assert [item["role"] for item in items] == ["viewer", "owner", "owner", "owner"]
    assert {item["id"] for item in items} == {s.pk for s in [*mine, shared]}
    refused(api.get(f"{API}/surveys?limit=101"), 400, "invalid_request")


def test_refusals_are_json_with_a_stable_code(researcher, other_researcher, survey):
    api = as_token(researcher)
    yes_no, categorical = (q.pk for q in survey.ordered_questions())
    question = f"{API}/surveys/{survey.pk}/questions/{yes_no}"
    assert "cannot be broken down by itself" in refused(
        api.get(f"{question}/breakdown?by={yes_no}"), 400, "refused")
    assert "by" in refused(api.get(f"{question}/breakdown?by=many"), 400, "invalid_request")
    assert "by" in refused(api.get(f"{question}/breakdown"), 400, "invalid_request")
    refused(api.get(f"{question}/breakdown.csv?by={yes_no}"), 400, "refused")
    refused(api.get(f"{API}/surveys/{survey.pk}/questions/{categorical + 9}/by-wording"),
            404, "not_found")
    refused(as_token(other_researcher).get(f"{API}/surveys/{survey.pk}/results"),
            404, "not_found")
    refused(api.get(f"{API}/surveys/{2**63}"), 400, "invalid_request")
    refused(api.get(f"{API}/nowhere"), 404, "no_such_address")
    response = api.delete(f"{API}/surveys/{survey.pk}")
    refused(response, 405, "method_not_allowed")
    assert response["Allow"] == "GET"


def test_a_draft_has_no_figures_yet(researcher, make_survey):
    draft = make_survey(researcher)
    yes_no, categorical = (q.pk for q in draft.ordered_questions())
    question = f"{API}/surveys/{draft.pk}/questions/{yes_no}"
    api = as_token(researcher)
    for address in [f"{question}/breakdown?by={categorical}", f"{question}/by-wording",
                    f"{question}/regression?by={categorical}"]:
        assert "still a draft" in refused(api.get(address), 400, "refused")


def test_each_token_is_limited_apart(settings, researcher, survey):
    settings.RATELIMIT_API = "2/60"
    api = as_token(researcher)
    assert [api.get(f"{API}/surveys").status_code for _ in range(2)] == [200, 200]
    response = api.get(f"{API}/surveys")
    refused(response, 429, "rate_limited")
    assert int(response["Retry-After"]) > 0
    assert as_token(researcher).get(f"{API}/surveys").status_code == 200


def test_a_database_that_cannot_be_reached_is_a_503(researcher, survey, monkeypatch):
    api = as_token(researcher)

    def unreachable(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr("surveys.views.api.surveys_for", unreachable)
    response = api.get(f"{API}/surveys")
    assert "Nothing was stored" in refused(response, 503, "unavailable")
    assert response["Retry-After"] == "30"


# --- writing ----------------------------------------------------------------------------------


SURVEY_FILE = {
    "format": "private-surveys/survey", "version": 1, "survey": {"title": "From a script"},
    "questions": [{"kind": "yesno", "text": "Ever?", "epsilon": 1}], "translations": {},
}


def upload(api: Client, content: bytes, name: str = "survey.json"):
    return api.post(f"{API}/surveys", {"file": SimpleUploadedFile(name, content)})


def test_a_read_only_token_writes_nothing(researcher, survey):
    api = as_token(researcher)
    refused(upload(api, json.dumps(SURVEY_FILE).encode()), 403, "read_only_token")
    refused(api.post(f"{API}/surveys/{survey.pk}/close"), 403, "read_only_token")
    assert Survey.objects.get().is_open


def test_a_writing_token_makes_a_draft_from_a_survey_file_or_an_xlsform(researcher):
    api = as_token(researcher, ApiToken.Scope.WRITE)
    response = upload(api, json.dumps(SURVEY_FILE).encode())
    assert response.status_code == 201
    made = response.json()
    assert (made["title"], made["status"], made["role"]) == ("From a script", "draft", "owner")
    workbook = openpyxl.Workbook()
    workbook.active.title = "survey"
    workbook.active.append(("type", "name", "label"))
    workbook.active.append(("integer", "age", "Your age?"))
    stream = io.BytesIO()
    workbook.save(stream)
    response = upload(api, stream.getvalue(), "ages.xlsx")
    assert response.status_code == 201
    assert "a number question needs a range" in " ".join(response.json()["notes"])
    assert Survey.objects.filter(owner=researcher).count() == 2


@pytest.mark.parametrize("content,name,message", [
    (json.dumps(SURVEY_FILE | {"version": "1"}).encode(), "survey.json", '"version"'),
    (json.dumps(SURVEY_FILE | {"survey": {"title": "T", "opens_at": 1767225600}}).encode(),
     "survey.json", "“opens_at” must be a time"),
    (b"[" * 50_000, "survey.json", "nests lists and objects too deeply"),
    (b"PK\x03\x04 not a workbook", "survey.xlsx", "could not be read as an Excel workbook"),
])
def test_a_bad_file_is_a_400_naming_the_field_and_stores_nothing(
    researcher, content, name, message
):
    api = as_token(researcher, ApiToken.Scope.WRITE)
    assert message in refused(upload(api, content, name), 400, "invalid_file")
    assert not Survey.objects.exists()


def test_a_writing_token_opens_and_closes_the_surveys_its_owner_may_edit(
    researcher, other_researcher, make_survey
):
    draft = make_survey(researcher)
    api = as_token(researcher, ApiToken.Scope.WRITE)
    response = api.post(f"{API}/surveys/{draft.pk}/open")
    assert (response.status_code, response.json()["status"]) == (200, "open")
    refused(api.post(f"{API}/surveys/{draft.pk}/open"), 409, "already_open")
    assert api.post(f"{API}/surveys/{draft.pk}/close").json()["status"] == "closed"
    refused(api.post(f"{API}/surveys/{draft.pk}/close"), 409, "not_open")
    viewer = make_survey(other_researcher)
    SurveyShare.objects.create(survey=viewer, user=researcher, role="viewer")
    refused(api.post(f"{API}/surveys/{viewer.pk}/open"), 404, "not_found")
    empty = Survey.objects.create(owner=researcher, title="Empty")
    assert "question" in refused(api.post(f"{API}/surveys/{empty.pk}/open"), 409, "cannot_open")
    assert Survey.objects.get(pk=viewer.pk).is_draft and Survey.objects.get(pk=empty.pk).is_draft


# --- every operation, fuzzed against a live server -------------------------------------------


@pytest.mark.usefixtures("transactional_db")
def test_schemathesis_finds_no_server_error_and_nothing_undocumented(
    live_server, settings, researcher, survey, tmp_path
):
    """Every operation with a token that may write, ten random cases each, valid and not,
    the survey's and its questions' ids drawn often: no 5xx, every answer of a status, type,
    headers and fields the description lists. (With schemathesis' coverage phase too, the
    boundaries of every parameter, it is 747 cases and 40 s: it passes, run by hand.)"""
    settings.RATELIMIT_API = "100000/60"
    _token, secret = ApiToken.issue(researcher, "fuzz", 30, ApiToken.Scope.WRITE)
    questions = [q.pk for q in survey.ordered_questions()]
    config = tmp_path / "schemathesis.toml"
    config.write_text(f"""
[dictionaries.surveys]
values = [{survey.pk}]
[dictionaries.questions]
values = {questions}
[parameters]
"path.survey_id" = {{ dictionary = "surveys", probability = 0.7 }}
"path.question_id" = {{ dictionary = "questions", probability = 0.7 }}
"query.by" = {{ dictionary = "questions", probability = 0.7 }}
""")
    run = subprocess.run(
        [Path(sys.executable).parent / "st", "--config-file", config, "run",
         f"{live_server.url}{API}/openapi.json", "--header", f"Authorization: Bearer {secret}",
         "--checks", "all", "--exclude-checks", "positive_data_acceptance,ignored_auth",
         "--max-examples", "10", "--seed", "43", "--workers", "1", "--no-shrink",
         "--phases", "examples,fuzzing", "--suppress-health-check", "all"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    summary = run.stdout[run.stdout.find("SUMMARY"):]
    print(summary)
    assert run.returncode == 0, run.stdout[-6000:]
    assert "Tested: 22" in summary and " passed" in summary


def test_a_token_downloads_the_zipped_exports_and_an_unknown_one_is_refused(researcher, survey):
    api = as_token(researcher)
    response = api.get(f"{API}/surveys/{survey.pk}/exports/everything.zip")
    assert (response.status_code, response["Content-Type"]) == (200, "application/zip")
    names = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))).namelist()
    assert "README.txt" in names and f"survey-{survey.pk}-reports.sav" in names
    unknown = api.get(f"{API}/surveys/{survey.pk}/exports/nothing.zip")
    assert "everything" in refused(unknown, 400, "invalid_request")
