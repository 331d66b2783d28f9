"""Check-all-that-apply questions (surveys/kinds/checkall.py) through the site: authoring,
readiness, mechanism, the respondent's check boxes, submissions, results with the mean number
of options ticked, no breakdowns, exports and the authoring panel's planner."""

import csv
import io
import json
import re

import numpy as np
import pytest
from django.urls import reverse

from surveys import ldp
from surveys.actions.submissions import SubmissionError, submission_create
from surveys.actions.surveys import open_survey
from surveys.helpers.privacy_words import describe_survey_protection
from surveys.kinds import CHECK_ALL, KINDS
from surveys.ldp import checkall as checkall_core
from surveys.ldp import joint
from surveys.ldp.checkall import option_breakdowns
from surveys.models import Choice, Question, Submission, Survey
from surveys.queries import contracts
from surveys.queries.breakdowns import breakdown_results
from surveys.queries.results import TARGET_MARGIN, export_metadata, survey_results
from surveys.queries.schedule import readiness_problems
from surveys.queries.stats_files import labelled_reports
from tests.helpers import assert_shape, recount, stored_reports

pytestmark = pytest.mark.django_db

OPTIONS = ["Cannabis", "Alcohol", "Tobacco", "None of these drugs, but caffeine"]
QUESTION = {"text": "Which have you used this month?", "kind": "checkall", "epsilon": "1",
            "choices": "\n".join(OPTIONS)}
SHARES = np.array([0.2, 0.7, 0.3, 0.9])
"""The true share of respondents ticking each option, in the simulations below."""


def add_question(client, survey, **changes):
    return client.post(reverse("question-create", args=[survey.pk]), {**QUESTION, **changes})


