"""Writing a draft's questions (surveys.actions.questions): frozen once opened, checked
before anything is written."""

import pytest
from django.core.exceptions import ValidationError

from surveys.actions.questions import delete_question, move_question, save_question
from surveys.models import Choice, Question


def test_a_drafts_question_is_saved_with_its_answers(researcher, make_survey):
    survey = make_survey(researcher)
    question = Question(survey=survey, order=3, text="Which year?", kind="categorical",
                        epsilon=1.0)
    save_question(question, ["First", "Second", "Third"])
    assert question.labels() == ["First", "Second", "Third"]
    save_question(question, ["Second", "First"])  # replaced, in the new order
    assert question.labels() == ["Second", "First"]


def test_a_yes_no_question_keeps_the_sites_answers(researcher, make_survey):
    survey = make_survey(researcher)
    question = Question(survey=survey, order=3, text="Ever?", kind="yesno", epsilon=1.0)
    save_question(question, ["Typed", "Anyway"])
    assert not question.choices.exists() and question.labels() == ["No", "Yes"]


@pytest.mark.parametrize("write", [
    lambda question: save_question(question, ["A", "B"]),
    delete_question,
    lambda question: move_question(question, up=True),
])
def test_nothing_is_written_to_an_opened_surveys_questions(researcher, make_survey, write):
    survey = make_survey(researcher, status="open")
    yes_no, categorical = survey.ordered_questions()
    before = list(Question.objects.values_list("pk", "order", "text", "kind", "epsilon"))
    choices = list(Choice.objects.values_list("pk", "order", "label"))
    categorical.text = "Changed"
    with pytest.raises(ValidationError) as refused:
        write(categorical)
    assert refused.value.code == "frozen"
    assert list(Question.objects.values_list("pk", "order", "text", "kind", "epsilon")) == before
    assert list(Choice.objects.values_list("pk", "order", "label")) == choices


def test_moving_swaps_neighbours_and_stops_at_the_ends(researcher, make_survey):
    survey = make_survey(researcher)
    yes_no, categorical = survey.ordered_questions()
    move_question(yes_no, up=True)  # already first: nothing
    assert list(survey.ordered_questions()) == [yes_no, categorical]
    move_question(categorical, up=True)
    assert list(survey.ordered_questions()) == [categorical, yes_no]
