"""Personal API tokens: made on the account's page (the secret shown once, only its hash
stored), refused when unknown, revoked, expired or malformed (401), limited per token (429),
accepted as ``Authorization: Bearer`` by the pages that read a survey's data, with the same
access rules as the pages (another researcher's survey: 404; a viewer's share: 200), and by
no other page. The examples of docs/results-api.md run against a live server."""

import re
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from surveys.models import ApiToken, Survey, SurveyShare, hash_secret
from surveys.queries.tokens import MAX_ACTIVE_TOKENS, active_tokens
from tests.helpers import submit

pytestmark = pytest.mark.django_db

DOCS = Path(django_settings.BASE_DIR) / "docs" / "results-api.md"
SECRET = re.compile(r'value="(pst_[A-Za-z0-9_-]+)"')
ROW = re.compile(r'<tr id="token-\d+"')


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    survey = make_survey(researcher, status="open")
    submit(survey, 40)
    return survey


def secret_of(user: User, **changes) -> str:
    token, secret = ApiToken.issue(user, "script", 30)
    ApiToken.objects.filter(pk=token.pk).update(**changes)
    return secret


def bearer(secret: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def endpoints(survey: Survey) -> dict[str, str]:
    """Every address a script fetches a survey's data from."""
    yes_no, categorical = survey.ordered_questions()
    breakdown = {"args": [survey.pk, yes_no.pk]}
    by = f"?by={categorical.pk}"
    return {
        "results.json": reverse("survey-results-json", args=[survey.pk]),
        "breakdown.json": reverse("question-breakdown-json", **breakdown) + by,
        "breakdown.csv": reverse("question-breakdown-csv", **breakdown) + by,
        "by-wording.json": reverse("question-by-wording-json", **breakdown),
        "by-wording.csv": reverse("question-by-wording-csv", **breakdown),
        "reports.csv": reverse("export-reports-csv", args=[survey.pk]),
        "reports.sav": reverse("export-reports-file", args=[survey.pk, "sav"]),
        "reports.dta": reverse("export-reports-file", args=[survey.pk, "dta"]),
        "metadata.json": reverse("export-metadata", args=[survey.pk]),
        "estimates.csv": reverse("export-estimates-csv", args=[survey.pk]),
        "estimates.py": reverse("export-redo-script", args=[survey.pk]),
        "estimates.R": reverse("export-redo-r-script", args=[survey.pk]),
        "ldp.zip": reverse("export-library"),
    }


ENDPOINTS = [
    "results.json", "breakdown.json", "breakdown.csv", "by-wording.json", "by-wording.csv",
    "reports.csv", "reports.sav",
    "reports.dta", "metadata.json", "estimates.csv", "estimates.py", "estimates.R", "ldp.zip",
]


# --- the account's page ---------------------------------------------------------------------


def test_a_new_token_is_shown_once_and_only_its_hash_is_stored(client, researcher):
    client.force_login(researcher)
    response = client.post(reverse("api-tokens"), {"name": "R analysis", "days": "90"})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    secret = SECRET.search(response.content.decode()).group(1)
    assert len(secret) > 40
    token = ApiToken.objects.get()
    assert (token.owner, token.name) == (researcher, "R analysis")
    assert token.digest == hash_secret(secret)
    assert token.prefix == secret[:12] and token.revoked is None and token.last_used is None
    assert timedelta(days=89) < token.expires - timezone.now() <= timedelta(days=90)
    row = ApiToken.objects.values().get()  # every column of the row
    assert not any(secret in str(value) for value in row.values())
    again = client.get(reverse("api-tokens")).content.decode()
    assert secret not in again and token.prefix in again and "R analysis" in again


def test_the_page_says_when_there_is_no_token_and_needs_signing_in(client, researcher):
    assert client.get(reverse("api-tokens")).status_code == 302
    client.force_login(researcher)
    assert "You have no API tokens yet" in client.get(reverse("api-tokens")).content.decode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "  ", "days": "30"}, "Give the token a name."),
        ({"name": "x" * 101, "days": "30"}, "at most 100 characters"),
        ({"name": "R", "days": "7"}, "Choose 30 days, 90 days or 1 year."),
        ({"name": "R", "days": "many"}, "Choose 30 days, 90 days or 1 year."),
        ({"name": "R\x00", "days": "30"}, "Null characters are not allowed."),
        ({}, "Give the token a name."),
    ],
)
def test_bad_input_makes_no_token_and_says_why(client, researcher, data, message):
    client.force_login(researcher)
    response = client.post(reverse("api-tokens"), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not ApiToken.objects.exists()


def test_a_user_has_at_most_twenty_active_tokens(client, researcher):
    for _ in range(MAX_ACTIVE_TOKENS):
        secret_of(researcher)
    secret_of(researcher, revoked=timezone.now())  # neither counts
    secret_of(researcher, expires=timezone.now())
    client.force_login(researcher)
    response = client.post(reverse("api-tokens"), {"name": "one more", "days": "30"})
    assert response.status_code == 400
    assert "You already have 20 active tokens" in response.content.decode()
    assert ApiToken.objects.count() == MAX_ACTIVE_TOKENS + 2
    active_tokens(researcher).first().revoke()
    response = client.post(reverse("api-tokens"), {"name": "one more", "days": "30"})
    assert response.status_code == 200


def test_the_list_is_paginated_with_each_tokens_status(client, researcher):
    secret_of(researcher, revoked=timezone.now())
    secret_of(researcher, expires=timezone.now() - timedelta(days=1))
    secret_of(researcher, last_used=timezone.localdate())
    for _ in range(20):
        secret_of(researcher)
    client.force_login(researcher)
    first = client.get(reverse("api-tokens")).content.decode()
    assert "Page 1 of 2" in first and len(ROW.findall(first)) == 20
    second = client.get(reverse("api-tokens") + "?page=2").content.decode()
    assert len(ROW.findall(second)) == 3
    assert "Revoked " in second and "Expired" in second and "Active" in second
    assert len(re.findall(r'href="/account/tokens/\d+/revoke/"', second)) == 1  # the active one


def test_a_token_is_revoked_after_confirmation_by_its_owner_only(client, researcher,
                                                                 other_researcher):
    token = ApiToken.objects.get(digest=hash_secret(secret_of(researcher)))
    revoke = reverse("api-token-revoke", args=[token.pk])
    client.force_login(other_researcher)
    assert client.get(revoke).status_code == 404
    assert client.post(revoke).status_code == 404
    client.force_login(researcher)
    assert "Revoke this token?" in client.get(revoke).content.decode()
    token.refresh_from_db()
    assert token.revoked is None  # asking changes nothing
    response = client.post(revoke, follow=True)
    assert "revoked: it is refused from now on" in response.content.decode()
    token.refresh_from_db()
    revoked = token.revoked
    assert revoked is not None
    client.post(revoke)  # again: nothing changes
    token.refresh_from_db()
    assert token.revoked == revoked


# --- what a token opens ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ENDPOINTS)
def test_a_token_reads_every_data_endpoint_without_a_session(researcher, survey, name):
    client = Client()
    response = client.get(endpoints(survey)[name], **bearer(secret_of(researcher)))
    assert response.status_code == 200, response.content[:200]
    assert not response.cookies and not client.cookies  # no session, no CSRF cookie


def test_a_token_records_the_day_it_was_last_used(client, researcher, survey):
    secret = secret_of(researcher)
    client.get(endpoints(survey)["results.json"], **bearer(secret))
    assert ApiToken.objects.get().last_used == timezone.localdate()


@pytest.mark.parametrize("name", ["results.json", "breakdown.json", "reports.csv"])
def test_another_researchers_survey_is_not_found(client, other_researcher, survey, name):
    response = client.get(endpoints(survey)[name], **bearer(secret_of(other_researcher)))
    assert response.status_code == 404


def test_a_viewer_reads_a_survey_shared_with_them(client, other_researcher, survey):
    SurveyShare.objects.create(survey=survey, user=other_researcher, role="viewer")
    response = client.get(endpoints(survey)["results.json"], **bearer(secret_of(other_researcher)))
    assert response.status_code == 200
    assert response.json()["survey"]["responses"] == 40


@pytest.mark.parametrize(
    "header",
    [
        "revoked", "expired", "inactive owner", "Bearer pst_unknown", "Bearer ", "Bearer",
        "Basic YWxpY2U6cGFzcw==", "Token {secret}", "{secret}", "Bearer {secret}x",
    ],
)
def test_a_token_unknown_revoked_expired_or_malformed_is_refused(
    client, researcher, survey, header
):
    secret = secret_of(researcher)
    if header == "revoked":
        secret, header = secret_of(researcher, revoked=timezone.now()), "Bearer {secret}"
    elif header == "expired":
        secret, header = secret_of(researcher, expires=timezone.now()), "Bearer {secret}"
    elif header == "inactive owner":
        User.objects.filter(pk=researcher.pk).update(is_active=False)
        header = "Bearer {secret}"
    response = client.get(
        endpoints(survey)["results.json"], HTTP_AUTHORIZATION=header.format(secret=secret)
    )
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert response.json() == {"code": "token_invalid",
                               "error": "This API token is unknown, revoked or expired."}


def test_a_revoked_token_is_refused_at_once(client, researcher, survey):
    secret = secret_of(researcher)
    url = endpoints(survey)["results.json"]
    assert client.get(url, **bearer(secret)).status_code == 200
    ApiToken.objects.get().revoke()
    assert client.get(url, **bearer(secret)).status_code == 401


def test_without_the_header_the_pages_ask_to_sign_in_as_before(client, survey):
    response = client.get(endpoints(survey)["results.json"])
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize(
    ("method", "name"),
    [
        ("get", "survey-results"), ("get", "survey-detail"), ("get", "survey-edit"),
        ("post", "survey-close"), ("post", "survey-delete"), ("post", "survey-duplicate"),
    ],
)
def test_no_other_page_accepts_a_token(client, researcher, survey, method, name):
    response = getattr(client, method)(
        reverse(name, args=[survey.pk]), **bearer(secret_of(researcher))
    )
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    survey.refresh_from_db()
    assert survey.status == Survey.Status.OPEN
    assert Survey.objects.count() == 1


def test_a_token_cannot_make_or_revoke_tokens(client, researcher):
    secret = secret_of(researcher)
    token = ApiToken.objects.get()
    created = client.post(reverse("api-tokens"), {"name": "more", "days": "30"}, **bearer(secret))
    revoked = client.post(reverse("api-token-revoke", args=[token.pk]), **bearer(secret))
    assert created.status_code == revoked.status_code == 302
    token.refresh_from_db()
    assert ApiToken.objects.count() == 1 and token.revoked is None


# --- rate limits ----------------------------------------------------------------------------

RATE = "3/1000000000"
"""A window of about 32 years: no test straddles a window's end by luck."""


def test_each_token_is_limited_apart(client, settings, researcher, survey):
    settings.RATELIMIT_API = RATE
    url = endpoints(survey)["results.json"]
    first, second = secret_of(researcher), secret_of(researcher)
    statuses = [client.get(url, **bearer(first)).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = client.get(url, **bearer(first))
    assert limited.json() == {
        "code": "rate_limited",
        "error": "Too many requests with this API token: wait, then try again.",
    }
    assert 0 < int(limited["Retry-After"]) <= 1_000_000_000
    assert client.get(url, **bearer(second)).status_code == 200


@pytest.fixture
def closed_port():
    """A loopback port bound by this test and never listened on: connections are refused."""
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        yield blocker.getsockname()[1]


def test_tokens_work_and_are_limited_while_redis_is_unreachable(
    client, settings, researcher, survey, closed_port
):
    settings.CACHES = {
        "default": {
            "BACKEND": "surveysite.cache.RedisWithFallback",
            "LOCATION": f"redis://127.0.0.1:{closed_port}/0",
            "OPTIONS": {"FALLBACK": "database", "RETRY_SECONDS": 0,
                        "socket_connect_timeout": 1, "socket_timeout": 1},
        },
        "database": django_settings.DATABASE_CACHE,
        "results": django_settings.CACHES["results"],
    }
    settings.RATELIMIT_API = RATE
    secret = secret_of(researcher)
    statuses = [
        client.get(endpoints(survey)["results.json"], **bearer(secret)).status_code
        for _ in range(4)
    ]
    assert statuses == [200, 200, 200, 429]


# --- the admin ------------------------------------------------------------------------------


def test_the_admin_lists_tokens_without_their_secret_and_makes_none(admin_client, researcher):
    secret = secret_of(researcher)
    token = ApiToken.objects.get()
    page = admin_client.get(reverse("admin:surveys_apitoken_changelist")).content.decode()
    assert token.prefix in page and secret not in page and token.digest not in page
    assert admin_client.get(reverse("admin:surveys_apitoken_add")).status_code == 403
    admin_client.post(
        reverse("admin:surveys_apitoken_changelist"),
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    token.refresh_from_db()
    assert token.revoked is not None


# --- the documentation's examples, against a live server --------------------------------------


def code_block(language: str) -> str:
    """The first ``language`` block of docs/results-api.md's section on tokens."""
    text = DOCS.read_text(encoding="utf-8").split("## API tokens", 1)[1]
    return re.search(rf"```{language}\n(.*?)```", text, re.S).group(1)


def example(language: str, live_server, secret: str) -> str:
    """The example with the demo's address and token replaced by the test's."""
    return (
        code_block(language)
        .replace("http://127.0.0.1:8000", live_server.url)
        .replace("pst_paste-your-token-here", secret)
    )


@pytest.mark.parametrize("language", ["python", "r"])
def test_the_examples_use_only_addresses_of_the_api_description(client, language):
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    templates = {re.sub(r"\{\w+\}", "%d", path) for path in paths}
    used = re.findall(r'"(/api/v1/[^"]*)"', code_block(language).replace("{survey_id}", "%d")
                      .replace("{question}", "%d"))
    assert used and {re.sub(r"\{\w+\}", "%d", path) for path in used} <= templates


@pytest.mark.usefixtures("transactional_db")
def test_the_python_example_runs(live_server, researcher, survey, tmp_path):
    script = tmp_path / "example.py"
    script.write_text(example("python", live_server, secret_of(researcher)))
    run = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "Have you ever cheated?" in run.stdout and "group" in run.stdout


@pytest.mark.usefixtures("transactional_db")
def test_the_r_example_runs(live_server, researcher, survey, tmp_path, rscript):
    r = rscript("httr2")
    script = tmp_path / "example.R"
    script.write_text(example("r", live_server, secret_of(researcher)))
    run = subprocess.run([r, script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Have you ever cheated?" in run.stdout and "group" in run.stdout
