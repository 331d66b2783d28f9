"""No identifier for respondents, and the submission endpoint's own CSRF rule.

Respondents' pages and the endpoint set no cookie at all. The endpoint, which reads no cookie
and no session, accepts only JSON posted with this site's own Origin (or, without one,
`Sec-Fetch-Site: same-origin`); researchers' pages keep Django's CSRF protection. The
browser's side of these promises is in tests/browser/test_respondent_privacy_browser.py.
"""

import json
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from surveys.actions.surveys import open_survey
from surveys.helpers.privacy_words import raised_suspicion
from surveys.models import Invitation, PrivacyPolicy, Submission, Survey
from surveys.views.respond import CROSS_SITE
from tests.helpers import KEY, assert_nothing_stored, questions

pytestmark = pytest.mark.django_db

OWN_ORIGIN = "http://testserver"  # the test client's host


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


def body(survey: Survey, key: str = KEY) -> str:
    yes_no, categorical = questions(survey)
    reports = {str(yes_no.pk): 1, str(categorical.pk): 2}
    return json.dumps({"idempotency_key": key, "invitation": None, "wording": 0,
                       "reports": reports})


def strict_client() -> Client:
    """A client that applies the CSRF rules as for a browser (the default test client skips
    them, as Django's CSRF middleware does for it)."""
    return Client(enforce_csrf_checks=True)


def post(survey: Survey, headers: dict[str, str], content_type: str = "application/json",
         data: str | None = None, client: Client | None = None):
    client = client or strict_client()
    url = reverse("respond-submit", args=[survey.public_id])
    return client.post(url, data or body(survey), content_type=content_type, headers=headers)


def assert_sets_no_cookie(response) -> None:
    assert not response.cookies, response.cookies
    assert "Set-Cookie" not in response.headers


# The endpoint's Origin / Sec-Fetch-Site / Content-Type rules --------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": OWN_ORIGIN},
        {"Origin": OWN_ORIGIN, "Sec-Fetch-Site": "same-origin"},
        {"Origin": "HTTP://TESTSERVER"},  # origins compare without regard to case
        {"Sec-Fetch-Site": "same-origin"},  # a browser that sends no Origin
    ],
    ids=["origin", "origin-and-fetch-site", "origin-in-capitals", "fetch-site-only"],
)
def test_it_accepts_json_from_this_sites_own_pages(survey, headers):
    response = post(survey, headers)
    assert response.status_code == 201, response.content
    assert response.json()["ok"] is True
    assert Submission.objects.count() == 1
    assert_sets_no_cookie(response)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": ""},
        {"Origin": "https://testserver"},  # another scheme is another origin
        {"Origin": "http://testserver:8080"},  # and another port
        {"Origin": "http://testserver.evil.example"},
        {"Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin"},  # Origin decides
        {"Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "none"},
        {"Referer": "http://testserver/s/x/"},  # a referrer proves nothing
    ],
    ids=["nothing", "other-site", "null", "empty", "https", "port", "suffix", "origin-decides",
         "same-site", "cross-site", "fetch-site-none", "referer-only"],
)
def test_it_refuses_requests_not_from_this_site_and_stores_nothing(survey, headers):
    response = post(survey, headers)
    assert response.status_code == 403
    assert response.json() == {"ok": False, "error": CROSS_SITE}
    assert_nothing_stored(survey)
    assert_sets_no_cookie(response)


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_it_refuses_what_a_form_on_another_site_can_post(survey, content_type):
    response = post(survey, {"Origin": "https://evil.example"}, content_type=content_type)
    assert response.status_code == 403
    assert response.json() == {"ok": False, "error": CROSS_SITE}
    assert_nothing_stored(survey)


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
     "text/json"],
)
def test_it_accepts_only_json_even_from_its_own_pages(survey, content_type):
    response = post(survey, {"Origin": OWN_ORIGIN}, content_type=content_type)
    assert response.status_code == 415
    assert "application/json" in response.json()["error"]
    assert_nothing_stored(survey)


