"""Refusals, optional questions and conditional questions (Question.offers_refusal, optional,
asked_if): authored, checked, randomized as one more answer, and estimated among those who
answered (surveys/ldp/among.py), through the site."""

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import escape

from surveys import ldp
from surveys.actions.submissions import submission_create
from surveys.actions.surveys import duplicate_survey, open_survey
from surveys.ldp import asked
from surveys.models import Choice, Question, Survey
from surveys.queries import contracts
from surveys.queries.breakdowns import breakdown_results
from surveys.queries.counts import pair_counts
from surveys.queries.results import estimate_rows, export_metadata, survey_results
from surveys.queries.schedule import readiness_problems
from tests.helpers import assert_shape

pytestmark = pytest.mark.django_db

USE = {"text": "Have you used cannabis in the past year?", "kind": "yesno", "epsilon": "1"}
HOW_OFTEN = {"text": "How often?", "kind": "rating", "epsilon": "1", "scale_points": "5",
             "scale_low": "Rarely", "scale_high": "Daily"}


def add(client, survey, **fields):
    return client.post(reverse("question-create", args=[survey.pk]), fields)


def authored(client, researcher) -> Survey:
    """A yes/no question offering "Prefer not to say", and an optional rating scale asked
    only of those who answer "Yes" to it."""
    survey = Survey.objects.create(owner=researcher, title="Use")
    client.force_login(researcher)
    assert add(client, survey, **USE, offers_refusal="on").status_code == 302
    use = survey.questions.get()
    assert add(client, survey, **HOW_OFTEN, optional="on",
               condition=f"{use.pk}:1").status_code == 302
    return survey


def test_a_refusal_and_a_condition_are_each_one_more_answer_of_the_mechanism(client, researcher):
    survey = authored(client, researcher)
    use, often = survey.ordered_questions()
    assert use.all_labels() == ["No", "Yes", "No answer"]
    assert often.all_labels() == ["Rarely", "2", "3", "4", "Daily", "No answer", "Not asked"]
    assert (use.asked_if, often.asked_if, often.asked_if_answer) == (None, use, 1)
    # Yes/no with a refusal has three answers: randomized like multiple choice.
    assert use.mechanism().k == 3 and use.mechanism().name == ldp.choose_categorical(1.0, 3).name
    assert often.mechanism().k == 7
    html = client.get(reverse("question-edit", args=[often.pk])).content.decode()
    assert f'value="{use.pk}:1" selected' in html
    survey_page = client.get(survey.get_absolute_url()).content.decode()
    assert "Asked only if “Have you used cannabis in the past year?” is answered “Yes”." in (
        survey_page)
    assert "Offers “Prefer not to say”." in survey_page and "Optional." in survey_page
    assert "Grouping question" not in survey_page
    Question.objects.filter(pk=use.pk).update(used_for_breakdowns=True)
    survey_page = client.get(survey.get_absolute_url()).content.decode()
    assert survey_page.count("Grouping question</span>") == 1


@pytest.mark.parametrize("fields,field_error", [
    ({**USE, "known_percent": "0", "offers_refusal": "on"}, "validation anchor is asked"),
    ({"text": "Which?", "kind": "checkall", "epsilon": "1", "choices": "A\nB",
      "optional": "on"}, "cannot be optional: ticking none is already an answer"),
])
def test_what_cannot_have_extra_answers_is_refused_clearly(client, researcher, fields,
                                                           field_error):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    response = add(client, survey, **fields)
    assert response.status_code == 200 and field_error in response.content.decode()
    assert not Question.objects.exists()


def test_only_earlier_questions_with_one_answer_asked_of_everyone_can_be_conditions(
        client, researcher):
    survey = authored(client, researcher)
    use, often = survey.ordered_questions()
    # Offered: every answer of the first question; not the conditional one.
    html = client.get(reverse("question-create", args=[survey.pk])).content.decode()
    assert f'value="{use.pk}:0"' in html and f'value="{use.pk}:2"' not in html
    assert f'value="{often.pk}:' not in html
    # Sent anyway, each is refused with a reason, and nothing is stored.
    for condition, error in [(f"{often.pk}:0", "Select a valid choice"),
                             (f"{use.pk}:7", "Select a valid choice"),
                             ("nonsense", "Select a valid choice")]:
        response = add(client, survey, **USE, condition=condition)
        assert response.status_code == 200 and error in response.content.decode()
    assert survey.questions.count() == 2
    # Moved above its condition, a follow-up stops the survey from opening.
    often.order, use.order = 1, 2
    Question.objects.bulk_update([often, use], ["order"])
    assert readiness_problems(survey) == [
        "“How often?”: “How often?” must come after “Have you used cannabis in the past "
        "year?”, the question it depends on."
    ]


