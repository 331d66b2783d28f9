"""Correcting an opened survey's wording: the model method and its refusals, the page, the
revisions kept, the results and exports that name them, and tallies and estimates left
intact."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import strip_tags

from surveys.actions.simulate import simulate_responses
from surveys.actions.surveys import close_survey, open_survey
from surveys.actions.wording import MECHANISM_MESSAGE, correct, record
from surveys.models import Choice, Question, Survey, SurveyShare, SurveyTranslation, Tally
from surveys.queries import revisions
from surveys.queries.revisions import summary, wordings
from tests.helpers import submit

pytestmark = pytest.mark.django_db

MECHANISM = str(MECHANISM_MESSAGE)


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


def questions(survey):
    return list(survey.ordered_questions())


def state(survey) -> tuple:
    """Everything a correction may touch, and what it must never touch, as stored."""
    survey = Survey.objects.get(pk=survey.pk)
    return (
        survey.title, survey.introduction,
        list(Question.objects.filter(survey=survey).order_by("pk").values_list(
            "text", "help_text", "kind", "epsilon", "mechanism_override", "spec", "order")),
        list(Choice.objects.filter(question__survey=survey).order_by("pk").values_list(
            "question_id", "order", "label")),
        list(Tally.objects.filter(question__survey=survey).order_by("pk").values_list(
            "question_id", "index", "count")),
        list(survey.revisions.order_by("pk").values_list("created_at", "texts")),
    )


def wording_url(survey) -> str:
    return reverse("survey-wording", args=[survey.pk])


def form_data(survey, **changes) -> dict:
    """The wording page's form as it comes, with ``changes``."""
    data = {"title": survey.title, "introduction": survey.introduction}
    for question in questions(survey):
        data[f"q{question.pk}-text"] = question.text
        data[f"q{question.pk}-help_text"] = question.help_text
        if question.kind == "categorical":
            for i, label in enumerate(question.labels()):
                data[f"q{question.pk}-label{i}"] = label
    return data | changes


# The model: revisions and corrections


def test_opening_keeps_the_first_wording_dated_from_the_opening(researcher, make_survey):
    draft = make_survey(researcher)
    assert not draft.revisions.exists()  # nobody has seen a draft's wording
    assert record(draft, researcher) is None
    open_survey(draft)
    (first,) = draft.revisions.all()
    assert first.created_at == draft.opened_at
    yes_no, categorical = questions(draft)
    assert first.texts == {
        "language": "en",
        "title": "Habits",
        "introduction": "Please answer.",
        "questions": [
            {"id": yes_no.pk, "text": "Have you ever cheated?", "help_text": "",
             "labels": ["No", "Yes"]},
            {"id": categorical.pk, "text": "How often?", "help_text": "",
             "labels": ["Never", "Once", "Often"]},
        ],
        "translations": {},
    }
    close_survey(draft)
    open_survey(draft)  # reopened, same wording: nothing new
    assert draft.revisions.count() == 1


def test_a_correction_changes_texts_only_and_keeps_a_revision(survey, researcher):
    yes_no, categorical = questions(survey)
    before = state(survey)
    revision = correct(survey, {
        "title": "Study habits",
        "questions": {
            str(yes_no.pk): {"text": "Have you ever cheated in an exam?", "help_text": "Honestly"},
            categorical.pk: {"labels": ["Never", "Once", "Often (3 times or more)"]},
        },
    }, researcher)
    after = state(survey)
    assert after[0] == "Study habits" and after[1] == before[1]
    assert [q[:2] for q in after[2]] == [
        ("Have you ever cheated in an exam?", "Honestly"), ("How often?", ""),
    ]
    assert [q[2:] for q in after[2]] == [q[2:] for q in before[2]]  # kind, epsilon, spec...
    assert [c[2] for c in after[3]] == ["Never", "Once", "Often (3 times or more)"]
    assert [c[:2] for c in after[3]] == [c[:2] for c in before[3]]
    assert after[4] == before[4]  # tallies
    assert survey.revisions.count() == 2
    assert revision == revisions.latest(survey)
    assert revision.author == researcher
    assert revision.texts["title"] == "Study habits"
    assert revision.texts["questions"][1]["labels"][2] == "Often (3 times or more)"
    assert revision.created_at > survey.opened_at


