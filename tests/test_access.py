"""Who may open what: every URL of the site for every kind of visitor, and CSRF everywhere
(the submission endpoint's own rule, by Origin, included)."""

import pytest
from django.test import Client
from django.urls import reverse

from surveys.models import Invitation
from surveys.submissions import submission_create

pytestmark = pytest.mark.django_db

LOGIN = "login"
ANON, OTHER, OWNER, ADMIN = "anonymous", "other researcher", "owner", "administrator"

# url name -> (kind of argument, expected GET status for anonymous, other, owner, admin).
# "login" means a redirect to the sign-in page. Administrators read any survey's results,
# and manage surveys in the Django admin rather than through the researcher's pages.
RESEARCHER_PAGE = {ANON: LOGIN, OTHER: 404, OWNER: 200, ADMIN: 404}
RESULTS_PAGE = {ANON: LOGIN, OTHER: 404, OWNER: 200, ADMIN: 200}
PUBLIC_PAGE = {ANON: 200, OTHER: 200, OWNER: 200, ADMIN: 200}
GET_MATRIX = {
    "home": (None, PUBLIC_PAGE),
    "login": (None, PUBLIC_PAGE),
    "survey-list": (None, {ANON: LOGIN, OTHER: 200, OWNER: 200, ADMIN: 200}),
    "survey-create": (None, {ANON: LOGIN, OTHER: 200, OWNER: 200, ADMIN: 200}),
    "epsilon-explain": ("explain", {ANON: LOGIN, OTHER: 200, OWNER: 200, ADMIN: 200}),
    "password_change": (None, {ANON: LOGIN, OTHER: 200, OWNER: 200, ADMIN: 200}),
    "survey-detail": ("survey", RESEARCHER_PAGE),
    "survey-edit": ("survey", RESEARCHER_PAGE),
    "survey-delete": ("survey", RESEARCHER_PAGE),
    "survey-close": ("survey", RESEARCHER_PAGE),
    "survey-preview": ("survey", RESEARCHER_PAGE),
    "invitation-list": ("survey", RESEARCHER_PAGE),
    "invitation-csv": ("survey", RESEARCHER_PAGE),
    "survey-results": ("survey", RESULTS_PAGE),
    "survey-results-json": ("survey", RESULTS_PAGE),
    "export-reports-csv": ("survey", RESULTS_PAGE),
    "export-metadata": ("survey", RESULTS_PAGE),
    "export-estimates-csv": ("survey", RESULTS_PAGE),
    "respond": ("public", PUBLIC_PAGE),
    "respond-thanks": ("public", PUBLIC_PAGE),
    "respond-invitation": ("invitation", PUBLIC_PAGE),
    "admin:index": (None, {ANON: LOGIN, OTHER: LOGIN, OWNER: LOGIN, ADMIN: 200}),
    "admin:surveys_survey_change": (
        "survey",
        {ANON: LOGIN, OTHER: LOGIN, OWNER: LOGIN, ADMIN: 200},
    ),
    "admin:surveys_privacypolicy_change": (
        "policy",
        {ANON: LOGIN, OTHER: LOGIN, OWNER: LOGIN, ADMIN: 200},
    ),
}
# State-changing URLs, each POSTed by every visitor (nothing may change for the wrong ones).
POST_MATRIX = {
    "survey-create": (None, {ANON: LOGIN, OTHER: 200, OWNER: 200, ADMIN: 200}),
    "survey-edit": ("survey", {ANON: LOGIN, OTHER: 404, OWNER: 200, ADMIN: 404}),
    "survey-close": ("survey", {ANON: LOGIN, OTHER: 404, OWNER: 302, ADMIN: 404}),
    "survey-duplicate": ("survey", {ANON: LOGIN, OTHER: 404, OWNER: 302, ADMIN: 404}),
    "survey-delete": ("survey", {ANON: LOGIN, OTHER: 404, OWNER: 200, ADMIN: 404}),
    "question-create": ("survey", {ANON: LOGIN, OTHER: 404, OWNER: 409, ADMIN: 404}),
    "question-edit": ("question", {ANON: LOGIN, OTHER: 404, OWNER: 409, ADMIN: 404}),
    "question-delete": ("question", {ANON: LOGIN, OTHER: 404, OWNER: 409, ADMIN: 404}),
    "question-move": ("question", {ANON: LOGIN, OTHER: 404, OWNER: 409, ADMIN: 404}),
    "invitation-list": ("survey", {ANON: LOGIN, OTHER: 404, OWNER: 200, ADMIN: 404}),
}


