"""Respondents' pages in their language: the catalogues under locale/ are complete and
current, the language follows Accept-Language or the switcher (a link, never a cookie), the
scripts' messages come from a JSON catalogue, and a survey's own texts fall back per text to
its main language. Researchers' pages stay English."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from surveys.helpers.privacy_words import percent, times
from surveys.management.commands.respondent_messages import RESPONDENT_FILES
from surveys.models import Survey, SurveyTranslation
from tests.helpers import script_message

TRANSLATED = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
CATALOGUES = [
    Path(settings.BASE_DIR, "locale", code, "LC_MESSAGES", f"{domain}.po")
    for code in TRANSLATED
    for domain in ("django", "djangojs")
]
SEND = "Send my randomized answers"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def in_language(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda path: f"{path.parts[-3]}/{path.name}")
def test_catalogue_is_complete(path):
    catalogue = polib.pofile(str(path))
    assert catalogue.metadata["Language"] == path.parts[-3]
    assert not catalogue.metadata_is_fuzzy
    assert catalogue.untranslated_entries() == []
    assert catalogue.fuzzy_entries() == []
    assert catalogue.obsolete_entries() == []
    assert len(catalogue.translated_entries()) >= 5
    for entry in catalogue:  # placeholders kept: the translation formats with the same names
        if entry.msgid_plural:  # a singular may leave out the number
            names = set(PLACEHOLDER.findall(entry.msgid_plural))
            for translated in entry.msgstr_plural.values():
                assert set(PLACEHOLDER.findall(entry.msgid)) <= set(
                    PLACEHOLDER.findall(translated)) <= names
        else:
            assert set(PLACEHOLDER.findall(entry.msgstr)) == set(PLACEHOLDER.findall(entry.msgid))


def test_catalogues_are_current(tmp_path):
    """Extracting the respondents' strings again changes nothing: every string a respondent
    can see is in the catalogues, translated (run on a copy of the project)."""
    if not shutil.which("xgettext"):
        message = "GNU gettext's xgettext is needed (`sudo apt-get install gettext`)."
        if os.getenv("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(message)
        pytest.skip(message)
    base = Path(settings.BASE_DIR)
    for name in [*RESPONDENT_FILES, "manage.py"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(base / name, tmp_path / name)
    for folder in ("surveysite", "surveys", "locale"):
        shutil.copytree(base / folder, tmp_path / folder, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    environment = os.environ | {"DJANGO_SETTINGS_MODULE": "surveysite.settings"}
    environment.pop("DATABASE_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "respondent_messages", "--verbosity", "0"],
        cwd=tmp_path, env=environment, check=True,
    )
    for path in CATALOGUES:
        fresh = polib.pofile(str(tmp_path / path.relative_to(base)))
        committed = polib.pofile(str(path))
        assert {(e.msgctxt, e.msgid) for e in fresh} == {(e.msgctxt, e.msgid) for e in committed}
        assert fresh.untranslated_entries() == [] and fresh.fuzzy_entries() == []


def test_numbers_in_the_respondents_language():
    with translation.override("de"):
        assert times(1097.2) == "1.097"
        assert times(2.7) == "2,7"
    with translation.override("fr"):
        assert percent(0.58).startswith("58") and percent(0.58) != "58%"
    assert times(1097.2) == "1,097" and percent(0.58) == "58%"


@pytest.fixture
def open_survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status=Survey.Status.OPEN)


@pytest.mark.parametrize("language", TRANSLATED)
def test_page_follows_accept_language(client, open_survey, language):
    response = client.get(
        open_survey.get_public_url(), HTTP_ACCEPT_LANGUAGE=f"{language}-XX,{language};q=0.9"
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert f'<html lang="{language}">' in page
    assert in_language(language, SEND) != SEND
    assert in_language(language, SEND) in page and SEND not in page
    assert response.headers["Content-Language"] == language
    assert "Accept-Language" in response.headers["Vary"]
    assert not response.cookies


def test_switcher_is_a_link_and_sets_no_cookie(client, open_survey):
    url = open_survey.get_public_url()
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    for code, name in settings.LANGUAGES:
        if code != "es":
            assert f'href="{url}?lang={code}" lang="{code}" hreflang="{code}">{name}</a>' in page
    response = client.get(f"{url}?lang=de", HTTP_ACCEPT_LANGUAGE="es")
    assert '<html lang="de">' in response.content.decode() and not response.cookies
    data = response.context["data"]
    assert data["thanksUrl"].endswith("?lang=de") and data["submitUrl"].endswith("?lang=de")
    assert data["catalogUrl"] == reverse("respond-catalog", args=["de"])
    # Not chosen, but negotiated: the links need not carry it; an unknown choice is ignored.
    negotiated = client.get(f"{url}?lang=xx", HTTP_ACCEPT_LANGUAGE="fr").context["data"]
    assert negotiated["thanksUrl"] == reverse("respond-thanks", args=[open_survey.public_id])
    assert negotiated["catalogUrl"] == reverse("respond-catalog", args=["fr"])
    assert client.get(url).context["data"]["catalogUrl"] is None  # English: no catalogue


def test_script_catalogue(client):
    response = client.get(reverse("respond-catalog", args=["es"]))
    catalog = response.json()["catalog"]
    assert response.status_code == 200 and not response.cookies
    sending = "Sending your randomized answers…"
    assert catalog[sending] == script_message("es", sending) != sending
    assert "public" in response.headers["Cache-Control"]
    assert client.get(reverse("respond-catalog", args=["xx"])).status_code == 404
    assert client.get("/i18n/../es.json").status_code == 404


def test_other_pages_in_the_respondents_language(client, researcher, make_survey):
    closed = make_survey(researcher, status=Survey.Status.CLOSED)
    page = client.get(closed.get_public_url(), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert in_language("fr", "This survey is closed") in page
    thanks = client.get(reverse("respond-thanks", args=[closed.public_id]) + "?lang=es")
    assert in_language("es", "Thank you") in thanks.content.decode()


def test_closed_survey_refusal_in_the_respondents_language(client, researcher, make_survey):
    closed = make_survey(researcher, status=Survey.Status.CLOSED)
    reports = {str(q.pk): 0 for q in closed.ordered_questions()}
    response = client.post(
        reverse("respond-submit", args=[closed.public_id]),
        data={"idempotency_key": "k" * 16, "invitation": None, "reports": reports},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="es",
    )
    assert response.status_code == 410
    english = "This survey is closed and no longer accepts answers."
    assert response.json()["error"] == in_language("es", english) != english


def test_researchers_pages_stay_english(client, researcher, open_survey):
    client.force_login(researcher)
    response = client.get(reverse("survey-list"), HTTP_ACCEPT_LANGUAGE="es")
    assert '<html lang="en">' in response.content.decode()
    # The promise to respondents is on their pages only.
    promise = "Your answers are randomized in your own browser"
    assert promise not in response.content.decode()
    assert promise in client.get(open_survey.get_public_url()).content.decode()


def test_survey_texts_fall_back_per_text(client, open_survey):
    yes_no, categorical = open_survey.ordered_questions()
    SurveyTranslation.objects.create(
        survey=open_survey,
        language="es",
        texts={
            "title": "Hábitos",
            "introduction": "",
            "questions": {
                str(categorical.pk): {"text": "¿Con qué frecuencia?", "labels": ["Nunca", ""]},
            },
        },
    )
    response = client.get(open_survey.get_public_url(), HTTP_ACCEPT_LANGUAGE="es")
    page = response.content.decode()
    assert '<h1 class="h2">Hábitos</h1>' in page
    assert '<div id="introduction" lang="en"><p>Please answer.</p></div>' in page
    assert f'<span lang="en">{yes_no.text}</span>' in page  # not translated: marked English
    assert "<span>¿Con qué frecuencia?</span>" in page
    assert "<span>Nunca</span>" in page and '<span lang="en">Once</span>' in page
    labels = {q["id"]: q["labels"] for q in response.context["data"]["questions"]}
    assert labels[categorical.pk] == ["Nunca", "Once", "Often"]
    with translation.override("es"):
        assert labels[yes_no.pk] == [
            translation.pgettext("answer", "No"), translation.pgettext("answer", "Yes")
        ]
    assert labels[yes_no.pk][1] != "Yes"
    french = client.get(open_survey.get_public_url(), HTTP_ACCEPT_LANGUAGE="fr")
    assert french.context["title"] == "Habits" and french.context["title_lang"] == "en"


@pytest.mark.parametrize("debug", [False, True])
def test_a_mistyped_survey_link_says_so_in_the_respondents_language(client, db, settings, debug):
    settings.DEBUG = debug  # under `make run` too: the site's page, not Django's
    response = client.get("/s/no-such-survey/", HTTP_ACCEPT_LANGUAGE="es")
    page = response.content.decode()
    assert response.status_code == 404
    assert in_language("es", "This page does not exist") in page
    assert "This page does not exist" not in page and '<html lang="es">' in page
