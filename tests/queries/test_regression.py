"""A yes/no question explained by others (logistic regression) through the site: counts
read by the database, the page, its JSON and CSV, and refusals."""

import csv
import io
import math

import pytest
from django.urls import reverse

from surveys.actions.simulate import simulate_responses
from surveys.actions.surveys import open_survey
from surveys.models import Choice, Question, Submission, Survey
from surveys.queries import contracts
from surveys.queries.regression import report_counts
from tests.helpers import assert_shape

# Cheating (yes/no) within each of three answers to "How often?"; living on campus
# (yes/no) drawn on its own, so its true odds ratio is 1.
BY_GROUP = [[0.9, 0.1], [0.7, 0.3], [0.4, 0.6]]
GROUPS = [0.5, 0.3, 0.2]
CAMPUS = [0.6, 0.4]


@pytest.fixture
def survey(researcher, make_survey, epsilon_limits) -> Survey:
    """Open, with a yes/no question, a categorical one, a second yes/no question (campus), a
    rating scale, a check-all question and a third yes/no question; 4,000 simulated
    respondents."""
    epsilon_limits(question=3.0, survey=12.0)
    survey = make_survey(researcher, epsilons=(3.0, 3.0))
    Question.objects.create(
        survey=survey, order=3, text="Do you live on campus?", kind="yesno", epsilon=3.0
    )
    stress = Question.objects.create(
        survey=survey, order=4, text="How stressed are you?", kind="rating", epsilon=1.0
    )
    for i, label in enumerate(("Not at all", "2", "3", "4", "Very")):
        Choice.objects.create(question=stress, order=i, label=label)
    ticked = Question.objects.create(
        survey=survey, order=5, text="Which have you used?", kind="checkall", epsilon=1.0
    )
    for i, label in enumerate(("Tea", "Coffee", "Cola")):
        Choice.objects.create(question=ticked, order=i, label=label)
    Question.objects.create(survey=survey, order=6, text="Do you work?", kind="yesno",
                            epsilon=1.0)
    open_survey(survey)
    yes_no, groups, campus, stress, ticked, work = survey.ordered_questions()
    simulate_responses(
        survey, 4000,
        {groups.pk: GROUPS, campus.pk: CAMPUS, stress.pk: [0.2] * 5, ticked.pk: [0.5] * 3,
         work.pk: [0.5, 0.5]},
        seed=5, given={yes_no.pk: {"question": groups.pk, "shares": BY_GROUP}},
    )
    survey.refresh_from_db()
    return survey


def url(name: str, survey: Survey, question, *by) -> str:
    address = reverse(name, args=[survey.pk, question.pk])
    return address + "?" + "&".join(f"by={q.pk}" for q in by)


def test_the_counts_equal_a_recount_of_the_stored_reports(survey):
    yes_no, groups, campus, *_ = survey.ordered_questions()
    counts = report_counts(survey, [yes_no, groups, campus])
    assert counts.shape == (2, 3, 2) and counts.sum() == 4000
    for reports in Submission.objects.filter(survey=survey).values_list("reports", flat=True):
        counts[reports[str(yes_no.pk)], reports[str(groups.pk)], reports[str(campus.pk)]] -= 1
    assert not counts.any()


def test_the_counts_are_kept_and_only_new_submissions_are_read(survey):
    yes_no, groups, campus, stress, ticked, work = survey.ordered_questions()
    questions = [yes_no, groups, campus]
    first = report_counts(survey, questions)
    # A stored submission changed behind the counts' back (never done by the site) shows
    # whether the next count reads the old submissions again.
    oldest = Submission.objects.filter(survey=survey).order_by("pk").first()
    changed = {**oldest.reports, str(yes_no.pk): 1 - oldest.reports[str(yes_no.pk)]}
    Submission.objects.filter(pk=oldest.pk).update(reports=changed)
    truth = {yes_no.pk: [0.5, 0.5], groups.pk: GROUPS, campus.pk: CAMPUS,
             stress.pk: [0.2] * 5, ticked.pk: [0.5] * 3, work.pk: [0.5, 0.5]}
    simulate_responses(survey, 50, truth, seed=6)
    survey.refresh_from_db()
    counts = report_counts(survey, questions)
    assert counts.sum() == 4050
    added = counts - first
    assert added.sum() == 50 and added.min() >= 0  # the old submission was not read again
    for reports in Submission.objects.filter(survey=survey).order_by("-pk")[:50].values_list(
        "reports", flat=True
    ):
        added[reports[str(yes_no.pk)], reports[str(groups.pk)], reports[str(campus.pk)]] -= 1
    assert not added.any()
    assert (report_counts(survey, questions) == counts).all()  # nothing new: the same