def test_a_copy_keeps_the_refusals_and_the_condition_on_its_own_questions(client, researcher):
    copy = duplicate_survey(authored(client, researcher))
    use, often = copy.ordered_questions()
    assert use.offers_refusal and often.optional and often.asked_if == use
    assert often.all_labels()[-2:] == ["No answer", "Not asked"]


def answered(survey, truth_use, truth_often, n, seed=7):
    """n respondents: their true answers to both questions drawn from the truths (the
    follow-up's "Not asked" exactly when the first answer is not "Yes"), randomized."""
    use, often = survey.ordered_questions()
    rng = np.random.default_rng(seed)
    first = rng.choice(3, size=n, p=truth_use)
    second = np.where(first == 1, rng.choice(6, size=n, p=truth_often), 6)
    first_reports = use.mechanism().perturb(first, rng)
    second_reports = often.mechanism().perturb(second, rng)
    for i in range(n):
        submission_create(survey=survey, idempotency_key=f"respondent-{seed}-{i:05d}", reports={
            use.pk: first_reports[i].tolist(), often.pk: second_reports[i].tolist()})
    survey.refresh_from_db()


def test_results_give_the_refusals_and_the_shares_among_those_who_answered(client, researcher):
    survey = authored(client, researcher)
    open_survey(survey)
    answered(survey, [0.5, 0.3, 0.2], [0.1, 0.2, 0.3, 0.2, 0.1, 0.1], 1000)
    use, often = survey_results(survey)["questions"]
    assert use["extra_answers"] == 1 and often["extra_answers"] == 2
    assert [c["label"] for c in use["categories"]] == ["No", "Yes", "No answer"]
    refused = use["categories"][2]
    assert refused["ci_low"] <= refused["estimate"] <= refused["ci_high"]
    among = use["among"]
    assert among["among"] == "answered" and [c["label"] for c in among["categories"]] == [
        "No", "Yes"]
    yes = among["categories"][1]
    # Within 5 standard errors (the interval's half-width over 1.96) of the truth.
    error = (yes["ci_high"] - yes["ci_low"]) / (2 * 1.96)
    assert yes["estimate"] == pytest.approx(0.3 / 0.8, abs=5 * error)
    assert yes["ci_low"] <= yes["estimate"] <= yes["ci_high"]
    assert sum(c["estimate"] for c in among["categories"]) == pytest.approx(1)
    # The follow-up's mean score is among those who answered it, on its 5 points.
    mean = often["mean_score"]
    assert 1 <= mean["ci_low"] <= mean["estimate"] <= mean["ci_high"] <= 5
    assert len(often["among"]["categories"]) == 5
    assert_shape(survey_results(survey), contracts.SurveyResults)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "Among those who answered (an estimated" in page
    assert "among those who answered, on the scale from 1 to 5" in page


def test_exports_and_breakdowns_name_the_extra_answers(client, researcher):
    survey = authored(client, researcher)
    open_survey(survey)
    answered(survey, [0.5, 0.3, 0.2], [0.1, 0.2, 0.3, 0.2, 0.1, 0.1], 400)
    use, often = survey.ordered_questions()
    metadata = export_metadata(survey)
    assert_shape(metadata, contracts.Metadata)
    first, second = metadata["questions"]
    assert first["labels"][-1] == "No answer" and first["extra_answers"] == 1
    assert second["asked_if"] == {"position": 1, "answer": 1}
    assert second["scores"] == [1, 2, 3, 4, 5]
    rows = list(estimate_rows(survey_results(survey)))
    header, body = rows[0], rows[1:]
    scores = [row[header.index("score")] for row in body if row[0] == 2]
    assert scores == [1, 2, 3, 4, 5, "", ""]
    found = breakdown_results(survey, often, use)
    assert [g["label"] for g in found["groups"]] == ["No", "Yes", "No answer"]
    assert found["groups"][0]["mean_score"] is None  # no mean over "No answer"
    assert_shape(found, contracts.BreakdownResults)


