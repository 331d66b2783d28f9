"""The respondent's pages, the submission endpoint, and the invitation pages."""

import csv
import io
import json
import logging
import re

import pytest
from django.test import Client
from django.urls import reverse

from surveys.actions.surveys import close_survey, open_survey
from surveys.models import Invitation, Submission, Survey
from surveys.views.respond import SUBMIT_MAX_BYTES
from tests.helpers import KEY, assert_nothing_stored, questions

pytestmark = pytest.mark.django_db


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


def body(survey: Survey, **changes) -> dict:
    """A valid request body (yes/no report 1, categorical report 2), with `changes` applied."""
    yes_no, categorical = questions(survey)
    valid = {
        "idempotency_key": KEY,
        "invitation": None, "wording": 0,
        "reports": {str(yes_no.pk): 1, str(categorical.pk): 2},
    }
    return valid | changes


def submit(client: Client, survey: Survey, data: object, **extra):
    payload = data if isinstance(data, bytes) else json.dumps(data)
    extra.setdefault("content_type", "application/json")
    return client.post(reverse("respond-submit", args=[survey.public_id]), payload, **extra)


def page_data(response) -> dict:
    """The JSON the page embeds for its script."""
    pattern = r'<script id="respond-data" type="application/json">(.*?)</script>'
    return json.loads(re.search(pattern, response.content.decode(), re.S).group(1))


# The respondent's page ---------------------------------------------------------------------


def test_it_shows_an_open_survey_with_its_protection(client, survey):
    response = client.get(reverse("respond", args=[survey.public_id]))
    assert response.status_code == 200
    html = response.content.decode()
    for text in (
        "Have you ever cheated?",
        "How often?",
        "Often",
        "How your answers are protected",
        "How is this answer protected?",
        "of cases",
        "times more likely",
    ):
        assert text in html
    assert html.count("<fieldset") == 2 and html.count("<legend") == 2
    assert html.count('type="radio"') == 5


def test_it_keeps_true_answers_out_of_any_form(client, survey):
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert "<form" not in html  # radio buttons without a form owner are never submitted
    assert html.count("<fieldset") == len(re.findall(r"<fieldset[^>]* disabled", html)) == 2


def test_it_explains_why_it_needs_javascript(client, survey):
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert "<noscript>" in html and "cannot be answered with JavaScript turned off" in html


def test_it_embeds_each_questions_frozen_spec(client, survey):
    data = page_data(client.get(reverse("respond", args=[survey.public_id])))
    yes_no, categorical = questions(survey)
    assert data["publicId"] == survey.public_id and data["invitation"] is None
    assert [q["spec"] for q in data["questions"]] == [yes_no.spec, categorical.spec]
    assert [q["encoding"] for q in data["questions"]] == ["bit", "index"]
    assert data["questions"][1]["labels"] == ["Never", "Once", "Often"]
    assert data["submitUrl"] == reverse("respond-submit", args=[survey.public_id])
    assert not data["preview"]
    assert "csrfToken" not in data  # the endpoint needs no token, and no page sets a cookie


@pytest.mark.parametrize(
    ("status", "code", "text"), [("draft", 404, "not open yet"), ("closed", 410, "closed")]
)
def test_it_shows_a_friendly_page_when_a_survey_cannot_be_answered(
    client, researcher, make_survey, status, code, text
):
    survey = make_survey(researcher, status=status)
    response = client.get(reverse("respond", args=[survey.public_id]))
    assert response.status_code == code
    assert text in response.content.decode()
    assert b'type="radio"' not in response.content


def test_it_404s_for_an_unknown_survey(client):
    assert client.get(reverse("respond", args=["no-such-survey"])).status_code == 404


def test_it_asks_for_an_invitation_on_invitation_only_surveys(client, survey):
    survey.invitation_only = True
    survey.save()
    response = client.get(reverse("respond", args=[survey.public_id]))
    assert response.status_code == 403
    assert "invitation link" in response.content.decode()