def test_the_odds_ratios_find_the_true_association_and_no_other(client, researcher, survey):
    yes_no, groups, campus, *_ = survey.ordered_questions()
    client.force_login(researcher)
    response = client.get(url("question-regression-json", survey, yes_no, groups, campus))
    assert response.status_code == 200
    data = response.json()
    assert_shape(data, contracts.RegressionResults)
    assert data["n"] == 4000 and not data["weak"]
    by_group, by_campus = data["predictors"]
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    truth = [logit(row[1]) - logit(BY_GROUP[0][1]) for row in BY_GROUP[1:]]
    for coefficient, true in zip(by_group["coefficients"], truth, strict=True):
        assert abs(coefficient["coefficient"] - true) < 5 * coefficient["std_error"]
        assert coefficient["ci_low"] < coefficient["estimate"] < coefficient["ci_high"]
        assert coefficient["estimate"] == pytest.approx(math.exp(coefficient["coefficient"]))
    assert by_group["p_value"] < 1e-6 and by_group["evidence"]
    (campus_effect,) = by_campus["coefficients"]
    assert abs(campus_effect["coefficient"]) < 5 * campus_effect["std_error"]
    # Predicted shares of Yes per group, the others held equal: near the true ones.
    for prediction, row in zip(by_group["predictions"], BY_GROUP, strict=True):
        assert prediction["ci_low"] <= prediction["estimate"] <= prediction["ci_high"]
        assert abs(prediction["estimate"] - row[1]) < 0.1
    assert abs(sum(p["group_share"] for p in by_group["predictions"]) - 1) < 1e-9


def test_the_page_shows_a_table_a_chart_and_a_test_per_question(client, researcher, survey):
    yes_no, groups, campus, stress, *_ = survey.ordered_questions()
    client.force_login(researcher)
    response = client.get(url("question-regression", survey, yes_no, groups, stress))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Odds ratios" in page and "<svg" in page and 'role="img"' in page
    assert page.count("A likelihood-ratio test of whether") == 2
    assert "Each point more on the scale" in page  # the rating scale enters as its score
    assert "(against “Never”)" in page
    response = client.get(url("question-regression-csv", survey, yes_no, groups, campus))
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:4] == ["model", "predictor_position", "predictor", "term"]
    assert len(rows) == 1 + 2 + 1


def test_the_results_page_links_a_yes_no_question_to_its_regression(client, researcher, survey):
    yes_no, groups, *_ = survey.ordered_questions()
    client.force_login(researcher)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert reverse("question-regression", args=[survey.pk, yes_no.pk]) in page
    assert reverse("question-regression", args=[survey.pk, groups.pk]) not in page
    stress = survey.ordered_questions()[3]
    assert reverse("question-regression", args=[survey.pk, stress.pk]) in page


def test_a_second_view_reads_the_cache_only(client, researcher, survey,
                                            django_assert_max_num_queries):
    yes_no, groups, campus, *_ = survey.ordered_questions()
    client.force_login(researcher)
    address = url("question-regression-json", survey, yes_no, groups, campus)
    first = client.get(address).json()
    # session, user, account settings, survey, questions, choices, the cached results
    with django_assert_max_num_queries(7) as queries:
        assert client.get(address).json() == first
    assert not any("json_extract" in query["sql"] for query in queries.captured_queries)


