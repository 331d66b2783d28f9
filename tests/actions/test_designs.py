"""A survey that asks each respondent a random few of its questions under one budget
(surveys/actions/designs.py): setting the design gives the questions drawn at random the epsilon
that spends the budget exactly; bodies must leave out exactly the blocks not drawn, whole; the
results estimate each question drawn at random from the respondents who drew it; breakdowns
and exports read the reports left out as missing."""

import math

import pyreadstat
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys.actions.designs import set_design
from surveys.actions.questions import delete_question, save_question
from surveys.actions.simulate import simulate_responses
from surveys.actions.submissions import SubmissionError, submission_create
from surveys.actions.surveys import open_survey
from surveys.models import Question, Survey, survey_epsilon
from surveys.queries import schedule
from surveys.queries.results import computed_results
from tests.helpers import assert_nothing_stored


def _design_survey(owner, questions: int = 5, conditional: bool = True) -> Survey:
    """A draft of yes/no questions, the last a follow-up of the one before it (when
    ``conditional``)."""
    survey = Survey.objects.create(owner=owner, title="Long")
    made = []
    for order in range(1, questions + 1):
        question = Question(survey=survey, order=order, text=f"Q{order}?", kind="yesno",
                            epsilon=1.0)
        if conditional and order == questions:
            question.asked_if, question.asked_if_answer = made[-1], 1
        made.append(save_question(question, []))
    return survey


@pytest.fixture
def long_survey(researcher, epsilon_limits):
    epsilon_limits(question=3.0, survey=3.0)
    return _design_survey(researcher)


def test_the_design_spends_the_budget_exactly(long_survey):
    first = long_survey.ordered_questions()[0]
    Question.objects.filter(pk=first.pk).update(epsilon=0.5)
    set_design(long_survey, 3.0, 2, {first.pk})
    questions = list(long_survey.ordered_questions())
    # Blocks: [Q1] always; [Q2], [Q3], [Q4, Q5] drawn two at a time: the largest two hold
    # 3 questions, so each gets (3 - 0.5) / 3.
    assert [q.epsilon for q in questions] == pytest.approx([0.5] + [2.5 / 3] * 4)
    assert survey_epsilon(long_survey, questions) == pytest.approx(3.0, abs=1e-12)
    assert sum(q.epsilon for q in questions) > 3.0  # what asking every question would spend
    # A new question takes its epsilon from the design; deleting one gives it back.
    added = save_question(Question(survey=long_survey, order=9, text="Q9?", kind="yesno",
                                   epsilon=1.0), [])
    assert added.epsilon == pytest.approx(2.5 / 3)
    delete_question(added)
    assert survey_epsilon(long_survey, list(long_survey.ordered_questions())) == pytest.approx(3)


@pytest.mark.parametrize(("budget", "asked", "always", "words"), [
    (3.0, 5, set(), "from 1 to 4"),          # more blocks than there are
    (3.0, 1, "all", "at least one block"),   # nothing left to draw
    (9.0, 1, set(), "above the site's limit of 3 per survey"),
    (1.0, 1, "first", "leaving nothing"),    # the always-asked question spends it all
])
def test_a_design_that_cannot_be_is_refused_and_nothing_changes(
    long_survey, budget, asked, always, words
):
    questions = list(long_survey.ordered_questions())
    always = {q.pk for q in questions} if always == "all" else (
        {questions[0].pk} if always == "first" else always)
    with pytest.raises(ValidationError, match=words):
        set_design(long_survey, budget, asked, always)
    long_survey.refresh_from_db()
    assert long_survey.asked is None and long_survey.budget is None
    assert [q.epsilon for q in long_survey.ordered_questions()] == [1.0] * 5


def _opened(survey: Survey, asked: int = 1) -> Survey:
    set_design(survey, 3.0, asked, set())
    open_survey(survey)
    return survey


def _simulate(survey: Survey, n: int, yes: float, seed: int) -> list[Question]:
    """``n`` respondents of the opened long survey: "Yes" to each yes/no question with share
    ``yes``, and to its follow-up, asked of those who said "Yes", with share 1/2; its
    questions."""
    questions = list(survey.ordered_questions())
    truth = {q.pk: [1 - yes, yes] for q in questions}
    truth[questions[4].pk] = [yes / 2, yes / 2, 1 - yes]  # the follow-up: "Not asked" last
    simulate_responses(survey, n, truth, seed=seed)
    return questions


