"""Three-way breakdowns through the site: a question by one grouping question within each
group of a second (``within``): counts kept up to date from the stored reports, the page,
its JSON and CSV, and refusals."""

import csv
import io
import re

import numpy as np
import pytest
from django.urls import reverse

from surveys.actions.simulate import simulate_responses
from surveys.actions.surveys import open_survey
from surveys.ldp import strata
from surveys.models import Choice, Question, Submission, Survey, TripleTally
from surveys.queries import contracts
from surveys.queries.counts import triple_counts
from tests.helpers import assert_shape, survey_of_every_encoding

# Cheating (yes/no) within each of three answers to "How often?"; living on campus
# (yes/no) drawn on its own: within each of its groups, the same real difference.
BY_GROUP = [[0.9, 0.1], [0.7, 0.3], [0.4, 0.6]]
GROUPS = [0.5, 0.3, 0.2]
CAMPUS = [0.6, 0.4]


@pytest.fixture
def survey(researcher, make_survey, epsilon_limits) -> Survey:
    """Open, with a yes/no question, a categorical one, a second yes/no question (campus) and
    a check-all one; 3,000 simulated respondents."""
    epsilon_limits(question=2.0, survey=8.0)
    survey = make_survey(researcher, epsilons=(2.0, 2.0))
    Question.objects.create(
        survey=survey, order=3, text="Do you live on campus?", kind="yesno", epsilon=2.0
    )
    ticked = Question.objects.create(
        survey=survey, order=4, text="Which have you used?", kind="checkall", epsilon=1.0
    )
    for i, label in enumerate(("Tea", "Coffee", "Cola")):
        Choice.objects.create(question=ticked, order=i, label=label)
    open_survey(survey)
    yes_no, groups, campus, ticked = survey.ordered_questions()
    simulate_responses(
        survey, 3000, {groups.pk: GROUPS, campus.pk: CAMPUS, ticked.pk: [0.5, 0.5, 0.5]},
        seed=5, given={yes_no.pk: {"question": groups.pk, "shares": BY_GROUP}},
    )
    survey.refresh_from_db()
    return survey


def url(name: str, survey: Survey, question, **query) -> str:
    address = reverse(name, args=[survey.pk, question.pk])
    return address + "?" + "&".join(f"{key}={value}" for key, value in query.items())


def recount(survey: Survey, question, group, stratum):
    reports = list(Submission.objects.filter(survey=survey).values_list("reports", flat=True))
    return strata.triple_counts(
        group.mechanism(), stratum.mechanism(), question.mechanism(),
        *([r[str(q.pk)] for r in reports] for q in (group, stratum, question)),
    )


def test_triple_counts_equal_a_recount_and_only_new_submissions_are_read(
    survey, django_assert_max_num_queries
):
    yes_no, groups, campus, _ = survey.ordered_questions()
    assert triple_counts(survey, yes_no, groups, campus) == recount(survey, yes_no, groups, campus)
    stored = TripleTally.objects.get()
    assert stored.through == Submission.objects.latest("pk").pk
    with django_assert_max_num_queries(2):  # the stored row; nothing new to fold
        triple_counts(survey, yes_no, groups, campus)
    yes_no, groups, campus, ticked = survey.ordered_questions()
    truth = {yes_no.pk: [0.5, 0.5], groups.pk: GROUPS, campus.pk: CAMPUS, ticked.pk: [0.5] * 3}
    simulate_responses(survey, 40, truth, seed=6)
    survey.refresh_from_db()
    assert triple_counts(survey, yes_no, groups, campus) == recount(survey, yes_no, groups, campus)
    assert strata.PairCounts.from_json(TripleTally.objects.get().counts).n == 3040
    # Another order of the grouping questions is another table.
    assert triple_counts(survey, yes_no, campus, groups) == recount(survey, yes_no, campus, groups)
    assert TripleTally.objects.count() == 2


