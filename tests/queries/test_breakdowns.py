"""Breakdowns through the site: pair counts kept up to date from the stored reports, the page,
its JSON and CSV, refusals, and a researcher reading a difference in a real browser."""

import csv
import io
import re

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from surveys.actions.simulate import simulate_responses
from surveys.ldp import joint
from surveys.models import PairTally, Submission, Survey
from surveys.queries.breakdowns import largest_groups
from surveys.queries.counts import pair_counts
from tests.helpers import sign_in

# Cheating (yes/no) within each of three answers to "How often?": a real difference.
BY_GROUP = [[0.9, 0.1], [0.7, 0.3], [0.4, 0.6]]
GROUPS = [0.5, 0.3, 0.2]


@pytest.fixture
def survey(researcher, make_survey, epsilon_limits) -> Survey:
    """Open, with 3,000 simulated respondents whose yes/no answer depends on their group."""
    epsilon_limits(question=2.0, survey=4.0)
    survey = make_survey(researcher, status="open", epsilons=(2.0, 2.0))
    yes_no, groups = survey.ordered_questions()
    simulate_responses(
        survey, 3000, {groups.pk: GROUPS}, seed=5,
        given={yes_no.pk: {"question": groups.pk, "shares": BY_GROUP}},
    )
    return survey


def recount(survey: Survey, group, question) -> joint.PairCounts:
    reports = list(Submission.objects.filter(survey=survey).values_list("reports", flat=True))
    return joint.pair_counts(
        group.mechanism(), question.mechanism(),
        [r[str(group.pk)] for r in reports], [r[str(question.pk)] for r in reports],
    )


def url(name: str, survey: Survey, question, **query) -> str:
    address = reverse(name, args=[survey.pk, question.pk])
    return address + "?" + "&".join(f"{key}={value}" for key, value in query.items())


def test_pair_counts_equal_a_recount_and_only_new_submissions_are_read(
    survey, django_assert_max_num_queries
):
    yes_no, groups = survey.ordered_questions()
    expected = recount(survey, groups, yes_no).to_json()
    assert pair_counts(survey, groups, yes_no).to_json() == expected
    stored = PairTally.objects.get()
    assert (stored.question_a_id, stored.question_b_id) == (yes_no.pk, groups.pk)
    assert stored.through == Submission.objects.latest("pk").pk
    # The other way round is the same counts, transposed, from the same stored row.
    assert pair_counts(survey, yes_no, groups).to_json() == (
        recount(survey, groups, yes_no).transposed().to_json()
    )
    with django_assert_max_num_queries(2):  # the stored row; nothing new to fold
        pair_counts(survey, groups, yes_no)
    simulate_responses(survey, 250, {yes_no.pk: [0.5, 0.5], groups.pk: GROUPS}, seed=6)
    survey.refresh_from_db()
    expected = recount(survey, groups, yes_no).to_json()
    assert pair_counts(survey, groups, yes_no).to_json() == expected
    assert PairTally.objects.get().through == Submission.objects.latest("pk").pk
    assert joint.PairCounts.from_json(PairTally.objects.get().counts).n == 3250


def test_the_breakdown_json_finds_the_difference_built_into_the_truth(client, survey):
    yes_no, groups = survey.ordered_questions()
    client.force_login(survey.owner)
    data = client.get(
        url("question-breakdown-json", survey, yes_no, by=groups.pk, first=2, second=0)
    ).json()
    assert data["n"] == 3000
    assert [g["label"] for g in data["groups"]] == groups.labels()
    for group, share, truth in zip(data["groups"], GROUPS, BY_GROUP, strict=True):
        assert group["ci_low"] <= share <= group["ci_high"] or group["small"]
        yes = group["answers"][1]
        assert yes["ci_low"] <= yes["share"] <= yes["ci_high"]
        # Each 95% interval misses its truth 1 time in 20; all three at once, for this seed:
        assert yes["ci_low"] <= truth[1] <= yes["ci_high"]
    difference = data["difference"]
    assert difference["groups"] == [2, 0] and difference["labels"] == ["Often", "Never"]
    yes = difference["answers"][1]
    assert yes["ci_low"] > 0 and yes["ci_low"] <= 0.5 <= yes["ci_high"]  # true: 60% - 10%
    assert data["association"]["evidence"] and data["association"]["p_value"] < 0.001
    assert data["association"]["summary"].startswith("Evidence")