@pytest.mark.parametrize("choose, message", [
    (lambda q: (q[1], q[0]), "Only a yes/no question, a rating scale or a number can be"),
    (lambda q: (q[0], q[4]), "cannot group"),
    (lambda q: (q[0], q[0]), "A question cannot explain itself."),
    (lambda q: (q[0], q[1], q[2], q[3], q[2]), None),  # a repeat counts once: 3 questions
    (lambda q: (q[0],), "Choose at least one question to explain it by."),
])
def test_questions_that_cannot_make_a_regression_are_refused(client, researcher, survey,
                                                             choose, message):
    questions = list(survey.ordered_questions())
    outcome, *by = choose(questions)
    client.force_login(researcher)
    response = client.get(url("question-regression-json", survey, outcome, *by))
    if message is None:
        assert response.status_code == 200
        return
    assert response.status_code == 400
    assert message in response.json()["error"] or (
        message == "cannot group" and "breakdown" in response.json()["error"].lower()
    )
    page = client.get(url("question-regression", survey, outcome, *by))
    assert page.status_code == (400 if by or outcome.kind != "yesno" else 200)


def test_more_than_three_questions_are_refused(client, researcher, survey):
    yes_no, groups, campus, stress, _, work = survey.ordered_questions()
    client.force_login(researcher)
    response = client.get(url("question-regression-json", survey, yes_no, groups, campus,
                              stress, work))
    assert response.status_code == 400
    assert "at most 3" in response.json()["error"]


def test_drafts_and_other_researchers_surveys_are_refused(
    client, researcher, other_researcher, make_survey, survey
):
    draft = make_survey(researcher)
    yes_no, groups = draft.ordered_questions()
    client.force_login(researcher)
    response = client.get(url("question-regression-json", draft, yes_no, groups))
    assert response.status_code == 400 and "draft" in response.json()["error"]
    client.force_login(other_researcher)
    yes_no, groups, *_ = survey.ordered_questions()
    assert client.get(url("question-regression", survey, yes_no, groups)).status_code == 404
    assert client.get(url("question-regression-json", survey, yes_no, groups)).status_code == 404


