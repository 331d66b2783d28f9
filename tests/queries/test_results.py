"""The results dashboard and its JSON endpoint: numbers, tallies, empty states, access."""

import json

import pytest
from django.contrib.auth.models import Permission, User
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from surveys import ldp
from surveys.actions.simulate import simulate_responses
from surveys.actions.submissions import SubmissionError, submission_create
from surveys.actions.surveys import open_survey
from surveys.ldp import among, asked, numbers, scores
from surveys.models import Choice, PrivacyPolicy, Question, Submission, Survey, Tally
from surveys.queries import results
from surveys.templatetags.charts import small_sample_answers
from tests.helpers import SHAPES, held_clock, recount, submit

pytestmark = pytest.mark.django_db

ROUTES = [
    "survey-results",
    "survey-results-json",
    "export-reports-csv",
    "export-metadata",
    "export-estimates-csv",
]


def get_json(client, survey: Survey) -> dict:
    response = client.get(reverse("survey-results-json", args=[survey.pk]))
    assert response.status_code == 200
    return response.json()


@pytest.mark.parametrize("shape", SHAPES)
def test_it_shows_the_cores_estimates_of_the_stored_reports(client, researcher, make_survey, shape):
    survey = make_survey(researcher, status="open", **SHAPES[shape])
    submit(survey, 150)
    client.force_login(researcher)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    data = get_json(client, survey)
    assert data["survey"]["responses"] == 150
    for question, shown in zip(survey.ordered_questions(), data["questions"], strict=True):
        mechanism = question.mechanism()
        counts, n = recount(question)
        expected = mechanism.estimate(counts, n)
        assert n == shown["n"] == 150
        assert shown["mechanism"] == question.spec
        assert [c["support_count"] for c in shown["categories"]] == counts.tolist()
        for field, key in [("headline", "estimate"), ("ci_low", "ci_low"),
                           ("ci_high", "ci_high"), ("proportions", "unbiased"),
                           ("std_errors", "std_error"), ("mle", "mle"),
                           ("consistent", "consistent")]:
            assert [c[key] for c in shown["categories"]] == pytest.approx(
                getattr(expected, field).tolist(), abs=1e-12
            )
        assert [c["small_sample"] for c in shown["categories"]] == expected.small_sample.tolist()
        wald = ldp.Z95 * expected.std_errors
        for key, bound in [("unbiased_ci_low", expected.proportions - wald),
                           ("unbiased_ci_high", expected.proportions + wald)]:
            assert [c[key] for c in shown["categories"]] == pytest.approx(
                bound.clip(0, 1).tolist(), abs=1e-12
            )
        for category in shown["categories"]:
            assert f"{100 * category['estimate']:.1f}%" in page
            assert f"{100 * category['ci_low']:.1f}%–{100 * category['ci_high']:.1f}%" in page
            assert category["ci_low"] <= category["estimate"] <= category["ci_high"]
    assert shape != "oue" or data["questions"][1]["mechanism"]["encoding"] == "unary"


