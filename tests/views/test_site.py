"""The foundation: pages render, sign-in works, settings come from the environment."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]


def load_settings(**env: str) -> subprocess.CompletedProcess:
    """Import the settings in a fresh interpreter with the given environment."""
    code = (
        "import json, surveysite.settings as s; "
        "print(json.dumps({'engine': s.DATABASES['default']['ENGINE'], "
        "'name': str(s.DATABASES['default']['NAME']), 'debug': s.DEBUG, "
        "'hosts': s.ALLOWED_HOSTS}))"
    )
    clean = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DEBUG", "SECRET_KEY"}
    }
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True
    )


def test_it_renders_the_home_page(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="en">' in html
    assert 'href="#main"' in html and 'id="main"' in html
    assert "Sign in" in html
    assert "randomized in your own browser" not in html  # the promise is on respondents' pages


def test_it_serves_bootstrap_from_our_own_static_files(client):
    html = client.get(reverse("home")).content.decode()
    assert "/static/vendor/bootstrap-5.3.8/bootstrap.min.css" in html
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html
    assert (ROOT / "static/vendor/bootstrap-5.3.8/LICENSE").exists()


def test_it_signs_in_and_shows_the_researcher_navigation(client, researcher):
    response = client.post(
        reverse("login"), {"username": "alice", "password": "pass-for-tests-1"}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("survey-list")
    html = response.content.decode()
    assert "My surveys" in html and "Sign out" in html
    assert ">Admin<" not in html


def test_it_rejects_a_wrong_password(client, researcher):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "enter a correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_it_shows_the_admin_link_to_staff(client, admin_user):
    client.force_login(admin_user)
    assert ">Admin<" in client.get(reverse("home")).content.decode()


def test_it_signs_out_with_post_only(client, researcher):
    client.force_login(researcher)
    assert client.get(reverse("logout")).status_code == 405
    client.post(reverse("logout"))
    assert "_auth_user_id" not in client.session


def test_it_renders_the_password_change_page(client, researcher):
    client.force_login(researcher)
    response = client.get(reverse("password_change"))
    assert response.status_code == 200
    assert "Change your password" in response.content.decode()


def test_it_uses_sqlite_in_the_project_folder_by_default():
    result = load_settings()
    assert result.returncode == 0, result.stderr
    settings = json.loads(result.stdout)
    assert settings["engine"] == "django.db.backends.sqlite3"
    assert settings["name"] == str(ROOT / "db.sqlite3")
    assert settings["debug"] is True


def test_it_chooses_postgresql_when_database_url_names_it():
    result = load_settings(DATABASE_URL="postgres://someone@db.example:5433/surveys")
    assert result.returncode == 0, result.stderr
    settings = json.loads(result.stdout)
    assert settings["engine"] == "django.db.backends.postgresql"
    assert settings["name"] == "surveys"


def test_it_refuses_to_start_in_production_without_a_secret_key():
    result = load_settings(DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_it_starts_in_production_with_a_secret_key_and_hosts():
    result = load_settings(DEBUG="false", SECRET_KEY="x" * 50, ALLOWED_HOSTS="surveys.example")
    assert result.returncode == 0, result.stderr
    settings = json.loads(result.stdout)
    assert settings["debug"] is False and settings["hosts"] == ["surveys.example"]


@pytest.mark.browser
def test_it_shows_a_skip_link_to_keyboard_users(live_server, page):
    page.goto(live_server.url)
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent")
    assert focused.strip() == "Skip to main content"
    assert page.locator("a.skip-link").is_visible()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"


def test_it_sends_security_headers(client):
    response = client.get(reverse("home"))
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert response.headers["Referrer-Policy"] == "same-origin"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "camera=()" in response.headers["Permissions-Policy"]


def test_it_sends_no_referrer_at_all_from_respondents_pages(client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    for name in ["respond", "respond-thanks"]:
        response = client.get(reverse(name, args=[survey.public_id]))
        assert response.headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.browser
def test_it_signs_in_through_the_real_form_in_a_browser(live_server, page, researcher):
    page.goto(live_server.url + reverse("login"))
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pass-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + reverse("survey-list"))
    assert page.locator("h1").inner_text() == "My surveys"


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/"])
def test_it_limits_sign_in_attempts(client, researcher, settings, url):
    settings.RATELIMIT_SIGN_IN = "3/1000000000"  # no window ends during the test
    statuses = [
        client.post(url, {"username": "alice", "password": "wrong"}).status_code for _ in range(4)
    ]
    assert statuses == [200, 200, 200, 429]
    response = client.post(url, {"username": "alice", "password": "pass-for-tests-1"})
    assert response.status_code == 429
    assert "Too many sign-in attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session