def test_each_correction_is_one_new_wording_version(survey, researcher):
    assert Survey.objects.get(pk=survey.pk).wording_version == 0
    first = correct(survey, {"title": "Study habits"}, researcher)
    assert Survey.objects.get(pk=survey.pk).wording_version == first.version == 1
    second = correct(survey, {"introduction": "Thank you."}, researcher)
    assert Survey.objects.get(pk=survey.pk).wording_version == second.version == 2
    assert [r.version for r in survey.revisions.order_by("pk")] == [0, 1, 2]


def test_nothing_changed_stores_nothing(survey, researcher):
    before = state(survey)
    assert correct(survey, {"title": "Habits", "questions": {}}, researcher) is None
    assert state(survey) == before


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda y, c: {c: {"labels": ["Never", "Once"]}}, id="fewer answers"),
        pytest.param(lambda y, c: {c: {"labels": ["Never", "Once", "Often", "Daily"]}},
                     id="more answers"),
        pytest.param(lambda y, c: {c: {"labels": ["Once", "Never", "Often"]}}, id="reordered"),
        pytest.param(lambda y, c: {c: {"labels": ["Seldom", "Once", "never"]}},
                     id="an answer's label moved to another"),
        pytest.param(lambda y, c: {y: {"labels": ["Nope", "Yes"]}}, id="yes/no labels"),
        pytest.param(lambda y, c: {y: {"kind": "categorical"}}, id="type"),
        pytest.param(lambda y, c: {c: {"epsilon": 3.0}}, id="epsilon"),
        pytest.param(lambda y, c: {c: {"mechanism_override": "oue", "text": "Often?"}},
                     id="mechanism"),
    ],
)
def test_a_change_that_touches_the_mechanism_is_refused_and_stores_nothing(
    survey, researcher, change
):
    yes_no, categorical = questions(survey)
    survey.revisions.all().delete()  # also no baseline may be taken for a refused change
    before = state(survey)
    with pytest.raises(ValidationError) as refused:
        correct(survey,
            {"title": "Changed too", "questions": change(str(yes_no.pk), str(categorical.pk))},
            researcher,
        )
    assert refused.value.messages == [MECHANISM]
    assert "Duplicate the survey as a new draft" in MECHANISM
    assert state(survey) == before


def test_a_top_level_epsilon_is_refused_too(survey, researcher):
    before = state(survey)
    with pytest.raises(ValidationError, match="epsilon and mechanism cannot change"):
        correct(survey, {"epsilon": 2}, researcher)
    assert state(survey) == before


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"title": "  "}, "title", "cannot be blank"),
        ({"title": "x" * 201}, "title", "At most 200 characters"),
        ({"questions": {"Q": {"text": ""}}}, "q{y}-text", "cannot be blank"),
        ({"questions": {"Q": {"help_text": "h" * 501}}}, "q{y}-help_text", "At most 500"),
        ({"questions": {"C": {"labels": ["Never", "Rarely", "rarely "]}}}, "q{c}-label2",
         "Each answer must be different"),
        ({"questions": {"C": {"labels": ["Never", "", "Often"]}}}, "q{c}-label1",
         "cannot be blank"),
    ],
)
def test_invalid_texts_are_refused_by_field_and_store_nothing(
    survey, researcher, change, field, message
):
    yes_no, categorical = questions(survey)
    ids = {"Q": str(yes_no.pk), "C": str(categorical.pk)}
    if "questions" in change:
        change = {"questions": {ids[k]: v for k, v in change["questions"].items()}}
    before = state(survey)
    with pytest.raises(ValidationError) as refused:
        correct(survey, change, researcher)
    errors = refused.value.message_dict
    assert list(errors) == [field.format(y=yes_no.pk, c=categorical.pk)]
    assert message in errors[list(errors)[0]][0]
    assert state(survey) == before


def test_another_surveys_question_is_refused(survey, researcher, make_survey):
    other = questions(make_survey(researcher, status="open"))[0]
    with pytest.raises(ValidationError, match="no question"):
        correct(survey, {"questions": {str(other.pk): {"text": "Mine now"}}}, researcher)
    assert Question.objects.get(pk=other.pk).text == "Have you ever cheated?"


def test_a_survey_opened_before_revisions_gets_its_earlier_wording_first(survey, researcher):
    survey.revisions.all().delete()  # as if opened before this feature
    correct(survey, {"title": "Habits, corrected"}, researcher)
    old, new = survey.revisions.order_by("created_at", "pk")
    assert (old.created_at, old.author, old.texts["title"]) == (survey.opened_at, None, "Habits")
    assert (new.author, new.texts["title"]) == (researcher, "Habits, corrected")
    assert new.created_at > old.created_at


