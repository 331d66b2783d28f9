"""Rating scales (surveys/kinds/rating.py) through the site: authoring, readiness, mechanism,
the respondent's control, results with the mean score, breakdowns by group, exports."""

import csv
import io

import numpy as np
import pytest
from django.urls import reverse
from django.utils.html import escape

from surveys import ldp
from surveys.actions.simulate import simulate_responses
from surveys.actions.submissions import submission_create
from surveys.actions.surveys import open_survey
from surveys.actions.wording import correct, save_translation
from surveys.kinds import KINDS, RATING
from surveys.ldp import joint, scores
from surveys.models import Choice, Question, Survey
from surveys.queries import contracts
from surveys.queries.breakdowns import breakdown_results
from surveys.queries.results import export_metadata, survey_results
from surveys.queries.schedule import readiness_problems
from tests.helpers import assert_shape, recount

pytestmark = pytest.mark.django_db

SCALE = {"text": "How often do you skip class?", "kind": "rating", "epsilon": "1",
         "scale_points": "5", "scale_low": "Never", "scale_high": "Daily"}


def add_question(client, survey, **changes):
    return client.post(reverse("question-create", args=[survey.pk]), {**SCALE, **changes})


def test_a_researcher_adds_a_scale_of_5_or_7_points_with_labelled_ends(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    assert add_question(client, survey).status_code == 302
    assert add_question(client, survey, scale_points="7", scale_low=" Disagree ",
                        scale_high="Agree").status_code == 302
    five, seven = survey.ordered_questions()
    assert five.labels() == ["Never", "2", "3", "4", "Daily"]
    assert seven.labels() == ["Disagree", "2", "3", "4", "5", "6", "Agree"]
    html = client.get(reverse("question-edit", args=[seven.pk])).content.decode()
    assert 'value="Disagree"' in html and 'value="Agree"' in html
    assert '<option value="7" selected>' in html


@pytest.mark.parametrize("changes,error", [
    ({"scale_points": "6"}, "Select a valid choice"),
    ({"scale_low": ""}, "Type the labels of both ends"),
    ({"scale_high": "   "}, "Type the labels of both ends"),
    ({"scale_high": "NEVER"}, "need different labels"),
    ({"scale_low": "x" * 201}, "at most 200 characters"),
])
def test_a_bad_scale_gets_a_clear_error_and_stores_nothing(client, researcher, changes, error):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    response = add_question(client, survey, **changes)
    assert response.status_code == 200 and error in response.content.decode()
    assert not Question.objects.exists() and not Choice.objects.exists()


def test_a_scale_that_lost_its_points_cannot_open(researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    question = Question.objects.create(survey=survey, order=1, text="Rate", kind="rating",
                                       epsilon=1.0)
    for i, label in enumerate(["Low", "2", "3", "High"]):
        Choice.objects.create(question=question, order=i, label=label)
    assert readiness_problems(survey) == ["“Rate” needs a scale of 5 or 7 points."]


@pytest.mark.parametrize("epsilon,points,name", [(1.0, 5, "grr"), (1.0, 7, "grr"),
                                                 (0.5, 7, "oue"), (0.5, 5, "grr")])
def test_it_is_randomized_like_multiple_choice_over_its_points(epsilon, points, name):
    mechanism = RATING.mechanism(epsilon, points)
    assert mechanism.name == name == ldp.choose_categorical(epsilon, points).name
    assert mechanism.k == points
    assert KINDS["rating"] is RATING and RATING.scored and not KINDS["categorical"].scored


def test_the_authoring_panel_plans_the_mean_score_in_points_of_the_scale(
    client, researcher, monkeypatch
):
    client.force_login(researcher)
    url = reverse("epsilon-explain")
    data = client.get(url, {"epsilon": "1", "kind": "rating", "k": "7"}).json()
    mechanism = RATING.mechanism(1.0, 7)
    plan = data["mean_score"]
    assert plan["target_margin"] == 0.25
    assert plan["n_for_target_margin"] == scores.n_for_mean_margin(mechanism, 0.25)
    assert [row["margin"] for row in plan["margins"]] == pytest.approx(
        [scores.mean_margin(mechanism, row["n"]) for row in plan["margins"]])
    assert client.get(url, {"epsilon": "1", "kind": "categorical", "k": "7"}).json()[
        "mean_score"] is None
    monkeypatch.setattr(ldp.planning, "MAX_PLANNED_RESPONDENTS", 1000)
    out_of_reach = client.get(url, {"epsilon": "0.5", "kind": "rating", "k": "7"}).json()
    assert out_of_reach["mean_score"]["n_for_target_margin"] is None


def rating_survey(owner, epsilon=2.0) -> Survey:
    """An open survey: a yes/no grouping question, then a 5-point scale."""
    survey = Survey.objects.create(owner=owner, title="Classes", introduction="Please answer.")
    Question.objects.create(survey=survey, order=1, text="First year?", kind="yesno",
                            epsilon=1.0, used_for_breakdowns=True)
    scale = Question.objects.create(survey=survey, order=2, text="How often do you skip?",
                                     kind="rating", epsilon=epsilon)
    for i, label in enumerate(RATING.scale_labels(5, "Never", "Daily")):
        Choice.objects.create(question=scale, order=i, label=label)
    open_survey(survey)
    return survey


def answer(survey, n, seed=5):
    """n submissions randomized from true answers: first-years skip more."""
    rng = np.random.default_rng(seed)
    group_q, scale_q = survey.ordered_questions()
    group_m, scale_m = group_q.mechanism(), scale_q.mechanism()
    groups = rng.integers(0, 2, size=n)
    points = np.where(groups == 1, rng.choice(5, size=n, p=[.1, .1, .2, .3, .3]),
                      rng.choice(5, size=n, p=[.4, .3, .2, .05, .05]))
    group_reports, scale_reports = group_m.perturb(groups, rng), scale_m.perturb(points, rng)
    for i in range(n):
        submission_create(survey=survey, idempotency_key=f"rating-{seed}-{i}", reports={
            group_q.pk: int(group_reports[i]), scale_q.pk: int(scale_reports[i])})
    survey.refresh_from_db()
    return group_reports, scale_reports


def test_the_respondent_page_offers_the_points_as_a_labelled_radio_group(client, researcher):
    survey = rating_survey(researcher)
    scale = survey.ordered_questions()[1]
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert 'data-control="rating_scale"' in html
    for point in range(5):
        assert f'id="answer-{scale.pk}-{point}" name="answer-{scale.pk}" value="{point}"' in html
    assert '<span class="visually-hidden">Never</span>' in html  # read with point 1
    assert '<div class="rating-ends" aria-hidden="true">' in html


def test_its_end_labels_are_translated_and_corrected_like_any_answers(client, researcher):
    survey = rating_survey(researcher)
    scale = survey.ordered_questions()[1]
    save_translation(survey, "es", {"title": "Clases", "introduction": "", "questions": {
        str(scale.pk): {"text": "¿Con qué frecuencia faltas?",
                        "labels": ["Nunca", "", "", "", "A diario"]}}})
    spanish = client.get(reverse("respond", args=[survey.public_id]),
                         HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert '<span class="visually-hidden">Nunca</span>' in spanish
    assert "<span>Nunca</span>" in spanish and '<span class="text-end">A diario</span>' in spanish
    correct(survey, {"questions": {str(scale.pk): {
        "labels": ["Never", "2", "3", "4", "Every day"]}}}, researcher)
    scale.refresh_from_db()
    assert scale.labels() == ["Never", "2", "3", "4", "Every day"]
    assert export_metadata(survey)["questions"][1]["translations"]["es"]["labels"] == [
        "Nunca", "2", "3", "4", "A diario"]
    english = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert '<span class="text-end">Every day</span>' in english


def test_results_give_the_mean_score_with_its_interval(client, researcher):
    survey = rating_survey(researcher)
    answer(survey, 300)
    client.force_login(researcher)
    data = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    group_json, scale_json = data["questions"]
    assert group_json["mean_score"] is None
    counts, n = recount(survey.ordered_questions()[1])
    expected = scores.mean_score(ldp.from_spec(scale_json["mechanism"]), counts, n)
    assert scale_json["mean_score"] == pytest.approx(expected.to_dict())
    mean = scale_json["mean_score"]
    assert 1 <= mean["ci_low"] < mean["estimate"] < mean["ci_high"] <= 5
    assert data["methods"]["mean_score"]["name"] == scores.MEAN_INTERVAL_METHOD
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert f'data-mean-score>{mean["estimate"]:.2f}</p>' in page
    assert f"95% interval {mean['ci_low']:.2f} to {mean['ci_high']:.2f}" in page
    assert f"Before it is kept within the scale: {mean['unbiased']:.2f}, standard error" in page


def test_results_before_any_response_give_the_whole_scale(researcher):
    survey = rating_survey(researcher)
    mean = survey_results(survey)["questions"][1]["mean_score"]
    assert mean["estimate"] is None and (mean["ci_low"], mean["ci_high"]) == (1, 5)


def test_a_breakdown_compares_the_mean_scores_of_the_groups(client, researcher):
    survey = rating_survey(researcher)
    group_reports, scale_reports = answer(survey, 400)
    group_q, scale_q = survey.ordered_questions()
    found = breakdown_results(survey, scale_q, group_q)
    counts = joint.pair_counts(group_q.mechanism(), scale_q.mechanism(), group_reports,
                               scale_reports)
    means = scores.group_means(
        joint.breakdown(group_q.mechanism(), scale_q.mechanism(), counts), counts)
    for g, group in enumerate(found["groups"]):
        assert group["mean_score"] == pytest.approx(
            {"estimate": means.estimate[g], "ci_low": means.ci_low[g],
             "ci_high": means.ci_high[g]})
    estimate, low, high = means.difference(1, 0)
    assert found["difference"]["mean_score"] == pytest.approx(
        {"estimate": estimate, "ci_low": low, "ci_high": high})
    assert estimate > 0  # first-years skip more, even through the noise of 400 reports
    client.force_login(researcher)
    url = reverse("question-breakdown-csv", args=[survey.pk, scale_q.pk])
    rows = csv_rows(client.get(url, {"by": group_q.pk}))
    assert len(rows) == 10
    shown = [float(row["group_mean_score"]) for row in rows if row["group_index"] == "1"]
    assert shown == pytest.approx([means.estimate[1]] * 5)
    page = client.get(reverse("question-breakdown", args=[survey.pk, scale_q.pk]),
                      {"by": group_q.pk}).content.decode()
    assert f"Mean score <strong>{means.estimate[0]:.2f}</strong>" in page
    assert escape(scores.GROUP_MEAN_DESCRIPTION) in page


def csv_rows(response) -> list[dict[str, str]]:
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def test_exports_carry_the_points_their_labels_and_the_mean(client, researcher):
    survey = rating_survey(researcher)
    answer(survey, 50)
    client.force_login(researcher)
    metadata = client.get(reverse("export-metadata", args=[survey.pk])).json()
    group_meta, scale_meta = metadata["questions"]
    assert group_meta["scores"] is None
    assert scale_meta["scores"] == [1, 2, 3, 4, 5] and scale_meta["kind"] == "rating"
    assert scale_meta["labels"] == ["Never", "2", "3", "4", "Daily"]
    mean = survey_results(survey)["questions"][1]["mean_score"]
    rows = csv_rows(client.get(reverse("export-estimates-csv", args=[survey.pk])))
    scale_rows = [row for row in rows if row["question"] == "2"]
    assert [row["score"] for row in scale_rows] == ["1", "2", "3", "4", "5"]
    assert [float(row["mean_score"]) for row in scale_rows] == pytest.approx(
        [mean["estimate"]] * 5)
    assert {row["mean_score"] for row in rows if row["question"] == "1"} == {""}


def test_the_json_of_a_rating_scale_has_exactly_the_declared_fields(researcher):
    survey = rating_survey(researcher)
    answer(survey, 30)
    group_q, scale_q = survey.ordered_questions()
    assert_shape(survey_results(survey), contracts.SurveyResults)
    assert_shape(breakdown_results(survey, scale_q, group_q), contracts.BreakdownResults)
    assert_shape(export_metadata(survey), contracts.Metadata)


def test_an_end_label_that_is_a_middle_points_number_is_refused(client, researcher):
    """Seven points from "1" to "5": the high end would repeat the fifth point's label."""
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    response = add_question(client, survey, scale_points="7", scale_low="1", scale_high="5")
    assert response.status_code == 200
    assert "cannot be the number of a point between the ends (2 to 6)" in (
        response.content.decode())
    assert not Question.objects.exists() and not Choice.objects.exists()


def test_a_follow_up_scale_nobody_may_decline_gives_its_mean_among_those_asked(
    client, researcher
):
    survey = Survey.objects.create(owner=researcher, title="Habits")
    student = Question.objects.create(survey=survey, order=1, text="Student?", kind="yesno",
                                      epsilon=1.0)
    scale = Question.objects.create(survey=survey, order=2, text="How often?", kind="rating",
                                    epsilon=1.0, asked_if=student, asked_if_answer=1)
    for i, label in enumerate(RATING.scale_labels(5, "Never", "Daily")):
        Choice.objects.create(question=scale, order=i, label=label)
    open_survey(survey)
    simulate_responses(survey, 200, {student.pk: [0.5, 0.5]}, seed=3, given={scale.pk: {
        "question": student.pk, "shares": [[0] * 5 + [1], [0.2] * 5 + [0]]}})
    assert survey_results(survey)["questions"][1]["among"]["among"] == "asked"
    client.force_login(researcher)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "Estimated mean score among those asked, on the scale from 1 to 5" in page
    assert "Estimated mean score among those who answered" not in page
