"""Every page in its reader's language: the catalogues under locale/ are complete and
current; a respondent's language follows Accept-Language or the switcher (a link, never a
cookie), a researcher's their account's choice, else Accept-Language; the scripts' messages
come from a JSON catalogue, and a survey's own texts fall back per text to its main
language."""

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

from surveys.helpers.numbers import amount, epsilon, p_value, score, signed_score, thousands
from surveys.helpers.numbers import percent as percent_of
from surveys.helpers.privacy_words import percent, times
from surveys.management.commands.update_languages import TRANSLATED_FOLDERS
from surveys.models import Survey, SurveyTranslation
from tests.helpers import command, in_language, script_message

TRANSLATED = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
CATALOGUES = [
    Path(settings.BASE_DIR, "locale", code, "LC_MESSAGES", f"{domain}.po")
    for code in TRANSLATED
    for domain in ("django", "djangojs")
]
SEND = "Send my randomized answers"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


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
    """Extracting the strings again changes nothing: every string anyone can see is in the
    catalogues, translated (run on a copy of the project)."""
    command("xgettext", "gettext")  # GNU gettext's, which update_languages runs
    base = Path(settings.BASE_DIR)
    shutil.copy(base / "manage.py", tmp_path / "manage.py")
    for folder in [*TRANSLATED_FOLDERS, "locale"]:
        shutil.copytree(base / folder, tmp_path / folder, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    environment = os.environ | {"DJANGO_SETTINGS_MODULE": "surveysite.settings"}
    environment.pop("DATABASE_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "update_languages", "--verbosity", "0"],
        cwd=tmp_path, env=environment, check=True,
    )
    for path in CATALOGUES:
        fresh = polib.pofile(str(tmp_path / path.relative_to(base)))
        committed = polib.pofile(str(path))
        assert {(e.msgctxt, e.msgid) for e in fresh} == {(e.msgctxt, e.msgid) for e in committed}
        assert fresh.untranslated_entries() == [] and fresh.fuzzy_entries() == []


def test_numbers_on_every_page_in_the_pages_language():
    with translation.override("de"):
        assert percent_of(0.1234) == "12,3\u00a0%" and thousands(1799000) == "1.799.000"
        assert amount(-0.04) == "0,0" and amount(-2.45, 1) == "\u22122,45"
        assert p_value(0.0123) == "p = 0,012" and p_value(0.0001) == "p < 0,001"
        assert score(3.456) == "3,46" and signed_score(-0.5) == "\u22120,50"
        assert epsilon(0.5) == "0.5"  # as typed in the forms' number boxes
    assert percent_of(0.1234) == "12.3%" and thousands(1799000) == "1,799,000"
    assert amount(1234.56) == "1,234.6" and signed_score(0.424) == "+0.42"


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
    assert f'<html lang="{language}" ' in page
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
    catalogue = f'data-catalog="{reverse("respond-catalog", args=["de"])}"'
    assert f'<html lang="de" {catalogue}>' in response.content.decode() and not response.cookies
    data = response.context["data"]
    assert data["thanksUrl"].endswith("?lang=de") and data["submitUrl"].endswith("?lang=de")
    # Not chosen, but negotiated: the links need not carry it; an unknown choice is ignored.
    negotiated = client.get(f"{url}?lang=xx", HTTP_ACCEPT_LANGUAGE="fr")
    assert negotiated.context["data"]["thanksUrl"] == reverse(
        "respond-thanks", args=[open_survey.public_id]
    )
    assert reverse("respond-catalog", args=["fr"]) in negotiated.content.decode()
    assert '<html lang="en">' in client.get(url).content.decode()  # English: no catalogue


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
        data={"idempotency_key": "k" * 16, "invitation": None, "wording": 0, "reports": reports},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="es",
    )
    assert response.status_code == 410
    english = "This survey is closed and no longer accepts answers."
    assert response.json()["error"] == in_language("es", english) != english


def test_researchers_pages_follow_their_browser(client, researcher, open_survey):
    client.force_login(researcher)
    response = client.get(reverse("survey-list"), HTTP_ACCEPT_LANGUAGE="es")
    page = response.content.decode()
    assert '<html lang="es" data-catalog="/i18n/es.json">' in page
    assert in_language("es", "My surveys") in page and "My surveys" not in page
    assert response.headers["Content-Language"] == "es"
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert "Accept-Language" in response.headers["Vary"]
    # The promise to respondents is on their pages only.
    promise = "Your answers are randomized in your own browser"
    assert in_language("es", promise) not in page
    assert '<html lang="en">' in client.get(reverse("survey-list")).content.decode()


def test_a_researchers_choice_wins_over_their_browser(client, researcher, open_survey):
    client.force_login(researcher)
    settings_page = reverse("account-settings")
    response = client.post(settings_page, {"language": "de", "time_zone": "Europe/Berlin"})
    assert response.status_code == 302
    response = client.get(response.url, HTTP_ACCEPT_LANGUAGE="fr")
    page = response.content.decode()
    assert '<html lang="de"' in page and response.context["form"]["language"].value() == "de"
    assert '<option value="fr" lang="fr">Français</option>' in page  # each in its own words
    saved = in_language("de", "Your settings were saved: times are now shown in %(zone)s.")
    assert saved % {"zone": "Europe/Berlin"} in page  # said in the language just chosen
    results = client.get(reverse("survey-results", args=[open_survey.pk]))
    assert '<html lang="de"' in results.content.decode()
    # Respondents keep their own language, whoever opens their page.
    public = client.get(open_survey.get_public_url(), HTTP_ACCEPT_LANGUAGE="fr")
    assert '<html lang="fr"' in public.content.decode()
    # Back to the browser's language.
    client.post(settings_page, {"language": "", "time_zone": "UTC"})
    response = client.get(settings_page, HTTP_ACCEPT_LANGUAGE="fr")
    assert '<html lang="fr"' in response.content.decode()
    assert response.context["form"]["language"].value() == ""


def test_results_are_cached_per_language(client, researcher, open_survey):
    """The estimates' sentences and the cached cards are in the language of the page."""
    client.force_login(researcher)
    url = reverse("survey-results-json", args=[open_survey.pk])
    english = client.get(url).json()["snapshot"]
    german = client.get(url, HTTP_ACCEPT_LANGUAGE="de").json()["snapshot"]
    assert english != german
    heading = in_language("de", "Results")
    assert heading in client.get(
        reverse("survey-results", args=[open_survey.pk]), HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()


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
    assert "This page does not exist" not in page and '<html lang="es" ' in page
