"""Text that researchers type is shown as text everywhere: a script in it never runs."""

import pytest
from django.urls import reverse

from surveys.actions.submissions import submission_create
from surveys.actions.surveys import open_survey
from surveys.models import Choice, Question, Survey
from tests.helpers import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ATTACK = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">'


@pytest.fixture
def hostile_survey(researcher) -> Survey:
    survey = Survey.objects.create(
        owner=researcher, title=f"Title {ATTACK}", introduction=f"Intro {ATTACK}"
    )
    Question.objects.create(
        survey=survey,
        order=1,
        kind="yesno",
        epsilon=1,
        text=f"Yes/no {ATTACK}",
        help_text=f"Help {ATTACK}",
    )
    categorical = Question.objects.create(
        survey=survey, order=2, kind="categorical", epsilon=1, text=f"Pick {ATTACK}"
    )
    for i, label in enumerate([f"A {ATTACK}", f"B {ATTACK}", "C"]):
        Choice.objects.create(question=categorical, order=i, label=label)
    open_survey(survey)
    yes_no, categorical = survey.ordered_questions()
    submission_create(
        survey=survey, reports={yes_no.pk: 1, categorical.pk: 2}, idempotency_key="x" * 16
    )
    return survey


def test_it_never_runs_a_script_typed_into_a_survey(live_server, page, hostile_survey):
    dialogs = []
    page.on("dialog", lambda dialog: dialogs.append(dialog) or dialog.dismiss())
    sign_in(page, live_server)
    pk, public_id = hostile_survey.pk, hostile_survey.public_id
    yes_no, categorical = hostile_survey.ordered_questions()
    urls = [
        reverse("survey-list"),
        reverse("survey-detail", args=[pk]),
        reverse("survey-preview", args=[pk]),
        reverse("survey-results", args=[pk]),
        reverse("question-breakdown", args=[pk, yes_no.pk]) + f"?by={categorical.pk}",
        reverse("respond", args=[public_id]),
        reverse("respond-thanks", args=[public_id]),
    ]
    for url in urls:
        page.goto(live_server.url + url)
        page.wait_for_load_state("load")
        assert page.evaluate("window.__pwned") is None, url
        assert "<script>window.__pwned" in page.locator("body").inner_text(), url
    assert dialogs == []


def test_it_shows_hostile_labels_as_text_after_answering(live_server, page, hostile_survey):
    yes_no, categorical = hostile_survey.ordered_questions()
    page.goto(live_server.url + reverse("respond", args=[hostile_survey.public_id]))
    page.check(f"#answer-{yes_no.pk}-1")
    page.check(f"#answer-{categorical.pk}-0")
    page.click("#send-answers")
    page.wait_for_url("**/thanks/")
    page.wait_for_load_state("load")
    assert page.evaluate("window.__pwned") is None
    assert "<script>window.__pwned" in page.locator("main").inner_text()