def test_the_page_shows_groups_difference_and_test(client, survey):
    yes_no, groups = survey.ordered_questions()
    client.force_login(survey.owner)
    response = client.get(url("question-breakdown", survey, yes_no, by=groups.pk))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Evidence that the answers differ between the groups" in page
    assert page.count('role="img"') == 3  # one chart per group
    # By default the two largest groups (50% and 30%), the later answer first.
    assert "“Once” compared with “Never”" in page
    dashboard = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    chooser = reverse("question-breakdown", args=[survey.pk, yes_no.pk])
    assert f'href="{chooser}"' in dashboard  # where the question's card leads
    assert f'<option value="{groups.pk}">' in client.get(chooser).content.decode()


def test_a_view_with_nothing_new_reads_neither_reports_nor_pair_counts(client, survey, settings):
    settings.RESULTS_REFRESH_SECONDS = 0  # recomputed at the first view after a response
    yes_no, groups = survey.ordered_questions()
    client.force_login(survey.owner)
    page = url("question-breakdown", survey, yes_no, by=groups.pk)
    assert "From <strong>3,000</strong> responses." in client.get(page).content.decode()
    with CaptureQueriesContext(connection) as queries:
        again = client.get(page).content.decode()
    tables = " ".join(query["sql"] for query in queries.captured_queries)
    assert "surveys_pairtally" not in tables and "surveys_submission" not in tables
    assert "From <strong>3,000</strong> responses." in again
    simulate_responses(  # something new: folded in
        survey, 10, {groups.pk: GROUPS, yes_no.pk: [0.5, 0.5]}, seed=6,
    )
    assert "From <strong>3,010</strong> responses." in client.get(page).content.decode()
    latest = Submission.objects.filter(survey=survey).latest("pk").pk
    assert PairTally.objects.get().through == latest


def test_the_csv_has_a_row_per_group_and_answer(client, survey):
    yes_no, groups = survey.ordered_questions()
    client.force_login(survey.owner)
    response = client.get(url("question-breakdown-csv", survey, yes_no, by=groups.pk))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 3 * 2
    assert [(r["group"], r["answer"]) for r in rows[:2]] == [("Never", "No"), ("Never", "Yes")]
    json_data = client.get(url("question-breakdown-json", survey, yes_no, by=groups.pk)).json()
    assert float(rows[5]["share"]) == pytest.approx(json_data["groups"][2]["answers"][1]["share"])
    shares = np.array([float(r["share"]) for r in rows]).reshape(3, 2)
    assert np.allclose(shares.sum(axis=1), 1)


@pytest.mark.parametrize("kind", ["page", "json", "csv"])
def test_bad_breakdowns_get_a_clear_400_and_store_nothing(
    client, survey, make_survey, researcher, kind
):
    yes_no, groups = survey.ordered_questions()
    other = make_survey(researcher, status="open", title="Other")
    draft = make_survey(researcher, title="Draft")
    name = {"page": "question-breakdown", "json": "question-breakdown-json",
            "csv": "question-breakdown-csv"}[kind]
    client.force_login(researcher)
    cases = {
        "cannot be broken down by itself": url(name, survey, yes_no, by=yes_no.pk),
        "has no question": url(name, survey, yes_no, by=other.ordered_questions()[1].pk),
        "still a draft": url(name, draft, draft.ordered_questions()[0],
                             by=draft.ordered_questions()[1].pk),
        "two different groups": url(name, survey, yes_no, by=groups.pk, first=1, second=1),
        "both groups": url(name, survey, yes_no, by=groups.pk, first=1),
        "not one of the available": url(name, survey, yes_no, by=groups.pk, first=0, second=9),
        "has no question abc": url(name, survey, yes_no, by="abc"),
    }
    for message, address in cases.items():
        response = client.get(address)
        assert response.status_code == 400, (message, response.status_code)
        body = response.json()["error"] if kind == "json" else response.content.decode()
        assert re.search(message.replace(" abc", " ?'?abc"), body), (message, body)
    assert not PairTally.objects.exists()