def test_it_names_the_estimator_and_the_interval_method(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    submit(survey, 60)
    client.force_login(researcher)
    assert get_json(client, survey)["methods"] == {
        "estimate": {"name": ldp.HEADLINE_METHOD, "description": ldp.HEADLINE_DESCRIPTION},
        "interval": {"name": ldp.INTERVAL_METHOD, "description": ldp.INTERVAL_DESCRIPTION},
        "mean_score": {
            "name": scores.MEAN_INTERVAL_METHOD, "description": scores.MEAN_INTERVAL_DESCRIPTION
        },
        "among": {"name": among.AMONG_METHOD, "description": among.AMONG_DESCRIPTION},
        "among_asked": {"name": asked.ASKED_METHOD, "description": asked.ASKED_DESCRIPTION},
        "number": {
            "name": numbers.NUMBER_INTERVAL_METHOD,
            "description": numbers.NUMBER_INTERVAL_DESCRIPTION,
        },
    }
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    for description in (ldp.HEADLINE_DESCRIPTION, ldp.INTERVAL_DESCRIPTION):
        assert page.count(escape(description)) == 1  # once, under the cards
    assert page.count('<a href="#methods">') == 2  # from each question's details


def test_it_keeps_tallies_equal_to_a_recount_after_many_submissions(researcher, make_survey):
    survey = make_survey(researcher, status="open", **SHAPES["oue"])
    submit(survey, 300, seed=7)
    # A retried request and a refused one must not count.
    first = survey.submissions.order_by("pk").first()
    submission_create(
        survey=survey,
        reports={int(pk): report for pk, report in first.reports.items()},
        idempotency_key=first.idempotency_key,
    )
    with pytest.raises(SubmissionError):
        submission_create(survey=survey, reports={}, idempotency_key="refused-0001")
    survey.refresh_from_db()
    assert survey.response_count == 300
    for question in survey.ordered_questions():
        counts, n = recount(question)
        tallies = list(Tally.objects.filter(question=question).order_by("index")
                       .values_list("count", flat=True))
        assert n == 300
        assert tallies == counts.tolist()


def queries_of(client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return [query["sql"] for query in queries.captured_queries]


@pytest.mark.parametrize("name", ["survey-results", "survey-results-json"])
def test_it_never_reads_the_reports(client, researcher, make_survey, name):
    survey = make_survey(researcher, status="open")
    client.force_login(researcher)
    url = reverse(name, args=[survey.pk])
    submit(survey, 5)
    few = queries_of(client, url)
    submit(survey, 50, seed=2)
    caches["results"].clear()  # computed anew, as the first view was
    more = queries_of(client, url)
    assert len(few) == len(more)
    assert not any(Submission._meta.db_table in sql for sql in few + more)


def test_it_updates_the_estimates_once_the_refresh_interval_has_passed(
    client, researcher, make_survey, monkeypatch, settings
):
    clock = held_clock(monkeypatch)
    survey = make_survey(researcher, status="open")
    submit(survey, 30)
    client.force_login(researcher)
    before = get_json(client, survey)
    assert get_json(client, survey) == before  # served again from the cache
    submit(survey, 1, seed=9)
    assert get_json(client, survey) == before | {"new_responses": 1}
    clock[0] += settings.RESULTS_REFRESH_SECONDS
    # The view that finds the interval over is not kept waiting: it is served the figures
    # it had, and recomputes them once its response is sent, for the next view.
    assert get_json(client, survey) == before | {"new_responses": 1}
    after = get_json(client, survey)
    assert after["survey"]["responses"] == 31 and after["snapshot"] != before["snapshot"]
    assert after["new_responses"] == 0
    for question, shown in zip(survey.ordered_questions(), after["questions"], strict=True):
        counts, _ = recount(question)
        assert [c["support_count"] for c in shown["categories"]] == counts.tolist()
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "31 responses" in page


def test_it_recomputes_a_drafts_planner_figures_after_each_edit(client, researcher, make_survey):
    survey = make_survey(researcher)
    client.force_login(researcher)
    before = get_json(client, survey)["questions"][0]["n_for_target_margin"]
    Question.objects.filter(survey=survey, order=1).update(epsilon=2.0)
    after = get_json(client, survey)["questions"][0]["n_for_target_margin"]
    assert get_json(client, survey)["snapshot"] is None
    assert after < before


def test_it_shows_a_draft_as_an_empty_state(client, researcher, make_survey):
    survey = make_survey(researcher)
    client.force_login(researcher)
    response = client.get(reverse("survey-results", args=[survey.pk]))
    assert response.status_code == 200
    assert "still a draft" in response.content.decode()
    assert "<svg" not in response.content.decode()
    data = get_json(client, survey)
    assert data["survey"]["responses"] == 0
    assert all(q["categories"] is None for q in data["questions"])


def test_it_shows_an_open_survey_without_responses_as_an_empty_state(
    client, researcher, make_survey
):
    survey = make_survey(researcher, status="open")
    client.force_login(researcher)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "No responses yet" in page
    assert "<svg" not in page
    assert "Download the data" in page
    assert all(q["margin_of_error"] is None for q in get_json(client, survey)["questions"])


def test_it_warns_while_responses_are_too_few(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    submit(survey, 10)
    client.force_login(researcher)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    for question in get_json(client, survey)["questions"]:
        assert question["warning"] and question["small_sample"] and question["large_margin"]
        assert all(c["small_sample"] for c in question["categories"])
    assert page.count("Too few responses yet to pin down these figures.") == 2
    assert page.count("The estimates can still move a lot") == 2


def test_it_warns_on_a_rare_answer_however_many_responses_arrived(
    client, researcher, make_survey
):
    """At epsilon 8 almost no report names an answer nobody truly gives: its count stays in
    single figures, too lumpy for the interval, even with 2,000 responses."""
    PrivacyPolicy.objects.update_or_create(
        pk=1, defaults={"max_question_epsilon": 8.0, "max_survey_epsilon": 9.0})
    survey = make_survey(researcher, status="open", epsilons=(1.0, 8.0))
    yes_no, categorical = survey.ordered_questions()
    simulate_responses(survey, 2000, {yes_no.pk: [0.5, 0.5], categorical.pk: [0.6, 0.4, 0]}, 4)
    client.force_login(researcher)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    plain, flagged = get_json(client, survey)["questions"]
    assert [c["small_sample"] for c in flagged["categories"]] == [False, False, True]
    assert flagged["warning"] and flagged["small_sample"] and not flagged["large_margin"]
    assert not plain["warning"] and not plain["small_sample"]
    assert page.count("Too few responses yet") == 1
    assert "Too few responses yet to pin down “Often”." in page
    assert "The estimates can still move a lot" not in page


@pytest.mark.parametrize(
    "flags,words",
    [
        ([True, True], "these figures"),
        ([False, True, False], "“A1”"),
        ([True, True, False], "“A0” and “A1”"),
        ([True] * 5 + [False], "“A0”, “A1”, “A2” and 2 other answers"),
    ],
)
def test_it_names_the_flagged_answers_briefly(flags, words):
    categories = [{"label": f"A{i}", "small_sample": flag} for i, flag in enumerate(flags)]
    assert small_sample_answers({"categories": categories}) == words


def test_it_drops_the_warning_once_the_margin_is_small(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    truth = {q.pk: [1 / q.mechanism().k] * q.mechanism().k for q in survey.ordered_questions()}
    simulate_responses(survey, 2000, truth, seed=3)
    client.force_login(researcher)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    data = get_json(client, survey)
    assert "Too few responses" not in page and "can still move a lot" not in page
    for question in data["questions"]:
        assert not question["warning"] and question["margin_of_error"] <= results.WARN_MARGIN
        assert question["more_for_target_margin"] == max(0, question["n_for_target_margin"] - 2000)
        assert f"±{100 * question['margin_of_error']:.1f} percentage points" in page


def minimum_epsilon_survey(owner) -> Survey:
    """A survey at the smallest epsilon, whose second question (a hundred answers, with
    generalized randomized response forced) needs more respondents than the planner counts."""
    survey = Survey.objects.create(owner=owner, title="Faint")
    Question.objects.create(
        survey=survey, order=1, text="Ever?", kind="yesno", epsilon=ldp.MIN_EPSILON
    )
    many = Question.objects.create(
        survey=survey, order=2, text="Which?", kind="categorical", epsilon=ldp.MIN_EPSILON,
        mechanism_override="grr",
    )
    many.choices.bulk_create(
        [Choice(question=many, order=i, label=f"Answer {i}") for i in range(100)]
    )
    open_survey(survey)
    return survey


@pytest.mark.parametrize("responses", [0, 30])
def test_it_shows_results_at_the_minimum_epsilon(client, researcher, responses):
    survey = minimum_epsilon_survey(researcher)
    submit(survey, responses)
    client.force_login(researcher)
    for name in ROUTES:
        response = client.get(reverse(name, args=[survey.pk]))
        assert response.status_code == 200
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    yes_no, many = strict_json(client.get(reverse("survey-results-json", args=[survey.pk])))[
        "questions"]
    assert yes_no["n_for_target_margin"] > 10**7  # about 15 million
    assert many["n_for_target_margin"] is None and many["more_for_target_margin"] is None
    assert "it would take more than 1,000,000,000 responses" in page
    if responses:
        assert yes_no["warning"] and many["warning"]
        assert page.count("more than ±100 percentage points") == 4  # warning and margin line


def strict_json(response) -> dict:
    """The body as browsers read JSON: NaN and Infinity are not JSON."""
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(response.content, parse_constant=refuse)


def test_it_never_serves_results_cached_by_another_version(
    client, researcher, make_survey, monkeypatch
):
    survey = make_survey(researcher, status="open")
    submit(survey, 30)
    client.force_login(researcher)
    monkeypatch.setattr(results, "RESULTS_VERSION", results.RESULTS_VERSION - 1)
    older = get_json(client, survey)["snapshot"]
    monkeypatch.undo()
    assert get_json(client, survey)["snapshot"] not in {older, None}


def test_it_draws_an_accessible_chart_from_zero_to_one_hundred_percent(
    client, researcher, make_survey
):
    long_label = "A choice whose label is too long for the chart"
    labels = ("A, with comma", "<b>B</b>", long_label)
    survey = make_survey(researcher, status="open", labels=labels)
    submit(survey, 40)
    client.force_login(researcher)
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert page.count('role="img"') == 2
    assert f">{long_label[:39]}…</text>" in page and f">{long_label}</th>" in page
    assert 'aria-labelledby="chart-1-title chart-1-desc"' in page
    assert ">0%</text>" in page and ">100%</text>" in page
    assert "&lt;b&gt;B&lt;/b&gt;" in page and "<b>B</b>" not in page
    assert "<script>" not in page and "http://" not in page and "https://" not in page
    assert page.count("<details") == 2


@pytest.mark.parametrize("name", ROUTES)
def test_it_refuses_the_wrong_method(client, researcher, make_survey, name):
    client.force_login(researcher)
    url = reverse(name, args=[make_survey(researcher, status="open").pk])
    assert client.post(url).status_code == 405
    assert client.put(url).status_code == 405
    assert client.head(url).status_code == 200


@pytest.mark.parametrize("name", ROUTES)
def test_it_hides_results_from_another_researcher(
    client, researcher, other_researcher, make_survey, name
):
    survey = make_survey(researcher, status="open")
    client.force_login(other_researcher)
    assert client.get(reverse(name, args=[survey.pk])).status_code == 404


@pytest.mark.parametrize("name", ROUTES)
def test_it_sends_visitors_to_sign_in(client, researcher, make_survey, name):
    response = client.get(reverse(name, args=[make_survey(researcher, status="open").pk]))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


@pytest.mark.parametrize("name", ROUTES)
def test_it_shows_results_to_administrators(client, researcher, make_survey, name):
    survey = make_survey(researcher, status="open")
    admin = User.objects.create_superuser("root", "root@example.org", "pass-for-tests-1")
    client.force_login(admin)
    assert client.get(reverse(name, args=[survey.pk])).status_code == 200


def test_it_hides_results_from_staff_without_the_view_permission(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    staff = User.objects.create_user(
        "clerk", "clerk@example.org", "pass-for-tests-1", is_staff=True
    )
    client.force_login(staff)
    assert client.get(reverse("survey-results", args=[survey.pk])).status_code == 404
    staff.user_permissions.add(Permission.objects.get(codename="view_survey"))
    client.force_login(User.objects.get(pk=staff.pk))
    assert client.get(reverse("survey-results", args=[survey.pk])).status_code == 200


def test_it_serves_the_estimates_as_json(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    submit(survey, 30)
    client.force_login(researcher)
    response = client.get(reverse("survey-results-json", args=[survey.pk]))
    assert response["Content-Type"] == "application/json"
    data = response.json()
    assert data["survey"] == {
        "id": survey.pk, "title": "Habits", "status": "open",
        "opened_at": survey.opened_at.isoformat(), "closed_at": None,
        "responses": 30, "total_epsilon": 3.0,
    }
    yes_no, categorical = data["questions"]
    assert [yes_no["position"], yes_no["kind"], yes_no["labels"]] == [1, "yesno", ["No", "Yes"]]
    assert categorical["labels"] == ["Never", "Once", "Often"]
    assert sum(c["estimate"] for c in categorical["categories"]) == pytest.approx(1)
    assert all(c["truth"] is None for q in data["questions"] for c in q["categories"])
