"""Simulated respondents: stored like real ones, and estimated close to the known truth."""

import io
import itertools

import numpy as np
import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse

from surveys.actions.demo import (
    DEMO_ASKED,
    DEMO_BUDGET,
    DEMO_RESPONDENTS,
    DEMO_TITLE,
    DEMO_TRUTH,
    QUESTIONS,
)
from surveys.actions.simulate import load_demo_responses, simulate_responses
from surveys.actions.surveys import open_survey
from surveys.models import PrivacyPolicy, Submission, Survey, drawn_at_random, survey_epsilon
from surveys.queries.access import RESEARCHERS_GROUP
from surveys.queries.designs import plan
from surveys.queries.results import true_among, true_mean
from tests.helpers import stored_reports

pytestmark = pytest.mark.django_db

RESPONDENTS = 2000
"""The tests' demo: fewer simulated respondents than the command's default, to be quick."""


def run_demo_command() -> None:
    call_command("demo", force=True, respondents=RESPONDENTS, stdout=io.StringIO())


@pytest.fixture
def demo() -> Survey:
    """The demo survey as the demo command makes it, with its simulated respondents."""
    # A migration makes the group, and a transactional test's flush may have removed it.
    Group.objects.get_or_create(name=RESEARCHERS_GROUP)
    run_demo_command()
    return Survey.objects.get()


def named(survey: Survey) -> dict:
    """The demo's questions by their names in ``QUESTIONS``."""
    return {spec["name"]: q for spec, q in zip(QUESTIONS, survey.ordered_questions(), strict=True)}


def get_json(client, survey: Survey) -> dict:
    client.force_login(survey.owner)
    return client.get(reverse("survey-results-json", args=[survey.pk])).json()


def test_it_stores_the_demo_truth_on_its_questions(demo):
    assert demo.title == DEMO_TITLE
    assert {name: q.simulated_truth for name, q in named(demo).items()} == DEMO_TRUTH
    assert len(QUESTIONS) == 20


def bins_means(spec: dict) -> list[float]:
    """The mean of each bin of a demo number question (whole numbers, drawn uniformly from
    those of the bin; the last bin holds the top of the range)."""
    low, high, bins = spec["range"]
    cuts = [low, *(int(edge) for edge in bins.split(",")), high + 1]
    return [(first + after - 1) / 2 for first, after in itertools.pairwise(cuts)]


def test_it_estimates_the_demo_truth_within_five_standard_errors(client, demo):
    data = get_json(client, demo)
    assert data["survey"]["responses"] == RESPONDENTS
    for question, spec in zip(data["questions"], QUESTIONS, strict=True):
        truth = DEMO_TRUTH[spec["name"]]
        for category, true_share in zip(question["categories"], truth, strict=True):
            assert category["truth"] == true_share
            if question["number"]:
                continue  # its bins have no standard error: its mean is checked below
            # The unbiased estimate is centred on the truth with this standard error, so
            # five of them is a miss that a correct estimator makes once in ~2 million.
            assert abs(category["unbiased"] - true_share) <= 5 * category["std_error"]
        if question["number"]:
            true_mean = np.array(truth) @ bins_means(spec)
            mean = question["number"]["mean"]
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
        load_demo_responses(survey, 10)
    assert not Submission.objects.exists()


def test_the_demo_command_makes_the_demo_survey_once(demo):
    run_demo_command()
    assert Survey.objects.get() == demo
    assert Submission.objects.count() == RESPONDENTS