def test_a_drafts_wording_is_not_corrected_but_edited_on_its_pages(researcher, make_survey):
    draft = make_survey(researcher)
    with pytest.raises(ValidationError, match="Only an opened survey"):
        correct(draft, {"title": "Other"}, researcher)
    assert Survey.objects.get(pk=draft.pk).title != "Other"
    assert not draft.revisions.exists()


def test_the_history_says_what_changed(survey, researcher):
    yes_no, categorical = questions(survey)
    correct(survey, {"questions": {str(categorical.pk): {
        "labels": ["Never", "Once", "Oftne"]}}}, researcher)
    correct(survey, {"questions": {str(categorical.pk): {
        "labels": ["Never", "Once", "Often"]}}}, researcher)
    newest, middle, first = revisions.history(survey)
    assert (newest["current"], newest["until"]) == (True, None)
    assert newest["changes"] == [{"what": "Question 2, answer 3", "old": "Oftne", "new": "Often"}]
    assert middle["until"] == newest["revision"].created_at
    assert first["first"] and first["changes"] == []


# The page


def test_the_page_has_texts_and_no_mechanism_fields(client, survey, researcher):
    client.force_login(researcher)
    response = client.get(wording_url(survey))
    assert response.status_code == 200
    form = response.context["form"]
    yes_no, categorical = questions(survey)
    assert set(form.fields) == {
        "title", "introduction", "study_by", "study_contact", "ethics_reference",
        f"q{yes_no.pk}-text", f"q{yes_no.pk}-help_text",
        f"q{categorical.pk}-text", f"q{categorical.pk}-help_text",
        *(f"q{categorical.pk}-label{i}" for i in range(3)),
    }
    page = response.content.decode()
    assert "Its answers are “No” and “Yes”." in page  # fixed, not editable
    assert 'name="epsilon"' not in page and "kind" not in form.fields


def test_the_page_corrects_a_typo(client, survey, researcher):
    yes_no, categorical = questions(survey)
    submit(survey, 3)  # under the first wording
    client.force_login(researcher)
    response = client.post(
        wording_url(survey), form_data(survey, **{f"q{yes_no.pk}-text": "Have you cheated?"}),
        follow=True,
    )
    assert response.redirect_chain == [(survey.get_absolute_url(), 302)]
    page = response.content.decode()
    assert "The wording was corrected" in page
    assert "Have you cheated?" in page
    assert "Respondents saw 2 wordings: the current one since" in page
    assert reverse("survey-wording", args=[survey.pk]) in page
    assert Question.objects.get(pk=yes_no.pk).text == "Have you cheated?"


def test_responses_are_counted_under_the_wording_they_came_under(client, survey, researcher):
    """A correction before anyone answered is not a wording respondents saw; one after is,
    and each wording knows how many responses came while it was current."""
    yes_no, _ = questions(survey)
    correct(survey, {"questions": {str(yes_no.pk): {"text": "Typo fixed before anyone?"}}})
    assert summary(survey)["count"] == 1  # nobody saw the first wording
    submit(survey, 4)
    correct(survey, {"questions": {str(yes_no.pk): {"text": "Have you cheated?"}}})
    submit(survey, 2, seed=2)
    survey.refresh_from_db()
    assert summary(survey) | {"latest": None} == {"count": 2, "latest": None, "responses": 2}
    assert [w["responses"] for w in wordings(survey)] == [0, 4, 2]
    client.force_login(researcher)
    page = client.get(reverse("survey-wording-history", args=[survey.pk])).content.decode()
    assert "2 responses came while it was current." in page
    assert "4 responses came while it was current." in page
    assert "0 responses came while it was current." in page
    first = survey.revisions.order_by("created_at", "pk").first().created_at
    assert f'{first.strftime("%-d %b %Y %H:%M")} UTC</time>' in page  # every time with its zone


def test_the_page_saving_nothing_new_says_so(client, survey, researcher):
    client.force_login(researcher)
    response = client.post(wording_url(survey), form_data(survey), follow=True)
    assert "Nothing changed" in response.content.decode()
    assert survey.revisions.count() == 1


