"""What a survey tells respondents about its study (who runs it, how to reach them, its
ethics approval) and its consent box: authoring, the respondent's page and preview, the
translations and corrections of these texts, and a request body that stays the same with
consent asked for (the server cannot tell consent from anything)."""

import json
import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import escape

from surveys.actions.surveys import duplicate_survey, open_survey
from surveys.actions.wording import correct
from surveys.forms import TranslationForm
from surveys.models import Submission, Survey, SurveyTranslation, validate_translation_texts
from surveys.queries import revisions
from surveys.queries.results import export_metadata
from tests.helpers import KEY, questions

pytestmark = pytest.mark.django_db

STUDY = {
    "study_by": "Department of Psychology, University of Example",
    "study_contact": "exam-stress@example.org",
    "ethics_reference": "REC-2026-0415",
}
CONSENT = "I have read the above and agree to take part"
INVALID_CONTACT = (
    "Enter an e-mail address (name@example.org) or a full web address starting with https:// "
    "(or http://)."
)


def about(survey: Survey, *, consent: bool = False, **texts) -> Survey:
    for name, value in (STUDY | texts).items():
        setattr(survey, name, value)
    survey.consent_required = consent
    survey.save()
    return survey


def page_data(html: str) -> dict:
    pattern = r'<script id="respond-data" type="application/json">(.*?)</script>'
    return json.loads(re.search(pattern, html, re.S).group(1))


def respond_html(client, survey: Survey, language: str | None = None) -> str:
    query = {"lang": language} if language else {}
    response = client.get(reverse("respond", args=[survey.public_id]), query)
    assert response.status_code == 200
    return response.content.decode()


# Authoring ---------------------------------------------------------------------------------


def test_a_researcher_sets_the_study_texts_and_consent(client, researcher):
    client.force_login(researcher)
    response = client.post(reverse("survey-create"), {
        "title": "Exam stress", "introduction": "Hi", **STUDY, "consent_required": "on",
    })
    survey = Survey.objects.get()
    assert response.url == survey.get_absolute_url()
    assert {name: getattr(survey, name) for name in STUDY} == STUDY
    assert survey.consent_required
    html = client.get(survey.get_absolute_url()).content.decode()
    for text in STUDY.values():
        assert escape(text) in html
    assert escape(CONSENT) in html

    edit = reverse("survey-edit", args=[survey.pk])
    assert 'id="about-the-study"' in client.get(edit).content.decode()
    client.post(edit, {"title": "Exam stress", "study_contact": "https://example.org/study"})
    survey.refresh_from_db()
    assert survey.study_contact == "https://example.org/study"
    assert survey.study_by == "" and not survey.consent_required


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("study_contact", "javascript:alert(1)", INVALID_CONTACT),
        ("study_contact", "call 555 0100", INVALID_CONTACT),
        ("study_contact", "ftp://example.org/study", INVALID_CONTACT),
        ("study_contact", "a" * 250 + "@example.org",
         "Ensure this value has at most 254 characters (it has 262)."),
        ("study_by", "x" * 201, "Ensure this value has at most 200 characters (it has 201)."),
        ("ethics_reference", "x" * 101,
         "Ensure this value has at most 100 characters (it has 101)."),
    ],
)
def test_it_refuses_a_bad_study_text_with_a_clear_message_and_stores_nothing(
    client, researcher, field, value, message
):
    client.force_login(researcher)
    response = client.post(reverse("survey-create"), {"title": "Exam stress", field: value})
    assert response.status_code == 200
    assert escape(message) in response.content.decode()
    assert not Survey.objects.exists()


def test_a_copy_keeps_the_study_texts_and_consent(researcher, make_survey):
    survey = about(make_survey(researcher, status="open"), consent=True)
    copy = duplicate_survey(survey)
    assert {name: getattr(copy, name) for name in STUDY} == STUDY
    assert copy.consent_required


# The respondent's page ---------------------------------------------------------------------


