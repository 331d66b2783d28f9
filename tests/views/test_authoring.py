"""The researcher's pages: each view for its owner, another researcher, a visitor, bad input."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils.html import escape

from surveys import ldp
from surveys.actions.designs import set_design
from surveys.ldp import joint
from surveys.models import (
    EPSILON_TOO_SMALL,
    TOTAL_EPSILON,
    Choice,
    PrivacyPolicy,
    Question,
    Survey,
    build_mechanism,
    total_epsilon,
)

pytestmark = pytest.mark.django_db

# (url name, needs a question rather than a survey, methods it refuses)
SURVEY_VIEWS = [
    ("survey-detail", ["POST"]),
    ("survey-edit", ["PUT"]),
    ("survey-delete", ["PUT"]),
    ("survey-open", ["PUT"]),
    ("survey-close", ["PUT"]),
    ("survey-duplicate", ["GET"]),
    ("survey-preview", ["POST"]),
    ("survey-preview-thanks", ["POST"]),
    ("question-create", ["PUT"]),
]
QUESTION_VIEWS = [
    ("question-edit", ["PUT"]),
    ("question-delete", ["PUT"]),
    ("question-move", ["GET"]),
]


def url_for(name: str, survey: Survey) -> str:
    if name.startswith("question-") and name != "question-create":
        return reverse(name, args=[survey.questions.first().pk])
    return reverse(name, args=[survey.pk])


@pytest.mark.parametrize("name,refused", SURVEY_VIEWS + QUESTION_VIEWS)
def test_it_refuses_the_wrong_method(client, researcher, make_survey, name, refused):
    client.force_login(researcher)
    url = url_for(name, make_survey(researcher))
    for method in refused:
        assert getattr(client, method.lower())(url).status_code == 405


@pytest.mark.parametrize("name,_", SURVEY_VIEWS + QUESTION_VIEWS)
def test_it_hides_surveys_from_another_researcher(
    client, researcher, other_researcher, make_survey, name, _
):
    survey = make_survey(researcher)
    client.force_login(other_researcher)
    method = client.get if name not in {"survey-duplicate", "question-move"} else client.post
    assert method(url_for(name, survey)).status_code == 404
    assert Survey.objects.count() == 1


@pytest.mark.parametrize("name,_", SURVEY_VIEWS + QUESTION_VIEWS)
def test_it_sends_visitors_to_sign_in(client, researcher, make_survey, name, _):
    url = url_for(name, make_survey(researcher))
    method = client.get if name not in {"survey-duplicate", "question-move"} else client.post
    response = method(url)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_it_refuses_signed_in_users_who_are_not_researchers(client):
    user = User.objects.create_user("bob", password="pass-for-tests-1")
    client.force_login(user)
    assert client.get(reverse("survey-list")).status_code == 403
    assert client.post(reverse("survey-create"), {"title": "X"}).status_code == 403
    assert not Survey.objects.exists()


def test_it_explains_how_to_start_when_there_are_no_surveys(client, researcher):
    client.force_login(researcher)
    html = client.get(reverse("survey-list")).content.decode()
    assert "You have no surveys yet" in html
    assert "yes/no, multiple choice, rating scales, numbers and check all that apply" in html
    assert reverse("survey-create") in html


def test_it_lists_only_my_surveys_with_status_responses_and_total_epsilon(
    client, researcher, other_researcher, make_survey
):
    make_survey(researcher, title="Mine", epsilons=(0.5, 1.25), status="open")
    make_survey(other_researcher, title="Theirs")
    client.force_login(researcher)
    html = client.get(reverse("survey-list")).content.decode()
    assert "Mine" in html and "Theirs" not in html
    assert "1.75" in html and "Open" in html


def test_the_database_totals_epsilon_as_the_pages_do(researcher, make_survey):
    """The survey lists sum epsilons in SQL (TOTAL_EPSILON), the other pages in Python."""
    for survey in [make_survey(researcher, epsilons=(0.1, 0.2)),
                   Survey.objects.create(owner=researcher, title="No questions")]:
        summed = Survey.objects.annotate(total=TOTAL_EPSILON).get(pk=survey.pk).total
        assert summed == total_epsilon(survey.questions.all())


def test_it_paginates_the_survey_list(client, researcher):
    Survey.objects.bulk_create(
        [Survey(owner=researcher, title=f"S{i}", public_id=f"p{i}") for i in range(25)]
    )
    client.force_login(researcher)
    assert "Page 1 of 2" in client.get(reverse("survey-list")).content.decode()
    assert "S0" in client.get(reverse("survey-list") + "?page=2").content.decode()


def test_it_creates_and_edits_a_survey(client, researcher):
    client.force_login(researcher)
    response = client.post(reverse("survey-create"), {"title": "Health", "introduction": "Hi"})
    survey = Survey.objects.get()
    assert response.url == survey.get_absolute_url()
    assert survey.owner == researcher and survey.is_draft
    client.post(reverse("survey-edit", args=[survey.pk]), {"title": "Health 2", "introduction": ""})
    survey.refresh_from_db()
    assert survey.title == "Health 2"


def test_it_requires_a_title(client, researcher):
    client.force_login(researcher)
    response = client.post(reverse("survey-create"), {"title": ""})
    assert response.status_code == 200
    assert "This field is required" in response.content.decode()
    assert not Survey.objects.exists()


def test_it_adds_a_categorical_question_with_its_choices(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    data = {"text": "Which?", "kind": "categorical", "epsilon": "1.5", "choices": "A\n\n B \nC"}
    response = client.post(reverse("question-create", args=[survey.pk]), data)
    assert response.status_code == 302
    question = survey.questions.get()
    assert question.labels() == ["A", "B", "C"] and question.epsilon == 1.5


def test_it_offers_the_policy_default_epsilon(client, researcher):
    PrivacyPolicy.objects.update_or_create(pk=1, defaults={"default_epsilon": 0.7})
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    html = client.get(reverse("question-create", args=[survey.pk])).content.decode()
    assert 'value="0.7"' in html


@pytest.mark.parametrize(
    "choices,error",
    [("Only one", "at least two choices"), ("A\na", "must be different"), ("", "at least two")],
)
def test_it_rejects_bad_choices(client, researcher, choices, error):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    data = {"text": "Which?", "kind": "categorical", "epsilon": "1", "choices": choices}
    response = client.post(reverse("question-create", args=[survey.pk]), data)
    assert error in response.content.decode()
    assert not Question.objects.exists() and not Choice.objects.exists()


@pytest.mark.parametrize(
    "epsilon,error",
    [
        ("0.001", EPSILON_TOO_SMALL),
        ("0", EPSILON_TOO_SMALL),
        ("-1", EPSILON_TOO_SMALL),
        ("nan", "Enter a number"),
        ("NaN", "Enter a number"),
        ("inf", "Enter a number"),
        ("-inf", "Enter a number"),
        ("1e400", "Enter a number"),
        ("abc", "Enter a number"),
        ("", "This field is required"),
        ("3.5", "at most 3 per question"),
    ],
)
def test_it_rejects_every_kind_of_invalid_epsilon(client, researcher, epsilon, error):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    data = {"text": "Q?", "kind": "yesno", "epsilon": epsilon}
    response = client.post(reverse("question-create", args=[survey.pk]), data)
    assert response.status_code == 200
    assert escape(error) in response.content.decode()
    assert not Question.objects.exists()


def test_it_tells_the_browser_the_smallest_epsilon(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    html = client.get(reverse("question-create", args=[survey.pk])).content.decode()
    assert f'min="{ldp.MIN_EPSILON:g}"' in html
    assert f"the smallest allowed is {ldp.MIN_EPSILON:g}" in html


def test_it_rejects_an_epsilon_that_would_exceed_the_survey_total(client, researcher, make_survey):
    PrivacyPolicy.objects.update_or_create(pk=1, defaults={"max_survey_epsilon": 4.0})
    survey = make_survey(researcher, epsilons=(1.0, 2.0))
    client.force_login(researcher)
    data = {"text": "Q?", "kind": "yesno", "epsilon": "1.5"}
    response = client.post(reverse("question-create", args=[survey.pk]), data)
    assert "above the site&#x27;s limit of 4 per survey" in response.content.decode()
    assert survey.questions.count() == 2


def test_it_edits_a_draft_question(client, researcher, make_survey):
    survey = make_survey(researcher)
    question = survey.questions.get(kind="categorical")
    client.force_login(researcher)
    html = client.get(reverse("question-edit", args=[question.pk])).content.decode()
    assert "Never\nOnce\nOften" in html
    data = {
        "text": "How often now?",
        "kind": "categorical",
        "epsilon": "1",
        "choices": "Often\nNever",
    }
    client.post(reverse("question-edit", args=[question.pk]), data)
    question.refresh_from_db()
    assert question.text == "How often now?" and question.labels() == ["Often", "Never"]


def test_it_moves_questions_up_and_down(client, researcher, make_survey):
    survey = make_survey(researcher)
    first, second = survey.ordered_questions()
    client.force_login(researcher)
    client.post(reverse("question-move", args=[second.pk]), {"direction": "up"})
    assert list(survey.ordered_questions()) == [second, first]
    client.post(reverse("question-move", args=[second.pk]), {"direction": "up"})
    assert list(survey.ordered_questions()) == [second, first]
    client.post(reverse("question-move", args=[second.pk]), {"direction": "down"})
    assert list(survey.ordered_questions()) == [first, second]


def test_it_deletes_a_draft_question(client, researcher, make_survey):
    survey = make_survey(researcher)
    question = survey.questions.first()
    client.force_login(researcher)
    assert client.get(reverse("question-delete", args=[question.pk])).status_code == 200
    client.post(reverse("question-delete", args=[question.pk]))
    assert survey.questions.count() == 1


def test_it_opens_a_survey_after_confirmation_and_freezes_its_mechanisms(
    client, researcher, make_survey
):
    survey = make_survey(researcher)
    client.force_login(researcher)
    assert (
        "frozen for good" in client.get(reverse("survey-open", args=[survey.pk])).content.decode()
    )
    survey.refresh_from_db()
    assert survey.is_draft
    client.post(reverse("survey-open", args=[survey.pk]))
    survey.refresh_from_db()
    assert survey.is_open and survey.opened_at is not None
    for question in survey.questions.all():
        assert question.spec == question.mechanism().spec()
        assert question.tallies.count() == question.mechanism().k


def test_it_refuses_to_open_a_survey_without_questions(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="Empty")
    client.force_login(researcher)
    response = client.post(reverse("survey-open", args=[survey.pk]))
    assert "Add at least one question" in response.content.decode()
    survey.refresh_from_db()
    assert survey.is_draft


def test_it_closes_an_open_survey_after_confirmation(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    client.force_login(researcher)
    assert client.get(reverse("survey-close", args=[survey.pk])).status_code == 200
    client.post(reverse("survey-close", args=[survey.pk]))
    survey.refresh_from_db()
    assert survey.status == "closed" and survey.closed_at is not None


@pytest.mark.parametrize("name", ["question-edit", "question-delete", "question-move"])
def test_it_refuses_to_change_a_frozen_question_and_offers_a_duplicate(
    client, researcher, make_survey, name
):
    survey = make_survey(researcher, status="open")
    question = survey.questions.get(kind="yesno")
    client.force_login(researcher)
    response = client.post(
        reverse(name, args=[question.pk]), {"text": "New", "kind": "yesno", "epsilon": "3"}
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "frozen" in html and "Duplicate as a new draft" in html
    question.refresh_from_db()
    assert question.text == "Have you ever cheated?" and question.epsilon == 1.0
    assert survey.questions.count() == 2


def test_it_refuses_to_add_a_question_to_an_open_survey(client, researcher, make_survey):
    survey = make_survey(researcher, status="closed")
    client.force_login(researcher)
    response = client.post(
        reverse("question-create", args=[survey.pk]), {"text": "Q", "kind": "yesno", "epsilon": "1"}
    )
    assert response.status_code == 409
    assert survey.questions.count() == 2


def test_it_duplicates_an_open_survey_as_a_new_draft(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    client.force_login(researcher)
    response = client.post(reverse("survey-duplicate", args=[survey.pk]))
    copy = Survey.objects.exclude(pk=survey.pk).get()
    assert response.url == copy.get_absolute_url()
    assert copy.is_draft and copy.owner == researcher and copy.public_id != survey.public_id
    original = [(q.text, q.epsilon, q.labels()) for q in survey.ordered_questions()]
    assert [(q.text, q.epsilon, q.labels()) for q in copy.ordered_questions()] == original
    assert all(q.spec is None for q in copy.questions.all())


def test_it_deletes_a_survey_without_responses_after_one_confirmation(
    client, researcher, make_survey
):
    survey = make_survey(researcher)
    client.force_login(researcher)
    client.post(reverse("survey-delete", args=[survey.pk]))
    assert not Survey.objects.exists()


def test_it_asks_for_explicit_confirmation_before_deleting_responses(
    client, researcher, make_survey
):
    survey = make_survey(researcher, status="open")
    Survey.objects.filter(pk=survey.pk).update(response_count=3)
    client.force_login(researcher)
    response = client.post(reverse("survey-delete", args=[survey.pk]))
    assert "3 responses" in response.content.decode()
    assert Survey.objects.exists()
    client.post(reverse("survey-delete", args=[survey.pk]), {"confirm": "on"})
    assert not Survey.objects.exists()


def test_it_previews_a_draft_exactly_like_the_respondent_page_without_sending(
    client, researcher, make_survey
):
    survey = make_survey(researcher)
    client.force_login(researcher)
    html = client.get(reverse("survey-preview", args=[survey.pk])).content.decode()
    assert "Have you ever cheated?" in html and "Often" in html
    assert "Preview" in html and "disabled" in html


def test_it_explains_an_epsilon_in_numbers(client, researcher):
    client.force_login(researcher)
    data = client.get(reverse("epsilon-explain"), {"epsilon": "1", "kind": "yesno"}).json()
    assert data["odds"] == pytest.approx(2.718281828)
    assert data["truth_probability"] == pytest.approx(2.718281828 / 3.718281828)
    assert [m["n"] for m in data["margins"]] == [200, 1000, 5000]
    assert data["margins"][0]["margin"] > data["margins"][2]["margin"] > 0
    categorical = client.get(
        reverse("epsilon-explain"), {"epsilon": "1", "kind": "categorical", "k": "20"}
    ).json()
    assert "OUE" in categorical["mechanism"]
    assert (
        client.get(reverse("epsilon-explain"), {"epsilon": "1", "kind": "categorical", "k": "3"})
        .json()["mechanism"]
        .endswith("(GRR)")
    )


def explain(client, **query: str) -> dict:
    response = client.get(reverse("epsilon-explain"), query)
    assert response.status_code == 200
    return response.json()


def test_it_plans_for_the_worst_case_unless_told_the_expected_share(client, researcher):
    client.force_login(researcher)
    mechanism = ldp.randomized_response(1.0)
    worst = explain(client, epsilon="1", kind="yesno", share="")
    assert worst["share"] is None and worst["n_for_5_points_at_share"] is None
    assert worst["n_for_5_points"] == mechanism.n_for_margin(0.05) == 1799
    assert all(m["margin_at_share"] is None for m in worst["margins"])
    rare = explain(client, epsilon="1", kind="yesno", share="5")
    assert rare["share"] == 0.05 and rare["n_for_5_points"] == worst["n_for_5_points"]
    assert rare["n_for_5_points_at_share"] == mechanism.n_for_margin(0.05, share=0.05) == 1488
    for margins in rare["margins"]:
        assert margins["margin_at_share"] == pytest.approx(
            mechanism.margin_of_error(margins["n"], share=0.05))
        assert margins["margin_at_share"] < margins["margin"]


def test_it_says_what_letting_respondents_decline_costs_in_respondents(client, researcher):
    client.force_login(researcher)
    without = explain(client, epsilon="1", kind="yesno", k="2")
    declinable = explain(client, epsilon="1", kind="yesno", k="3", declinable="1")
    # "No answer" makes a yes/no question's 2 answers 3: the planner's own counts, 1,799 and
    # 2,897, for the same margin.
    cost = declinable["n_for_5_points"] / without["n_for_5_points"]
    assert without["no_answer_cost"] == declinable["no_answer_cost"] == cost
    assert cost == pytest.approx(1.61, abs=0.01)
    assert explain(client, epsilon="3", kind="yesno")["no_answer_cost"] < 1.15


def test_it_says_when_no_survey_could_reach_the_target_margin(client, researcher):
    client.force_login(researcher)
    data = explain(client, epsilon=f"{ldp.MIN_EPSILON}", kind="categorical", k="1000",
                   override="grr", share="5")
    assert data["n_for_5_points"] is None and data["n_for_5_points_at_share"] is None
    assert data["planner_limit"] == ldp.MAX_PLANNED_RESPONDENTS
    assert all(m["margin"] > 1 for m in data["margins"])


@pytest.mark.parametrize("share", ["abc", "-1", "100.5", "nan", "inf", "1e400"])
def test_it_refuses_an_expected_share_that_is_not_a_percentage(client, researcher, share):
    client.force_login(researcher)
    response = client.get(reverse("epsilon-explain"), {"epsilon": "1", "share": share})
    assert response.status_code == 400
    assert response.json()["error"] == (
        "The expected share must be a percentage from 0 to 100, for example 5.")


@pytest.mark.parametrize("share", ["0", "100", " 2.5 "])
def test_it_accepts_any_expected_share_from_0_to_100_percent(client, researcher, share):
    client.force_login(researcher)
    assert explain(client, epsilon="1", share=share)["share"] == float(share) / 100


def test_it_explains_that_epsilon_has_a_minimum(client, researcher):
    client.force_login(researcher)
    response = client.get(reverse("epsilon-explain"), {"epsilon": "0.001"})
    assert response.status_code == 400 and response.json()["error"] == EPSILON_TOO_SMALL
    assert explain(client, epsilon=f"{ldp.MIN_EPSILON}")["epsilon"] == ldp.MIN_EPSILON


@pytest.mark.parametrize(
    "query",
    [
        {"epsilon": "nan"},
        {"epsilon": "0"},
        {"epsilon": "x"},
        {"epsilon": "1", "k": "1", "kind": "categorical"},
        {"epsilon": "1", "k": str(ldp.MAX_CATEGORIES + 1), "kind": "categorical"},
        {"epsilon": str(ldp.MAX_EPSILON + 0.5)},
        {"epsilon": "1", "kind": "bogus"},
        {"epsilon": "1", "kind": "yesno", "k": "2", "declinable": "1"},
        {"epsilon": "1", "kind": "yesno", "k": "3", "declinable": "yes"},
    ],
)
def test_it_explains_bad_epsilons_with_a_clear_error(client, researcher, query):
    client.force_login(researcher)
    response = client.get(reverse("epsilon-explain"), query)
    assert response.status_code == 400 and response.json()["error"]


@pytest.mark.browser
@pytest.mark.usefixtures("transactional_db")
def test_it_plans_for_the_expected_share_in_the_authoring_panel(
    client, researcher, page, live_server
):
    PrivacyPolicy.objects.update_or_create(pk=1, defaults={"allow_mechanism_override": True})
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": live_server.url}])
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    panel = page.locator("#explain-body")
    page.fill("#id_epsilon", "1")
    panel.get_by_text("For ±5 points: about 1,799 respondents.").wait_for()
    page.fill("#expected-share", "5")
    panel.get_by_text(
        "For ±5 points on a share near 5.0%: about 1,488 respondents. "
        "In the worst case: about 1,799 respondents."
    ).wait_for()
    assert "200 respondents: ±13.6 points (worst case ±15.0 points)" in panel.inner_text()
    # "Prefer not to say" says what its "No answer" costs: 2,897 respondents instead of 1,799.
    assert page.inner_text("#id_offers_refusal_helptext").endswith(
        "At epsilon 1, its “No answer” is one more answer to randomize: the question needs "
        "about 1.6 times the respondents for the same margin of error."
    )
    page.fill("#expected-share", "150")
    panel.get_by_text("The expected share must be a percentage from 0 to 100").wait_for()
    page.fill("#expected-share", "")
    page.select_option("#id_kind", "categorical")
    page.fill("#id_choices", "\n".join(f"Answer {i}" for i in range(1000)))
    page.select_option("#id_mechanism_override", "grr")
    page.fill("#id_epsilon", "0.001")
    panel.get_by_text(EPSILON_TOO_SMALL).wait_for()
    page.fill("#id_epsilon", "0.01")
    panel.get_by_text(
        "For ±5 points: more than 1,000,000,000 respondents, out of reach: raise epsilon or "
        "accept a wider margin."
    ).wait_for()
    assert "200 respondents: more than ±100 points" in panel.inner_text()


def test_it_saves_whether_a_question_is_used_for_breakdowns(client, researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    html = client.get(reverse("question-create", args=[survey.pk])).content.decode()
    assert "Used for breakdowns (a grouping question)" in html
    assert 'id="group-share-row" hidden>' in html
    data = {"text": "Faculty?", "kind": "categorical", "epsilon": "2", "choices": "Arts\nScience",
            "used_for_breakdowns": "on"}
    assert client.post(reverse("question-create", args=[survey.pk]), data).status_code == 302
    question = survey.questions.get()
    assert question.used_for_breakdowns
    html = client.get(reverse("question-edit", args=[question.pk])).content.decode()
    assert 'id="group-share-row">' in html  # the group size box shows for a grouping question
    del data["used_for_breakdowns"]
    client.post(reverse("question-edit", args=[question.pk]), data)
    question.refresh_from_db()
    assert not question.used_for_breakdowns


@pytest.mark.parametrize("grouping", [None, "", "0"])
def test_it_gives_no_grouping_advice_for_an_ordinary_question(client, researcher, grouping):
    client.force_login(researcher)
    query = {"epsilon": "1", "group_share": "not a number"}
    if grouping is not None:
        query["grouping"] = grouping
    assert explain(client, **query)["grouping"] is None


def test_it_suggests_a_larger_epsilon_for_a_grouping_question(client, researcher):
    PrivacyPolicy.objects.update_or_create(pk=1, defaults={"max_survey_epsilon": 10})
    client.force_login(researcher)
    data = explain(client, epsilon="1", kind="categorical", k="4", grouping="1", group_share="20")
    grouping = data["grouping"]
    assert grouping["suggested_epsilon"] == 2 and grouping["below_suggestion"]
    assert "twice this site's default of 1" in grouping["advice"]
    assert "every group's figures rest on it" in grouping["advice"]
    assert "total epsilon" in grouping["advice"]
    assert "below the 2 we suggest" in grouping["hint"]
    assert data["epsilon"] == 1  # a hint, not a refusal
    at_suggestion = explain(client, epsilon="2", kind="yesno", grouping="1", group_share="20")
    assert not at_suggestion["grouping"]["below_suggestion"]
    assert at_suggestion["grouping"]["hint"] is None
    assert at_suggestion["grouping"]["n_for_5_points_at_suggestion"] is None


@pytest.mark.parametrize("default,maximum,survey,suggested,why", [
    (1.0, 4.0, 20.0, 2.0, "twice this site's default of 1"),
    (0.25, 4.0, 20.0, 0.5, "twice this site's default of 0.25"),
    (1.0, 1.5, 20.0, 1.5, "this site's largest epsilon for one question"),
    (1.0, 3.0, 3.0, 0.75, "a quarter of the survey's budget of 3"),  # the site's defaults
])
def test_it_never_suggests_more_than_the_per_question_maximum_or_a_quarter_of_the_budget(
    client, researcher, default, maximum, survey, suggested, why
):
    PrivacyPolicy.objects.update_or_create(pk=1, defaults={
        "default_epsilon": default, "max_question_epsilon": maximum, "max_survey_epsilon": survey})
    client.force_login(researcher)
    grouping = explain(client, epsilon=str(suggested), grouping="1", group_share="20")["grouping"]
    assert grouping["suggested_epsilon"] == suggested and grouping["hint"] is None
    assert grouping["other_epsilon"] == default
    assert f"We suggest {suggested:g} ({why})" in grouping["advice"]


def test_a_grouping_question_of_a_design_is_suggested_a_quarter_of_its_budget(
    client, researcher, make_survey
):
    """Under a design that asks each respondent a random few, the survey's own budget is
    what a grouping question spends from."""
    survey = make_survey(researcher)
    set_design(survey, 2.0, 1, {survey.ordered_questions()[0].pk})
    client.force_login(researcher)
    grouping = explain(client, epsilon="0.5", grouping="1", group_share="20",
                       survey=str(survey.pk))["grouping"]
    assert grouping["suggested_epsilon"] == 0.5
    assert "a quarter of the survey's budget of 2" in grouping["advice"]


def test_it_plans_respondents_within_a_group_with_the_core(client, researcher):
    PrivacyPolicy.objects.update_or_create(
        pk=1, defaults={"default_epsilon": 0.5, "max_survey_epsilon": 10})
    client.force_login(researcher)
    data = explain(client, epsilon="0.8", kind="categorical", k="5", grouping="1",
                   group_share="20", share="5")
    grouping = data["grouping"]
    this = build_mechanism("categorical", 0.8, 5)
    other = build_mechanism("yesno", 0.5, 2)  # the stated assumption: yes/no at the default
    assert grouping["other_kind"] == "yesno" and grouping["other_epsilon"] == 0.5
    assert grouping["other_mechanism"] == other.label
    assert grouping["group_share"] == 0.2
    assert grouping["n_for_5_points"] == joint.n_for_margin_within_group(this, other, 0.05, 0.2)
    assert grouping["n_for_5_points_at_suggestion"] == joint.n_for_margin_within_group(
        build_mechanism("categorical", 1.0, 5), other, 0.05, 0.2)
    assert grouping["n_for_5_points_at_suggestion"] <= grouping["n_for_5_points"]
    assert [m["n"] for m in grouping["margins"]] == [200, 1000, 5000]
    for margins in grouping["margins"]:
        assert margins["margin"] == pytest.approx(
            joint.margin_within_group(this, other, margins["n"], 0.2))
    # A breakdown within a fifth of the respondents needs more of them than the question alone.
    assert grouping["n_for_5_points"] > data["n_for_5_points"]
    smaller = explain(client, epsilon="0.8", kind="categorical", k="5", grouping="1",
                      group_share="5")["grouping"]
    assert smaller["n_for_5_points"] > grouping["n_for_5_points"]


def test_it_waits_for_a_group_size(client, researcher):
    client.force_login(researcher)
    grouping = explain(client, epsilon="1", grouping="1", group_share=" ")["grouping"]
    assert grouping["group_share"] is None and grouping["margins"] == []
    assert grouping["n_for_5_points"] is None and grouping["advice"]


def test_it_says_when_a_breakdown_is_out_of_reach(client, researcher, monkeypatch):
    client.force_login(researcher)
    data = explain(client, epsilon=f"{ldp.MIN_EPSILON}", kind="categorical", k="1000",
                   override="grr", grouping="1", group_share="0.001")
    assert data["grouping"]["n_for_5_points"] is None
    assert data["planner_limit"] == ldp.MAX_PLANNED_RESPONDENTS

    def refuse(*args, **kwargs):
        raise ValueError("absurd target")

    monkeypatch.setattr(joint, "n_for_margin_within_group", refuse)
    monkeypatch.setattr(joint, "margin_within_group", refuse)
    grouping = explain(client, epsilon="1", grouping="1", group_share="20")["grouping"]
    assert grouping["n_for_5_points"] is None and grouping["n_for_5_points_at_suggestion"] is None
    assert all(m["margin"] is None for m in grouping["margins"])


@pytest.mark.parametrize("group_share", ["abc", "0", "-5", "100.5", "nan", "inf", "1e400", "-0"])
def test_it_refuses_a_group_size_that_is_not_a_percentage(client, researcher, group_share):
    client.force_login(researcher)
    query = {"epsilon": "1", "grouping": "1", "group_share": group_share}
    response = client.get(reverse("epsilon-explain"), query)
    assert response.status_code == 400
    assert response.json()["error"] == (
        "The expected group size must be a percentage above 0 and at most 100, for example 20.")


def test_it_refuses_an_unknown_grouping_flag(client, researcher):
    client.force_login(researcher)
    response = client.get(reverse("epsilon-explain"), {"epsilon": "1", "grouping": "yes"})
    assert response.status_code == 400 and response.json()["error"]


@pytest.mark.browser
@pytest.mark.usefixtures("transactional_db")
def test_it_advises_on_a_grouping_question_in_the_authoring_panel(
    client, researcher, page, live_server
):
    PrivacyPolicy.objects.update_or_create(pk=1, defaults={"max_survey_epsilon": 10})
    survey = Survey.objects.create(owner=researcher, title="T")
    client.force_login(researcher)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": live_server.url}])
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    panel = page.locator("#explain-body")
    page.fill("#id_epsilon", "1")
    panel.get_by_text("For ±5 points: about 1,799 respondents.").wait_for()
    assert not page.is_visible("#group-share")
    page.check("#id_used_for_breakdowns")
    panel.get_by_text("We suggest 2 (twice this site's default of 1)", exact=False).wait_for()
    panel.get_by_text("below the 2 we suggest", exact=False).wait_for()
    assert page.is_visible("#group-share") and page.input_value("#group-share") == "20"
    mechanism = ldp.randomized_response(1.0)
    needed = joint.n_for_margin_within_group(mechanism, mechanism, 0.05, 0.2)
    panel.get_by_text(
        f"For ±5 points on the share of an answer within a group of 20.0% of respondents: "
        f"about {needed:,} respondents.", exact=False).wait_for()
    assert "yes/no question at this site's default epsilon (1)" in panel.inner_text()
    page.fill("#group-share", "0")
    panel.get_by_text("The expected group size must be a percentage above 0").wait_for()
    page.fill("#group-share", "20")
    page.fill("#id_epsilon", "2")
    needed = ldp.randomized_response(2.0).n_for_margin(0.05)
    panel.get_by_text(f"For ±5 points: about {needed:,} respondents.").wait_for()
    assert "For breakdowns by this question" in panel.inner_text()
    assert "below the" not in panel.inner_text()
    page.uncheck("#id_used_for_breakdowns")
    page.locator("#grouping-title").wait_for(state="detached")
    assert not page.is_visible("#group-share")


# What respondents will read, while authoring ---------------------------------------------------


def respondent_sentences(client, survey: Survey) -> list[str]:
    """The sentences of the respondent page's "What anyone could learn about you"."""
    html = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    box = html.split('<ul id="odds">')[1].split("</ul>")[0]
    return [item.split(">", 1)[1] for item in box.split("</li>") if ">" in item]


