"""The respondent's page of a study that says who runs it and asks for consent, in headless
Chromium: on a 360 x 740 phone the first question starts on the first screen in every
language; the questions open only once the consent box is ticked (with the keyboard too), and
nothing of the consent is sent; no sentence is said twice; axe-core finds nothing serious in
any state. Run with `-s` to see the measurements."""

import re
from collections import Counter

import pytest
from django.conf import settings
from django.urls import reverse

from surveys.models import Survey, SurveyTranslation
from tests.helpers import (
    AXE_CONTEXTS,
    PHONE_CONTEXT,
    choose,
    is_submit,
    questions,
    send,
    show,
    survey_of_every_encoding,
)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

INTRODUCTION = {
    "en": "We are studying how students cope with exam stress. The survey takes about three "
          "minutes. Some questions are personal: your browser randomizes every answer before "
          "it is sent, so you can answer honestly.",
    "es": "Estudiamos cómo afrontan los estudiantes el estrés de los exámenes. La encuesta dura "
          "unos tres minutos. Algunas preguntas son personales: tu navegador aleatoriza cada "
          "respuesta antes de enviarla, así que puedes responder con sinceridad.",
    "fr": "Nous étudions comment les étudiants font face au stress des examens. Le "
          "questionnaire prend environ trois minutes. Certaines questions sont personnelles : "
          "votre navigateur rend chaque réponse aléatoire avant de l'envoyer, vous pouvez donc "
          "répondre sincèrement.",
    "de": "Wir untersuchen, wie Studierende mit Prüfungsstress umgehen. Die Umfrage dauert "
          "etwa drei Minuten. Einige Fragen sind persönlich: Ihr Browser randomisiert jede "
          "Antwort vor dem Senden, daher können Sie ehrlich antworten.",
}
STUDY = {
    "study_by": "Department of Psychology, University of Example",
    "study_contact": "exam-stress-study@example.org",
    "ethics_reference": "REC-2026-0415",
}
BODY_KEYS = {"idempotency_key", "invitation", "reports", "wording"}


def informed(survey: Survey, *, consent: bool = True) -> Survey:
    """`survey` with every text about the study, a realistic introduction translated into
    every language of the site, and consent asked for (unless `consent` is False)."""
    survey.introduction = INTRODUCTION["en"]
    for name, value in STUDY.items():
        setattr(survey, name, value)
    survey.consent_required = consent
    survey.save()
    for language in ("es", "fr", "de"):
        SurveyTranslation.objects.create(
            survey=survey, language=language, texts={"introduction": INTRODUCTION[language]}
        )
    return survey


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return informed(survey_of_every_encoding(make_survey, researcher))


def respond_page(browser, live_server, survey: Survey, language: str = "en", **context):
    page = browser.new_context(**context).new_page()
    url = live_server.url + reverse("respond", args=[survey.public_id])
    page.goto(url if language == "en" else f"{url}?lang={language}")  # en: the browser's
    page.wait_for_selector("#consent-box:enabled" if survey.consent_required
                           else "#send-answers:enabled")
    return page


def test_the_first_question_starts_on_a_phones_first_screen_in_every_language(
    browser, live_server, survey
):
    first = f"#question-{questions(survey)[0].pk}"
    tops = {}
    for language, _name in settings.LANGUAGES:
        page = respond_page(browser, live_server, survey, language, **PHONE_CONTEXT)
        assert page.get_attribute("html", "lang") == language
        consent = page.locator("#consent").bounding_box()
        question = page.locator(first).bounding_box()
        tops[language] = f"{question['y']:.0f} px ({question['y'] / 740:.2f} screens)"
        assert page.is_visible("#protection-summary")
        assert page.is_visible("#study-by") and page.is_visible("#ethics-reference")
        assert consent["y"] + consent["height"] <= question["y"], "consent after the questions"
        assert question["y"] < 740, f"{language}: the first question starts at {tops[language]}"
        page.context.close()
    show("top of the first question at 360 x 740", tops)


