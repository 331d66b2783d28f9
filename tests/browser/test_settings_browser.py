"""A researcher's time zone in headless Chromium: chosen by keyboard on the settings page at
phone width, then the survey's schedule names it and writes each time typed out in words,
and the time is stored in UTC. axe-core finds nothing on the settings page and the survey
form at 360 px, 1,280 px and 200% zoom, in every language (the browser's)."""

import datetime as dt

import pytest
from django.conf import settings
from django.urls import reverse

from surveys.models import Account
from tests.helpers import AXE_CONTEXTS, PHONE_CONTEXT, in_language, script_message, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]


def test_a_time_zone_chosen_by_keyboard_is_the_one_times_are_typed_in(
    browser, live_server, researcher, make_survey, axe
):
    survey = make_survey(researcher)
    context = browser.new_context(**PHONE_CONTEXT)
    page = context.new_page()
    sign_in(page, live_server)
    page.get_by_role("button", name="Show navigation").focus()
    page.keyboard.press("Enter")
    page.locator("#nav-links.show").wait_for()
    page.get_by_role("link", name="Settings").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    zone = page.get_by_label("Time zone")
    assert zone.input_value() == "UTC"
    zone.focus()
    zone.select_option("Europe/Paris")  # a native list: typing its name finds it too
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Save settings"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "times are now shown in Europe/Paris" in page.inner_text("main")
    assert Account.objects.get(user=researcher).time_zone == "Europe/Paris"

    page.goto(live_server.url + reverse("survey-edit", args=[survey.pk]))
    opens = page.get_by_label("Opens at (Europe/Paris time)")
    opens.fill("2030-01-12T09:05")
    words = page.locator("#opens_at-words")
    words.filter(has_text="Saturday, 12 January 2030 at 09:05, Europe/Paris time").wait_for()
    assert "opens_at-words" in page.evaluate(
        "document.getElementById(document.querySelector('#id_opens_at')"
        ".getAttribute('aria-describedby')).innerHTML")
    axe(page, "survey form: a time written out [360px]")
    with page.expect_navigation():
        page.get_by_role("button", name="Save").click()
    survey.refresh_from_db()
    assert survey.opens_at == dt.datetime(2030, 1, 12, 8, 5, tzinfo=dt.UTC)
    assert "12 Jan 2030 09:05 CET" in page.inner_text("main")
    context.close()
    axe.check()


def test_a_language_chosen_by_keyboard_is_the_one_every_page_and_script_speaks(
    browser, live_server, researcher, make_survey
):
    """The browser asks for French; the researcher chooses German, which wins: pages, the
    authoring panel's sentences and numbers, and the schedule's times in words."""
    survey = make_survey(researcher)
    context = browser.new_context(**PHONE_CONTEXT, locale="fr")
    page = context.new_page()
    sign_in(page, live_server)
    assert page.get_attribute("html", "lang") == "fr"
    assert in_language("fr", "My surveys") in page.inner_text("main")
    page.goto(live_server.url + reverse("account-settings"))
    language = page.locator("#id_language")
    language.focus()
    language.select_option("de")  # a native list: typing "D" finds "Deutsch" too
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # past the time zone, to the button
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.get_attribute("html", "lang") == "de"
    saved = in_language("de", "Your settings were saved: times are now shown in %(zone)s.")
    assert saved % {"zone": "UTC"} in page.inner_text("main")

    question = survey.ordered_questions()[0]
    page.goto(live_server.url + reverse("question-edit", args=[question.pk]))
    heading = script_message("de", "What respondents will read about the whole survey")
    page.locator("#explain-body h3", has_text=heading).wait_for()
    page.locator("#id_epsilon").fill("0.7")
    odds = page.locator("#explain-body", has_text="2,01")  # e^0.7, with a decimal comma
    odds.wait_for()

    page.goto(live_server.url + reverse("survey-edit", args=[survey.pk]))
    page.locator("#id_opens_at").fill("2030-01-12T09:05")
    written = script_message("de", "%(date)s at %(time)s, %(zone)s time")
    expected = written.replace("%(date)s", "Samstag, 12. Januar 2030").replace(
        "%(time)s", "09:05").replace("%(zone)s", "UTC")
    page.locator("#opens_at-words", has_text=expected).wait_for()
    context.close()


@pytest.mark.parametrize("tag", list(AXE_CONTEXTS))
def test_axe_finds_nothing_on_the_settings_page(browser, live_server, researcher, axe, tag):
    for language, _name in settings.LANGUAGES:
        context = browser.new_context(**AXE_CONTEXTS[tag], locale=language)
        page = context.new_page()
        sign_in(page, live_server)
        page.goto(live_server.url + reverse("account-settings"))
        assert page.get_attribute("html", "lang") == language  # what the page is written in
        axe(page, f"settings [{tag}, {language}]")
        page.locator("#id_time_zone").select_option("America/Sao_Paulo")
        with page.expect_navigation():
            page.locator("main button[type=submit]").click()
        axe(page, f"settings: saved [{tag}, {language}]")
        width = AXE_CONTEXTS[tag]["viewport"]["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        context.close()
    axe.check()