@pytest.mark.parametrize(
    "extra",
    [
        lambda y, c: {f"q{c}-label3": "Daily"},  # an added answer
        lambda y, c: {f"q{y}-label0": "Nope", f"q{y}-label1": "Yes"},
        lambda y, c: {f"q{c}-epsilon": "3"},
        lambda y, c: {f"q{y}-kind": "categorical"},
        lambda y, c: {"mechanism": "oue"},
    ],
    ids=["added answer", "yes/no labels", "epsilon", "type", "mechanism"],
)
def test_the_page_refuses_a_posted_mechanism_change_with_the_message(
    client, survey, researcher, extra
):
    yes_no, categorical = questions(survey)
    client.force_login(researcher)
    before = state(survey)
    data = form_data(survey, title="Changed") | extra(yes_no.pk, categorical.pk)
    response = client.post(wording_url(survey), data)
    assert response.status_code == 409
    assert "Nothing was saved" in response.content.decode()
    assert MECHANISM.replace("'", "&#x27;") in response.content.decode()
    assert state(survey) == before


def test_the_page_refuses_duplicate_labels_on_the_field(client, survey, researcher):
    _, categorical = questions(survey)
    client.force_login(researcher)
    before = state(survey)
    response = client.post(
        wording_url(survey), form_data(survey, **{f"q{categorical.pk}-label2": "never"})
    )
    assert response.status_code == 200
    assert response.context["form"].errors == {
        f"q{categorical.pk}-label2": ["Each answer must be different."]
    }
    assert state(survey) == before


def test_the_page_refuses_blank_texts(client, survey, researcher):
    yes_no, _ = questions(survey)
    client.force_login(researcher)
    before = state(survey)
    response = client.post(wording_url(survey), form_data(survey, **{f"q{yes_no.pk}-text": " "}))
    assert response.status_code == 200
    assert f"q{yes_no.pk}-text" in response.context["form"].errors
    assert state(survey) == before


def test_a_draft_is_sent_to_its_own_page(client, researcher, make_survey):
    draft = make_survey(researcher)
    client.force_login(researcher)
    response = client.get(wording_url(draft), follow=True)
    assert response.redirect_chain == [(draft.get_absolute_url(), 302)]
    assert "This survey is a draft" in response.content.decode()
    client.post(wording_url(draft), form_data(draft, title="Sneaky"))
    assert Survey.objects.get(pk=draft.pk).title == "Habits"


def test_a_closed_survey_can_be_corrected(client, researcher, make_survey):
    closed = make_survey(researcher, status="closed")
    client.force_login(researcher)
    client.post(wording_url(closed), form_data(closed, title="Habits (final)"))
    assert Survey.objects.get(pk=closed.pk).title == "Habits (final)"
    assert closed.revisions.count() == 2


def test_another_users_survey_is_404(client, survey, other_researcher):
    client.force_login(other_researcher)
    before = state(survey)
    assert client.get(wording_url(survey)).status_code == 404
    assert client.post(wording_url(survey), form_data(survey, title="Mine")).status_code == 404
    history = reverse("survey-wording-history", args=[survey.pk])
    assert client.get(history).status_code == 404
    assert state(survey) == before


def test_an_editor_may_correct_and_a_viewer_only_read_the_history(
    client, survey, make_researcher
):
    editor, viewer = make_researcher("erin"), make_researcher("victor")
    SurveyShare.objects.create(survey=survey, user=editor, role=SurveyShare.Role.EDITOR)
    SurveyShare.objects.create(survey=survey, user=viewer, role=SurveyShare.Role.VIEWER)
    client.force_login(viewer)
    assert client.get(wording_url(survey)).status_code == 404
    history = reverse("survey-wording-history", args=[survey.pk])
    assert client.get(history).status_code == 200
    client.force_login(editor)
    client.post(wording_url(survey), form_data(survey, title="Habits, edited"))
    assert revisions.latest(survey).author == editor


def test_the_history_page_lists_the_revisions_with_old_and_new(client, survey, researcher):
    yes_no, _ = questions(survey)
    client.force_login(researcher)
    client.post(wording_url(survey), form_data(survey, **{f"q{yes_no.pk}-text": "Cheated?"}))
    page = client.get(reverse("survey-wording-history", args=[survey.pk])).content.decode()
    assert "Current wording" in page and "Earlier wording" in page
    assert "<del>Have you ever cheated?</del>" in page and "<ins>Cheated?</ins>" in page
    assert "Question 1" in page and "alice" in page


# Translations


