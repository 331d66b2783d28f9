"""Who may open what: every URL of the site for every kind of visitor, and CSRF everywhere
(the submission endpoint's own rule, by Origin, included)."""

import pytest
from django.test import Client
from django.urls import reverse

from surveys.actions.submissions import submission_create
from surveys.models import Invitation, SurveyShare

pytestmark = pytest.mark.django_db

LOGIN = "login"
ANON, OTHER, OWNER, ADMIN = "anonymous", "other researcher", "owner", "administrator"
VIEWER, EDITOR = "co-researcher (viewer)", "co-researcher (editor)"
VISITORS = [ANON, OTHER, VIEWER, EDITOR, OWNER, ADMIN]


def expect(anon, other, viewer, editor, owner, admin) -> dict:
    return dict(zip(VISITORS, (anon, other, viewer, editor, owner, admin), strict=True))


# url name -> (kind of argument, expected GET status for each visitor: anonymous, another
# researcher, researchers the owner shared the survey with as viewer and as editor, the
# owner, an administrator). "login" means a redirect to the sign-in page. Administrators read
# any survey's results, and manage surveys in the Django admin rather than through the
# researcher's pages. Viewers read (results, exports, breakdowns, the survey's page); editors
# also author; only the owner deletes and shares.
READING_PAGE = expect(LOGIN, 404, 200, 200, 200, 404)
AUTHORING_PAGE = expect(LOGIN, 404, 404, 200, 200, 404)
OWNER_PAGE = expect(LOGIN, 404, 404, 404, 200, 404)
RESULTS_PAGE = expect(LOGIN, 404, 200, 200, 200, 200)
PUBLIC_PAGE = expect(200, 200, 200, 200, 200, 200)
RESEARCHERS = expect(LOGIN, 200, 200, 200, 200, 200)
ADMIN_ONLY = expect(LOGIN, LOGIN, LOGIN, LOGIN, LOGIN, 200)
GET_MATRIX = {
    "home": (None, PUBLIC_PAGE),
    "login": (None, PUBLIC_PAGE),
    "survey-list": (None, RESEARCHERS),
    "survey-create": (None, RESEARCHERS),
    "epsilon-explain": ("explain", RESEARCHERS),
    "password_change": (None, RESEARCHERS),
    "survey-detail": ("survey", READING_PAGE),
    "survey-preview": ("survey", READING_PAGE),
    "survey-preview-thanks": ("survey", READING_PAGE),
    "survey-qr": ("survey", expect(LOGIN, 404, 200, 200, 200, 404)),
    "survey-edit": ("survey", AUTHORING_PAGE),
    "survey-open": ("survey", expect(LOGIN, 404, 404, 302, 302, 404)),  # already open
    "survey-close": ("survey", AUTHORING_PAGE),
    "survey-translations": ("survey", AUTHORING_PAGE),
    "survey-wording": ("survey", AUTHORING_PAGE),
    "survey-wording-history": ("survey", RESULTS_PAGE),
    "invitation-list": ("survey", AUTHORING_PAGE),
    "invitation-csv": ("survey", AUTHORING_PAGE),
    "survey-delete": ("survey", OWNER_PAGE),
    "survey-sharing": ("survey", OWNER_PAGE),
    "survey-results": ("survey", RESULTS_PAGE),
    "survey-results-json": ("survey", RESULTS_PAGE),
    "export-reports-csv": ("survey", RESULTS_PAGE),
    "export-metadata": ("survey", RESULTS_PAGE),
    "export-estimates-csv": ("survey", RESULTS_PAGE),
    "question-breakdown": ("breakdown", RESULTS_PAGE),
    "question-breakdown-json": ("breakdown", RESULTS_PAGE),
    "question-breakdown-csv": ("breakdown", RESULTS_PAGE),
    "question-by-wording": ("breakdown", RESULTS_PAGE),
    "question-by-wording-json": ("breakdown", RESULTS_PAGE),
    "question-by-wording-csv": ("breakdown", RESULTS_PAGE),
    "respond": ("public", PUBLIC_PAGE),
    "respond-thanks": ("public", PUBLIC_PAGE),
    "respond-invitation": ("invitation", PUBLIC_PAGE),
    "admin:index": (None, ADMIN_ONLY),
    "admin:surveys_survey_change": ("survey", ADMIN_ONLY),
    "admin:surveys_privacypolicy_change": ("policy", ADMIN_ONLY),
}
# State-changing URLs, each POSTed by every visitor (nothing may change for the wrong ones).
POST_MATRIX = {
    "survey-create": (None, expect(LOGIN, 200, 200, 200, 200, 200)),
    "survey-edit": ("survey", expect(LOGIN, 404, 404, 200, 200, 404)),
    "survey-close": ("survey", expect(LOGIN, 404, 404, 302, 302, 404)),
    "survey-duplicate": ("survey", expect(LOGIN, 404, 404, 302, 302, 404)),
    "survey-delete": ("survey", expect(LOGIN, 404, 404, 404, 200, 404)),
    "survey-sharing": ("survey", expect(LOGIN, 404, 404, 404, 400, 404)),  # no action: 400
    "question-create": ("survey", expect(LOGIN, 404, 404, 409, 409, 404)),
    "question-edit": ("question", expect(LOGIN, 404, 404, 409, 409, 404)),
    "question-delete": ("question", expect(LOGIN, 404, 404, 409, 409, 404)),
    "question-move": ("question", expect(LOGIN, 404, 404, 409, 409, 404)),
    "invitation-list": ("survey", expect(LOGIN, 404, 404, 200, 200, 404)),
    "survey-wording": ("survey", expect(LOGIN, 404, 404, 200, 200, 404)),  # empty: errors
}