def test_it_embeds_the_invitation_of_an_invitation_link(client, survey):
    survey.invitation_only = True
    survey.save()
    invitation = Invitation.objects.create(survey=survey)
    response = client.get(reverse("respond-invitation", args=[invitation.token]))
    assert response.status_code == 200
    assert page_data(response)["invitation"] == invitation.token


@pytest.mark.parametrize(("used", "token", "code"), [(True, None, 410), (False, "unknown", 404)])
def test_it_explains_used_and_unknown_invitations(client, survey, used, token, code):
    invitation = Invitation.objects.create(survey=survey, used=used)
    response = client.get(reverse("respond-invitation", args=[token or invitation.token]))
    assert response.status_code == code
    assert "invitation link" in response.content.decode()
    assert b'type="radio"' not in response.content


def test_it_refuses_invitations_to_a_closed_survey(client, survey):
    invitation = Invitation.objects.create(survey=survey)
    close_survey(survey)
    response = client.get(reverse("respond-invitation", args=[invitation.token]))
    assert response.status_code == 410


@pytest.mark.parametrize("status", ["open", "closed"])
def test_it_shows_the_thank_you_page(client, researcher, make_survey, status):
    survey = make_survey(researcher, status=status)
    response = client.get(reverse("respond-thanks", args=[survey.public_id]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "What we received" in html and "Why this does not reveal your answer" in html


def test_it_has_no_thank_you_page_for_a_draft(client, researcher, make_survey):
    survey = make_survey(researcher)
    assert client.get(reverse("respond-thanks", args=[survey.public_id])).status_code == 404


def test_it_previews_a_draft_without_sending(client, researcher, make_survey):
    survey = make_survey(researcher)
    client.force_login(researcher)
    response = client.get(reverse("survey-preview", args=[survey.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Preview" in html and "answers are not sent" in html
    assert 'id="send-answers" disabled' in html
    assert page_data(response)["preview"] is True
    assert page_data(response)["questions"][0]["spec"]["mechanism"] == "rr"
    # Its button leads to the preview of the page after sending, not to the real one.
    assert page_data(response)["thanksUrl"] == reverse("survey-preview-thanks", args=[survey.pk])


def test_the_preview_of_the_page_after_sending_says_nothing_was_sent(client, researcher,
                                                                     make_survey):
    survey = make_survey(researcher)
    client.force_login(researcher)
    html = client.get(reverse("survey-preview-thanks", args=[survey.pk])).content.decode()
    assert "nothing was sent or stored" in html and "Thank you" in html
    assert 'id="preview-completion"' not in html
    survey.completion_url = "https://panel.example.org/done?code=ABC"
    survey.save()
    html = client.get(reverse("survey-preview-thanks", args=[survey.pk])).content.decode()
    assert 'id="preview-completion"' in html
    assert 'href="https://panel.example.org/done?code=ABC"' in html


@pytest.mark.parametrize("name", ["respond", "respond-thanks"])
def test_it_refuses_the_wrong_method_on_pages(client, survey, name):
    assert client.post(reverse(name, args=[survey.public_id])).status_code == 405


def test_it_refuses_the_wrong_method_on_invitation_pages(client, survey):
    invitation = Invitation.objects.create(survey=survey)
    assert client.post(reverse("respond-invitation", args=[invitation.token])).status_code == 405


# The submission endpoint -------------------------------------------------------------------


def test_it_stores_a_submission_and_echoes_the_reports(client, survey):
    response = submit(client, survey, body(survey))
    assert response.status_code == 201
    yes_no, categorical = questions(survey)
    assert response.json() == {"ok": True, "received": {str(yes_no.pk): 1, str(categorical.pk): 2}}
    assert Submission.objects.get().reports == {str(yes_no.pk): 1, str(categorical.pk): 2}


def test_it_echoes_unary_reports_as_lists(client, researcher, make_survey):
    survey = make_survey(
        researcher, status="open", labels=tuple("ABCDEFGHIJKL"), epsilons=(1.0, 1.0)
    )
    bits = [0, 1] + [0] * 9 + [1]
    yes_no, categorical = questions(survey)
    response = submit(
        client, survey, body(survey, reports={str(yes_no.pk): 0, str(categorical.pk): bits})
    )
    assert response.status_code == 201
    assert response.json()["received"][str(categorical.pk)] == bits


def test_it_replays_a_retried_request(client, survey):
    first = submit(client, survey, body(survey))
    again = submit(client, survey, body(survey))
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json() == again.json()
    assert Submission.objects.count() == 1


def test_it_refuses_changed_reports_under_the_same_key(client, survey):
    submit(client, survey, body(survey))
    yes_no, categorical = questions(survey)
    response = submit(
        client, survey, body(survey, reports={str(yes_no.pk): 0, str(categorical.pk): 2})
    )
    assert response.status_code == 422
    assert response.json()["ok"] is False and "cannot be changed" in response.json()["error"]
    assert Submission.objects.count() == 1


def malformed_bodies(survey: Survey) -> list:
    yes_no, categorical = questions(survey)
    yn, cat = str(yes_no.pk), str(categorical.pk)
    return [
        ([], "JSON object"),
        ("not a dict", "JSON object"),
        (None, "JSON object"),
        ({"reports": {yn: 1, cat: 2}, "idempotency_key": KEY}, "exactly the fields"),
        (body(survey, answers={yn: 1}), "exactly the fields"),
        (body(survey, idempotency_key="short"), "idempotency key"),
        (body(survey, idempotency_key="bad key with spaces"), "idempotency key"),
        (body(survey, idempotency_key=None), "idempotency key"),
        (body(survey, idempotency_key=["x" * 10]), "idempotency key"),
        (body(survey, invitation=5), "“invitation”"),
        (body(survey, reports=[1, 2]), "“reports”"),
        (body(survey, reports=None), "“reports”"),
        (body(survey, reports={yn: 1}), "has no report"),
        (body(survey, reports={yn: 1, cat: 2, "999999": 0}), "no question 999999"),
        (body(survey, reports={yn: 1, cat: 2, "abc": 0}), "not a question id"),
        (body(survey, reports={yn: 1, "0" + cat: 2}), "not a question id"),
        (body(survey, reports={yn: 1, cat: 2, f"{yn} ": 0}), "not a question id"),
        (body(survey, reports={yn: 2, cat: 2}), "0 or 1"),
        (body(survey, reports={yn: True, cat: 2}), "0 or 1"),
        (body(survey, reports={yn: "1", cat: 2}), "0 or 1"),
        (body(survey, reports={yn: [1], cat: 2}), "0 or 1"),
        (body(survey, reports={yn: 1.0, cat: 2}), "0 or 1"),
        (body(survey, reports={yn: None, cat: 2}), "0 or 1"),
        (body(survey, reports={yn: 1, cat: 3}), "from 0 to 2"),
        (body(survey, reports={yn: 1, cat: -1}), "from 0 to 2"),
        (body(survey, reports={yn: 1, cat: 10**400}), "from 0 to 2"),
        (body(survey, reports={yn: 1, cat: [0, 0, 1]}), "from 0 to 2"),
        (body(survey, reports={yn: 1, cat: {"0": 1}}), "from 0 to 2"),
    ]


@pytest.mark.parametrize("case", range(28))
def test_it_refuses_every_malformed_shape_and_stores_nothing(client, survey, case):
    cases = malformed_bodies(survey)
    assert len(cases) == 28
    data, message = cases[case]
    response = submit(client, survey, data)
    assert response.status_code == 400, response.content
    assert response.json()["ok"] is False
    assert message in response.json()["error"]
    assert_nothing_stored(survey)


@pytest.mark.parametrize(
    "raw", [b" ", b"{", b"\xff\xfe\x00", b"[" * 60000, b'{"a": NaN', b"1" * 5000, b"\x00"]
)
def test_it_refuses_bodies_that_are_not_json(client, survey, raw):
    response = submit(client, survey, raw)
    assert response.status_code == 400
    assert "not valid JSON" in response.json()["error"]
    assert_nothing_stored(survey)


def test_it_refuses_a_question_answered_twice(client, survey):
    yes_no, categorical = questions(survey)
    raw = (
        f'{{"idempotency_key": "{KEY}", "invitation": null, "wording": 0, '
        f'"reports": {{"{yes_no.pk}": 1, "{yes_no.pk}": 0, "{categorical.pk}": 2}}}}'
    )
    response = submit(client, survey, raw.encode())
    assert response.status_code == 400
    assert "only once" in response.json()["error"]
    assert_nothing_stored(survey)


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_it_refuses_other_content_types(client, survey, content_type):
    response = submit(client, survey, json.dumps(body(survey)), content_type=content_type)
    assert response.status_code == 415
    assert_nothing_stored(survey)


def test_it_refuses_a_body_over_the_size_cap(client, survey):
    big = body(survey, padding="x" * SUBMIT_MAX_BYTES)
    response = submit(client, survey, big)
    assert response.status_code == 413
    assert_nothing_stored(survey)


@pytest.mark.parametrize(("status", "code"), [("draft", 404), ("closed", 410)])
def test_it_refuses_submissions_to_drafts_and_closed_surveys(
    client, researcher, make_survey, status, code
):
    survey = make_survey(researcher, status=status)
    response = submit(client, survey, body(survey))
    assert response.status_code == code
    assert response.json()["ok"] is False
    assert_nothing_stored(survey)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda survey: close_survey(survey), 410),
        (lambda survey: Survey.objects.filter(pk=survey.pk).update(invitation_only=True), 403),
        (lambda survey: Survey.objects.filter(pk=survey.pk).delete(), 404),
    ],
    ids=["closed", "invitation-only", "deleted"],
)
def test_it_sees_a_change_made_after_an_accepted_submission(client, survey, change, code):
    data = body(survey)
    assert submit(client, survey, data | {"idempotency_key": "first-key-0"}).status_code == 201
    change(Survey.objects.get(pk=survey.pk))  # as another process would
    response = submit(client, survey, data)
    assert response.status_code == code and response.json()["ok"] is False
    assert Submission.objects.count() == (1 if code != 404 else 0)
    assert Survey.objects.filter(response_count=2).count() == 0


def test_it_accepts_again_once_a_closed_survey_is_reopened(client, survey):
    assert submit(client, survey, body(survey, idempotency_key="first-key-0")).status_code == 201
    close_survey(Survey.objects.get(pk=survey.pk))
    assert submit(client, survey, body(survey)).status_code == 410
    open_survey(Survey.objects.get(pk=survey.pk))
    assert submit(client, survey, body(survey)).status_code == 201
    survey.refresh_from_db()
    assert survey.response_count == 2


def test_it_refuses_submissions_to_an_unknown_survey(client):
    response = client.post(
        reverse("respond-submit", args=["nope"]), "{}", content_type="application/json"
    )
    assert response.status_code == 404 and response.json()["ok"] is False


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_it_refuses_the_wrong_method_on_the_endpoint(client, survey, method):
    response = getattr(client, method)(reverse("respond-submit", args=[survey.public_id]))
    assert response.status_code == 405


def test_it_refuses_posts_from_other_sites(survey):
    """The endpoint has no CSRF cookie; it checks the Origin instead (every rule is in
    tests/views/test_respondent_privacy.py)."""
    client = Client(enforce_csrf_checks=True)
    refused = submit(client, survey, body(survey), headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403 and refused.json()["ok"] is False
    assert_nothing_stored(survey)
    own = submit(client, survey, body(survey), headers={"Origin": "http://testserver"})
    assert own.status_code == 201


def test_it_accepts_an_invitation_once(client, survey):
    survey.invitation_only = True
    survey.save()
    invitation = Invitation.objects.create(survey=survey)
    assert submit(client, survey, body(survey)).status_code == 403
    assert "invitation" in submit(client, survey, body(survey)).json()["error"]
    assert submit(client, survey, body(survey, invitation=invitation.token)).status_code == 201
    again = submit(
        client, survey, body(survey, idempotency_key="another-key", invitation=invitation.token)
    )
    assert again.status_code == 403 and "already been used" in again.json()["error"]
    assert Submission.objects.count() == 1


def test_it_never_logs_reports_or_keys(client, survey, caplog):
    caplog.set_level(logging.DEBUG)
    submit(client, survey, body(survey))
    submit(client, survey, body(survey, reports={"1": "secret-report-value"}))
    logged = " ".join(f"{record.getMessage()} {record.args}" for record in caplog.records)
    assert KEY not in logged and "secret-report-value" not in logged


# Invitations (the researcher's side) -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "refused"), [("invitation-list", "put"), ("invitation-csv", "post")]
)
def test_it_refuses_the_wrong_method_on_invitation_views(client, researcher, survey, name, refused):
    client.force_login(researcher)
    assert getattr(client, refused)(reverse(name, args=[survey.pk])).status_code == 405


@pytest.mark.parametrize("name", ["invitation-list", "invitation-csv"])
def test_it_hides_invitations_from_another_researcher(client, other_researcher, survey, name):
    client.force_login(other_researcher)
    assert client.get(reverse(name, args=[survey.pk])).status_code == 404
    response = client.post(reverse("invitation-list", args=[survey.pk]), {"count": 3})
    assert response.status_code == 404
    assert not Invitation.objects.exists()


@pytest.mark.parametrize("name", ["invitation-list", "invitation-csv"])
def test_it_sends_visitors_to_sign_in_for_invitations(client, survey, name):
    response = client.get(reverse(name, args=[survey.pk]))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_it_creates_invitation_links(client, researcher, survey):
    client.force_login(researcher)
    url = reverse("invitation-list", args=[survey.pk])
    response = client.post(url, {"count": 5})
    assert response.status_code == 302
    assert Invitation.objects.filter(survey=survey, used=False).count() == 5
    Invitation.objects.filter(pk=Invitation.objects.first().pk).update(used=True)
    html = client.get(url).content.decode()
    assert 'id="unused-count">4<' in html and 'id="used-count">1<' in html


@pytest.mark.parametrize("count", ["0", "10001", "abc", ""])
def test_it_refuses_a_bad_number_of_links(client, researcher, survey, count):
    client.force_login(researcher)
    response = client.post(reverse("invitation-list", args=[survey.pk]), {"count": count})
    assert response.status_code == 200
    assert "is-invalid" in response.content.decode()
    assert not Invitation.objects.exists()


def test_it_downloads_unused_links_as_csv(client, researcher, survey):
    unused = Invitation.objects.create(survey=survey)
    Invitation.objects.create(survey=survey, used=True)
    client.force_login(researcher)
    response = client.get(reverse("invitation-csv", args=[survey.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "no-store" in response["Cache-Control"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows == [["link"], [f"http://testserver/i/{unused.token}/"]]


def test_it_limits_submissions_per_client_with_a_clear_message(
    client, researcher, make_survey, settings
):
    settings.RATELIMIT_SUBMISSIONS = "2/60"
    survey = make_survey(researcher, status="open")
    yes_no, categorical = survey.ordered_questions()
    url = reverse("respond-submit", args=[survey.public_id])
    statuses = []
    for i in range(3):
        body = {
            "idempotency_key": f"key-{i:08d}",
            "invitation": None, "wording": 0,
            "reports": {str(yes_no.pk): 1, str(categorical.pk): 0},
        }
        statuses.append(client.post(url, body, content_type="application/json"))
    assert [r.status_code for r in statuses] == [201, 201, 429]
    assert "wait a minute" in statuses[-1].json()["error"]
    survey.refresh_from_db()
    assert survey.response_count == 2
