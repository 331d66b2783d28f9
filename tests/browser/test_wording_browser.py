"""A researcher fixes a typo in a question of an open survey, in a real browser."""

import pytest
from django.urls import reverse

from surveys.actions.surveys import open_survey
from surveys.models import Question
from tests.helpers import sign_in, submit


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_researcher_fixes_a_typo_and_the_export_names_both_wordings(
    live_server, page, researcher, make_survey
):
    survey = make_survey(researcher)
    yes_no, _ = survey.ordered_questions()
    Question.objects.filter(pk=yes_no.pk).update(text="Have you ever cheatd?")
    open_survey(survey)  # with the typo
    submit(survey, 1)  # someone answered under it
    sign_in(page, live_server)
    page.goto(live_server.url + survey.get_absolute_url())
    page.get_by_role("link", name="Correct wording").click()
    page.wait_for_url(f"**{reverse('survey-wording', args=[survey.pk])}")
    field = page.get_by_role("group", name="Question 1").get_by_label("Question")
    assert field.input_value() == "Have you ever cheatd?"
    field.fill("Have you ever cheated?")
    page.get_by_role("button", name="Save corrections").click()
    page.wait_for_url(f"**{survey.get_absolute_url()}")
    page.get_by_text("The wording was corrected").wait_for()
    assert "Have you ever cheated?" in page.inner_text("main")
    assert "Respondents saw 2 wordings" in page.inner_text("main")

    export = page.request.get(live_server.url + reverse("export-metadata", args=[survey.pk]))
    assert export.ok
    first, second = export.json()["wordings"]
    assert first["texts"]["questions"][0]["text"] == "Have you ever cheatd?"
    assert second["texts"]["questions"][0]["text"] == "Have you ever cheated?"
    assert (first["until"], second["until"]) == (second["from"], None)
    assert (first["responses"], second["responses"]) == (1, 0)