def test_the_page_says_who_runs_the_study_with_a_contact_link(client, researcher, make_survey):
    survey = about(make_survey(researcher, status="open"))
    html = respond_html(client, survey)
    assert 'id="about-study"' in html and "About this study:" in html
    assert escape(STUDY["study_by"]) in html and STUDY["ethics_reference"] in html
    assert f'href="mailto:{STUDY["study_contact"]}"' in html

    about(survey, study_contact="https://example.org/exam-stress")
    assert 'href="https://example.org/exam-stress"' in respond_html(client, survey)


def test_without_study_texts_there_is_no_about_block(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    html = respond_html(client, survey)
    assert 'id="about-study"' not in html and 'id="consent' not in html


def test_a_contact_stored_some_other_way_is_never_a_link(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    Survey.objects.filter(pk=survey.pk).update(study_contact="javascript:alert(1)")
    html = respond_html(client, survey)
    assert "javascript:" not in html and 'id="study-contact"' not in html


def test_the_consent_box_is_there_only_when_asked_for(client, researcher, make_survey):
    survey = about(make_survey(researcher, status="open"))
    without = respond_html(client, survey)
    assert CONSENT not in without and 'id="consent-box"' not in without
    about(survey, consent=True)
    html = respond_html(client, survey)
    assert CONSENT in html
    box = re.search(r'<input[^>]*id="consent-box"[^>]*>', html).group(0)
    assert "name=" not in box and " disabled" in box  # never a form field; on once scripted
    # The script gets exactly the same data: only the page knows about consent.
    assert page_data(html) == page_data(without)


def test_the_preview_shows_the_study_texts_and_consent(client, researcher, make_survey):
    survey = about(make_survey(researcher), consent=True)
    client.force_login(researcher)
    html = client.get(reverse("survey-preview", args=[survey.pk])).content.decode()
    assert escape(STUDY["study_by"]) in html and CONSENT in html


def test_the_server_cannot_be_told_about_consent(client, researcher, make_survey):
    """The body has the same three fields with or without consent: one more is refused."""
    survey = about(make_survey(researcher, status="open"), consent=True)
    yes_no, categorical = questions(survey)
    body = {"idempotency_key": KEY, "invitation": None, "wording": 0,
            "reports": {str(yes_no.pk): 1, str(categorical.pk): 2}}
    url = reverse("respond-submit", args=[survey.public_id])
    refused = client.post(url, json.dumps(body | {"consent": True}),
                          content_type="application/json")
    assert refused.status_code == 400 and not Submission.objects.exists()
    stored = client.post(url, json.dumps(body), content_type="application/json")
    assert stored.status_code == 201
    assert Submission.objects.get().reports == body["reports"]


def test_the_page_is_in_the_respondents_language(client, researcher, make_survey):
    survey = about(make_survey(researcher, status="open"), consent=True)
    SurveyTranslation.objects.create(survey=survey, language="es", texts={
        "study_by": "Departamento de Psicología", "study_contact": "",
    })
    html = respond_html(client, survey, "es")
    assert "Sobre este estudio:" in html and "He leído lo anterior y acepto participar" in html
    assert "Departamento de Psicología" in html
    # A text the translation leaves blank is the main language's, marked as such.
    assert f'lang="en">{STUDY["study_contact"]}</a>' in html
    assert f'lang="en">{STUDY["ethics_reference"]}</span>' in html


# Translations and corrections --------------------------------------------------------------


def test_a_translation_gives_the_study_texts(client, researcher, make_survey):
    survey = about(make_survey(researcher, status="open"))
    client.force_login(researcher)
    url = reverse("survey-translation", args=[survey.pk, "fr"])
    html = client.get(url).content.decode()
    assert 'name="study_by"' in html and 'name="ethics_reference"' in html
    response = client.post(url, {"title": "", "study_by": "Département de psychologie",
                                 "study_contact": "https://example.org/fr"})
    assert response.status_code == 302
    texts = SurveyTranslation.objects.get().texts
    assert texts["study_by"] == "Département de psychologie"
    assert texts["study_contact"] == "https://example.org/fr"
    assert 'href="https://example.org/fr"' in respond_html(client, survey, "fr")
    changed = revisions.history(survey)[0]["changes"]
    assert {"what": "French: Who runs the study", "old": "",
            "new": "Département de psychologie"} in changed


def test_a_translations_contact_must_be_an_address(client, researcher, make_survey):
    survey = about(make_survey(researcher, status="open"))
    client.force_login(researcher)
    url = reverse("survey-translation", args=[survey.pk, "fr"])
    response = client.post(url, {"study_contact": "javascript:alert(1)"})
    assert response.status_code == 200
    assert escape(INVALID_CONTACT) in response.content.decode()
    assert not SurveyTranslation.objects.exists()
    form = TranslationForm(data={"study_contact": "nobody"}, survey=survey,
                           questions=questions(survey), language="de")
    assert not form.is_valid() and form.errors["study_contact"] == [INVALID_CONTACT]


@pytest.mark.parametrize(
    "texts",
    [{"study_contact": "javascript:alert(1)"}, {"study_by": "x" * 201}, {"ethics_reference": 4}],
)
def test_stored_translations_hold_valid_study_texts_only(texts):
    with pytest.raises(ValidationError):
        validate_translation_texts(texts)


def test_a_correction_changes_the_study_texts_and_keeps_the_wording(researcher, make_survey):
    survey = about(make_survey(researcher))
    open_survey(survey)  # its first wording, with the texts about the study
    revision = correct(survey, {"ethics_reference": "REC-2026-0415 (amended)",
                                "study_contact": "https://example.org/contact"}, researcher)
    survey.refresh_from_db()
    assert survey.ethics_reference == "REC-2026-0415 (amended)"
    assert revision.texts["study_contact"] == "https://example.org/contact"
    changes = revisions.history(survey)[0]["changes"]
    assert {"what": "Ethics approval reference", "old": "REC-2026-0415",
            "new": "REC-2026-0415 (amended)"} in changes


def test_a_correction_refuses_a_bad_contact_and_stores_nothing(client, researcher, make_survey):
    survey = about(make_survey(researcher, status="open"))
    version = survey.wording_version
    with pytest.raises(ValidationError) as refused:
        correct(survey, {"study_contact": "not an address", "title": "New"})
    assert refused.value.message_dict == {"study_contact": [INVALID_CONTACT]}
    client.force_login(researcher)
    data = {"title": survey.title, "introduction": "", "study_contact": "x" * 255}
    for question in questions(survey):
        data |= {f"q{question.pk}-text": question.text, f"q{question.pk}-help_text": ""}
        data |= {f"q{question.pk}-label{i}": label
                 for i, label in enumerate(question.labels()) if question.kind == "categorical"}
    response = client.post(reverse("survey-wording", args=[survey.pk]), data)
    assert response.status_code == 200
    assert escape("Ensure this value has at most 254 characters (it has 255).") in (
        response.content.decode())
    survey.refresh_from_db()
    assert (survey.title, survey.study_contact) == ("Habits", STUDY["study_contact"])
    assert survey.wording_version == version


def test_the_wording_page_corrects_the_study_texts(client, researcher, make_survey):
    survey = about(make_survey(researcher, status="open"))
    client.force_login(researcher)
    url = reverse("survey-wording", args=[survey.pk])
    assert f'value="{STUDY["ethics_reference"]}"' in client.get(url).content.decode()
    data = {"title": survey.title, "introduction": survey.introduction, **STUDY,
            "study_by": "Faculty of Medicine"}
    for question in questions(survey):
        data |= {f"q{question.pk}-text": question.text, f"q{question.pk}-help_text": ""}
        if question.kind == "categorical":
            data |= {f"q{question.pk}-label{i}": label
                     for i, label in enumerate(question.labels())}
    assert client.post(url, data).status_code == 302
    survey.refresh_from_db()
    assert survey.study_by == "Faculty of Medicine"


def test_the_metadata_export_names_the_study_and_its_consent(researcher, make_survey):
    survey = about(make_survey(researcher, status="open"), consent=True)
    SurveyTranslation.objects.create(survey=survey, language="de",
                                     texts={"study_by": "Institut für Psychologie"})
    metadata = export_metadata(survey)
    assert {name: metadata["survey"][name] for name in STUDY} == STUDY
    assert metadata["survey"]["consent_required"] is True
    german = metadata["survey"]["translations"]["de"]
    assert german["study_by"] == "Institut für Psychologie"
    assert german["ethics_reference"] == STUDY["ethics_reference"]  # the main language's
