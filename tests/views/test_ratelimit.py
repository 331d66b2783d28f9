"""Rate limits hold exactly: per client and per window in the counting code, and across the
real server's worker processes (gunicorn with 4 workers, as ``make serve`` starts), on SQLite
and on PostgreSQL, for attempts one after another and for a burst of concurrent ones.

Every rate here has a window of about 32 years, so that no test straddles a window's end by
luck; the one test about windows sets the clock.
"""

import re
import threading
from collections import Counter
from collections.abc import Iterator
from http.cookies import SimpleCookie
from types import SimpleNamespace
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from django.db import connection

from surveys.helpers import ratelimit
from surveys.helpers.ratelimit import is_limited
from surveysite.cache import CountingDatabaseCache
from tests.load import Server, connect, gunicorn_server, prepare

LIMIT = 100
"""Large enough that, in a burst, increments that are not atomic lose some of their many
chances to overlap (with a limit of 10, SQLite's write lock often serialises them by luck)."""
WINDOW = 1_000_000_000
RATE = f"{LIMIT}/{WINDOW}"
BURST = 2 * LIMIT
"""Concurrent sign-in attempts."""
FORM_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def attempts(rf, address: str, n: int, scope: str = "sign-in") -> list[bool]:
    """is_limited for `n` requests in a row from `address`."""
    return [is_limited(rf.post("/", REMOTE_ADDR=address), scope, RATE) for _ in range(n)]


def test_it_refuses_the_attempt_after_the_limit(db, rf):
    assert attempts(rf, "192.0.2.1", LIMIT + 2) == [False] * LIMIT + [True, True]


def test_it_counts_clients_apart(db, rf):
    assert attempts(rf, "192.0.2.1", LIMIT + 1)[-1]
    assert attempts(rf, "192.0.2.2", LIMIT) == [False] * LIMIT
    assert attempts(rf, "192.0.2.1", 1, scope="submit") == [False]  # and scopes


def test_it_starts_each_window_afresh(db, rf, monkeypatch):
    clock = SimpleNamespace(time=lambda: 5 * WINDOW - 1)  # the last second of a window
    monkeypatch.setattr(ratelimit, "time", clock)
    assert attempts(rf, "192.0.2.1", LIMIT + 1)[-1]
    clock.time = lambda: 5 * WINDOW  # the first second of the next
    assert attempts(rf, "192.0.2.1", LIMIT + 1) == [False] * LIMIT + [True]


def test_it_deletes_expired_entries_when_counting(db):
    """Counters hold keyed hashes of addresses: none may stay in the table past its window."""
    call_command("createcachetable", "counting_test", verbosity=0)  # whatever CACHES says
    counting = CountingDatabaseCache("counting_test", {})
    counting.set("over", 1, timeout=-1)
    counting.set("current", 1)
    assert counting.incr("current") == 2
    with connection.cursor() as cursor:
        cursor.execute("SELECT cache_key FROM counting_test")
        assert cursor.fetchall() == [(counting.make_key("current"),)]


class SignInForm:
    """The sign-in page, fetched once for its CSRF cookie and form token; then failed
    sign-in attempts, each on a new connection. Their password is empty: the form refuses
    it without hashing anything, so attempts are cheap and a burst truly concurrent, and
    the limit counts every sign-in POST all the same."""

    def __init__(self, url: str) -> None:
        page = connect(url)
        page.request("GET", "/accounts/login/")
        response = page.getresponse()
        html = response.read().decode()
        page.close()
        cookies = SimpleCookie()
        for header in response.headers.get_all("Set-Cookie") or []:
            cookies.load(header)
        assert response.status == 200 and "csrftoken" in cookies, response.status
        self.url = url
        self.cookie = f"csrftoken={cookies['csrftoken'].value}"
        self.body = urlencode({"csrfmiddlewaretoken": FORM_TOKEN.search(html)[1],
                               "username": "nobody", "password": ""})

    def fail(self, ready: threading.Barrier | None = None) -> int:
        """POST an empty password; the answer's status. With `ready`, connect, then wait there
        for the other threads before sending."""
        http = connect(self.url)
        http.connect()
        if ready:
            ready.wait()
        http.request("POST", "/accounts/login/", self.body, {
            "Cookie": self.cookie, "Content-Type": "application/x-www-form-urlencoded"})
        response = http.getresponse()
        response.read()
        http.close()
        return response.status


@pytest.fixture
def server(database) -> Iterator[Server]:
    """gunicorn with 4 workers on a fresh database of each kind, limiting sign-in to RATE."""
    prepare(database)
    with gunicorn_server(database, workers=4, env={"RATELIMIT_SIGN_IN": RATE}) as running:
        yield running


def test_it_refuses_the_attempt_after_the_limit_whichever_worker_takes_it(server):
    form = SignInForm(server.url)
    statuses = [form.fail() for _ in range(LIMIT + 5)]
    assert statuses == [200] * LIMIT + [429] * 5, Counter(statuses)


def test_it_lets_exactly_the_limit_through_from_a_burst_of_concurrent_attempts(server):
    form = SignInForm(server.url)
    ready = threading.Barrier(BURST)
    statuses: list[int] = []
    threads = [threading.Thread(target=lambda: statuses.append(form.fail(ready)))
               for _ in range(BURST)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Counter(statuses) == {200: LIMIT, 429: BURST - LIMIT}
