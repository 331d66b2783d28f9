"""The preview in headless Chromium: its button checks the answers as a respondent's page
does, then shows the page after sending, having sent and stored nothing."""

import pytest
from django.urls import reverse

from surveys.models import Submission
from tests.helpers import is_submit, questions, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]


def test_a_preview_can_be_sent_to_see_the_page_after_sending(
    page, live_server, researcher, make_survey
):
    survey = make_survey(researcher)
    survey.completion_url = "https://panel.example.org/done"
    survey.save()
    sign_in(page, live_server)
    requests = []
    page.on("request", lambda request: requests.append(request))
    page.goto(live_server.url + reverse("survey-preview", args=[survey.pk]))
    button = page.locator("#send-answers")
    yes_no, how_often = questions(survey)
    page.check(f"#answer-{yes_no.pk}-1")
    button.click()  # one question left: said, as on a respondent's page
    assert page.locator(f"#question-{how_often.pk} [data-missing]").is_visible()
    page.check(f"#answer-{how_often.pk}-2")
    button.click()
    page.wait_for_url(f"**{reverse('survey-preview-thanks', args=[survey.pk])}")
    assert page.locator("#preview-sent").is_visible()
    assert page.locator("#preview-completion a").get_attribute("href") == (
        "https://panel.example.org/done"
    )
    assert page.locator("#sent-missing").is_hidden()
    assert not [request for request in requests if is_submit(request)]
    assert not Submission.objects.exists()
    assert page.evaluate("Object.keys(localStorage)") == []