def test_the_json_finds_the_difference_within_each_stratum(client, survey):
    yes_no, groups, campus, _ = survey.ordered_questions()
    client.force_login(survey.owner)
    data = client.get(
        url("question-breakdown-json", survey, yes_no, by=groups.pk, within=campus.pk)
    ).json()
    assert_shape(data, contracts.StratifiedResults)
    assert data["n"] == 3000 and data["within"]["id"] == campus.pk
    assert [s["label"] for s in data["strata"]] == campus.labels()
    for stratum, share in zip(data["strata"], CAMPUS, strict=True):
        assert stratum["ci_low"] <= share <= stratum["ci_high"]
        assert [g["label"] for g in stratum["groups"]] == groups.labels()
        # The difference is built into both strata: the test finds it in each.
        assert stratum["association"]["evidence"], stratum["association"]
        for group in stratum["groups"]:
            shares = [a["share"] for a in group["answers"]]
            assert sum(shares) == pytest.approx(1)
            for answer in group["answers"]:
                assert answer["ci_low"] <= answer["share"] <= answer["ci_high"]
    # Group sizes within strata add up to the stratum's.
    for stratum in data["strata"]:
        assert sum(g["share"] for g in stratum["groups"]) == pytest.approx(stratum["share"])


def test_the_page_shows_one_captioned_table_per_group_and_stratum(client, survey):
    yes_no, groups, campus, _ = survey.ordered_questions()
    client.force_login(survey.owner)
    response = client.get(url("question-breakdown", survey, yes_no, by=groups.pk, within=campus.pk))
    page = response.content.decode()
    assert response.status_code == 200
    assert "within the groups of “Do you live on campus?”" in page
    assert page.count("<section") == 2 and page.count("<table") == 2 * 3
    assert page.count("<caption") == 6 and 'scope="row"' in page and 'scope="col"' in page
    assert "Within “No”" in page and "Within “Yes”" in page
    assert page.count("Evidence that the answers differ between the groups") == 2
    assert 'name="within"' in page and f'<option value="{campus.pk}" selected>' in page
    # The two-way page is unchanged: no stratum, its comparison of groups.
    two_way = client.get(url("question-breakdown", survey, yes_no, by=groups.pk)).content.decode()
    assert "compared with" in two_way and "data-stratum" not in two_way


def test_the_csv_has_a_row_per_stratum_group_and_answer(client, survey):
    yes_no, groups, campus, _ = survey.ordered_questions()
    client.force_login(survey.owner)
    response = client.get(
        url("question-breakdown-csv", survey, yes_no, by=groups.pk, within=campus.pk)
    )
    assert "-within-q3.csv" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 2 * 3 * 2
    assert [(r["stratum"], r["group"], r["answer"]) for r in rows[:3]] == [
        ("No", "Never", "No"), ("No", "Never", "Yes"), ("No", "Once", "No")
    ]
    data = client.get(
        url("question-breakdown-json", survey, yes_no, by=groups.pk, within=campus.pk)
    ).json()
    last = data["strata"][1]["groups"][2]["answers"][1]
    assert float(rows[-1]["share"]) == pytest.approx(last["share"])
    assert float(rows[-1]["stratum_p_value"]) == pytest.approx(
        data["strata"][1]["association"]["p_value"]
    )


@pytest.mark.parametrize("kind", ["page", "json", "csv"])
def test_bad_three_way_breakdowns_get_a_clear_400_and_store_nothing(
    client, survey, make_survey, researcher, kind
):
    yes_no, groups, campus, ticked = survey.ordered_questions()
    other = make_survey(researcher, status="open", title="Other")
    name = {"page": "question-breakdown", "json": "question-breakdown-json",
            "csv": "question-breakdown-csv"}[kind]
    client.force_login(researcher)
    cases = {
        "other than the first": url(name, survey, yes_no, by=groups.pk, within=groups.pk),
        "within its own groups": url(name, survey, yes_no, by=groups.pk, within=yes_no.pk),
        "check-all question cannot group": url(name, survey, yes_no, by=groups.pk,
                                                within=ticked.pk),
        "no question": url(name, survey, yes_no, by=groups.pk,
                           within=other.ordered_questions()[0].pk),
        "no question abc": url(name, survey, yes_no, by=groups.pk, within="abc"),
        "Only yes/no, multiple-choice and rating": url(name, survey, ticked, by=groups.pk,
                                                       within=campus.pk),
    }
    for message, address in cases.items():
        response = client.get(address)
        assert response.status_code == 400, (message, response.status_code)
        body = response.json()["error"] if kind == "json" else response.content.decode()
        assert re.search(message.replace(" abc", " ?'?abc"), body), (message, body)
    assert not TripleTally.objects.exists()


