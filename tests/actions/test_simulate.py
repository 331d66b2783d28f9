"""Simulated respondents: stored like real ones, and estimated close to the known truth."""

import io

import numpy as np
import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse

from surveys.actions.simulate import DEMO_TITLE, DEMO_TRUTH, load_demo_responses, simulate_responses
from surveys.actions.surveys import open_survey
from surveys.models import PrivacyPolicy, Submission, Survey, total_epsilon
from surveys.queries.access import RESEARCHERS_GROUP
from tests.helpers import recount, stored_reports

pytestmark = pytest.mark.django_db


def run_demo_command() -> None:
    call_command("demo", force=True, stdout=io.StringIO())


@pytest.fixture
def demo() -> Survey:
    """The demo survey as the demo command makes it, with its simulated respondents."""
    # A migration makes the group, and a transactional test's flush may have removed it.
    Group.objects.get_or_create(name=RESEARCHERS_GROUP)
    run_demo_command()
    return Survey.objects.get()


def get_json(client, survey: Survey) -> dict:
    client.force_login(survey.owner)
    return client.get(reverse("survey-results-json", args=[survey.pk])).json()


def test_it_stores_the_demo_truth_on_its_questions(demo):
    assert demo.title == DEMO_TITLE
    assert [q.simulated_truth for q in demo.ordered_questions()] == [list(t) for t in DEMO_TRUTH]


def test_it_estimates_the_demo_truth_within_five_standard_errors(client, demo):
    data = get_json(client, demo)
    assert data["survey"]["responses"] == 3000
    for question, truth in zip(data["questions"], DEMO_TRUTH, strict=True):
        for category, true_share in zip(question["categories"], truth, strict=True):
            assert category["truth"] == true_share
            if question["number"]:
                continue  # its bins have no standard error: its mean is checked below
            # The unbiased estimate is centred on the truth with this standard error, so
            # five of them is a miss that a correct estimator makes once in ~2 million.
            assert abs(category["unbiased"] - true_share) <= 5 * category["std_error"]
    (drinking,) = [question for question in data["questions"] if question["number"]]
    # Days drunk, uniform within the bins 0, 1-4, 5-9, 10-19, 20-30: their means.
    true_mean = np.array(DEMO_TRUTH[3]) @ [0, 2.5, 7, 14.5, 25]
    mean = drinking["number"]["mean"]
    assert abs(mean["unbiased"] - true_mean) <= 5 * mean["std_error"]


def test_it_shows_the_truth_only_on_the_demo(client, demo, make_survey):
    client.force_login(demo.owner)
    page = client.get(reverse("survey-results", args=[demo.pk])).content.decode()
    assert "Demo survey." in page and "True share (demo)" in page
    # Same owner, questions and simulated answers, but no stored truth: nothing to show.
    year, yes_no = demo.ordered_questions()[:2]
    lookalike = make_survey(demo.owner, labels=tuple(year.labels()), title="Other")
    lookalike.questions.filter(kind="yesno").update(offers_refusal=True)  # as the demo's
    open_survey(lookalike)
    simulate_responses(lookalike, 50, {new.pk: old.simulated_truth for new, old in zip(
        lookalike.ordered_questions(), (yes_no, year), strict=True)}, seed=1)
    page = client.get(reverse("survey-results", args=[lookalike.pk])).content.decode()
    assert "Demo survey." not in page and "True share" not in page
    assert all(c["truth"] is None for q in get_json(client, lookalike)["questions"]
               for c in q["categories"])


def test_it_knows_no_truth_for_a_survey_only_titled_like_the_demo(researcher, make_survey):
    survey = make_survey(researcher, status="open", title=DEMO_TITLE)
    with pytest.raises(ValueError, match="adding up to 1"):
        load_demo_responses(survey)
    assert not Submission.objects.exists()


def test_the_demo_command_makes_the_demo_survey_once(demo):
    run_demo_command()
    assert Survey.objects.get() == demo
    assert Submission.objects.count() == 3000


def test_it_stores_simulated_responses_like_real_ones(demo):
    assert Submission.objects.filter(survey=demo).count() == demo.response_count == 3000
    for question in demo.ordered_questions():
        counts, n = recount(question)
        assert n == 3000
        assert list(question.tallies.order_by("index").values_list("count", flat=True)) == (
            counts.tolist()
        )
    keys = Submission.objects.filter(survey=demo).values_list("idempotency_key", flat=True)
    assert len(set(keys)) == 3000


