"""A researcher's settings (surveys.models.Account): the time zone their pages show and take
times in, stored in UTC; respondents' pages keep UTC."""

import datetime as dt

import pytest
from django.urls import reverse

from surveys.actions.surveys import open_survey
from surveys.models import Account, Survey
from tests.helpers import survey_form_data

pytestmark = pytest.mark.django_db


def choose(client, zone: str):
    return client.post(reverse("account-settings"), {"time_zone": zone})


def test_settings_need_a_sign_in_and_keep_the_time_zone_chosen(client, researcher):
    response = client.get(reverse("account-settings"))
    assert response.status_code == 302 and "/login/" in response["Location"]
    client.force_login(researcher)
    page = client.get(reverse("account-settings")).content.decode()
    assert '<option value="UTC" selected>UTC</option>' in page
    # Grouped by region, so that no option is too wide for a phone.
    assert '<optgroup label="Europe">' in page
    assert '<option value="Europe/Paris">Paris</option>' in page
    assert '<option value="America/Sao_Paulo">Sao Paulo</option>' in page
    assert choose(client, "Europe/Paris").status_code == 302
    assert Account.objects.get(user=researcher).time_zone == "Europe/Paris"
    page = client.get(reverse("account-settings")).content.decode()
    assert "times are now shown in Europe/Paris" in page
    assert '<option value="Europe/Paris" selected>Paris</option>' in page


@pytest.mark.parametrize(("zone", "message"), [
    ("Mars/Olympus", "Choose a time zone from the list, for example Europe/Paris."),
    ("europe/paris", "Choose a time zone from the list, for example Europe/Paris."),
    ("", "This field is required."),
    ("x" * 200, "Ensure this value has at most 64 characters"),
])
def test_an_unknown_time_zone_is_refused_clearly_and_nothing_stored(client, researcher, zone,
                                                                    message):
    client.force_login(researcher)
    response = choose(client, zone)
    assert response.status_code == 400 and message in response.content.decode()
    assert not Account.objects.exists()


def test_times_are_typed_and_shown_in_the_researchers_zone_and_stored_in_utc(
        client, researcher, make_survey):
    survey = make_survey(researcher)
    client.force_login(researcher)
    choose(client, "Europe/Paris")
    form = client.get(reverse("survey-edit", args=[survey.pk])).content.decode()
    assert "Opens at (Europe/Paris time)" in form and 'data-zone="Europe/Paris"' in form
    assert "Times are in your time zone, Europe/Paris" in form
    response = client.post(reverse("survey-edit", args=[survey.pk]), survey_form_data(
        survey, opens_at="2030-01-01T09:00", closes_at="2030-07-01T18:00"))
    assert response.status_code == 302
    survey.refresh_from_db()
    # Paris is UTC+1 in winter, UTC+2 in summer.
    assert survey.opens_at == dt.datetime(2030, 1, 1, 8, tzinfo=dt.UTC)
    assert survey.closes_at == dt.datetime(2030, 7, 1, 16, tzinfo=dt.UTC)
    form = client.get(reverse("survey-edit", args=[survey.pk])).content.decode()
    assert 'value="2030-01-01T09:00"' in form and 'value="2030-07-01T18:00"' in form
    page = client.get(survey.get_absolute_url()).content.decode()
    assert "1 Jan 2030 09:00 CET" in page and "1 Jul 2030 18:00 CEST" in page


def test_respondents_and_other_researchers_keep_utc(client, researcher, other_researcher,
                                                    make_survey):
    survey = make_survey(researcher)
    Survey.objects.filter(pk=survey.pk).update(
        opens_at=dt.datetime(2030, 1, 1, 8, tzinfo=dt.UTC))
    survey.refresh_from_db()
    open_survey(survey)
    Account.objects.create(user=researcher, time_zone="Asia/Tokyo")
    client.force_login(researcher)
    respondent_page = client.get(reverse("respond", args=[survey.public_id])).content.decode()
    assert "8 a.m." in respondent_page and "5 p.m." not in respondent_page
    assert "1 Jan 2030 17:00 JST" in client.get(survey.get_absolute_url()).content.decode()
    client.force_login(other_researcher)
    form = client.get(reverse("survey-create")).content.decode()
    assert "Opens at (UTC time)" in form