def test_other_peoples_surveys_and_foreign_questions_are_404(
    client, survey, other_researcher, make_survey
):
    yes_no, groups = survey.ordered_questions()
    client.force_login(other_researcher)
    address = url("question-breakdown-json", survey, yes_no, by=groups.pk)
    assert client.get(address).status_code == 404
    mine = make_survey(other_researcher, status="open")
    # My survey, but a question of someone else's in the address.
    assert client.get(url("question-breakdown", mine, yes_no, by=groups.pk)).status_code == 404
    assert not PairTally.objects.exists()


def test_without_a_choice_the_page_offers_the_other_questions(client, survey):
    yes_no, groups = survey.ordered_questions()
    client.force_login(survey.owner)
    page = client.get(reverse("question-breakdown", args=[survey.pk, yes_no.pk])).content.decode()
    assert "Break down by" in page and groups.text in page
    # Both questions can group, but neither select offers the question broken down.
    for name in ("by", "within"):
        select = re.search(rf'<select[^>]*name="{name}".*?</select>', page, re.S).group()
        offered = re.findall(r'<option value="(\d+)"', select)
        assert offered == [str(groups.pk)]
    assert not PairTally.objects.exists()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_researcher_opens_a_breakdown_and_reads_the_difference(live_server, page, survey):
    yes_no, groups = survey.ordered_questions()
    sign_in(page, live_server)
    page.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    card = page.locator("section", has_text=yes_no.text).first
    card.get_by_role("link", name="Break this question down by another").click()
    page.get_by_label("Break down by").select_option(str(groups.pk))
    page.get_by_role("button", name="Show", exact=True).click()
    page.get_by_label("Compare the group").select_option(label="Often")
    page.get_by_label("with the group").select_option(label="Never")
    page.get_by_role("button", name="Show", exact=True).click()
    heading = page.get_by_role("heading", name="“Often” compared with “Never”")
    table = page.locator("section", has=heading).get_by_role("table")
    row = table.get_by_role("row", name=re.compile("^Yes"))
    difference = float(row.get_by_role("cell").first.inner_text().replace("+", ""))
    assert 30 < difference < 70  # true difference: 50 points
    assert "Evidence that the answers differ" in page.inner_text("body")


@pytest.mark.parametrize("responses", [0, 1, 5])
def test_a_breakdown_with_next_to_no_responses_says_so(client, researcher, make_survey, responses):
    survey = make_survey(researcher, status="open")
    yes_no, groups = survey.ordered_questions()
    if responses:
        simulate_responses(survey, responses, {yes_no.pk: [0.5, 0.5], groups.pk: GROUPS}, seed=1)
    client.force_login(researcher)
    response = client.get(url("question-breakdown", survey, yes_no, by=groups.pk))
    assert response.status_code == 200
    page = response.content.decode()
    assert ("No responses yet" in page) == (responses == 0)
    data = client.get(url("question-breakdown-json", survey, yes_no, by=groups.pk)).json()
    assert data["n"] == responses
    if responses:
        assert all(group["small"] for group in data["groups"])
        assert "Too few responses in this group yet" in page


@pytest.mark.parametrize("shares,expected", [
    ([0.5, 0.3, 0.2], (1, 0)),
    ([0.2, 0.3, 0.5], (2, 1)),
    ([0.45, 0.0, 0.55], (2, 0)),  # an empty group is never compared by default
    ([float("nan")] * 3, (1, 0)),  # nothing known yet: the first two
])
def test_by_default_the_two_largest_groups_are_compared(shares, expected):
    assert largest_groups(np.array(shares)) == expected