def test_the_panel_gives_respondents_sentences_for_the_epsilon_being_typed(
    client, researcher, make_survey
):
    """Typing 1.5 for the second question: the panel says exactly what respondents read once
    it is saved with 1.5, counting the survey's other question and not its own old value."""
    client.force_login(researcher)
    survey = make_survey(researcher, epsilons=(1.0, 2.0))
    edited = survey.questions.get(order=2)
    data = explain(client, epsilon="1.5", kind="categorical", k="3", survey=str(survey.pk),
                   question=str(edited.pk))
    Question.objects.filter(pk=edited.pk).update(epsilon=1.5)
    survey.status = Survey.Status.OPEN
    survey.save()
    assert data["respondents_read"] == respondent_sentences(client, survey)
    assert "at most 4.5 times more sure" in data["respondents_read"][0]
    assert data["respondents_read"][2].endswith("could raise that to at most 58%.")


def test_the_panel_counts_every_other_question_for_a_new_one(client, researcher, make_survey):
    client.force_login(researcher)
    survey = make_survey(researcher, epsilons=(1.0, 1.0))
    alone = explain(client, epsilon="1", kind="yesno")["respondents_read"]
    added = explain(client, epsilon="1", kind="yesno", survey=str(survey.pk), question="")
    assert alone[0].startswith("Your answer can make anyone")  # a survey of one question
    assert "at most 20 times more sure of anything" in added["respondents_read"][1]  # e^3


@pytest.mark.parametrize("survey", ["x", "1e3", "-1", "9" * 30])
def test_the_panel_refuses_a_survey_that_is_not_an_id(client, researcher, survey):
    client.force_login(researcher)
    response = client.get(reverse("epsilon-explain"), {"epsilon": "1", "survey": survey})
    assert response.status_code == 400
    assert "whole numbers" in response.json()["error"]


def test_the_panel_hides_another_researchers_survey(
    client, researcher, other_researcher, make_survey
):
    survey = make_survey(researcher)
    client.force_login(other_researcher)
    response = client.get(reverse("epsilon-explain"), {"epsilon": "1", "survey": survey.pk})
    assert response.status_code == 404


def test_the_survey_page_shows_what_respondents_will_read(client, researcher, make_survey):
    client.force_login(researcher)
    survey = make_survey(researcher, epsilons=(1.0, 2.0))
    html = client.get(reverse("survey-detail", args=[survey.pk])).content.decode()
    section = html.split('id="respondents-read"')[1].split("</div>")[0]
    survey.status = Survey.Status.OPEN
    survey.save()
    for sentence in respondent_sentences(client, survey):
        assert sentence in section
    assert "could raise that to at most 70%." in section