def test_it_draws_the_same_reports_from_the_same_seed(researcher, make_survey):
    surveys = [make_survey(researcher, status="open", epsilons=(1.0, 0.5), labels=tuple("ABCDEFGH"))
               for _ in range(2)]
    for survey in surveys:
        truth = {q.pk: [1 / q.mechanism().k] * q.mechanism().k for q in survey.ordered_questions()}
        simulate_responses(survey, 40, truth, seed=11)
    first, second = (
        [[reports[str(q.pk)] for reports in stored_reports(s)] for q in s.ordered_questions()]
        for s in surveys
    )
    assert first == second
    assert all(len(report) == 8 for report in first[1])  # unary: one bit per answer


@pytest.mark.parametrize("truth", [[0.5, 0.5], [0.2, 0.2, 0.2], [0.7, 0.2, 0.2], [-0.2, 0.6, 0.6]])
def test_it_refuses_a_truth_that_is_not_a_distribution(researcher, make_survey, truth):
    survey = make_survey(researcher, status="open")
    yes_no, categorical = survey.ordered_questions()
    with pytest.raises(ValueError, match="adding up to 1"):
        simulate_responses(survey, 10, {yes_no.pk: [0.5, 0.5], categorical.pk: truth}, seed=1)
    assert not Submission.objects.exists()


def test_it_refuses_a_survey_that_is_not_open(researcher, make_survey):
    survey = make_survey(researcher)
    with pytest.raises(ValueError, match="open survey"):
        simulate_responses(survey, 10, {}, seed=1)
    assert not Submission.objects.exists()


def test_the_demo_truths_agree_with_one_another(demo):
    """Each question drawn within the groups of another has, as its own truth, the mixture of
    its groups' distributions; the frequency is asked exactly of those who used cannabis in
    the past year (everyone else is "Not asked"), and "Cannabis" ticked exactly by them."""
    year, use, frequency, drinking, substances, anchor = demo.ordered_questions()
    assert use.simulated_given["question"] == year.pk
    assert frequency.simulated_given["question"] == use.pk == substances.simulated_given[
        "question"]
    for question, groups in ((use, year), (frequency, use), (drinking, use), (substances, use)):
        within = np.array(question.simulated_given["shares"])
        assert np.allclose(np.array(groups.simulated_truth) @ within, question.simulated_truth)
    assert (frequency.asked_if, frequency.asked_if_answer) == (use, use.labels().index("Yes"))
    not_asked = frequency.all_labels().index("Not asked")
    assert [row[not_asked] for row in frequency.simulated_given["shares"]] == [1.0, 0.0, 1.0]
    # At least as many drank on no day of the past 30 as did not drink in the past 12 months.
    alcohol = substances.labels().index("Alcohol")
    for days, ticked in zip(drinking.simulated_given["shares"],
                            substances.simulated_given["shares"], strict=True):
        assert days[0] >= 1 - ticked[alcohol]
    cannabis = substances.labels().index("Cannabis")
    assert [row[cannabis] for row in substances.simulated_given["shares"]] == [0.0, 1.0, 0.5]
    assert anchor.known_share == 0.0 and anchor.simulated_truth == [1.0, 0.0]


def test_the_demo_stays_within_the_default_limit_and_asks_for_consent(demo):
    assert total_epsilon(demo.ordered_questions()) <= PrivacyPolicy.current().max_survey_epsilon
    assert demo.consent_required and demo.study_by and demo.ethics_reference


def test_the_demos_anchor_agrees_with_its_known_share(client, demo):
    """Its simulated respondents answer with care: the anchor agrees at 3,000 responses."""
    anchor = get_json(client, demo)["questions"][5]["anchor"]
    assert anchor["known"] == 0.0 and anchor["agrees"]


def test_a_check_all_truth_is_a_share_per_option_from_0_to_1(demo):
    """Each option of a check-all question is ticked on its own: its truth need not add up
    to 1, but each share must lie in [0, 1]; nothing is stored otherwise."""
    *_, substances, anchor = demo.ordered_questions()
    others = {q.pk: q.simulated_truth for q in demo.ordered_questions()[:4]}
    with pytest.raises(ValueError, match="shares from 0 to 1"):
        simulate_responses(demo, 10, {**others, substances.pk: [1.2, 0, 0, 0, 0],
                                      anchor.pk: [1.0, 0.0]}, seed=1)
    assert Submission.objects.filter(survey=demo).count() == 3000
    simulate_responses(demo, 10, {**others, substances.pk: [1.0] * 5, anchor.pk: [1, 0]}, seed=1)
    assert Submission.objects.filter(survey=demo).count() == 3010