def test_a_unary_grouping_question_is_refused_in_words(client, researcher, make_survey):
    survey = survey_of_every_encoding(make_survey, researcher)
    yes_no, many, colour = survey.ordered_questions()
    client.force_login(researcher)
    for by, within in ((yes_no, many), (many, yes_no)):
        response = client.get(
            url("question-breakdown-json", survey, colour, by=by.pk, within=within.pk)
        )
        assert response.status_code == 400
        assert "unary encoding" in response.json()["error"]
        assert many.text in response.json()["error"]
    # The unary question itself can be broken down within groups.
    response = client.get(
        url("question-breakdown-json", survey, many, by=yes_no.pk, within=colour.pk)
    )
    assert response.status_code == 200 and response.json()["n"] == 0


def test_other_peoples_surveys_are_404(client, survey, other_researcher):
    yes_no, groups, campus, _ = survey.ordered_questions()
    client.force_login(other_researcher)
    for name in ("question-breakdown", "question-breakdown-json", "question-breakdown-csv"):
        address = url(name, survey, yes_no, by=groups.pk, within=campus.pk)
        assert client.get(address).status_code == 404
    assert not TripleTally.objects.exists()


def test_no_responses_yet_says_so(client, researcher, make_survey, epsilon_limits):
    epsilon_limits(question=2.0, survey=6.0)
    survey = make_survey(researcher, epsilons=(2.0, 2.0))
    Question.objects.create(survey=survey, order=3, text="Campus?", kind="yesno", epsilon=2.0)
    open_survey(survey)
    yes_no, groups, campus = survey.ordered_questions()
    client.force_login(researcher)
    page = client.get(url("question-breakdown", survey, yes_no, by=groups.pk, within=campus.pk))
    assert page.status_code == 200 and "No responses yet" in page.content.decode()
    data = client.get(
        url("question-breakdown-json", survey, yes_no, by=groups.pk, within=campus.pk)
    ).json()
    assert data["n"] == 0
    assert all(s["association"]["p_value"] is None for s in data["strata"])
    assert np.all([a["share"] is None for s in data["strata"] for g in s["groups"]
                   for a in g["answers"]])


def test_a_rating_scale_has_its_mean_score_in_each_group_within_each_stratum(
    client, researcher, make_survey, epsilon_limits
):
    """Stress (5 points) higher among cheaters, drawn on its own of campus: within each
    stratum each group's mean score is near its true mean (5 standard errors)."""
    epsilon_limits(question=3.0, survey=9.0)
    survey = make_survey(researcher, epsilons=(3.0, 3.0))
    yes_no, _ = survey.ordered_questions()
    campus = Question.objects.create(
        survey=survey, order=3, text="Do you live on campus?", kind="yesno", epsilon=1.5
    )
    stress = Question.objects.create(
        survey=survey, order=4, text="How stressed are you?", kind="rating", epsilon=1.5
    )
    for i, label in enumerate(("Not at all", "2", "3", "4", "Very")):
        Choice.objects.create(question=stress, order=i, label=label)
    open_survey(survey)
    yes_no, groups, campus, stress = survey.ordered_questions()
    by_cheating = [[0.4, 0.3, 0.2, 0.1, 0.0], [0.0, 0.1, 0.2, 0.3, 0.4]]  # means 2.0 and 4.0
    simulate_responses(
        survey, 6000, {yes_no.pk: [0.6, 0.4], groups.pk: GROUPS, campus.pk: CAMPUS}, seed=9,
        given={stress.pk: {"question": yes_no.pk, "shares": by_cheating}},
    )
    survey.refresh_from_db()
    client.force_login(researcher)
    response = client.get(url("question-breakdown-json", survey, stress, by=yes_no.pk,
                              within=campus.pk))
    data = response.json()
    assert_shape(data, contracts.StratifiedResults)
    for stratum in data["strata"]:
        for group, true_mean in zip(stratum["groups"], (2.0, 4.0), strict=True):
            mean = group["mean_score"]
            assert mean["ci_low"] <= mean["estimate"] <= mean["ci_high"]
            half_width = (mean["ci_high"] - mean["ci_low"]) / 2
            assert abs(mean["estimate"] - true_mean) < 5 * half_width / 1.96
    page = client.get(url("question-breakdown", survey, stress, by=yes_no.pk, within=campus.pk))
    assert page.content.decode().count("data-mean-score") == 4