def test_consent_opens_the_questions_with_the_keyboard_and_is_never_sent(
    browser, live_server, survey
):
    page = respond_page(browser, live_server, survey)
    first = questions(survey)[0]
    assert page.is_disabled(f"#answer-{first.pk}-0")
    assert page.is_disabled("#send-answers")
    assert page.is_visible("#consent-note")

    page.focus("#protection-details summary")  # the last control before the box
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "consent-box"
    page.keyboard.press("Space")
    page.wait_for_selector(f"#question-{first.pk}:enabled")
    assert page.is_enabled("#send-answers")
    assert page.is_hidden("#consent-note")
    page.keyboard.press("Tab")  # straight on to the first question's answers
    assert page.evaluate("document.activeElement.id") == f"answer-{first.pk}-0"

    page.keyboard.press("Space")  # agreeing is undone: the questions close again
    page.focus("#consent-box")
    page.keyboard.press("Space")
    page.wait_for_selector(f"#answer-{first.pk}-0:disabled")
    assert page.is_disabled("#send-answers")
    assert page.is_visible("#consent-note")

    page.keyboard.press("Space")
    page.wait_for_selector(f"#question-{first.pk}:enabled")
    choose(page, survey, [1, 3, 2])
    body = send(page)
    page.wait_for_url("**/thanks/")  # the answers are stored: the database is the test's again
    assert set(body) == BODY_KEYS
    assert set(body["reports"]) == {str(question.pk) for question in questions(survey)}
    kept = page.evaluate("JSON.stringify(localStorage)")  # what this browser keeps
    assert "reports" in kept and "consent" not in kept
    page.context.close()


def test_the_request_body_is_the_same_with_and_without_consent(
    browser, live_server, researcher, make_survey
):
    shapes = {}
    for consent in (True, False):
        survey = informed(survey_of_every_encoding(make_survey, researcher), consent=consent)
        page = respond_page(browser, live_server, survey)
        if consent:
            page.check("#consent-box")
        choose(page, survey, [0, 0, 0])
        with page.expect_request(is_submit) as request:
            page.click("#send-answers")
        body = request.value.post_data_json
        shapes[consent] = {
            "keys": sorted(body),
            "invitation": body["invitation"],
            "report types": [type(report).__name__ for report in body["reports"].values()],
            "headers": sorted(set(request.value.headers) - {"content-length"}),
        }
        # The server must have stored the answers before this test writes the next survey:
        # both share one database connection.
        page.wait_for_url("**/thanks/")
        page.context.close()
    show("request body with and without consent", shapes)
    assert shapes[True] == shapes[False]


VISIBLE_TEXT = r"""() => ({
  text: [...document.querySelectorAll("main, footer")].map((e) => e.innerText).join("\n"),
  controls: [...document.querySelectorAll("main :is(summary, label, button, legend)")]
    .map((e) => e.innerText.trim()),
})"""


def visible_sentences(page) -> list[str]:
    """The sentences of the page's visible text, every disclosure opened; not the names of
    its controls ("How is this answer protected?" under each question, "Yes", "No")."""
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    seen = page.evaluate(VISIBLE_TEXT)
    sentences = [
        sentence.strip()
        for line in seen["text"].splitlines()
        for sentence in re.split(r"(?<=[.!?])\s+", line)
    ]
    return [s for s in sentences if s and s not in seen["controls"]]


@pytest.mark.parametrize("language", ["en", "es", "fr", "de"])
def test_no_sentence_is_said_twice(browser, live_server, researcher, make_survey, language):
    one_question = make_survey(researcher, status="open")
    one_question.questions.filter(kind="categorical").delete()
    every_encoding = survey_of_every_encoding(make_survey, researcher)
    repeated = {}
    for label, survey in [("every encoding", every_encoding), ("one question", one_question)]:
        page = respond_page(browser, live_server, informed(survey), language)
        sentences = visible_sentences(page)
        assert len(sentences) > 10
        repeated[label] = [s for s, n in Counter(sentences).items() if n > 1]
        if language == "en":  # the survey's odds (e^2.7 for one answer), said once
            assert sum("at most 2.7 times" in sentence for sentence in sentences) == 1
        page.context.close()
    show(f"sentences said twice ({language})", repeated)
    assert repeated == {"every encoding": [], "one question": []}


@pytest.mark.parametrize("tag", list(AXE_CONTEXTS))
def test_axe_finds_nothing_serious_in_any_state(browser, live_server, survey, axe, tag):
    page = respond_page(browser, live_server, survey, **AXE_CONTEXTS[tag])
    axe(page, f"consent unticked, details closed [{tag}]")
    page.click("#protection-details summary")
    assert page.is_visible("#odds")
    axe(page, f"consent unticked, details open [{tag}]")
    page.check("#consent-box")
    page.wait_for_selector(f"#question-{questions(survey)[0].pk}:enabled")
    axe(page, f"consent ticked, details open [{tag}]")
    page.click("#protection-details summary")
    page.wait_for_selector("#odds", state="hidden")
    axe(page, f"consent ticked, details closed [{tag}]")
    page.context.close()
    axe.check()