def test_the_respondent_page_shows_the_refusal_option_and_hides_the_follow_up(
        client, researcher):
    survey = authored(client, researcher)
    use, often = survey.ordered_questions()
    html = client.get(reverse("survey-preview", args=[survey.pk])).content.decode()
    assert f'name="answer-{use.pk}" value="2"' in html and "Prefer not to say" in html
    assert f'id="question-{often.pk}" data-question="{often.pk}"' in html
    fieldset = html[html.index(f'id="question-{often.pk}"'):]
    assert fieldset[:fieldset.index(">")].endswith(" hidden")
    assert "You may leave this question unanswered." in html


def test_a_condition_on_a_deleted_question_is_dropped(researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    use = Question.objects.create(survey=survey, order=1, text="Use?", kind="yesno", epsilon=1)
    often = Question.objects.create(survey=survey, order=2, text="Which?", kind="categorical",
                                    epsilon=1, asked_if=use, asked_if_answer=1)
    for i, label in enumerate(("A", "B")):
        Choice.objects.create(question=often, order=i, label=label)
    use.delete()
    often.refresh_from_db()
    assert not often.conditional and often.all_labels() == ["A", "B"]


def test_a_condition_from_another_survey_is_refused_by_the_model(researcher):
    """The admin edits questions through the model's checks: a condition must be in the
    question's own survey."""
    one, other = (Survey.objects.create(owner=researcher, title=t) for t in ("One", "Other"))
    elsewhere = Question.objects.create(survey=other, order=1, text="Use?", kind="yesno",
                                        epsilon=1)
    question = Question(survey=one, order=1, text="How often?", kind="yesno", epsilon=1,
                        asked_if=elsewhere, asked_if_answer=1)
    with pytest.raises(ValidationError, match="another question of its survey"):
        question.full_clean()


def test_a_conditional_question_is_estimated_jointly_with_its_condition(client, researcher):
    # Both questions are one answer per report (GRR): the follow-up's shares among those who
    # answered come from the joint fit of the two (surveys/ldp/asked.py) on their pair counts.
    survey = authored(client, researcher)
    open_survey(survey)
    truth_often = [0.1, 0.2, 0.3, 0.2, 0.1, 0.1]
    answered(survey, [0.5, 0.3, 0.2], truth_often, 1000)
    use, often = survey.ordered_questions()
    assert use.mechanism().encoding == often.mechanism().encoding == "index"
    found = survey_results(survey)["questions"][1]
    assert found["among"]["method"] == "among_asked"
    expected = asked.among_asked(use.mechanism(), often.mechanism(),
                                 pair_counts(survey, use, often), [1], 5, scored=True)
    shares = [c["estimate"] for c in found["among"]["categories"]]
    assert shares == pytest.approx(expected.estimate.tolist())
    # The share asked and answering that the card states is its rows' own: one quantity, one
    # figure (the joint fit's denominator is not stated).
    extras = [c["estimate"] for c in found["categories"][5:]]
    assert found["among"]["answered"] == pytest.approx(1 - sum(extras), abs=1e-12)
    assert found["mean_score"]["estimate"] == pytest.approx(expected.mean_score.estimate)
    # Within 5 standard errors (the interval's half-width over 1.96) of the truth.
    truth = np.array(truth_often[:5]) / 0.9
    for category, share in zip(found["among"]["categories"], truth, strict=True):
        assert category["ci_low"] <= category["estimate"] <= category["ci_high"]
        error = (category["ci_high"] - category["ci_low"]) / (2 * 1.96)
        assert category["estimate"] == pytest.approx(share, abs=5 * error)
    assert_shape(survey_results(survey), contracts.SurveyResults)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert escape(asked.ASKED_DESCRIPTION) in page


def test_a_conditional_question_of_unary_reports_keeps_its_own_reports(client, researcher):
    survey = authored(client, researcher)
    use, often = survey.ordered_questions()
    Question.objects.filter(pk=often.pk).update(mechanism_override="oue")
    open_survey(survey)
    answered(survey, [0.5, 0.3, 0.2], [0.1, 0.2, 0.3, 0.2, 0.1, 0.1], 300)
    often = survey.ordered_questions()[1]
    assert often.mechanism().encoding == "unary"
    found = survey_results(survey)["questions"][1]
    assert found["among"]["method"] == "among"
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "own reports alone, not from the joint estimation" in page