def test_without_a_choice_the_page_offers_the_questions_that_can_explain(
    client, researcher, survey
):
    yes_no, groups, campus, stress, ticked, work = survey.ordered_questions()
    client.force_login(researcher)
    page = client.get(reverse("question-regression", args=[survey.pk, yes_no.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    for question in (groups, campus, stress, work):
        assert f'value="{question.pk}"' in text
    assert f'value="{ticked.pk}"' not in text and f'value="{yes_no.pk}"' not in text
    page = client.get(reverse("question-regression", args=[survey.pk, groups.pk]))
    assert page.status_code == 400


def test_a_rating_scale_is_explained_by_a_linear_regression(client, researcher, survey):
    """Stress is drawn on its own: every difference in its mean score is truly 0."""
    yes_no, groups, campus, stress, *_ = survey.ordered_questions()
    client.force_login(researcher)
    data = client.get(url("question-regression-json", survey, stress, groups, campus)).json()
    assert_shape(data, contracts.RegressionResults)
    assert data["model"] == "linear"
    for predictor in data["predictors"]:
        for coefficient in predictor["coefficients"]:
            assert abs(coefficient["estimate"]) < 5 * coefficient["std_error"]
            assert coefficient["estimate"] == coefficient["coefficient"]
        for prediction in predictor["predictions"]:  # mean score 3 on points 1..5
            assert abs(prediction["estimate"] - 3) < 0.5
            assert prediction["ci_low"] < prediction["estimate"] < prediction["ci_high"]
    page = client.get(url("question-regression", survey, stress, groups, campus))
    text = page.content.decode()
    assert page.status_code == 200 and "Differences in the mean" in text
    assert "A Wald test of whether" in text


def test_a_number_is_explained_by_a_linear_regression(client, researcher, make_survey,
                                                      epsilon_limits):
    """Hours of sleep (0-12) drawn on their own of cheating: the difference is truly 0, and
    the predicted means are near the true mean, in hours."""
    epsilon_limits(question=3.0, survey=9.0)
    survey = make_survey(researcher, epsilons=(3.0, 3.0))
    Question.objects.create(
        survey=survey, order=3, text="Hours of sleep?", kind="number", epsilon=3.0,
        number_min=0, number_max=12, number_bins="4, 8",
    )
    open_survey(survey)
    yes_no, groups, sleep = survey.ordered_questions()
    simulate_responses(survey, 4000, {yes_no.pk: [0.6, 0.4], groups.pk: GROUPS,
                                      sleep.pk: [0.2, 0.5, 0.3]}, seed=11)
    survey.refresh_from_db()
    client.force_login(researcher)
    data = client.get(url("question-regression-json", survey, sleep, yes_no)).json()
    assert_shape(data, contracts.RegressionResults)
    assert data["model"] == "linear" and data["number"]["high"] == 12
    (difference,) = data["predictors"][0]["coefficients"]
    assert abs(difference["estimate"]) < 5 * difference["std_error"]
    true_mean = 0.2 * 2 + 0.5 * 6 + 0.3 * 10  # uniform within the bins 0-4, 4-8, 8-12
    for prediction in data["predictors"][0]["predictions"]:
        half_width = (prediction["ci_high"] - prediction["ci_low"]) / 2
        assert abs(prediction["estimate"] - true_mean) < 5 * half_width / 1.96
    page = client.get(url("question-regression", survey, sleep, yes_no))
    assert page.status_code == 200 and "Differences in the mean" in page.content.decode()


def few_responses(client, researcher, make_survey, epsilon: float, n: int, seed: int):
    """The yes/no question explained by the grouping one, from n responses at epsilon: its
    JSON and its page."""
    survey = make_survey(researcher, epsilons=(epsilon, epsilon), status="open")
    yes_no, groups = survey.ordered_questions()
    simulate_responses(survey, n, {yes_no.pk: [0.7, 0.3], groups.pk: GROUPS}, seed=seed)
    survey.refresh_from_db()
    client.force_login(researcher)
    data = client.get(url("question-regression-json", survey, yes_no, groups)).json()
    page = client.get(url("question-regression", survey, yes_no, groups)).content.decode()
    return data, page


def test_a_regression_the_reports_cannot_bound_is_flagged(client, researcher, make_survey):
    """200 respondents at epsilon 0.5: the reports say almost nothing about the odds, so some
    interval is unbounded and the page warns that the intervals are unreliable."""
    data, page = few_responses(client, researcher, make_survey, 0.5, 200, seed=2)
    assert data["weak"] and data["identified"]
    assert any(c["ci_high"] is None or c["ci_low"] is None
               for c in data["predictors"][0]["coefficients"])
    assert "The responses say too little for this regression yet." in page


def test_a_regression_the_reports_cannot_identify_gives_no_interval_or_test(
    client, researcher, make_survey
):
    """40 respondents at epsilon 1 whose reports fit best with an odds ratio at infinity:
    every interval is unbounded and no test is given; the page shows no figures, and says
    why."""
    data, page = few_responses(client, researcher, make_survey, 1.0, 40, seed=0)
    assert_shape(data, contracts.RegressionResults)
    assert not data["identified"] and data["weak"]
    (predictor,) = data["predictors"]
    assert all((c["ci_low"], c["ci_high"], c["std_error"]) == (0.0, None, None)
               for c in predictor["coefficients"])  # odds ratios from 0 to infinity
    assert predictor["p_value"] is None and predictor["statistic"] is None
    assert not predictor["evidence"] and predictor["summary"].startswith("Not tested")
    assert {(p["ci_low"], p["ci_high"]) for p in predictor["predictions"]} == {(0.0, 1.0)}
    assert "The responses cannot identify this regression yet." in page
    assert 'id="coefficients-title"' not in page and 'id="predictor-' not in page
