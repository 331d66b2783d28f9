"""Redis is optional in practice: while the cache's Redis cannot be reached, respondents'
answers are validated and stored, rate limits count in the database, results are computed,
researchers sign in, and nothing answers 500; once Redis answers again, the cache uses it
again, without a restart.

Redis is made unreachable deterministically: a loopback port bound by the test and never
listened on (connecting to it is refused at once), or a redis-server of the test's own,
started (ready once it says so) and stopped (gone once its process has exited)."""

import logging
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache, caches
from django.db import connection
from django.urls import reverse

from surveys.models import Submission
from surveysite import cache as site_cache
from tests.helpers import submit, valid_reports
from tests.load import RedisServer

RATE = "3/1000000000"
"""A window of about 32 years: no test straddles a window's end by luck."""
PASSWORD = "pass-for-tests-1"  # the researcher fixture's


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port bound by this test and never listened on: connections are refused."""
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        yield blocker.getsockname()[1]


def redis_cache(settings, port: int, retry_seconds: float = 0) -> None:
    """The cache as REDIS_URL sets it up, with Redis at `port` of the loopback."""
    settings.CACHES = {
        "default": {
            "BACKEND": "surveysite.cache.RedisWithFallback",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": {"FALLBACK": "database", "RETRY_SECONDS": retry_seconds,
                        "socket_connect_timeout": 1, "socket_timeout": 1},
        },
        "database": django_settings.DATABASE_CACHE,
        "results": django_settings.CACHES["results"],
    }
    settings.RATELIMIT_SUBMISSIONS = RATE
    settings.RATELIMIT_SIGN_IN = RATE


@pytest.fixture
def unreachable(settings, closed_port) -> None:
    redis_cache(settings, closed_port)


def cached_keys() -> list[str]:
    """The keys in the database's cache table."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT cache_key FROM cache_table")
        return [key for (key,) in cursor.fetchall()]


def post_answers(client, survey, key: str):
    reports = {str(pk): report for pk, report in valid_reports(survey).items()}
    body = {"idempotency_key": key, "invitation": None, "wording": 0, "reports": reports}
    url = reverse("respond-submit", args=[survey.public_id])
    return client.post(url, body, content_type="application/json")


@pytest.fixture
def survey(researcher, make_survey):
    return make_survey(researcher, status="open")


@pytest.mark.usefixtures("unreachable")
def test_answers_are_stored_once_and_limited_in_the_database(client, survey, caplog):
    with caplog.at_level(logging.WARNING, logger="surveysite.cache"):
        statuses = [post_answers(client, survey, f"answer-{n:04}").status_code for n in range(4)]
        replay = post_answers(client, survey, "answer-0000")
    # The limit holds, counted in the database: the 4th answer in the window is refused.
    assert statuses == [201, 201, 201, 429]
    assert replay.status_code == 429
    assert Submission.objects.filter(survey=survey).count() == 3
    assert [key for key in cached_keys() if ":ratelimit:submit:" in key]
    # Said once, not at every request.
    assert [r.getMessage() for r in caplog.records if r.name == "surveysite.cache"] == [
        "Redis cannot be reached (ConnectionError): the cache uses the database until it can."]


@pytest.mark.usefixtures("unreachable")
def test_a_replay_is_answered_as_before(client, survey):
    assert post_answers(client, survey, "answer-0000").status_code == 201
    assert post_answers(client, survey, "answer-0000").status_code == 200
    assert Submission.objects.filter(survey=survey).count() == 1


@pytest.mark.usefixtures("unreachable")
def test_researchers_sign_in_and_guesses_are_limited(client, researcher):
    url = reverse("login")
    wrong = {"username": researcher.username, "password": "wrong"}
    assert client.post(url, wrong).status_code == 200  # the form again, with its error
    right = {"username": researcher.username, "password": PASSWORD}
    assert client.post(url, right).status_code == 302
    assert client.get(reverse("survey-list")).status_code == 200
    assert client.post(url, wrong).status_code == 200
    assert client.post(url, wrong).status_code == 429  # the 4th attempt in the window


@pytest.mark.usefixtures("unreachable")
def test_results_are_computed_without_redis(client, researcher, survey):
    submit(survey, 20)
    client.force_login(researcher)
    assert client.get(reverse("survey-results", args=[survey.pk])).status_code == 200
    url = reverse("survey-results-json", args=[survey.pk])
    first = client.get(url)
    assert first.status_code == 200 and first.json()["survey"]["responses"] == 20
    assert client.get(url).json() == first.json()


def test_after_a_failure_it_tries_redis_again_only_after_retry_seconds(
    db, settings, closed_port, monkeypatch
):
    """A Redis that hangs would cost every request its timeout: after a failure the cache
    uses the database for RETRY_SECONDS, then tries Redis again."""
    redis_cache(settings, closed_port, retry_seconds=2)
    clock = SimpleNamespace(monotonic=lambda: 100.0)
    monkeypatch.setattr(site_cache, "time", clock)
    tried = []
    original = site_cache.RedisCache.get

    def get(self, *args, **kwargs):
        tried.append(clock.monotonic())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(site_cache.RedisCache, "get", get)
    assert cache.get("key", "missing") == "missing"  # tried, failed, from the database
    clock.monotonic = lambda: 101.9
    assert cache.get("key", "missing") == "missing"  # the database only
    clock.monotonic = lambda: 102.0
    assert cache.get("key", "missing") == "missing"  # Redis tried again
    assert tried == [100.0, 102.0]


# --- a Redis server of the test's own ------------------------------------------------------


@pytest.fixture
def own_redis(settings, redis_server) -> RedisServer:
    redis_cache(settings, redis_server.port)
    return redis_server


def test_it_uses_redis_again_once_it_is_back(client, survey, own_redis):
    assert post_answers(client, survey, "before-0000").status_code == 201
    counters = [key for key in own_redis.keys() if ":ratelimit:submit:" in key]
    assert len(counters) == 1
    assert not cached_keys()  # with Redis up, the database's cache is unused
    own_redis.stop()
    assert post_answers(client, survey, "during-0000").status_code == 201
    assert [key for key in cached_keys() if ":ratelimit:submit:" in key]
    own_redis.start()  # the same port: an empty Redis, as after a restart without persistence
    caches["database"].clear()
    assert post_answers(client, survey, "after-0000").status_code == 201
    assert [key for key in own_redis.keys() if ":ratelimit:submit:" in key] == counters
    assert not cached_keys()
    assert Submission.objects.filter(survey=survey).count() == 3


# --- REDIS_URL set or unset after migrate -------------------------------------------------


def test_migrate_creates_the_database_cache_table_even_with_redis_url_set(tmp_path, closed_port):
    """So that unsetting REDIS_URL later (during a Redis outage, say) needs no other step."""
    database = tmp_path / "db.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}",
           "REDIS_URL": f"redis://127.0.0.1:{closed_port}/0"}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"],
                   cwd=django_settings.BASE_DIR, env=env, check=True, timeout=300)
    with sqlite3.connect(database) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert "cache_table" in tables