def test_a_csrf_token_and_cookie_do_not_replace_the_origin(survey):
    """The endpoint needs no CSRF cookie, and one does not let another site in."""
    client = strict_client()
    client.get(reverse("login"))  # a researcher's page: it does set the CSRF cookie
    token = client.cookies[django_settings.CSRF_COOKIE_NAME].value
    refused = post(survey, {"Origin": "https://evil.example", "X-CSRFToken": token},
                   client=client)
    assert refused.status_code == 403
    assert_nothing_stored(survey)
    assert post(survey, {"Origin": OWN_ORIGIN}, client=Client()).status_code == 201


def test_it_trusts_the_origins_configured_for_a_proxy(survey, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://surveys.example.org"]
    assert post(survey, {"Origin": "https://surveys.example.org"}).status_code == 201
    other = post(survey, {"Origin": "https://other.example.org"}, data=body(survey, "key-2-012345"))
    assert other.status_code == 403


def test_it_refuses_before_anything_else_but_the_rate_limit(survey):
    """A refused request learns nothing: not whether the survey exists, nor what is wrong
    with its body."""
    url = reverse("respond-submit", args=["no-such-survey"])
    missing = strict_client().post(url, "{", content_type="text/plain",
                                   headers={"Origin": "https://evil.example"})
    assert missing.status_code == 403
    assert post(survey, {"Origin": "https://evil.example"}, data="{").status_code == 403


def test_researchers_pages_keep_djangos_csrf_protection(researcher):
    client = strict_client()
    client.force_login(researcher)
    refused = client.post(reverse("survey-create"), {"title": "Forged"},
                          headers={"Origin": OWN_ORIGIN})
    assert refused.status_code == 403
    assert not Survey.objects.filter(title="Forged").exists()


# No cookie on respondents' responses ---------------------------------------------------------


@pytest.fixture
def pages(researcher, make_survey, survey) -> dict[str, tuple[str, int]]:
    """Every respondent page, by what it shows: (url, expected status)."""
    invitation_only = make_survey(researcher, status="open", title="Invited")
    invitation_only.invitation_only = True
    invitation_only.save()
    unused = Invitation.objects.create(survey=invitation_only)
    used = Invitation.objects.create(survey=invitation_only, used=True)
    closed = make_survey(researcher, status="closed", title="Closed")
    draft = make_survey(researcher, title="Draft")
    return {
        "survey": (reverse("respond", args=[survey.public_id]), 200),
        "thanks": (reverse("respond-thanks", args=[survey.public_id]), 200),
        "invitation": (reverse("respond-invitation", args=[unused.token]), 200),
        "invitation used": (reverse("respond-invitation", args=[used.token]), 410),
        "invitation unknown": (reverse("respond-invitation", args=["unknown-token"]), 404),
        "invitation needed": (reverse("respond", args=[invitation_only.public_id]), 403),
        "closed": (reverse("respond", args=[closed.public_id]), 410),
        "closed thanks": (reverse("respond-thanks", args=[closed.public_id]), 200),
        "draft": (reverse("respond", args=[draft.public_id]), 404),
        "unknown survey": (reverse("respond", args=["no-such-survey"]), 404),
    }


def test_respondents_pages_set_no_cookie(pages):
    client = Client()
    for name, (url, status) in pages.items():
        response = client.get(url)
        assert response.status_code == status, name
        assert_sets_no_cookie(response)
        assert "csrfmiddlewaretoken" not in response.content.decode(), name
    assert not client.cookies


def test_respondents_pages_set_no_cookie_even_to_a_browser_that_has_some(pages):
    """A browser that got a CSRF cookie on a researcher's page (or from an older version of
    this site) is not given a new one, nor a session."""
    client = Client()
    client.get(reverse("login"))
    assert django_settings.CSRF_COOKIE_NAME in client.cookies
    for name, (url, status) in pages.items():
        response = client.get(url)
        assert response.status_code == status, name
        assert_sets_no_cookie(response)


def test_the_endpoint_sets_no_cookie_whatever_it_answers(survey, settings):
    yes_no, categorical = questions(survey)
    changed = json.dumps({"idempotency_key": KEY, "invitation": None, "wording": 0,
                          "reports": {str(yes_no.pk): 0, str(categorical.pk): 2}})
    answers = [
        post(survey, {"Origin": OWN_ORIGIN}),  # 201
        post(survey, {"Origin": OWN_ORIGIN}),  # 200: a replay
        post(survey, {"Origin": OWN_ORIGIN}, data=changed),  # 422
        post(survey, {"Origin": OWN_ORIGIN}, data="{"),  # 400
        post(survey, {"Origin": "https://evil.example"}),  # 403
        post(survey, {"Origin": OWN_ORIGIN}, content_type="text/plain"),  # 415
    ]
    settings.RATELIMIT_SUBMISSIONS = "1/60"
    answers.append(post(survey, {"Origin": OWN_ORIGIN}))  # 429
    assert [a.status_code for a in answers] == [201, 200, 422, 400, 403, 415, 429]
    for answer in answers:
        assert_sets_no_cookie(answer)


def test_respondents_templates_never_ask_for_a_csrf_token():
    folder = Path(django_settings.BASE_DIR) / "templates" / "surveys"
    for name in ("respond.html", "respond_thanks.html", "respond_unavailable.html"):
        assert "csrf_token" not in (folder / name).read_text(), name


def test_the_page_embeds_no_token_for_its_script(client, survey):
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert "csrfToken" not in html and "csrftoken" not in html.lower()


# The whole survey's odds ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("epsilons", "one", "everything", "example"),
    [((1.0, 1.5), "4.5", "12", "58%"), ((1.0, 2.0), "7.4", "20", "70%")],
)
def test_the_privacy_box_gives_one_answers_and_all_answers_odds(
    client, researcher, make_survey, epsilons, one, everything, example
):
    survey = make_survey(researcher, status="open", epsilons=epsilons)
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert (
        f"Any one answer we receive can make anyone who sees it at most {one} times more sure "
        "of your true answer to that question" in html
    )
    assert (
        "Everything you send, taken together, can make anyone who sees all of it at most "
        f"{everything} times more sure of anything about your true answers" in html
    )
    assert f"could raise that to at most {example}." in html


