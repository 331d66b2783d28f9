"""The admin makes a researcher in one step: "Add user" with its "Researcher" box (pytest-django's
``admin_client`` is signed in as a superuser)."""

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

ADD_USER = reverse("admin:auth_user_add")


def add_user(client, username: str, **extra):
    return client.post(
        ADD_USER,
        {
            "username": username,
            "usable_password": "true",
            "password1": "A-long-pass-for-tests-9",
            "password2": "A-long-pass-for-tests-9",
            **extra,
        },
    )


def test_the_add_form_offers_the_researcher_box_ticked(admin_client):
    page = admin_client.get(ADD_USER).content.decode()
    assert 'name="researcher"' in page
    assert 'id="id_researcher" checked' in page


def test_one_post_makes_a_researcher_who_can_open_the_survey_list(admin_client):
    response = add_user(admin_client, "bob", researcher="on")
    bob = User.objects.get(username="bob")
    assert response.status_code == 302
    assert list(bob.groups.values_list("name", flat=True)) == ["Researchers"]
    bobs = Client()
    assert bobs.login(username="bob", password="A-long-pass-for-tests-9")
    assert bobs.get(reverse("survey-list")).status_code == 200


def test_unticked_the_user_is_not_a_researcher(admin_client):
    add_user(admin_client, "carol")
    assert not User.objects.get(username="carol").groups.exists()
