"""The results page's cards: every figure of the results JSON is on the page, in its tables
(which need no script), and drawing them costs a bounded amount per card."""

from __future__ import annotations

import re

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from surveys.actions.simulate import simulate_responses
from surveys.actions.surveys import open_survey
from surveys.actions.wording import correct
from surveys.helpers.numbers import UNKNOWN, percent, thousands
from surveys.models import Choice, Question, Survey
from surveys.templatetags import charts
from surveys.templatetags.charts import chart, percent_range, points
from tests.helpers import submit


def page_of(client, survey: Survey) -> str:
    return client.get(reverse("survey-results", args=[survey.pk])).content.decode()


def json_of(client, survey: Survey) -> dict:
    return client.get(reverse("survey-results-json", args=[survey.pk])).json()


def cards_of(page: str) -> list[str]:
    """Each question card's HTML, in order."""
    return re.findall(r'<section class="card mb-4" aria-labelledby="question-.*?</section>',
                      page, re.S)


def cells(html: str) -> list[str]:
    """The text of every header and data cell of the tables in `html`."""
    return [re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", html, re.S)]


def add_questions(survey: Survey, answers: list[int]) -> None:
    """Categorical questions after the survey's own, with these numbers of answers."""
    order = survey.questions.count()
    for k in answers:
        order += 1
        question = Question.objects.create(
            survey=survey, order=order, text=f"Question {order}?", kind="categorical",
            epsilon=0.5,
        )
        Choice.objects.bulk_create(
            [Choice(question=question, order=i, label=f"Answer {i} & more") for i in range(k)]
        )


@pytest.fixture
def opened(researcher, make_survey, client, epsilon_limits):
    """An open survey of seven questions (every encoding) with 300 responses, seen by its
    owner."""
    epsilon_limits(question=3.0, survey=5.5)
    survey = make_survey(researcher)
    add_questions(survey, [5, 14, 2, 50, 4])
    open_survey(survey)
    submit(survey, 300)
    client.force_login(researcher)
    return survey


def test_every_figure_of_the_json_is_in_its_cards_tables(client, opened):
    data = json_of(client, opened)
    cards = cards_of(page_of(client, opened))
    assert len(cards) == len(data["questions"]) == 7
    for question, card in zip(data["questions"], cards, strict=True):
        shown = cells(card)
        for category in question["categories"]:
            label = category["label"].replace("&", "&amp;")
            main = shown.index(label)  # the estimates table: answer, estimate, interval
            assert shown[main + 1 : main + 3] == [
                percent(category["estimate"]),
                percent_range(category["ci_low"], category["ci_high"]),
            ]
            details = shown.index(label, main + 1)  # the statisticians' table
            assert shown[details + 1 : details + 7] == [
                thousands(category["support_count"]),
                percent(category["unbiased"]),
                points(category["std_error"]),
                percent_range(category["unbiased_ci_low"], category["unbiased_ci_high"]),
                percent(category["consistent"]),
                percent(category["estimate"]),
            ]
        assert f"{thousands(question['n'])} responses" in card


def test_each_chart_draws_the_estimates_and_says_them(client, opened):
    data = json_of(client, opened)
    for question, card in zip(data["questions"], cards_of(page_of(client, opened)),
                              strict=True):
        (svg,) = re.findall(r"<svg.*?</svg>", card, re.S)
        widths = [float(w) for w in re.findall(r'<rect class="bar" y="20" width="([\d.]+)"', svg)]
        expected = [charts._x(c["estimate"]) - charts.PLOT_LEFT for c in question["categories"]]
        assert widths == pytest.approx(expected, abs=0.051)
        description = re.search(r"<desc[^>]*>(.*?)</desc>", svg, re.S).group(1)
        for category in question["categories"]:
            assert f"{percent(category['estimate'])} (95% interval " in description
        assert svg.count("<g transform=") == len(question["categories"])


def test_the_demos_true_shares_are_in_the_tables_and_charts(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    truth = {question.pk: [1 / question.mechanism().k] * question.mechanism().k
             for question in survey.ordered_questions()}
    Question.objects.filter(survey=survey, kind="yesno").update(simulated_truth=[0.7, 0.3])
    truth[survey.ordered_questions()[0].pk] = [0.7, 0.3]
    simulate_responses(survey, 200, truth, seed=3)
    client.force_login(researcher)
    first = cards_of(page_of(client, survey))[0]
    assert "True share (demo)" in first and "30.0%" in cells(first)
    assert first.count('class="truth"') == 2 and ", true share 30.0%" in first


def test_a_new_response_costs_the_same_queries_whatever_the_number_of_questions(
    client, researcher, make_survey, epsilon_limits
):
    def cold_view_queries(survey: Survey) -> int:
        submit(survey, 1, seed=survey.response_count + 7)
        survey.refresh_from_db()
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("survey-results", args=[survey.pk])).status_code == 200
        return len(queries)

    client.force_login(researcher)
    epsilon_limits(question=3.0, survey=9.5)
    small = make_survey(researcher)
    large = make_survey(researcher, title="Large")
    add_questions(large, [5] * 10 + [50] * 3)
    counts = []
    for survey in (small, large):
        open_survey(survey)
        submit(survey, 20)
        page_of(client, survey)
        counts.append(cold_view_queries(survey))
    assert counts[0] == counts[1]


def test_a_card_that_shows_the_same_figures_is_served_from_the_cache(
    client, opened, monkeypatch
):
    before = page_of(client, opened)
    first = opened.ordered_questions()[0]
    correct(opened, {"questions": {str(first.pk): {"text": "Have you ever cheated in an exam?"}}})
    drawn = []
    render = charts.render_to_string
    monkeypatch.setattr(charts, "render_to_string", lambda name, context, *args, **kwargs:
                        drawn.append(context["question"]["position"])
                        or render(name, context, *args, **kwargs))
    after = page_of(client, opened)
    assert drawn == [1]  # a new snapshot (a new wording): only the card whose text changed
    keys = [re.findall(r'data-key="([^"]+)"', page) for page in (before, after)]
    assert keys[0][0] != keys[1][0] and keys[0][1:] == keys[1][1:]  # what the live script swaps
    assert "Have you ever cheated in an exam?" in cards_of(after)[0]


def test_each_card_links_to_its_breakdown_and_regression(client, opened):
    questions = opened.ordered_questions()
    card = cards_of(page_of(client, opened))[0]
    assert reverse("question-breakdown", args=[opened.pk, questions[0].pk]) in card
    assert reverse("question-regression", args=[opened.pk, questions[0].pk]) in card
    assert "<option" not in card  # the breakdown page offers the choice of question


def test_the_cards_template_costs_a_bounded_number_of_variables_per_answer(client, opened):
    """Drawing the cards resolves at most a few template variables per answer and per card
    (the page, base template included, resolved some 60 per answer before the cards were
    written by ``charts.result_cards``)."""
    from django.template import base

    data = json_of(client, opened)
    answers = sum(len(q["categories"]) for q in data["questions"])
    resolved = 0
    resolve = base.Variable.resolve

    def counting(self, context):
        nonlocal resolved
        resolved += 1
        return resolve(self, context)

    caches["results"].clear()
    original = base.Variable.resolve
    base.Variable.resolve = counting
    try:
        page_of(client, opened)
    finally:
        base.Variable.resolve = original
    assert resolved <= 20 * answers + 300 * len(data["questions"])


def test_the_page_needs_no_script_to_show_its_figures(client, opened):
    page = page_of(client, opened)
    assert "<script>" not in page  # no inline script: the figures are in the HTML
    assert page.count("<table") == 2 * 7 and page.count('role="img"') == 7


def test_a_chart_draws_no_bar_for_an_answer_without_an_estimate():
    """A breakdown's group estimated as empty has no share of its answers: the chart draws
    an empty bar and says so ("—") instead of failing."""
    answers = [{"label": "Yes", "estimate": None, "ci_low": 0.0, "ci_high": 1.0, "truth": None},
               {"label": "No", "estimate": 0.5, "ci_low": 0.2, "ci_high": 0.8, "truth": None}]
    drawn = chart({"position": 1, "categories": answers}, "title")
    assert drawn["rows"][0]["bar_width"] == "0" and drawn["rows"][0]["estimate"] == UNKNOWN
    assert float(drawn["rows"][1]["bar_width"]) > 0
