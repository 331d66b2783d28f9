"""Number questions (surveys/kinds/numbers.py) through the site: authoring with a range,
places and bins, readiness, the respondent's number box, submissions, results with the mean
and the bins, the mean within groups, exports, simulation, frozen settings and the authoring
panel's planner."""

import csv
import io
import json

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys import ldp
from surveys.actions.simulate import simulate_responses
from surveys.actions.submissions import SubmissionError, submission_create
from surveys.actions.surveys import duplicate_survey, open_survey
from surveys.kinds import KINDS, NUMBER
from surveys.ldp import joint
from surveys.ldp import numbers as number_core
from surveys.models import Question, Submission, Survey
from surveys.queries import contracts
from surveys.queries.results import TARGET_MARGIN, export_metadata, survey_results
from surveys.queries.schedule import readiness_problems
from surveys.queries.stats_files import labelled_reports, write
from tests.helpers import assert_shape, recount, stored_reports

pytestmark = pytest.mark.django_db

QUESTION = {"text": "How old are you?", "kind": "number", "epsilon": "1",
            "number_min": "18", "number_max": "99", "number_decimals": "0",
            "number_bins": "30, 45, 65"}
BINS = ["18 to 30", "30 to 45", "45 to 65", "65 to 99"]


def add_question(client, survey, **changes):
    return client.post(reverse("question-create", args=[survey.pk]), {**QUESTION, **changes})


