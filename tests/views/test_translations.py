"""A survey's texts in several languages: the fallback, the pages, the copy and the export."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import escape

from surveys.actions.surveys import duplicate_survey
from surveys.actions.wording import correct
from surveys.forms import TranslationForm
from surveys.models import Question, Survey, SurveyTranslation
from surveys.queries.wording import translate, wording

pytestmark = pytest.mark.django_db


def spanish(survey: Survey) -> SurveyTranslation:
    """A Spanish translation of ``make_survey``'s survey: its title, its categorical
    question's text and two of its three labels; the introduction blank. (A yes/no question's
    answers are the site's own words in every language.)"""
    yes_no, categorical = survey.ordered_questions()
    return SurveyTranslation.objects.create(survey=survey, language="es", texts={
        "title": "Hábitos",
        "introduction": "   ",
        "questions": {
            str(yes_no.pk): {"text": ""},
            str(categorical.pk): {
                "text": "¿Con qué frecuencia?", "labels": ["Nunca", "", "A menudo"],
            },
        },
    })


def form_data(survey: Survey, **changes) -> dict:
    """What the translation page posts: every field blank, but ``changes``."""
    data = {"title": "", "introduction": ""}
    for question in survey.ordered_questions():
        data |= {f"q{question.pk}-text": ""}
        data |= {f"q{question.pk}-label{i}": "" for i in range(len(question.labels()))}
    return data | changes


def test_each_text_falls_back_to_the_main_language_on_its_own(researcher, make_survey):
    survey = make_survey(researcher)
    spanish(survey)
    questions = list(survey.ordered_questions())
    yes_no, categorical = questions
    shown = wording(survey, questions, "es")
    assert (shown["lang"], shown["title"]) == ("es", "Hábitos")
    assert (shown["introduction_lang"], shown["introduction"]) == ("en", "Please answer.")
    assert shown["questions"][yes_no.pk] == {
        "lang": "en", "text": "Have you ever cheated?", "help_text": "", "help_text_lang": "en",
        "labels": ["No", "Sí"], "label_langs": ["es", "es"],
    }
    translated = shown["questions"][categorical.pk]
    assert (translated["lang"], translated["text"]) == ("es", "¿Con qué frecuencia?")
    assert translated["labels"] == ["Nunca", "Once", "A menudo"]
    assert translated["label_langs"] == ["es", "en", "es"]


def test_a_language_without_translation_gets_the_main_texts(researcher, make_survey):
    survey = make_survey(researcher)
    spanish(survey)
    questions = list(survey.ordered_questions())
    shown = wording(survey, questions, "fr")
    english = wording(survey, questions, "en")
    assert (shown["lang"], shown["title"]) == ("en", "Habits")
    yes_no = questions[0].pk  # the site's own words in French, as the page's buttons
    assert shown["questions"][yes_no].pop("labels") == ["Non", "Oui"]
    assert shown["questions"][yes_no].pop("label_langs") == ["fr", "fr"]
    assert english["questions"][yes_no].pop("labels") == ["No", "Yes"]
    assert english["questions"][yes_no].pop("label_langs") == ["en", "en"]
    assert shown == english
    assert shown["questions"][questions[1].pk]["labels"] == ["Never", "Once", "Often"]


def test_yes_no_answers_are_the_sites_words_whatever_a_translation_says(
    researcher, make_survey
):
    survey = make_survey(researcher)
    questions = list(survey.ordered_questions())
    texts = {"questions": {str(questions[0].pk): {"labels": ["Nada", "Claro"]}}}
    shown = translate(survey, questions, "es", texts)["questions"][questions[0].pk]
    assert shown["labels"] == ["No", "Sí"] and shown["label_langs"] == ["es", "es"]
    form = TranslationForm(survey=survey, questions=questions, language="es", texts=texts)
    assert not any(f"q{questions[0].pk}-label" in name for name in form.fields)


def test_it_reads_the_translation_in_one_query_and_none_for_the_main_language(
    researcher, make_survey, django_assert_num_queries
):
    survey = make_survey(researcher)
    spanish(survey)
    questions = list(survey.ordered_questions())
    with django_assert_num_queries(0):
        wording(survey, questions, "en")
    with django_assert_num_queries(1):
        wording(survey, questions, "es")
    with django_assert_num_queries(1):
        wording(survey, questions, "de")


