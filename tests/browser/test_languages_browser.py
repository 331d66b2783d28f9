"""A Spanish-speaking respondent in headless Chromium: the page follows the browser's
Accept-Language, the scripts' messages come in Spanish too, and the switcher changes the
language without leaving a cookie. Run with `-s` to see what the test saw."""

import pytest
from django.urls import reverse
from django.utils import translation

from surveys.models import Submission, Survey
from tests.helpers import choose, questions, script_message, show, survey_of_every_encoding

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]


def spanish(message: str, context: str | None = None) -> str:
    with translation.override("es"):
        if context:
            return translation.pgettext(context, message)
        return translation.gettext(message)


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return survey_of_every_encoding(make_survey, researcher)


def test_spanish_page_under_accept_language_es(browser, live_server, survey):
    context = browser.new_context(locale="es-ES")  # Accept-Language: es-ES
    page = context.new_page()
    page.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    seen = {
        "html lang": page.get_attribute("html", "lang"),
        "button": page.inner_text("#send-answers"),
        "protection heading": page.inner_text("#protection-heading"),
        "odds": page.inner_text("#odds-all"),
        "first question's answers": page.inner_text(f"#question-{questions(survey)[0].pk} .vstack"),
    }
    assert seen["html lang"] == "es"
    assert seen["button"] == spanish("Send my randomized answers") != "Send my randomized answers"
    assert spanish("Yes", "answer") in seen["first question's answers"]

    # A message written by the script, from the JSON catalogue (loaded before the button is
    # enabled): the missing answers.
    page.wait_for_selector("#send-answers:enabled")
    page.click("#send-answers")
    status = page.wait_for_selector("#respond-status.alert-warning")
    seen["missing answers message"] = status.inner_text()
    start = script_message(
        "es",
        "Please answer every question before sending. Still to answer: %(questions)s."
    )
    assert seen["missing answers message"].startswith(start.split("%(questions)s")[0])
    assert "Still to answer" not in seen["missing answers message"]

    choose(page, survey, [1] + [0] * (len(questions(survey)) - 1))
    with page.expect_navigation():
        page.click("#send-answers")
    seen["thank-you page"] = page.inner_text("h1")
    seen["what we received"] = page.inner_text("#sent")
    assert seen["thank-you page"] == spanish("Thank you")
    assert Submission.objects.filter(survey=survey).count() == 1

    # The switcher: a link to the same page in French; the browser keeps no cookie.
    page.click("#languages a[hreflang=fr]")
    page.wait_for_selector("html[lang=fr]")
    seen["after choosing Français"] = page.inner_text("h1")
    seen["cookies"] = context.cookies()
    assert seen["cookies"] == []
    show("Spanish page under Accept-Language: es", seen)
    context.close()