def test_it_stores_simulated_responses_like_real_ones(demo):
    """Every respondent answers the questions asked of everyone and one block drawn at
    random (the demo's design): the others' reports are stored as not drawn."""
    assert Submission.objects.filter(survey=demo).count() == demo.response_count == RESPONDENTS
    questions = list(demo.ordered_questions())
    at_random = drawn_at_random(demo, questions)
    drawn = 0
    for question in questions:
        reports = [r[str(question.pk)] for r in stored_reports(demo)]
        asked = [r for r in reports if r is not None]
        random = question.pk in at_random
        assert len(asked) == (question.drawn_count if random else RESPONDENTS)
        drawn += len(asked) if random else 0
        counts = question.mechanism().support_counts(np.array(asked, dtype=np.int64))
        assert list(question.tallies.order_by("index").values_list("count", flat=True)) == (
            counts.tolist()
        )
    assert drawn == RESPONDENTS * DEMO_ASKED
    keys = Submission.objects.filter(survey=demo).values_list("idempotency_key", flat=True)
    assert len(set(keys)) == RESPONDENTS


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
    the past year (everyone else is "Not asked"), "Cannabis" ticked exactly by them, and no
    group has more who did something in the past 30 days than in the past 12 months."""
    questions = named(demo)
    for question in questions.values():
        if question.simulated_given:
            groups = demo.questions.get(pk=question.simulated_given["question"])
            within = np.array(question.simulated_given["shares"])
            assert np.allclose(np.array(groups.simulated_truth) @ within, question.simulated_truth)
    use, frequency = questions["use"], questions["frequency"]
    assert (frequency.asked_if, frequency.asked_if_answer) == (use, use.labels().index("Yes"))
    not_asked = frequency.all_labels().index("Not asked")
    assert [row[not_asked] for row in frequency.simulated_given["shares"]] == [1.0, 0.0, 1.0]
    substances = questions["substances"]
    ticked = np.array(substances.simulated_given["shares"])
    cannabis, alcohol, tobacco = (substances.labels().index(label) for label in (
        "Cannabis", "Alcohol", "Tobacco or nicotine"))
    assert ticked[:, cannabis].tolist() == [0.0, 1.0, 0.5]
    # At least as many drank on no day of the past 30 as did not drink in the past 12 months.
    days = np.array(questions["drinking"].simulated_given["shares"])
    assert (days[:, 0] >= 1 - ticked[:, alcohol]).all()
    nicotine = np.array(questions["nicotine"].simulated_given["shares"])
    assert (nicotine[:, 1] <= ticked[:, tobacco]).all()
    anchor = questions["anchor"]
    assert anchor.known_share == 0.0 and anchor.simulated_truth == [1.0, 0.0]


def test_the_demo_spends_the_default_limit_as_the_site_recommends(demo):
    """One budget of epsilon 3 for everything a respondent sends, within the site's limit;
    the grouping questions asked of everyone; as many blocks drawn at random as the design
    page recommends for the demo's respondents; consent asked for."""
    questions = list(demo.ordered_questions())
    assert demo.budget == DEMO_BUDGET and demo.asked == DEMO_ASKED
    assert survey_epsilon(demo, questions) == pytest.approx(DEMO_BUDGET, abs=1e-9)
    assert DEMO_BUDGET <= PrivacyPolicy.current().max_survey_epsilon
    assert {q.text for q in questions if q.used_for_breakdowns} <= {
        q.text for q in questions if q.always_asked}
    assert plan(questions, DEMO_BUDGET, DEMO_ASKED, DEMO_RESPONDENTS)["recommended"] == DEMO_ASKED
    assert demo.consent_required and demo.study_by and demo.ethics_reference


def test_the_demos_anchor_agrees_with_its_known_share(client, demo):
    """Its simulated respondents answer with care: the anchor agrees."""
    position = list(named(demo)).index("anchor")
    anchor = get_json(client, demo)["questions"][position]["anchor"]
    assert anchor["known"] == 0.0 and anchor["agrees"]


def test_a_check_all_truth_is_a_share_per_option_from_0_to_1(demo):
    """Each option of a check-all question is ticked on its own: its truth need not add up
    to 1, but each share must lie in [0, 1]; nothing is stored otherwise."""
    questions = named(demo)
    substances = questions.pop("substances")
    others = {q.pk: q.simulated_truth for q in questions.values()}
    with pytest.raises(ValueError, match="shares from 0 to 1"):
        simulate_responses(demo, 10, {**others, substances.pk: [1.2, 0, 0, 0, 0]}, seed=1)
    assert Submission.objects.filter(survey=demo).count() == RESPONDENTS
    simulate_responses(demo, 10, {**others, substances.pk: [1.0] * 5}, seed=1)
    assert Submission.objects.filter(survey=demo).count() == RESPONDENTS + 10


def test_the_demo_shows_the_truth_beside_its_shares_among_those_asked_and_its_means(
    client, demo
):
    """The follow-up asked of cannabis users: its true shares among those asked are those
    it was drawn from within the users' group, and its true mean score theirs; a check-all
    question's true mean number ticked is the sum of its options' true shares; a number's
    true mean its bins' true shares times the means of their numbers."""
    data = get_json(client, demo)
    position = list(named(demo)).index("frequency")
    frequency = data["questions"][position]
    users = named(demo)["frequency"].simulated_given["shares"][1][:5]
    assert true_among(frequency) == pytest.approx(users)
    assert true_mean(frequency) == pytest.approx(sum(
        point * share for point, share in enumerate(users, start=1)))
    substances = data["questions"][list(named(demo)).index("substances")]
    assert true_mean(substances) == pytest.approx(sum(DEMO_TRUTH["substances"]))
    for spec in QUESTIONS:  # a number's: its bins' shares times their numbers' means
        if "range" in spec:
            found = data["questions"][list(named(demo)).index(spec["name"])]
            assert named(demo)[spec["name"]].mechanism().bin_means() == pytest.approx(
                bins_means(spec))
            assert true_mean(found) == pytest.approx(
                np.dot(DEMO_TRUTH[spec["name"]], bins_means(spec)))
    page = client.get(reverse("survey-results", args=[demo.pk])).content.decode()
    assert f"True mean (demo): {true_mean(frequency):.2f}" in page
    drinking = data["questions"][list(named(demo)).index("drinking")]
    assert f"True mean (demo): {true_mean(drinking):.1f}" in page
