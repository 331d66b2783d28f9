"""Running a real study: one number format on researchers' pages, the live explanation above
the site's limits, the site's own error pages under DEBUG, and the survey's link as a QR code."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import segno
import zxingcpp
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import reverse

from surveys.actions import surveys as survey_actions
from surveys.helpers.numbers import epsilon, percent, thousands
from surveys.models import PrivacyPolicy, Survey, SurveyShare
from surveys.views.authoring import above_question_limit

# --- Numbers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0001, "0.0001"),
        (1.0, "1"),
        (0.5, "0.5"),
        (2.25, "2.25"),
        (0.1 + 0.2, "0.3"),
        (1e-7, "0.0000001"),  # never "1e-07"
        (12.5, "12.5"),
        (None, "—"),
    ],
)
def test_an_epsilon_is_written_with_the_digits_it_has(value, text):
    assert epsilon(value) == text


def test_counts_and_shares_have_one_format():
    assert thousands(1799000) == "1,799,000"
    assert thousands(None) == "—"
    assert percent(0.1234) == "12.3%"
    assert percent(None) == "—"


def test_researchers_pages_write_epsilons_and_counts_alike(client, researcher, make_survey):
    survey = make_survey(researcher, status="open", epsilons=(0.25, 2.25))
    Survey.objects.filter(pk=survey.pk).update(response_count=1234)
    client.force_login(researcher)
    detail = client.get(reverse("survey-detail", args=[survey.pk])).content.decode()
    assert "1,234 responses" in detail
    assert "total epsilon <strong>2.5</strong> of 3 allowed" in detail
    assert "epsilon 0.25 ·" in detail and "epsilon 2.25 ·" in detail
    listing = client.get(reverse("survey-list")).content.decode()
    assert '<td class="text-end">1,234</td>' in listing
    assert '<td class="text-end">2.5</td>' in listing
    Survey.objects.filter(pk=survey.pk).update(response_count=0)  # no tallies behind 1,234
    results = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "· epsilon 0.25" in results and "· epsilon 2.25" in results
    assert "total epsilon <strong>2.5</strong>" in results
    for page in (detail, listing, results):
        assert not re.search(r"epsilon\D{0,20}\d\.\d0\b", page)  # no "1.00", "0.50"


# --- The live explanation above the site's limit -------------------------------------------


def explain(client, value: str, **query):
    return client.get(reverse("epsilon-explain"), {"epsilon": value, "kind": "yesno", **query})


def test_the_explanation_says_when_a_value_is_above_the_limit_per_question(client, researcher):
    PrivacyPolicy.objects.filter(pk=1).update(max_question_epsilon=4)
    client.force_login(researcher)
    above = explain(client, "5")
    assert above.status_code == 200
    assert above.json()["above_limit"] == (
        "Above this site's limit of 4 per question: the question cannot be saved with this value."
    )
    assert above.json()["n_for_5_points"]  # still explained
    assert explain(client, "4").json()["above_limit"] is None
    assert explain(client, "0.5").json()["above_limit"] is None
    # Beyond what any question may use, the site's own limit is the reason given.
    refused = explain(client, "25")
    assert refused.status_code == 400
    assert refused.json()["error"].startswith("Above this site's limit of 4 per question")


def test_the_limit_message_writes_the_limit_as_it_is(db):
    policy = PrivacyPolicy.current()
    policy.max_question_epsilon = 2.25
    assert "limit of 2.25 per question" in above_question_limit(3, policy)
    assert above_question_limit(2.25, policy) is None
    assert above_question_limit(float("nan"), policy) is None


# --- The site's own error pages, even with DEBUG on ----------------------------------------


@override_settings(DEBUG=True)
@pytest.mark.parametrize("path", ["/s/mistyped!!/", "/nonexistent/", "/surveys/999999/results/"])
def test_visitors_never_see_the_debug_page_for_a_missing_page(client, researcher, path):
    if path.startswith("/surveys/"):
        client.force_login(researcher)  # signed in, not staff: a view raised Http404
    response = client.get(path)
    assert response.status_code == 404
    page = response.content.decode()
    assert "This page does not exist" in page
    assert "URLconf" not in page and "surveys/<int:pk>" not in page


@override_settings(DEBUG=True)
def test_staff_keep_the_debug_page(client, db):
    staff = User.objects.create_user("root", password="pass-for-tests-1", is_staff=True)
    client.force_login(staff)
    response = client.get("/nonexistent/")
    assert response.status_code == 404
    assert "URLconf" in response.content.decode()


@override_settings(DEBUG=True)
def test_a_server_error_shows_the_sites_page_without_a_traceback(
    researcher, make_survey, monkeypatch
):
    survey = make_survey(researcher, status="open")

    def broken(survey):
        raise RuntimeError("secret detail")

    monkeypatch.setattr("surveys.queries.results.survey_results", broken)
    client = Client(raise_request_exception=False)
    client.force_login(researcher)
    response = client.get(reverse("survey-results", args=[survey.pk]))
    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong on our side" in page
    assert "sending them again is safe" in page
    # The request may have failed after its writes were committed: the page claims nothing.
    assert "Nothing you sent was stored" not in page
    assert "secret detail" not in page and "Traceback" not in page


@override_settings(DEBUG=True)
def test_pages_that_render_their_own_404_keep_it(client, db):
    response = client.get(reverse("respond-invitation", args=["a" * 22]))
    assert response.status_code == 404
    assert "This invitation link is not valid" in response.content.decode()


# --- Distribution: the link and its QR code ------------------------------------------------


def svg_matrix(svg: bytes) -> list[list[int]]:
    """The modules drawn by segno's SVG (one path of horizontal runs, a unit per module),
    quiet zone included: 1 for dark."""
    root = ET.fromstring(svg)
    ns = {"svg": "http://www.w3.org/2000/svg"}
    size = int(float(root.get("viewBox").split()[2]) / 8)
    path = root.find(".//svg:path[@class='qrline']", ns).get("d")
    matrix = [[0] * size for _ in range(size)]
    x = y = 0.0
    for command, numbers in re.findall(r"([MmHh])([-\d.\s]+)", path):
        values = [float(v) for v in numbers.split()]
        if command == "M":
            x, y = values
        elif command == "m":
            x, y = x + values[0], y + values[1]
        else:
            for column in range(int(x), int(x + values[0])):
                matrix[int(y)][column] = 1
            x += values[0]
    return matrix


@pytest.fixture
def open_survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


def test_the_qr_code_is_the_full_link_as_segno_draws_it(client, open_survey):
    client.force_login(open_survey.owner)
    response = client.get(reverse("survey-qr", args=[open_survey.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert "Content-Disposition" not in response
    link = f"http://testserver/s/{open_survey.public_id}/"
    assert ET.fromstring(response.content).tag == "{http://www.w3.org/2000/svg}svg"
    expected = segno.make_qr(link)
    assert not expected.is_micro
    border = 4
    drawn = svg_matrix(response.content)
    assert [row[border:-border] for row in drawn[border:-border]] == [
        [int(bool(v)) for v in row] for row in expected.matrix
    ]


def test_the_qr_code_decodes_back_to_the_link(client, open_survey):
    client.force_login(open_survey.owner)
    drawn = svg_matrix(client.get(reverse("survey-qr", args=[open_survey.pk])).content)
    image = np.kron(255 - 255 * np.array(drawn, dtype=np.uint8), np.ones((4, 4), np.uint8))
    (result,) = zxingcpp.read_barcodes(image)
    assert result.text == f"http://testserver/s/{open_survey.public_id}/"


def test_the_qr_code_downloads_as_a_file(client, open_survey):
    client.force_login(open_survey.owner)
    response = client.get(reverse("survey-qr", args=[open_survey.pk]), {"download": "1"})
    assert response["Content-Disposition"] == (
        f'attachment; filename="survey-{open_survey.pk}-qr.svg"'
    )


def test_strangers_get_no_qr_code(client, open_survey, other_researcher):
    url = reverse("survey-qr", args=[open_survey.pk])
    assert client.get(url).status_code == 302  # to sign in
    client.force_login(other_researcher)
    assert client.get(url).status_code == 404
    assert client.post(url).status_code == 405


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_co_researchers_get_the_qr_code(client, open_survey, other_researcher, role):
    SurveyShare.objects.create(survey=open_survey, user=other_researcher, role=role)
    client.force_login(other_researcher)
    response = client.get(reverse("survey-qr", args=[open_survey.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"


@pytest.mark.parametrize("state", ["draft", "closed", "invitation only"])
def test_a_link_that_is_not_open_to_anyone_has_no_qr_code(client, open_survey, state):
    if state == "invitation only":
        open_survey.invitation_only = True
        open_survey.save()
    else:
        Survey.objects.filter(pk=open_survey.pk).update(status=state)
    client.force_login(open_survey.owner)
    response = client.get(reverse("survey-qr", args=[open_survey.pk]))
    assert response.status_code == 404
    page = client.get(reverse("survey-detail", args=[open_survey.pk])).content.decode()
    assert 'class="qr-code' not in page


def test_an_open_surveys_page_offers_the_link_to_copy_and_its_qr_code(client, open_survey):
    client.force_login(open_survey.owner)
    page = client.get(reverse("survey-detail", args=[open_survey.pk])).content.decode()
    qr = reverse("survey-qr", args=[open_survey.pk])
    assert f'value="http://testserver/s/{open_survey.public_id}/"' in page
    assert 'id="copy-link"' in page and 'id="copy-status" role="status"' in page
    assert f'<img class="qr-code border" src="{qr}"' in page
    assert f'href="{qr}?download=1" download=' in page
    assert "surveys/copy_link.js" in page


@pytest.mark.parametrize("state", ["draft", "closed", "invitation only"])
def test_no_qr_code_where_the_link_takes_no_answers(client, researcher, make_survey, state):
    survey = make_survey(researcher, status="closed" if state == "closed" else "draft")
    if state == "invitation only":
        survey_actions.open_survey(survey)
        Survey.objects.filter(pk=survey.pk).update(invitation_only=True)
    client.force_login(researcher)
    page = client.get(reverse("survey-detail", args=[survey.pk])).content.decode()
    assert "copy-link" not in page and "qr.svg" not in page


# --- Live results ----------------------------------------------------------------------------


def test_an_open_surveys_results_page_updates_itself(client, open_survey):
    client.force_login(open_survey.owner)
    page = client.get(reverse("survey-results", args=[open_survey.pk])).content.decode()
    assert "surveys/results_live.js" in page
    assert f'data-json-url="{reverse("survey-results-json", args=[open_survey.pk])}"' in page
    snapshot = client.get(reverse("survey-results-json", args=[open_survey.pk])).json()["snapshot"]
    assert f'data-snapshot="{snapshot}"' in page and 'id="live-status" role="status"' in page
    for part in ("results-status", "results-summary", "results-refresh", "results-intro",
                 "results-methods"):
        assert f'id="{part}" data-live' in page
    questions = open_survey.ordered_questions()
    assert page.count('data-live data-key="card-') == len(questions)  # each card, by what it shows
    survey_actions.close_survey(open_survey)
    page = client.get(reverse("survey-results", args=[open_survey.pk])).content.decode()
    assert "results_live.js" not in page and "live-note" not in page