def test_saving_or_removing_a_translation_of_an_open_survey_keeps_a_revision(
    client, survey, researcher
):
    yes_no, _ = questions(survey)
    client.force_login(researcher)
    url = reverse("survey-translation", args=[survey.pk, "es"])
    client.post(url, {"title": "Hábitos", f"q{yes_no.pk}-text": "¿Ha copiado alguna vez?"})
    latest = revisions.latest(survey)
    assert survey.revisions.count() == 2 and latest.author == researcher
    assert latest.texts["translations"]["es"]["title"] == "Hábitos"
    client.post(url, {"title": "Hábitos", f"q{yes_no.pk}-text": "¿Ha copiado alguna vez?"})
    assert survey.revisions.count() == 2  # the same again: nothing new
    newest = revisions.history(survey)[0]
    assert {"what": "Spanish: Title", "old": "", "new": "Hábitos"} in newest["changes"]
    client.post(url, {"remove": "1"})
    assert survey.revisions.count() == 3
    assert revisions.latest(survey).texts["translations"] == {}


def test_a_translation_of_a_survey_opened_before_revisions_keeps_the_earlier_wording(
    client, survey, researcher
):
    survey.revisions.all().delete()
    client.force_login(researcher)
    client.post(reverse("survey-translation", args=[survey.pk, "fr"]), {"title": "Habitudes"})
    old, new = survey.revisions.order_by("created_at", "pk")
    assert old.created_at == survey.opened_at and old.texts["translations"] == {}
    assert new.texts["translations"]["fr"]["title"] == "Habitudes"


def test_a_drafts_translation_keeps_no_revision(client, researcher, make_survey):
    draft = make_survey(researcher)
    client.force_login(researcher)
    client.post(reverse("survey-translation", args=[draft.pk, "fr"]), {"title": "Habitudes"})
    assert SurveyTranslation.objects.filter(survey=draft).exists()
    assert not draft.revisions.exists()


# Results and exports


def test_the_metadata_export_names_every_wording(client, survey, researcher):
    client.force_login(researcher)
    metadata = client.get(reverse("export-metadata", args=[survey.pk])).json()
    assert metadata["wordings"] == [{
        "from": survey.opened_at.isoformat(), "until": None, "responses": 0, "version": 0,
        "texts": revisions.snapshot(survey),
    }]
    correct(survey, {"title": "Habits (corrected)"}, researcher)
    SurveyTranslation.objects.create(survey=survey, language="de", texts={"title": "Gewohnheiten"})
    record(survey, researcher)
    metadata = client.get(reverse("export-metadata", args=[survey.pk])).json()
    first, second, third = metadata["wordings"]
    stored = list(survey.revisions.order_by("created_at", "pk"))
    assert [w["from"] for w in metadata["wordings"]] == [r.created_at.isoformat() for r in stored]
    assert (first["until"], second["until"], third["until"]) == (
        second["from"], third["from"], None)
    assert (first["texts"]["title"], second["texts"]["title"]) == ("Habits", "Habits (corrected)")
    assert third["texts"]["translations"] == {"de": {"title": "Gewohnheiten"}}
    assert metadata["survey"]["title"] == "Habits (corrected)"
    survey.refresh_from_db()
    versions = [w["version"] for w in metadata["wordings"]]
    assert versions == sorted(set(versions)) and versions[-1] == survey.wording_version


def test_the_metadata_export_of_older_and_draft_surveys(client, survey, researcher, make_survey):
    client.force_login(researcher)
    survey.revisions.all().delete()  # opened before revisions were kept: its wording now
    (only,) = client.get(reverse("export-metadata", args=[survey.pk])).json()["wordings"]
    assert only == {"from": survey.opened_at.isoformat(), "until": None, "responses": 0,
                    "version": survey.wording_version, "texts": revisions.snapshot(survey)}
    draft = make_survey(researcher)
    assert client.get(reverse("export-metadata", args=[draft.pk])).json()["wordings"] == []


def test_the_results_page_says_which_wording_respondents_saw(client, survey, researcher):
    client.force_login(researcher)
    results = reverse("survey-results", args=[survey.pk])
    assert "Respondents saw" not in client.get(results).content.decode()
    submit(survey, 2)
    revision = correct(survey, {"title": "Habits!"}, researcher)
    submit(survey, 1, seed=2)
    page = client.get(results).content.decode()
    since = revision.created_at.strftime("%-d %b %Y %H:%M") + " UTC"
    assert (f"Respondents saw 2 wordings: the current one since {since}. 1 response came under "
            "it. What changed The metadata export has every wording.") in " ".join(
        strip_tags(page).split())
    assert reverse("survey-wording-history", args=[survey.pk]) in page