def test_a_researcher_adds_a_check_all_question_with_its_options(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    assert add_question(client, survey).status_code == 302
    (question,) = survey.ordered_questions()
    assert question.kind == "checkall" and question.labels() == OPTIONS
    assert KINDS["checkall"] is CHECK_ALL and not CHECK_ALL.groups


@pytest.mark.parametrize("changes,error", [
    ({"choices": "Only one"}, "at least two choices"),
    ({"choices": "A\na"}, "Each choice must be different"),
    ({"choices": "\n".join(f"Option {i}" for i in range(21))}, "at most 20 options"),
    ({"used_for_breakdowns": "on"}, "cannot group respondents"),
])
def test_a_bad_check_all_question_gets_a_clear_error_and_stores_nothing(
    client, researcher, changes, error
):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    response = add_question(client, survey, **changes)
    assert response.status_code == 200 and error in response.content.decode()
    assert not Question.objects.exists() and not Choice.objects.exists()


def test_a_check_all_question_with_too_many_options_cannot_open(researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    question = Question.objects.create(survey=survey, order=1, text="Used", kind="checkall",
                                       epsilon=1.0)
    for i in range(21):
        Choice.objects.create(question=question, order=i, label=f"Option {i}")
    assert readiness_problems(survey) == ["“Used” has more than 20 options."]


def test_it_samples_one_box_at_the_full_epsilon():
    mechanism = CHECK_ALL.mechanism(1.5, 4)
    assert isinstance(mechanism, ldp.SampledBoxes)
    assert (mechanism.k, mechanism.epsilon, mechanism.tally_size) == (4, 1.5, 8)
    assert mechanism.exact_epsilon() == pytest.approx(1.5, abs=1e-12)


def checkall_survey(owner, epsilon=2.0) -> Survey:
    """An open survey: a yes/no question, then a check-all question of four options."""
    survey = Survey.objects.create(owner=owner, title="Habits", introduction="Please answer.")
    Question.objects.create(survey=survey, order=1, text="Student?", kind="yesno", epsilon=1.0)
    question = Question.objects.create(survey=survey, order=2, text=QUESTION["text"],
                                       kind="checkall", epsilon=epsilon)
    for i, label in enumerate(OPTIONS):
        Choice.objects.create(question=question, order=i, label=label)
    open_survey(survey)
    return survey


def answer(survey, n, seed=5):
    """n submissions randomized from true ticked sets drawn with ``SHARES``."""
    rng = np.random.default_rng(seed)
    yes_no, checkall = survey.ordered_questions()
    ticked = (rng.random((n, len(OPTIONS))) < SHARES).astype(np.int64)
    yes_reports = yes_no.mechanism().perturb(rng.integers(0, 2, size=n), rng)
    reports = checkall.mechanism().perturb(ticked, rng)
    for i in range(n):
        submission_create(survey=survey, idempotency_key=f"checkall-{seed}-{i}", reports={
            yes_no.pk: int(yes_reports[i]), checkall.pk: reports[i].tolist()})
    survey.refresh_from_db()


def test_the_respondent_page_offers_native_check_boxes_in_its_fieldset(client, researcher):
    survey = checkall_survey(researcher)
    question = survey.ordered_questions()[1]
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert f'data-question="{question.pk}" data-control="check_all"' in html
    for i in range(len(OPTIONS)):
        assert (f'type="checkbox" id="answer-{question.pk}-{i}" name="answer-{question.pk}" '
                f'value="{i}"') in html
    assert "Tick every option that applies to you, or none." in html
    spanish = client.get(reverse("respond", args=[survey.public_id]),
                         HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Marque todas las opciones que correspondan a su caso, o ninguna." in spanish
    assert "Su navegador elige al azar una de las 4 opciones" in spanish


def test_a_report_is_stored_in_its_tally_cell(researcher):
    survey = checkall_survey(researcher)
    yes_no, checkall = survey.ordered_questions()
    submission_create(survey=survey, idempotency_key="k" * 20,
                      reports={yes_no.pk: 1, checkall.pk: [2, 1]})
    counts = [tally.count for tally in checkall.tallies.order_by("index")]
    assert counts == [0, 0, 0, 0, 0, 1, 0, 0]


@pytest.mark.parametrize("report", [[4, 1], [0, 2], [1], [0, 1, 1, 0], 3, [True, 1], "01"])
def test_a_bad_report_is_refused_and_nothing_stored(researcher, report):
    survey = checkall_survey(researcher)
    yes_no, checkall = survey.ordered_questions()
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, idempotency_key="k" * 20,
                          reports={yes_no.pk: 1, checkall.pk: report})
    assert error.value.status == 400 and "option number from 0 to 3" in error.value.message
    assert not Submission.objects.exists()
    assert {tally.count for tally in checkall.tallies.all()} == {0}


def test_the_submission_endpoint_refuses_a_true_set(client, researcher):
    """A page that sent the ticked boxes themselves is refused with a clear 400, not a 500."""
    survey = checkall_survey(researcher)
    yes_no, checkall = survey.ordered_questions()
    body = {"idempotency_key": "k" * 24, "invitation": None, "wording": 0,
            "reports": {str(yes_no.pk): 1, str(checkall.pk): [1, 0, 1, 1]}}
    response = client.post(reverse("respond-submit", args=[survey.public_id]),
                           json.dumps(body), content_type="application/json")
    assert response.status_code == 400 and not Submission.objects.exists()


def test_results_give_every_share_and_the_mean_number_ticked(client, researcher):
    survey = checkall_survey(researcher)
    answer(survey, 400)
    client.force_login(researcher)
    data = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    yes_json, checkall_json = data["questions"]
    assert yes_json["mean_count"] is None
    counts, n = recount(survey.ordered_questions()[1])
    mechanism = ldp.from_spec(checkall_json["mechanism"])
    expected = mechanism.estimate(counts, n)
    shown = checkall_json["categories"]
    assert [c["label"] for c in shown] == OPTIONS
    assert [c["estimate"] for c in shown] == pytest.approx(list(expected.headline))
    assert [c["ci_low"] for c in shown] == pytest.approx(list(expected.ci_low))
    assert checkall_json["mean_count"] == pytest.approx(mechanism.mean_count(counts, n).to_dict())
    mean = checkall_json["mean_count"]
    assert 0 <= mean["ci_low"] < mean["estimate"] < mean["ci_high"] <= 4
    # 400 reports at epsilon 2: every share and the mean within 5 standard errors of the truth
    for category, share in zip(shown, SHARES, strict=True):
        assert abs(category["unbiased"] - share) < 5 * category["std_error"]
    assert abs(mean["unbiased"] - SHARES.sum()) < 5 * mean["std_error"]
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert f'data-mean-count>{mean["estimate"]:.2f}</p>' in page
    assert f"95% interval {mean['ci_low']:.2f} to {mean['ci_high']:.2f}" in page
    assert f"Before it is kept within 0 and the number of options: {mean['unbiased']:.2f}" in page
    assert "One option is picked at random; its box is sent as the respondent set it" in page
    # the check-all question can be broken down by the yes/no one, not the other way round
    assert page.count("Break this question down by") == 1
    chooser = re.search(r'<a href="([^"]+)">Break this question down by', page).group(1)
    assert f'<option value="{yes_json["id"]}">' in client.get(chooser).content.decode()


def test_results_before_any_response_have_no_estimate(researcher):
    survey = checkall_survey(researcher)
    found = survey_results(survey)["questions"][1]
    assert found["categories"] is None and found["mean_count"] is None


def test_a_check_all_question_cannot_group_another(client, researcher):
    survey = checkall_survey(researcher)
    answer(survey, 20)
    yes_no, checkall = survey.ordered_questions()
    client.force_login(researcher)
    response = client.get(reverse("question-breakdown-json", args=[survey.pk, yes_no.pk]),
                          {"by": checkall.pk})
    assert response.status_code == 400
    assert "A check-all question cannot group respondents" in response.content.decode()


def test_a_breakdown_gives_each_options_share_within_each_group(client, researcher):
    survey = checkall_survey(researcher)
    answer(survey, 300)
    yes_no, checkall = survey.ordered_questions()
    reports = stored_reports(survey)
    mechanism = checkall.mechanism()
    counts = joint.pair_counts(
        yes_no.mechanism(), mechanism, [r[str(yes_no.pk)] for r in reports],
        [mechanism.support(r[str(checkall.pk)])[0] for r in reports])
    expected = option_breakdowns(yes_no.mechanism(), mechanism, counts)
    client.force_login(researcher)
    data = client.get(reverse("question-breakdown-json", args=[survey.pk, checkall.pk]),
                      {"by": yes_no.pk}).json()
    assert data["n"] == 300
    for g, group in enumerate(data["groups"]):
        assert [a["label"] for a in group["answers"]] == OPTIONS
        assert group["share"] == pytest.approx(expected.ticked.group_share[g])
        for j, found in enumerate(group["answers"]):
            option = expected.options[j]
            assert found["share"] == pytest.approx(option.share[g, 1])
            assert (found["ci_low"], found["ci_high"]) == pytest.approx(
                (option.share_ci_low[g, 1], option.share_ci_high[g, 1]))
    difference = expected.options[2].difference(1, 0)
    assert data["difference"]["answers"][2]["estimate"] == pytest.approx(difference.estimate[1])
    rows = csv_rows(client.get(reverse("question-breakdown-csv",
                                       args=[survey.pk, checkall.pk]), {"by": yes_no.pk}))
    assert [row["answer"] for row in rows] == OPTIONS * 2
    page = client.get(reverse("question-breakdown", args=[survey.pk, checkall.pk]),
                      {"by": yes_no.pk})
    assert page.status_code == 200 and "Tobacco" in page.content.decode()
    assert_shape(data, contracts.BreakdownResults)


def csv_rows(response) -> list[dict[str, str]]:
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def test_exports_carry_the_reports_their_labels_and_the_estimates(client, researcher):
    survey = checkall_survey(researcher)
    answer(survey, 30)
    client.force_login(researcher)
    reports = csv_rows(client.get(reverse("export-reports-csv", args=[survey.pk])))
    assert list(reports[0]) == ["response", "q1", "q2_option", "q2_ticked", "wording",
                                *(f"q2_{c}" for c in range(len(OPTIONS)))]
    stored = [s.reports for s in Submission.objects.order_by("pk")]
    checkall = survey.ordered_questions()[1]
    assert [[int(r["q2_option"]), int(r["q2_ticked"])] for r in reports] == [
        s[str(checkall.pk)] for s in stored]
    metadata = export_metadata(survey)["questions"][1]
    assert metadata["columns"] == ["q2_option", "q2_ticked"] and metadata["labels"] == OPTIONS
    assert metadata["encoding"] == "sampled" and "'_option'" in metadata["reading"]
    assert metadata["randomization_matrix"] is None
    estimates = csv_rows(client.get(reverse("export-estimates-csv", args=[survey.pk])))
    assert [row["answer"] for row in estimates if row["question"] == "2"] == OPTIONS
    table = labelled_reports(survey)
    assert table.value_labels["q2_option"] == dict(enumerate(OPTIONS))
    assert table.value_labels["q2_ticked"] == {0: "not ticked", 1: "ticked"}
    assert table.labels["q2_ticked"] == f"{QUESTION['text']}: that option ticked (randomized)"


def test_the_authoring_panel_plans_the_respondents_for_an_options_share(client, researcher):
    client.force_login(researcher)
    data = client.get(reverse("epsilon-explain"),
                      {"epsilon": "1", "kind": "checkall", "k": "5"}).json()
    mechanism = CHECK_ALL.mechanism(1.0, 5)
    assert data["encoding"] == "sampled"
    assert data["n_for_5_points"] == mechanism.n_for_margin(TARGET_MARGIN)
    assert [row["margin"] for row in data["margins"]] == pytest.approx(
        [mechanism.margin_of_error(row["n"]) for row in data["margins"]])


def test_the_json_of_a_check_all_question_has_exactly_the_declared_fields(researcher):
    survey = checkall_survey(researcher)
    answer(survey, 30)
    assert_shape(survey_results(survey), contracts.SurveyResults)
    assert_shape(export_metadata(survey), contracts.Metadata)


def test_the_authoring_panel_refuses_to_plan_a_check_all_question_as_a_grouping_one(
    client, researcher
):
    client.force_login(researcher)
    response = client.get(reverse("epsilon-explain"), {
        "epsilon": "1", "kind": "checkall", "k": "4", "grouping": "1", "group_share": "20"})
    assert response.status_code == 400
    assert "cannot group respondents" in response.json()["error"]


def test_pages_offer_only_questions_that_can_group_and_list_its_options(client, researcher):
    survey = checkall_survey(researcher)
    answer(survey, 20)
    yes_no, checkall = survey.ordered_questions()
    client.force_login(researcher)
    page = client.get(reverse("question-breakdown", args=[survey.pk, checkall.pk]),
                      {"by": yes_no.pk}).content.decode()
    assert f'<option value="{yes_no.pk}"' in page
    assert f'<option value="{checkall.pk}"' not in page
    detail = client.get(reverse("survey-detail", args=[survey.pk])).content.decode()
    assert ", ".join(OPTIONS) in detail


def test_a_check_all_question_says_nothing_of_a_true_answer_getting_through():
    assert describe_survey_protection([checkall_core.sampled_boxes(1.0, 4)]) == ""
    assert "73%" in describe_survey_protection(
        [checkall_core.sampled_boxes(1.0, 4), ldp.randomized_response(1.0)])


# "Prefer not to say" and conditions: extra boxes -------------------------------------------

AMONG = np.array([0.2, 0.7, 0.3, 0.9])
"""The true share of those who answer the follow-up ticking each option, below."""


def follow_up_survey(client, researcher) -> Survey:
    """A yes/no question, then a check-all follow-up asked only of those answering "Yes" that
    offers "Prefer not to say", authored through the form; opened."""
    survey = Survey.objects.create(owner=researcher, title="Habits")
    client.force_login(researcher)
    response = client.post(reverse("question-create", args=[survey.pk]),
                           {"text": "Student?", "kind": "yesno", "epsilon": "1"})
    assert response.status_code == 302
    student = survey.questions.get()
    response = add_question(client, survey, offers_refusal="on", condition=f"{student.pk}:1")
    assert response.status_code == 302
    open_survey(survey)
    return survey


def answer_follow_up(survey, n, seed=7) -> None:
    """n submissions: half answer "Yes" and are asked, of whom 10% refuse and the others tick
    options with ``AMONG``; the rest are not asked. Each ticks only its extra box, if any."""
    rng = np.random.default_rng(seed)
    student, follow_up = survey.ordered_questions()
    asked = rng.random(n) < 0.5
    refused = asked & (rng.random(n) < 0.1)
    boxes = np.zeros((n, len(OPTIONS) + 2), dtype=np.int64)
    boxes[:, :4] = (rng.random((n, 4)) < AMONG) & (asked & ~refused)[:, None]
    boxes[refused, 4] = 1
    boxes[~asked, 5] = 1
    yes_reports = student.mechanism().perturb(asked.astype(np.int64), rng)
    reports = follow_up.mechanism().perturb(boxes, rng)
    for i in range(n):
        submission_create(survey=survey, idempotency_key=f"follow-{seed}-{i}", reports={
            student.pk: int(yes_reports[i]), follow_up.pk: reports[i].tolist()})
    survey.refresh_from_db()


def test_a_check_all_question_may_offer_a_refusal_and_be_conditional_but_not_optional(
    client, researcher
):
    survey = Survey.objects.create(owner=researcher, title="Habits")
    client.force_login(researcher)
    response = add_question(client, survey, optional="on")
    assert response.status_code == 200 and not Question.objects.exists()
    assert ("A check-all question cannot be optional: ticking none is already an answer. Offer "
            "“Prefer not to say” to let respondents decline it.") in response.content.decode()
    assert CHECK_ALL.form_facts()["extras"] and not CHECK_ALL.form_facts()["skippable"]
    assert KINDS["yesno"].form_facts()["skippable"]
    survey = follow_up_survey(client, researcher)
    student, follow_up = survey.ordered_questions()
    assert follow_up.all_labels() == [*OPTIONS, "No answer", "Not asked"]
    assert follow_up.mechanism().k == 6 and follow_up.mechanism().name == "sampled"
    assert (follow_up.asked_if, follow_up.asked_if_answer) == (student, 1)
    # it still cannot be a condition itself: it has no one answer per respondent
    draft = Survey.objects.create(owner=researcher, title="Draft")
    first = Question.objects.create(survey=draft, order=1, text="Which?", kind="checkall",
                                    epsilon=1.0)
    later = Question(survey=draft, order=2, text="Then?", kind="yesno", epsilon=1.0,
                     asked_if=first, asked_if_answer=0)
    assert "asked_if" in later.condition_problems()


def test_the_most_options_take_their_extra_boxes():
    assert CHECK_ALL.mechanism(1.0, ldp.MAX_OPTIONS + 2).k == ldp.MAX_OPTIONS + 2
    assert CHECK_ALL.answer_problems([f"o{i}" for i in range(ldp.MAX_OPTIONS + 1)])
    assert CHECK_ALL.browser_answer(4, 6) == [0, 0, 0, 0, 1, 0]


def test_the_respondent_page_offers_a_separate_refusal_box_and_sends_boxes_for_extras(
    client, researcher
):
    survey = follow_up_survey(client, researcher)
    follow_up = survey.ordered_questions()[1]
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert 'data-boxes="6"' in html
    assert (f'type="checkbox" id="answer-{follow_up.pk}-4" value="4" data-refusal') in html
    assert f'type="radio" id="answer-{follow_up.pk}-4"' not in html
    assert html.count("Prefer not to say") == 1
    data = json.loads(html.split('id="respond-data" type="application/json">')[1]
                      .split("</script>")[0])
    browser = data["questions"][1]
    assert browser["k"] == 6 and not browser["optional"]
    assert browser["declined"] == [0, 0, 0, 0, 1, 0]
    assert browser["notAsked"] == [0, 0, 0, 0, 0, 1]
    assert browser["askedIf"] == {"question": survey.ordered_questions()[0].pk, "answer": 1}
    spanish = client.get(reverse("respond", args=[survey.public_id]),
                         HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Prefiero no responder" in spanish


def test_results_give_the_extras_and_the_shares_and_mean_among_those_who_answered(
    client, researcher
):
    survey = follow_up_survey(client, researcher)
    answer_follow_up(survey, 3000)
    follow_up = survey.ordered_questions()[1]
    data = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    found = data["questions"][1]
    assert found["labels"] == [*OPTIONS, "No answer", "Not asked"]
    assert found["extra_answers"] == 2
    counts, n = recount(follow_up)
    expected = follow_up.mechanism().among_answered(counts, n, 4)
    among = found["among"]
    assert among["among"] == "answered" and among["answered"] == pytest.approx(expected.answered)
    assert [c["label"] for c in among["categories"]] == OPTIONS
    assert [c["estimate"] for c in among["categories"]] == pytest.approx(list(expected.estimate))
    assert [c["ci_low"] for c in among["categories"]] == pytest.approx(list(expected.ci_low))
    mean = found["mean_count"]
    assert mean == pytest.approx(expected.mean_score.to_dict())
    assert 0 <= mean["ci_low"] < mean["estimate"] < mean["ci_high"] <= 4
    # 3,000 reports at epsilon 1 (about 750 asked): the truth within the intervals' reach
    assert abs(mean["unbiased"] - AMONG.sum()) < 5 * mean["std_error"]
    assert abs(among["answered"] - 0.45) < 0.15
    shares = {c["label"]: c for c in found["categories"]}
    assert abs(shares["Not asked"]["unbiased"] - 0.5) < 5 * shares["Not asked"]["std_error"]
    assert_shape(data, contracts.SurveyResults)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "Estimated mean number of options ticked among those who answered, out of 4" in page
    assert f'data-mean-count>{mean["estimate"]:.2f}</p>' in page
    assert "Among those who answered (an estimated" in page
    before = survey_results(follow_up_survey(client, researcher))["questions"][1]
    assert before["categories"] is None and before["mean_count"] is None
    assert [c["ci_high"] for c in before["among"]["categories"]] == [1.0] * 4


def test_breakdowns_and_exports_name_the_extra_boxes(client, researcher):
    survey = follow_up_survey(client, researcher)
    answer_follow_up(survey, 200)
    student, follow_up = survey.ordered_questions()
    labels = [*OPTIONS, "No answer", "Not asked"]
    data = breakdown_results(survey, follow_up, student)
    assert [a["label"] for a in data["groups"][0]["answers"]] == labels
    assert [a["label"] for a in data["difference"]["answers"]] == labels
    assert_shape(data, contracts.BreakdownResults)
    page = client.get(reverse("question-breakdown", args=[survey.pk, follow_up.pk]),
                      {"by": student.pk}).content.decode()
    assert "Not asked" in page and "No answer" in page
    metadata = export_metadata(survey)["questions"][1]
    assert metadata["labels"] == labels and metadata["extra_answers"] == 2
    assert metadata["asked_if"] == {"position": 1, "answer": 1}
    assert labelled_reports(survey).value_labels["q2_option"] == dict(enumerate(labels))
    estimates = csv_rows(client.get(reverse("export-estimates-csv", args=[survey.pk])))
    assert [row["answer"] for row in estimates if row["question"] == "2"] == labels


def test_a_follow_up_nobody_may_decline_gives_its_figures_among_those_asked(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="Habits")
    student = Question.objects.create(survey=survey, order=1, text="Student?", kind="yesno",
                                      epsilon=1.0)
    follow_up = Question.objects.create(survey=survey, order=2, text=QUESTION["text"],
                                        kind="checkall", epsilon=1.0, asked_if=student,
                                        asked_if_answer=1)
    for i, label in enumerate(OPTIONS):
        Choice.objects.create(question=follow_up, order=i, label=label)
    open_survey(survey)
    assert follow_up.all_labels() == [*OPTIONS, "Not asked"]
    rng = np.random.default_rng(9)
    boxes = np.zeros((300, 5), dtype=np.int64)
    boxes[:150, :4] = rng.random((150, 4)) < AMONG
    boxes[150:, 4] = 1
    reports = follow_up.mechanism().perturb(boxes, rng)
    for i in range(300):
        submission_create(survey=survey, idempotency_key=f"asked-follow-up-{i}", reports={
            student.pk: int(i < 150), follow_up.pk: reports[i].tolist()})
    found = survey_results(survey)["questions"][1]
    assert found["among"]["among"] == "asked" and found["extra_answers"] == 1
    client.force_login(researcher)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "Estimated mean number of options ticked among those asked, out of 4" in page
    # What its respondents read counts the box they never see, and says what it is.
    client.logout()
    page = client.get(survey.get_public_url()).content.decode()
    assert "picks one of 5 boxes at random, the 4 you see and one for “Not asked”" in page
    assert "picks one of the 5 options" not in page