def _body(survey: Survey, drawn: set[int]) -> dict[int, object]:
    """Reports of 1 for the questions of the blocks ``drawn`` (indices), null for the others."""
    from surveys.models import design_blocks
    blocks = design_blocks(list(survey.ordered_questions()))[1]
    return {q.pk: (1 if b in drawn else None) for b, block in enumerate(blocks) for q in block}


def test_a_body_leaves_out_exactly_the_blocks_not_drawn(long_survey):
    survey = _opened(long_survey, asked=2)
    blocks = list(survey.ordered_questions())
    missing = _body(survey, {0, 1})
    del missing[blocks[0].pk]
    bad = [
        _body(survey, {0}),                             # one block left out too many
        _body(survey, {0, 1, 2}),                       # one too few
        {**_body(survey, {0, 3}), blocks[4].pk: None},  # half a block
        missing,                                        # no report at all for a question
    ]
    for i, reports in enumerate(bad):
        with pytest.raises(SubmissionError) as refused:
            submission_create(survey=survey, reports=reports, idempotency_key=f"key-bad-{i}-xx")
        assert refused.value.status == 400
    assert_nothing_stored(survey)
    stored, created = submission_create(
        survey=survey, reports=_body(survey, {1, 3}), idempotency_key="key-good-0001"
    )
    assert created and stored.reports[str(blocks[0].pk)] is None
    drawn = {q.pk: q.drawn_count for q in survey.ordered_questions()}
    assert drawn == {blocks[0].pk: 0, blocks[1].pk: 1, blocks[2].pk: 0, blocks[3].pk: 1,
                     blocks[4].pk: 1}


def test_without_a_design_a_null_report_is_refused(researcher, make_survey):
    survey = make_survey(researcher, status=Survey.Status.OPEN)
    first, second = survey.ordered_questions()
    with pytest.raises(SubmissionError):
        submission_create(survey=survey, reports={first.pk: None, second.pk: 0},
                          idempotency_key="key-null-0001")
    assert_nothing_stored(survey)


def test_each_question_is_estimated_from_those_who_drew_it(long_survey):
    survey = _opened(long_survey, asked=1)
    _simulate(survey, 2_000, 0.3, seed=5)
    results = computed_results(survey)
    drawn = [q.drawn_count for q in survey.ordered_questions()]
    # Four blocks, one drawn each: each block about a quarter of the respondents.
    assert results["n"] == 2_000 and sum(drawn[:4]) == 2_000 and drawn[3] == drawn[4]
    for found, n in zip(results["questions"], drawn, strict=True):
        assert found["n"] == n
    mean, sd = 2_000 / 4, math.sqrt(2_000 * 0.25 * 0.75)
    assert all(abs(n - mean) < 5 * sd for n in drawn)
    for found in results["questions"][:4]:  # each share within 5 standard errors of 0.3
        share = found["categories"][1]
        assert abs(share["unbiased"] - 0.3) < 5 * share["std_error"]


def test_breakdowns_and_exports_read_left_out_reports_as_missing(client, researcher, long_survey):
    survey = _opened(long_survey, asked=2)
    questions = _simulate(survey, 300, 0.5, seed=2)
    client.force_login(researcher)
    found = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    assert [q["n"] for q in found["questions"]] == [
        q.drawn_count for q in survey.ordered_questions()]
    both = sum(1 for s in survey.submissions.all()
               if s.reports[str(questions[0].pk)] is not None
               and s.reports[str(questions[1].pk)] is not None)
    breakdown = client.get(
        reverse("question-breakdown-json", args=[survey.pk, questions[1].pk]),
        {"by": questions[0].pk},
    )
    assert breakdown.status_code == 200, breakdown.content[:300]
    assert breakdown.json()["n"] == both  # the respondents who drew both
    for name in ("export-reports-csv", "export-estimates-csv", "export-metadata"):
        response = client.get(reverse(name, args=[survey.pk]))
        assert response.status_code == 200, name
        b"".join(response.streaming_content) if response.streaming else response.content


def test_a_design_that_stops_fitting_keeps_the_survey_from_opening(long_survey):
    set_design(long_survey, 3.0, 4, set())
    for question in list(long_survey.ordered_questions())[:2]:
        delete_question(question)
    problems = schedule.readiness_problems(long_survey)
    assert any("from 1 to 2" in problem for problem in problems)