def test_a_label_correction_leaves_tallies_estimates_and_reports_intact(
    client, survey, researcher
):
    yes_no, categorical = questions(survey)
    simulate_responses(survey, 400, {yes_no.pk: [0.7, 0.3], categorical.pk: [0.5, 0.3, 0.2]},
                       seed=3)
    client.force_login(researcher)
    json_url = reverse("survey-results-json", args=[survey.pk])
    csv_url = reverse("export-reports-csv", args=[survey.pk])
    estimates_url = reverse("export-estimates-csv", args=[survey.pk])
    tallies = list(Tally.objects.filter(question__survey=survey).values_list(
        "question_id", "index", "count").order_by("pk"))
    before = client.get(json_url).json()  # also cached, with the results page's cards
    client.get(reverse("survey-results", args=[survey.pk]))
    reports = b"".join(client.get(csv_url).streaming_content)
    estimates = b"".join(client.get(estimates_url).streaming_content).decode()

    response = client.post(wording_url(survey), form_data(
        survey, **{f"q{categorical.pk}-label1": "Once or twice", f"q{categorical.pk}-text":
                   "How often have you cheated?"}))
    assert response.status_code == 302

    assert list(Tally.objects.filter(question__survey=survey).values_list(
        "question_id", "index", "count").order_by("pk")) == tallies
    after = client.get(json_url).json()
    assert after["questions"][1]["labels"] == ["Never", "Once or twice", "Often"]
    assert after["questions"][1]["text"] == "How often have you cheated?"
    for question in before["questions"]:  # all but the texts: the same
        question["text"] = question["labels"] = None
        for category in question["categories"]:
            category["label"] = None
    for question in after["questions"]:
        question["text"] = question["labels"] = None
        for category in question["categories"]:
            category["label"] = None
    assert after.pop("snapshot") != before.pop("snapshot")  # a new wording: a new snapshot
    assert after.pop("as_of") >= before.pop("as_of")  # computed at once, for the new texts
    assert (before.pop("wordings")["count"], after.pop("wordings")["count"]) == (1, 2)
    assert after == before
    assert b"".join(client.get(csv_url).streaming_content) == reports
    new_estimates = b"".join(client.get(estimates_url).streaming_content).decode()
    assert new_estimates == estimates.replace(",Once,", ",Once or twice,").replace(
        "How often?", "How often have you cheated?")
    page = client.get(reverse("survey-results", args=[survey.pk])).content.decode()
    assert "Once or twice" in page  # not the cards cached with the old wording


def test_the_breakdown_page_shows_the_corrected_labels(
    client, survey, researcher, django_capture_on_commit_callbacks
):
    yes_no, categorical = questions(survey)
    simulate_responses(survey, 50, {yes_no.pk: [0.7, 0.3], categorical.pk: [0.5, 0.3, 0.2]},
                       seed=4)
    client.force_login(researcher)
    url = reverse("question-breakdown", args=[survey.pk, yes_no.pk]) + f"?by={categorical.pk}"
    assert "Once or twice" not in client.get(url).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        correct(survey, {"questions": {str(categorical.pk): {
            "labels": ["Never", "Once or twice", "Often"]}}}, researcher)
    assert "Once or twice" in client.get(url).content.decode()


def test_the_survey_page_of_a_draft_has_no_wording_link(client, researcher, make_survey):
    draft = make_survey(researcher)
    client.force_login(researcher)
    page = client.get(draft.get_absolute_url()).content.decode()
    assert wording_url(draft) not in page and "Respondents saw" not in page


def test_json_snapshot_round_trips(survey):
    assert json.loads(json.dumps(revisions.snapshot(survey))) == revisions.latest(survey).texts


def test_the_details_form_keeps_a_revision_when_an_open_surveys_title_changes(
    client, survey, researcher
):
    client.force_login(researcher)
    count = survey.revisions.count()
    response = client.post(
        reverse("survey-edit", args=[survey.pk]),
        {"title": "Habits, corrected", "language": "en", "introduction": survey.introduction},
    )
    assert response.status_code == 302
    assert survey.revisions.count() == count + 1
    assert survey.revisions.last().texts["title"] == "Habits, corrected"
    # Saving the same again (a schedule change, say) keeps no new revision.
    client.post(
        reverse("survey-edit", args=[survey.pk]),
        {"title": "Habits, corrected", "language": "en", "introduction": survey.introduction,
         "response_target": "500"},
    )
    assert survey.revisions.count() == count + 1