def test_a_one_question_survey_states_its_odds_once(client, researcher, make_survey):
    survey = make_survey(researcher, epsilons=(1.0, 1.0))
    survey.questions.order_by("order").last().delete()
    open_survey(survey)
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert "Your answer can make anyone who sees it at most 2.7 times more sure" in html
    assert "Any one answer" not in html and 'id="odds-one"' not in html


def test_it_says_so_when_everything_sent_could_make_someone_almost_sure(
    client, researcher, make_survey
):
    PrivacyPolicy.objects.filter(pk=1).update(max_question_epsilon=4.0, max_survey_epsilon=8.0)
    survey = make_survey(researcher, epsilons=(4.0, 4.0))
    open_survey(survey)
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert "at most 2,981 times more sure" in html
    assert "could become almost sure of some of your true answers" in html
    assert "could raise that to" not in html


def test_the_sites_default_limit_keeps_a_10_percent_suspicion_below_70_percent(
    client, researcher, make_survey
):
    """The default limit per survey (3) is where everything sent raises a 10% suspicion to at
    most 69.1%: the page says 70%, rounded up."""
    limit = PrivacyPolicy.current().max_survey_epsilon
    assert limit == 3.0
    assert raised_suspicion(limit) == pytest.approx(0.6906, abs=1e-4)
    survey = make_survey(researcher, status="open", epsilons=(1.0, limit - 1.0))
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert "could raise that to at most 70%." in html


def test_the_odds_are_in_the_respondents_language(client, researcher, make_survey):
    survey = make_survey(researcher, status="open", epsilons=(1.0, 1.5))
    html = client.get(reverse("respond", args=[survey.public_id]), {"lang": "fr"}).content
    page = html.decode()
    assert "au plus à 58" in page and "could raise that" not in page