@pytest.fixture
def world(researcher, other_researcher, admin_user, make_survey):
    survey = make_survey(researcher, status="open")
    # With a response on record, deleting asks for explicit confirmation first.
    yes_no, categorical = survey.ordered_questions()
    submission_create(
        survey=survey, reports={yes_no.pk: 1, categorical.pk: 0}, idempotency_key="k" * 16
    )
    invitation = Invitation.objects.create(survey=survey)
    clients = {ANON: Client(), OTHER: Client(), OWNER: Client(), ADMIN: Client()}
    clients[OTHER].force_login(other_researcher)
    clients[OWNER].force_login(researcher)
    clients[ADMIN].force_login(admin_user)
    return {"survey": survey, "invitation": invitation, "clients": clients}


def url(name: str, kind: str | None, world: dict) -> str:
    survey = world["survey"]
    args = {
        None: [],
        "explain": [],
        "survey": [survey.pk],
        "question": [survey.questions.first().pk],
        "public": [survey.public_id],
        "invitation": [world["invitation"].token],
        "policy": [1],
    }[kind]
    query = "?epsilon=1&kind=yesno" if kind == "explain" else ""
    return reverse(name, args=args) + query


def check(response, expected) -> None:
    if expected == LOGIN:
        assert response.status_code == 302
        assert "login" in response.url
    else:
        assert response.status_code == expected, response.content[:300]


@pytest.mark.parametrize("who", [ANON, OTHER, OWNER, ADMIN])
@pytest.mark.parametrize("name", GET_MATRIX)
def test_it_answers_every_page_as_expected_for_every_visitor(world, name, who):
    kind, expected = GET_MATRIX[name]
    check(world["clients"][who].get(url(name, kind, world)), expected[who])


@pytest.mark.parametrize("who", [ANON, OTHER, OWNER, ADMIN])
@pytest.mark.parametrize("name", POST_MATRIX)
def test_it_answers_every_change_as_expected_for_every_visitor(world, name, who):
    kind, expected = POST_MATRIX[name]
    before = world["survey"].questions.count(), world["survey"].status
    check(world["clients"][who].post(url(name, kind, world)), expected[who])
    world["survey"].refresh_from_db()
    if expected[who] != 302:
        assert (world["survey"].questions.count(), world["survey"].status) == before


@pytest.mark.parametrize("name", POST_MATRIX)
def test_it_enforces_csrf_on_every_change(world, researcher, name):
    kind, _ = POST_MATRIX[name]
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    assert client.post(url(name, kind, world)).status_code == 403
    world["survey"].refresh_from_db()
    assert world["survey"].is_open


def test_it_refuses_submissions_from_other_sites(world):
    """The submission endpoint is exempt from Django's cookie-based CSRF check (respondents
    get no cookie) and refuses any request that is not from this site's own page instead."""
    client = Client(enforce_csrf_checks=True)
    body = {"idempotency_key": "k" * 20, "invitation": None, "reports": {}}
    for headers in ({}, {"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        response = client.post(
            url("respond-submit", "public", world), body, content_type="application/json",
            headers=headers,
        )
        assert response.status_code == 403
        assert "did not come from the survey" in response.json()["error"]
    assert world["survey"].submissions.count() == 1  # the fixture's own


def test_it_enforces_csrf_on_sign_in_and_sign_out(world, researcher):
    client = Client(enforce_csrf_checks=True)
    data = {"username": "alice", "password": "pass-for-tests-1"}
    assert client.post(reverse("login"), data).status_code == 403
    client.force_login(researcher)
    assert client.post(reverse("logout")).status_code == 403