def test_a_researcher_adds_a_number_question_with_its_range_and_bins(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    assert add_question(client, survey).status_code == 302
    (question,) = survey.ordered_questions()
    assert (question.kind, question.number_min, question.number_max) == ("number", 18, 99)
    assert question.labels() == [] and KINDS["number"] is NUMBER and not NUMBER.groups
    mechanism = question.mechanism()
    assert isinstance(mechanism, ldp.NumberWindow)
    assert (mechanism.low, mechanism.high, mechanism.edges) == (18, 99, [30, 45, 65])
    assert mechanism.bin_labels() == BINS
    form = client.get(reverse("question-create", args=[survey.pk])).content.decode()
    assert 'name="number_min"' in form and '"number": true' in form


def test_a_decimal_number_question_keeps_its_places(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    response = add_question(client, survey, number_min="0.3", number_max="2.7",
                            number_decimals="1", number_bins="1.5")
    assert response.status_code == 302
    mechanism = survey.ordered_questions()[0].mechanism()
    assert (mechanism.steps, mechanism.bin_labels()) == (24, ["0.3 to 1.5", "1.5 to 2.7"])
    assert list(mechanism.index([0.3, 1.1, 2.7])) == [0, 8, 24]


def test_without_bins_a_number_question_gets_five_equal_ones(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    add_question(client, survey, number_min="0", number_max="10", number_bins="")
    assert survey.ordered_questions()[0].mechanism().edges == [2, 4, 6, 8]


@pytest.mark.parametrize("changes,error", [
    ({"number_min": ""}, "A number question needs its smallest number."),
    ({"number_min": "99", "number_max": "18"}, "smallest number must be below the largest"),
    ({"number_max": "99.5"}, "at most 0 decimal places"),
    ({"number_bins": "30, 20"}, "in increasing order"),
    ({"number_bins": "10, 50"}, "inside the range"),
    ({"number_bins": "thirty"}, "separated by commas"),
    ({"number_decimals": "5"}, "3"),
    ({"number_max": "100000", "number_decimals": "3"}, "too fine"),
    ({"used_for_breakdowns": "on"}, "cannot group respondents"),
])
def test_a_bad_number_question_gets_a_clear_error_and_stores_nothing(
    client, researcher, changes, error
):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    response = add_question(client, survey, **changes)
    assert response.status_code == 200 and error in response.content.decode()
    assert not Question.objects.exists()


def test_a_number_question_without_a_range_cannot_open(researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    Question.objects.create(survey=survey, order=1, text="Age", kind="number", epsilon=1.0)
    assert readiness_problems(survey) == ["“Age” needs a smallest and a largest number."]


def number_survey(owner, epsilon=2.0, decimals=0) -> Survey:
    """An open survey: a yes/no question, then a number question from 18 to 99."""
    survey = Survey.objects.create(owner=owner, title="Ages", introduction="Please answer.")
    Question.objects.create(survey=survey, order=1, text="Student?", kind="yesno", epsilon=1.0)
    Question.objects.create(
        survey=survey, order=2, text=QUESTION["text"], kind="number", epsilon=epsilon,
        number_min=18, number_max=99, number_decimals=decimals, number_bins="30, 45, 65")
    open_survey(survey)
    return survey


def answer(survey, n, seed=5):
    """n submissions: students (yes) aged 18 to 30, others 31 to 80, about half each."""
    rng = np.random.default_rng(seed)
    yes_no, number = survey.ordered_questions()
    student = rng.integers(0, 2, size=n)
    ages = np.where(student == 1, rng.integers(18, 31, size=n), rng.integers(31, 81, size=n))
    yes_reports = yes_no.mechanism().perturb(student, rng)
    reports = number.mechanism().perturb(ages, rng)
    for i in range(n):
        submission_create(survey=survey, idempotency_key=f"number-{seed}-{i}", reports={
            yes_no.pk: int(yes_reports[i]), number.pk: int(reports[i])})
    survey.refresh_from_db()
    return student, ages


def test_once_open_its_range_is_frozen(researcher):
    survey = number_survey(researcher)
    number = survey.ordered_questions()[1]
    assert number.spec["low"] == 18 and number.spec["edges"] == [30, 45, 65]
    assert number.tallies.count() == number_core.CELLS
    number.number_max = 120
    with pytest.raises(ValidationError, match="frozen"):
        number.save()


def test_a_duplicate_keeps_the_range_places_and_bins(researcher):
    survey = number_survey(researcher, decimals=1)
    copy = duplicate_survey(survey)
    number = copy.ordered_questions()[1]
    assert copy.is_draft and number.spec is None
    assert (number.number_min, number.number_max, number.number_decimals,
            number.number_bins) == (18, 99, 1, "30, 45, 65")
    assert number.mechanism().spec() == survey.ordered_questions()[1].spec


def test_the_respondent_page_offers_a_number_box_with_its_range(client, researcher):
    survey = number_survey(researcher)
    question = survey.ordered_questions()[1]
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert f'data-question="{question.pk}" data-control="number"' in html
    assert (f'type="number" id="answer-{question.pk}" name="answer-{question.pk}" '
            'min="18.000000" max="99.000000" step="1.000000" inputmode="numeric"') in html
    assert "A whole number from 18 to 99." in html
    assert f'<label class="form-label" for="answer-{question.pk}">Your number</label>' in html
    spanish = client.get(reverse("respond", args=[survey.public_id]),
                         HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Un número entero de 18 a 99." in spanish


@pytest.mark.parametrize("decimals,english,french", [
    (1, "A number from 18.0 to 99.0, with at most 1 decimal place.", "au plus 1 décimale."),
    (2, "A number from 18.00 to 99.00, with at most 2 decimal places.", "au plus 2 décimales."),
])
def test_the_range_in_words_counts_its_decimal_places(client, researcher, decimals, english,
                                                      french):
    survey = number_survey(researcher, decimals=decimals)
    url = reverse("respond", args=[survey.public_id])
    assert english in client.get(url).content.decode()
    assert french in client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()


def test_a_report_is_stored_in_its_tally_cell(researcher):
    survey = number_survey(researcher)
    yes_no, number = survey.ordered_questions()
    submission_create(survey=survey, idempotency_key="k" * 20,
                      reports={yes_no.pk: 1, number.pk: 17})
    counts = [tally.count for tally in number.tallies.order_by("index")]
    assert counts[17] == 1 and sum(counts) == 1


@pytest.mark.parametrize("report", [64, -1, 2.5, [3], "7", True, None])
def test_a_bad_report_is_refused_and_nothing_stored(researcher, report):
    survey = number_survey(researcher)
    yes_no, number = survey.ordered_questions()
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, idempotency_key="k" * 20,
                          reports={yes_no.pk: 1, number.pk: report})
    assert error.value.status == 400 and "whole number from 0 to 63" in error.value.message
    assert not Submission.objects.exists()


def test_the_submission_endpoint_refuses_a_true_number_out_of_the_grid(client, researcher):
    survey = number_survey(researcher)
    yes_no, number = survey.ordered_questions()
    body = {"idempotency_key": "k" * 24, "invitation": None, "wording": 0,
            "reports": {str(yes_no.pk): 1, str(number.pk): 87}}
    response = client.post(reverse("respond-submit", args=[survey.public_id]),
                           json.dumps(body), content_type="application/json")
    assert response.status_code == 400 and not Submission.objects.exists()


def test_results_give_the_mean_with_its_interval_and_the_bins(client, researcher):
    survey = number_survey(researcher)
    _, ages = answer(survey, 600)
    client.force_login(researcher)
    data = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    yes_json, number_json = data["questions"]
    assert yes_json["number"] is None
    counts, n = recount(survey.ordered_questions()[1])
    mechanism = ldp.from_spec(number_json["mechanism"])
    mean = number_json["number"]["mean"]
    assert mean == pytest.approx(mechanism.mean(counts, n).to_dict())
    assert mean["ci_low"] < ages.mean() < mean["ci_high"]
    assert abs(mean["unbiased"] - ages.mean()) < 4 * mean["std_error"]
    shown = number_json["categories"]
    assert [c["label"] for c in shown] == BINS
    assert [c["estimate"] for c in shown] == pytest.approx(
        list(mechanism.estimate(counts, n).headline))
    assert sum(c["estimate"] for c in shown) == pytest.approx(1)
    assert all(c["ci_low"] is None and c["support_count"] is None for c in shown)
    assert_shape(data, contracts.SurveyResults)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert f'data-number-mean>{mean["estimate"]:.1f}</p>' in page
    assert f"95% interval {mean['ci_low']:.1f} to {mean['ci_high']:.1f}" in page
    assert "estimates without intervals" in page
    assert "A number: its mean and its bins" in page
    assert (f"Mean {mean['estimate']:.1f}, 95% interval {mean['ci_low']:.1f} to "
            f"{mean['ci_high']:.1f}, on the range from 18 to 99.") in page  # its chart
    assert page.count("Break this question down by") == 1


def test_results_before_any_response_have_no_estimate(researcher):
    survey = number_survey(researcher)
    found = survey_results(survey)["questions"][1]
    assert found["categories"] is None
    assert found["number"]["mean"]["estimate"] is None
    assert (found["number"]["mean"]["ci_low"], found["number"]["mean"]["ci_high"]) == (18, 99)


def test_a_number_question_cannot_group_another(client, researcher):
    survey = number_survey(researcher)
    answer(survey, 20)
    yes_no, number = survey.ordered_questions()
    client.force_login(researcher)
    response = client.get(reverse("question-breakdown-json", args=[survey.pk, yes_no.pk]),
                          {"by": number.pk})
    assert response.status_code == 400
    assert "A number question cannot group respondents" in response.content.decode()


def csv_rows(response) -> list[dict[str, str]]:
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def test_a_breakdown_gives_the_mean_within_each_group(client, researcher):
    survey = number_survey(researcher)
    student, ages = answer(survey, 800)
    yes_no, number = survey.ordered_questions()
    reports = stored_reports(survey)
    counts = joint.pair_counts(
        yes_no.mechanism(), number.mechanism(), [r[str(yes_no.pk)] for r in reports],
        [r[str(number.pk)] for r in reports])
    expected = number_core.group_means(yes_no.mechanism(), number.mechanism(), counts)
    client.force_login(researcher)
    data = client.get(reverse("question-breakdown-json", args=[survey.pk, number.pk]),
                      {"by": yes_no.pk}).json()
    assert data["n"] == 800
    for g, group in enumerate(data["groups"]):
        assert group["answers"] == [] and group["mean_score"] is None
        assert group["mean"]["estimate"] == pytest.approx(expected.estimate[g])
        assert group["mean"]["ci_low"] <= ages[student == g].mean() <= group["mean"]["ci_high"]
    difference = data["difference"]["mean"]
    assert difference["ci_high"] < 0  # students ("Yes", group 1) minus the others: younger
    assert data["association"]["evidence"]
    assert_shape(data, contracts.BreakdownResults)
    rows = csv_rows(client.get(reverse("question-breakdown-csv", args=[survey.pk, number.pk]),
                               {"by": yes_no.pk}))
    assert [float(row["group_mean"]) for row in rows] == pytest.approx(list(expected.estimate))
    page = client.get(reverse("question-breakdown", args=[survey.pk, number.pk]),
                      {"by": yes_no.pk}).content.decode()
    assert "data-group-mean" in page and "data-mean-difference" in page
    assert 'among respondents whose answer to “Student?” is “Yes”, with its 95% interval' in page


def test_exports_carry_the_reports_their_labels_and_the_unbiased_values(client, researcher):
    survey = number_survey(researcher)
    answer(survey, 40)
    client.force_login(researcher)
    reports = csv_rows(client.get(reverse("export-reports-csv", args=[survey.pk])))
    assert list(reports[0]) == ["response", "q1", "q2", "wording", "q2_low", "q2_high"]
    number = survey.ordered_questions()[1]
    assert [int(r["q2"]) for r in reports] == [s[str(number.pk)] for s in stored_reports(survey)]
    metadata = export_metadata(survey)["questions"][1]
    assert metadata["encoding"] == "number" and metadata["randomization_matrix"] is None
    values = np.array(metadata["unbiased_values"])
    cells = np.array([int(r["q2"]) for r in reports])
    mean = survey_results(survey)["questions"][1]["number"]["mean"]
    assert values[cells].mean() == pytest.approx(mean["unbiased"])  # the mean, redone
    table = labelled_reports(survey)
    assert table.labels["q2"].startswith(QUESTION["text"])
    ranges = number.mechanism().cell_ranges()
    assert [[float(r["q2_low"]), float(r["q2_high"])] for r in reports] == ranges[cells].tolist()
    assert table.value_labels["q2"][0] == number.mechanism().cell_labels()[0]
    for kind in ("sav", "dta"):
        with write(survey, kind) as written:
            assert len(written.read()) > 0
    estimates = csv_rows(client.get(reverse("export-estimates-csv", args=[survey.pk])))
    assert [row["answer"] for row in estimates if row["question"] == "2"] == BINS
    assert_shape(export_metadata(survey), contracts.Metadata)


def test_simulated_respondents_answer_a_number_question(researcher):
    survey = number_survey(researcher)
    yes_no, number = survey.ordered_questions()
    simulate_responses(survey, 4000, {yes_no.pk: [0.5, 0.5], number.pk: [0.1, 0.2, 0.3, 0.4]},
                       seed=3)
    found = survey_results(survey)["questions"][1]
    assert found["n"] == 4000
    # uniform within bins: 0.1 x 23.5 + 0.2 x 37 + 0.3 x 54.5 + 0.4 x 81.5
    truth = 0.1 * 23.5 + 0.2 * 37 + 0.3 * 54.5 + 0.4 * 81.5
    mean = found["number"]["mean"]
    assert abs(mean["unbiased"] - truth) < 4 * mean["std_error"]


def test_the_authoring_panel_plans_the_mean_in_the_questions_unit(client, researcher):
    client.force_login(researcher)
    data = client.get(reverse("epsilon-explain"), {
        "epsilon": "1", "kind": "number", "k": "0", "number_min": "0", "number_max": "200",
        "number_decimals": "0"}).json()
    # k counts a number question's extra answers only: none here.
    mechanism = NUMBER.mechanism(1.0, 0, low=0, high=200, decimals=0, edges=[40, 80, 120, 160])
    assert data["encoding"] == "number"
    assert data["number"]["target_margin"] == pytest.approx(10)
    assert data["number"]["n_for_target_margin"] == mechanism.n_for_mean_margin(10)
    assert data["n_for_5_points"] == mechanism.n_for_margin(TARGET_MARGIN)
    assert [row["margin"] for row in data["number"]["margins"]] == pytest.approx(
        [mechanism.mean_margin(row["n"]) for row in data["number"]["margins"]])
    for query, error in [
        ({"number_min": "5", "number_max": "1"}, "The smallest number must be below the largest."),
        ({"number_min": "0", "number_max": "x"}, "Enter a number."),
        ({"number_min": "0", "number_max": "10", "number_bins": "3, y"}, "bins' edges"),
    ]:
        bad = client.get(reverse("epsilon-explain"), {"epsilon": "1", "kind": "number", **query})
        assert bad.status_code == 400 and error in bad.json()["error"]
    # While an end is blank, the planner assumes its default range.
    blank = client.get(reverse("epsilon-explain"), {
        "epsilon": "1", "kind": "number", "number_min": "0", "number_max": ""})
    assert blank.status_code == 200 and blank.json()["number"]["high"] == 100


def test_a_number_question_can_be_refused_skipped_and_conditional(client, researcher):
    """Authored with "Prefer not to say", optional and asked only after "Yes": two extra
    answers, each one more window of its mechanism; the respondent page offers the refusal
    beside the box and gives the browser both extra answers as its randomizer takes them."""
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    assert client.post(reverse("question-create", args=[survey.pk]), {
        "text": "Student?", "kind": "yesno", "epsilon": "1"}).status_code == 302
    condition = survey.questions.get()
    assert add_question(client, survey, offers_refusal="on", optional="on",
                        condition=f"{condition.pk}:1").status_code == 302
    question = survey.ordered_questions()[1]
    assert question.all_labels() == ["No answer", "Not asked"]
    mechanism = question.mechanism()
    assert (mechanism.extras, mechanism.k) == (2, len(BINS) + 2)
    assert mechanism.tally_size == number_core.CELLS + 2 * mechanism.width
    open_survey(survey)
    page = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert f'id="answer-{question.pk}-refusal" value="0" data-refusal' in page
    assert page.count("Prefer not to say") == 1
    # What respondents read counts every cell a report may be, the extra windows' included.
    assert f"Your browser sends one of {mechanism.tally_size} cells of a grid" in page
    data = json.loads(page.split('id="respond-data" type="application/json">')[1]
                      .split("</script>")[0])
    sent = next(q for q in data["questions"] if q["id"] == question.pk)
    assert (sent["declined"], sent["notAsked"]) == ({"extra": 0}, {"extra": 1})
    assert sent["spec"]["extras"] == 2


def test_results_of_a_number_with_extra_answers_are_among_those_who_gave_one(
        client, researcher):
    """600 respondents, 20% refusing: the mean among the others covers their true mean, the
    refusal share is estimated, and the exports give what recomputes the mean."""
    survey = Survey.objects.create(owner=researcher, title="Ages")
    Question.objects.create(
        survey=survey, order=1, text=QUESTION["text"], kind="number", epsilon=2.0,
        number_min=18, number_max=99, number_bins="30, 45, 65", offers_refusal=True)
    open_survey(survey)
    (question,) = survey.ordered_questions()
    mechanism = question.mechanism()
    rng = np.random.default_rng(8)
    n = 600
    ages = rng.integers(18, 60, size=n).astype(float)
    refused = np.where(rng.random(n) < 0.2, 0, -1)
    reports = mechanism.perturb(ages, rng, extra=refused)
    for i in range(n):
        submission_create(survey=survey, idempotency_key=f"extra-answer-{i}",
                          reports={question.pk: int(reports[i])})
    client.force_login(researcher)
    data = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    (found,) = data["questions"]
    assert_shape(data, contracts.SurveyResults)
    assert found["labels"] == [*BINS, "No answer"] and found["extra_answers"] == 1
    counts, n = recount(question)
    mean = found["number"]["mean"]
    assert mean == pytest.approx(mechanism.mean(counts, n).to_dict())
    assert mean["ci_low"] < ages[refused < 0].mean() < mean["ci_high"]
    refusal = found["categories"][-1]["estimate"]
    assert found["number"]["answered"] == pytest.approx(1 - refusal)
    # Within 5 standard errors of the refusal share read from its window alone: a report
    # falls there with probability p if refused, w q otherwise.
    inside, outside = mechanism.p, mechanism.width * (1 - mechanism.p) / (
        mechanism.tally_size - mechanism.width)
    falls = outside + (inside - outside) * np.mean(refused == 0)
    std_error = np.sqrt(falls * (1 - falls) / n) / (inside - outside)
    assert abs(refusal - np.mean(refused == 0)) < 5 * std_error
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "Estimated mean among those who gave a number (an estimated" in page
    metadata = export_metadata(survey)["questions"][0]
    values = np.array(metadata["unbiased_values"]) @ counts
    answered = np.array(metadata["answered_values"]) @ counts
    assert values / answered == pytest.approx(mean["unbiased"])