@pytest.fixture
def world(researcher, other_researcher, make_researcher, admin_user, make_survey):
    survey = make_survey(researcher, status="open")
    # With a response on record, deleting asks for explicit confirmation first.
    yes_no, categorical = survey.ordered_questions()
    submission_create(
        survey=survey, reports={yes_no.pk: 1, categorical.pk: 0}, idempotency_key="k" * 16
    )
    invitation = Invitation.objects.create(survey=survey)
    viewer, editor = make_researcher("victor"), make_researcher("edith")
    SurveyShare.objects.create(survey=survey, user=viewer, role=SurveyShare.Role.VIEWER)
    SurveyShare.objects.create(survey=survey, user=editor, role=SurveyShare.Role.EDITOR)
    # Shares of another survey, and the other researcher's own survey, give nothing here.
    elsewhere = make_survey(other_researcher, title="Elsewhere")
    SurveyShare.objects.create(survey=elsewhere, user=viewer, role=SurveyShare.Role.EDITOR)
    clients = {who: Client() for who in VISITORS}
    clients[OTHER].force_login(other_researcher)
    clients[VIEWER].force_login(viewer)
    clients[EDITOR].force_login(editor)
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
        "breakdown": [survey.pk, survey.ordered_questions()[0].pk],
        "public": [survey.public_id],
        "invitation": [world["invitation"].token],
        "policy": [1],
    }[kind]
    query = {
        "explain": "?epsilon=1&kind=yesno",
        "breakdown": f"?by={survey.ordered_questions()[1].pk}",
    }.get(kind, "")
    return reverse(name, args=args) + query


def check(response, expected) -> None:
    if expected == LOGIN:
        assert response.status_code == 302
        assert "login" in response.url
    else:
        assert response.status_code == expected, response.content[:300]


@pytest.mark.parametrize("who", VISITORS)
@pytest.mark.parametrize("name", GET_MATRIX)
def test_it_answers_every_page_as_expected_for_every_visitor(world, name, who):
    kind, expected = GET_MATRIX[name]
    check(world["clients"][who].get(url(name, kind, world)), expected[who])


@pytest.mark.parametrize("who", VISITORS)
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
    body = {"idempotency_key": "k" * 20, "invitation": None, "wording": 0, "reports": {}}
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