def test_the_model_refuses_a_translation_into_the_main_language_or_too_long(
    researcher, make_survey
):
    survey = make_survey(researcher)
    with pytest.raises(ValidationError, match="main language"):
        SurveyTranslation(survey=survey, language="en").full_clean()
    question = survey.questions.first()
    for texts in [
        {"title": "x" * 201},
        {"questions": {str(question.pk): {"labels": ["x" * 201]}}},
        {"questions": {str(question.pk): {"text": 3}}},
        {"subtitle": ""},
        [],
    ]:
        with pytest.raises(ValidationError):
            SurveyTranslation(survey=survey, language="es", texts=texts).full_clean()
    SurveyTranslation(survey=survey, language="es", texts={"title": "x" * 200}).full_clean()


def test_the_main_language_cannot_become_a_translated_one(client, researcher, make_survey):
    survey = make_survey(researcher)
    spanish(survey)
    client.force_login(researcher)
    response = client.post(
        reverse("survey-edit", args=[survey.pk]), {"title": "Habits", "language": "es"}
    )
    assert response.status_code == 200
    assert "has a translation into this language" in response.content.decode()
    survey.refresh_from_db()
    assert survey.language == "en"
    client.post(reverse("survey-edit", args=[survey.pk]), {"title": "Habits", "language": "fr"})
    survey.refresh_from_db()
    assert survey.language == "fr"


@pytest.mark.parametrize("status", ["draft", "open", "closed"])
def test_the_owner_creates_edits_and_removes_a_translation(
    client, researcher, make_survey, status
):
    survey = make_survey(researcher, status=status)
    yes_no, categorical = survey.ordered_questions()
    client.force_login(researcher)
    listing = reverse("survey-translations", args=[survey.pk])
    html = client.get(listing).content.decode()
    assert "Spanish" in html and "French" in html and "German" in html
    assert '<th scope="row">English' not in html
    assert "0 of 7 texts" in html  # title, introduction, 2 questions, 3 labels

    url = reverse("survey-translation", args=[survey.pk, "es"])
    html = client.get(url).content.decode()
    assert 'English: <span lang="en">Have you ever cheated?</span>' in html
    assert f'for="id_q{categorical.pk}-label2"' in html and 'lang="es"' in html
    data = form_data(survey, title="Hábitos", **{f"q{categorical.pk}-label0": "Nunca"})
    response = client.post(url, data)
    assert response.status_code == 302 and response.url == listing
    assert "The Spanish translation was saved." in client.get(listing).content.decode()
    assert "2 of 7 texts" in client.get(listing).content.decode()
    assert wording(survey, [yes_no, categorical], "es")["title"] == "Hábitos"

    client.post(url, form_data(survey, title="Costumbres"))
    assert SurveyTranslation.objects.get().texts["title"] == "Costumbres"
    assert 'value="Costumbres"' in client.get(url).content.decode()

    response = client.post(url, {"remove": "1"})
    assert response.url == listing
    assert not SurveyTranslation.objects.exists()
    assert "The Spanish translation was removed." in client.get(listing).content.decode()