def test_a_pair_never_asked_together_is_refused_in_words(client, researcher, long_survey):
    survey = _opened(long_survey, asked=1)
    first, second = list(survey.ordered_questions())[:2]
    client.force_login(researcher)
    refused = client.get(reverse("question-breakdown-json", args=[survey.pk, second.pk]),
                         {"by": first.pk})
    assert refused.status_code == 400
    assert "No respondent is asked these questions together" in refused.content.decode()
    page = client.get(reverse("question-regression-json", args=[survey.pk, second.pk]),
                      {"by": [first.pk]})
    assert "No respondent is asked these questions together" in page.content.decode()


def test_every_kind_of_report_left_out_is_a_missing_value_in_every_export(
    client, researcher, epsilon_limits, tmp_path
):
    epsilon_limits(question=3.0, survey=3.0)
    survey = Survey.objects.create(owner=researcher, title="Kinds")
    fields = [
        {"kind": "yesno"},
        {"kind": "checkall", "labels": ["A", "B", "C"]},
        {"kind": "number", "number_min": 0, "number_max": 30, "number_decimals": 0},
        {"kind": "categorical", "labels": [f"Answer {i}" for i in range(12)]},  # unary
    ]
    for order, spec in enumerate(fields, start=1):
        labels = spec.pop("labels", [])
        save_question(Question(survey=survey, order=order, text=f"Q{order}?", epsilon=1.0,
                               **spec), labels)
    survey = _opened(survey, asked=1)
    questions = list(survey.ordered_questions())
    truth = {questions[0].pk: [0.5, 0.5], questions[1].pk: [0.2, 0.5, 0.8],
             questions[2].pk: [0.2] * 5, questions[3].pk: [1 / 12] * 12}
    simulate_responses(survey, 200, truth, seed=3)
    client.force_login(researcher)
    text = b"".join(client.get(reverse("export-reports-csv", args=[survey.pk]))
                    .streaming_content).decode()
    header, *rows = [line.split(",") for line in text.splitlines()]
    assert len(rows) == 200
    widths = [1, 2, 1, 12]
    for row in rows:  # one question drawn: its cells filled, every other question's empty
        cells, filled = row[1:header.index("wording")], []
        for width in widths:
            part, cells = cells[:width], cells[width:]
            assert set(part) == {""} or "" not in part
            filled.append("" not in part)
        assert sum(filled) == 1
    for extension in ("sav", "dta"):
        path = tmp_path / f"reports.{extension}"
        response = client.get(reverse("export-reports-file", args=[survey.pk, extension]))
        assert response.status_code == 200
        path.write_bytes(b"".join(response.streaming_content))
        frame, _meta = (pyreadstat.read_sav if extension == "sav" else pyreadstat.read_dta)(
            str(path))
        assert len(frame) == 200
        drawn = [q.drawn_count for q in survey.ordered_questions()]
        assert int(frame["q1"].notna().sum()) == drawn[0]
        assert int(frame["q3"].notna().sum()) == drawn[2]
    metadata = client.get(reverse("export-metadata", args=[survey.pk])).json()
    assert metadata["survey"]["design"] == {
        "budget": 3.0, "asked": 1, "always_asked": [], "drawn": [[1], [2], [3], [4]]}


def test_a_survey_file_carries_the_design_and_a_bad_one_is_refused(researcher, long_survey):
    from surveys.actions.survey_files import import_survey
    from surveys.queries.survey_files import survey_file

    first = long_survey.ordered_questions()[0]
    set_design(long_survey, 3.0, 2, {first.pk})
    definition = survey_file(long_survey)
    assert (definition["survey"]["budget"], definition["survey"]["asked"]) == (3.0, 2)
    assert [q["always_asked"] for q in definition["questions"]] == [True] + [False] * 4
    copy, _notes = import_survey(researcher, definition)
    assert (copy.budget, copy.asked) == (3.0, 2)
    assert [q.epsilon for q in copy.ordered_questions()] == [
        q.epsilon for q in long_survey.ordered_questions()]
    assert survey_file(copy)["questions"] == definition["questions"]
    before = Survey.objects.count()
    for bad, words in (({"asked": 9}, "from 1 to 3"), ({"budget": 5.0}, "limit of 3"),
                       ({"budget": 50.0}, "at most 20"), ({"asked": "two"}, "must be an integer")):
        with pytest.raises(ValidationError, match=words):
            import_survey(researcher, {**definition, "survey": {**definition["survey"], **bad}})
    assert Survey.objects.count() == before