def test_a_complete_translation_is_shown_as_complete(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    yes_no, categorical = survey.ordered_questions()
    client.force_login(researcher)
    texts = {"title": "Gewohnheiten", "introduction": "Bitte antworten.",
             f"q{yes_no.pk}-text": "Haben Sie je betrogen?", f"q{categorical.pk}-text": "Wie oft?",
             f"q{categorical.pk}-label0": "Nie", f"q{categorical.pk}-label1": "Einmal",
             f"q{categorical.pk}-label2": "Oft"}
    client.post(reverse("survey-translation", args=[survey.pk, "de"]), texts)
    html = client.get(reverse("survey-translations", args=[survey.pk])).content.decode()
    assert "Complete" in html and "7 of 7 texts" in html


def test_it_refuses_a_text_too_long_and_stores_nothing(client, researcher, make_survey):
    survey = make_survey(researcher)
    categorical = survey.ordered_questions()[1]
    client.force_login(researcher)
    url = reverse("survey-translation", args=[survey.pk, "fr"])
    response = client.post(url, form_data(survey, title="Habitudes",
                                           **{f"q{categorical.pk}-label1": "x" * 201}))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Nothing was saved" in html
    assert escape("Ensure this value has at most 200 characters (it has 201).") in html
    assert not SurveyTranslation.objects.exists()


def test_it_refuses_a_translation_into_the_main_language(client, researcher, make_survey):
    survey = make_survey(researcher)
    client.force_login(researcher)
    url = reverse("survey-translation", args=[survey.pk, "en"])
    response = client.post(url, form_data(survey, title="Habits!"), follow=True)
    assert "English is this survey&#x27;s main language" in response.content.decode()
    assert not SurveyTranslation.objects.exists()


@pytest.mark.parametrize("language", ["xx", "EN", "es-", "zz-yy"])
def test_an_unknown_language_is_not_found(client, researcher, make_survey, language):
    survey = make_survey(researcher)
    client.force_login(researcher)
    url = reverse("survey-translation", args=[survey.pk, language])
    assert client.get(url).status_code == 404
    assert client.post(url, {"title": "X"}).status_code == 404
    assert not SurveyTranslation.objects.exists()


@pytest.mark.parametrize("method", ["get", "post"])
def test_another_researcher_gets_not_found_and_a_visitor_signs_in(
    client, researcher, other_researcher, make_survey, method
):
    survey = make_survey(researcher)
    spanish(survey)
    urls = [
        reverse("survey-translations", args=[survey.pk]),
        reverse("survey-translation", args=[survey.pk, "es"]),
    ]
    for url in urls:
        response = getattr(client, method)(url, {"remove": "1"} if method == "post" else None)
        assert response.status_code in {302, 405}
        if response.status_code == 302:
            assert "login" in response.url
    client.force_login(other_researcher)
    for url in urls:
        response = getattr(client, method)(url, {"remove": "1"} if method == "post" else None)
        assert response.status_code in {404, 405}
    assert client.get(urls[0]).status_code == 404
    assert SurveyTranslation.objects.count() == 1


def test_a_copy_keeps_the_language_and_the_translations(researcher, make_survey):
    survey = make_survey(researcher, status="open")
    Survey.objects.filter(pk=survey.pk).update(language="fr")
    survey.refresh_from_db()
    spanish(survey)
    copy = duplicate_survey(survey)
    assert copy.language == "fr"
    original, copied = survey.ordered_questions()[1], copy.ordered_questions()[1]
    shown = wording(copy, list(copy.ordered_questions()), "es")
    assert shown["title"] == "Hábitos"
    assert shown["questions"][copied.pk]["labels"] == ["Nunca", "Once", "A menudo"]
    assert str(original.pk) not in copy.translations.get().texts["questions"]


def test_the_export_has_every_languages_labels(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    spanish(survey)
    yes_no = survey.ordered_questions()[0]
    Question.objects.filter(pk=yes_no.pk).update(help_text="In the last year.")
    SurveyTranslation.objects.create(survey=survey, language="de", texts={"questions": {
        str(yes_no.pk): {"text": "Haben Sie je betrogen?", "help_text": "Im letzten Jahr."}
    }})
    client.force_login(researcher)
    response = client.get(reverse("export-metadata", args=[survey.pk]))
    metadata = json.loads(b"".join(response.streaming_content) if response.streaming
                          else response.content)
    assert metadata["survey"]["language"] == "en"
    # Every language respondents can read it in, French (no translation) included; each
    # text shown in the main language because the translation gives none is marked so.
    about = {"study_by": "", "study_contact": "", "ethics_reference": ""}
    assert metadata["survey"]["translations"] == {
        "de": {"title": "Habits", "introduction": "Please answer.",
               "from_main_language": ["title", "introduction"]} | about,
        "es": {"title": "Hábitos", "introduction": "Please answer.",
               "from_main_language": ["introduction"]} | about,
        "fr": {"title": "Habits", "introduction": "Please answer.",
               "from_main_language": ["title", "introduction"]} | about,
    }
    first, second = metadata["questions"]
    assert first["translations"] == {
        "de": {"text": "Haben Sie je betrogen?", "help_text": "Im letzten Jahr.",
               "labels": ["Nein", "Ja"], "from_main_language": []},
        "es": {"text": "Have you ever cheated?", "help_text": "In the last year.",
               "labels": ["No", "Sí"], "from_main_language": ["text", "help_text"]},
        "fr": {"text": "Have you ever cheated?", "help_text": "In the last year.",
               "labels": ["Non", "Oui"], "from_main_language": ["text", "help_text"]},
    }
    assert second["translations"]["es"]["labels"] == ["Nunca", "Once", "A menudo"]
    assert second["translations"]["de"]["labels"] == ["Never", "Once", "Often"]
    assert second["translations"]["de"]["from_main_language"] == [
        "text", "labels.0", "labels.1", "labels.2"]


def test_a_correction_marks_the_translated_texts_it_changed_for_review(
        client, researcher, make_survey):
    """Correcting the main wording marks, in each translation, the texts it gives whose main
    text changed (not those it leaves blank, which show the correction), since the first such
    correction; the survey and translations pages say so, the form shows which texts, and
    saving the translation clears the marks."""
    survey = make_survey(researcher, status="open")
    spanish(survey)
    yes_no, categorical = survey.ordered_questions()
    first = correct(survey, {"title": "Habits (corrected)", "questions": {
        str(yes_no.pk): {"text": "Have you ever cheated in an exam?"},  # Spanish: blank
        str(categorical.pk): {"text": "How often, really?",
                              "labels": ["Never", "Once or twice", "Often"]},  # "" in Spanish
    }})
    assert first is not None
    marked = SurveyTranslation.objects.get(language="es").needs_review
    assert set(marked) == {"title", f"q{categorical.pk}-text"}
    since = marked["title"]
    correct(survey, {"questions": {str(categorical.pk): {
        "text": "How often?", "labels": ["Never", "Once or twice", "Very often"]}}})
    marked = SurveyTranslation.objects.get(language="es").needs_review
    assert marked == {"title": since, f"q{categorical.pk}-text": since,
                      f"q{categorical.pk}-label2": marked[f"q{categorical.pk}-label2"]}
    assert marked[f"q{categorical.pk}-label2"] > since
    assert not SurveyTranslation.objects.filter(language="fr").exists()

    client.force_login(researcher)
    listing = client.get(reverse("survey-translations", args=[survey.pk])).content.decode()
    assert "To review" in listing and "3 texts to review: the main wording was corrected" in (
        listing)
    assert "Complete" not in listing
    detail = client.get(survey.get_absolute_url()).content.decode()
    assert "A correction changed texts these translations give: Spanish." in detail
    url = reverse("survey-translation", args=[survey.pk, "es"])
    form = client.get(url).content.decode()
    assert form.count("check this translation still says the same") == 3
    data = {name: value for name, value in {
        "title": "Hábitos (corregido)", f"q{categorical.pk}-text": "¿Con qué frecuencia?",
        f"q{categorical.pk}-label0": "Nunca", f"q{categorical.pk}-label2": "Muy a menudo",
    }.items()}
    assert client.post(url, data).status_code == 302
    assert SurveyTranslation.objects.get(language="es").needs_review == {}
    assert "To review" not in client.get(
        reverse("survey-translations", args=[survey.pk])).content.decode()
    assert "A correction changed texts" not in client.get(
        survey.get_absolute_url()).content.decode()


@pytest.mark.browser
def test_the_pages_are_accessible_and_work_by_keyboard(client, researcher, make_survey, page,
                                                      live_server, axe):
    survey = make_survey(researcher, status="open")
    spanish(survey)
    client.force_login(researcher)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": live_server.url}])
    audit = axe
    page.goto(live_server.url + reverse("survey-translations", args=[survey.pk]))
    audit(page, "translations")
    page.get_by_role("link", name="Translate into French").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/translations/fr/")
    audit(page, "translation form")
    page.get_by_label("Title").focus()
    page.keyboard.type("Habitudes")
    page.keyboard.press("Enter")  # submits the form
    page.wait_for_url("**/translations/")
    assert "The French translation was saved." in page.inner_text("main")
    page.goto(live_server.url + reverse("survey-translation", args=[survey.pk, "es"]))
    audit(page, "translation form (with remove)")
    # A correction of the main title: Spanish gives one, so it is to review.
    correct(survey, {"title": "Habits (corrected)"})
    page.goto(live_server.url + survey.get_absolute_url())
    page.get_by_role("link", name="Review them").click()
    page.wait_for_url("**/translations/")
    assert "1 text to review" in page.locator("#translation-es").inner_text()
    audit(page, "translations (one to review)")
    page.get_by_role("link", name="Edit into Spanish").click()
    page.get_by_text("check this translation still says the same").wait_for()
    audit(page, "translation form (a text to review)")
    audit.check()
    assert SurveyTranslation.objects.get(language="fr").texts["title"] == "Habitudes"
