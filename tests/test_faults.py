"""Faults lose nothing and store nothing partial: workers killed in the middle of a write
transaction under load, a database that cannot be reached or fails mid-transaction, and the
respondent's page while it is down. The real-server tests need Linux (/proc)."""

import contextlib
import http.client
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from django.db import OperationalError
from django.db.backends.utils import CursorWrapper
from django.urls import reverse

from surveys.models import Submission, Survey
from surveysite.middleware import DatabaseUnavailableMiddleware
from tests.load import (
    WORKERS,
    Respondent,
    Server,
    connect,
    drive,
    gunicorn_server,
    make_jobs,
    postgres,
    prepare,
)
from tests.test_load import assert_answered_once_each, assert_stored_exactly, database
from tests.test_submissions import assert_nothing_stored, questions, valid_reports

__all__ = ["database"]  # the fixture, shared with tests/test_load.py

UNAVAILABLE = {"ok": False, "error": DatabaseUnavailableMiddleware.MESSAGE}
KILLS = 5
"""Workers killed in the middle of a write transaction, one after another, under load."""
MIN_JOBS = 2000
CSRF = "c" * 32  # a well-formed token: no page can be fetched for one while the database is down


def socket_ports(pid: int) -> set[int]:
    """Local TCP ports of the process's sockets (Linux /proc)."""
    inodes = {link[8:-1] for fd in Path(f"/proc/{pid}/fd").iterdir()
              if (link := os.readlink(fd)).startswith("socket:[")}
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def in_write_transaction(workers: list[int], database_url: str) -> list[int]:
    """Those of the (stopped) workers that are inside a write transaction: on SQLite, holding
    the WAL write lock (byte 120 of the -shm file), i.e. between two statements of one; on
    PostgreSQL, where all of a submission's writes are one statement, whose connection is
    running that statement (it has been sent, its answer has not been read)."""
    if database_url.startswith("sqlite:///"):
        inode = os.stat(database_url.removeprefix("sqlite:///") + "-shm").st_ino
        holders = {
            int(fields[4]) for line in Path("/proc/locks").read_text().splitlines()
            if (fields := line.split())[1:4] == ["POSIX", "ADVISORY", "WRITE"]
            and fields[5].endswith(f":{inode}") and fields[6] == "120"
        }
        return [pid for pid in workers if pid in holders]
    name = database_url.rsplit("/", 1)[1]
    ports = {port for (port,) in postgres(
        "SELECT client_port FROM pg_stat_activity "
        f"WHERE datname = '{name}' AND state = 'active' AND query LIKE 'WITH %'"
    )}
    return [pid for pid in workers if socket_ports(pid) & ports]


@contextlib.contextmanager
def writes_held(database_url: str) -> Iterator[None]:
    """On PostgreSQL, lock the survey rows from another connection while inside, so that every
    submission's write statement, which updates its survey's row, waits there, in flight,
    long enough to be caught (a statement alone takes about a millisecond). On SQLite
    nothing: a write transaction of several statements is caught as it is."""
    if database_url.startswith("sqlite:///"):
        yield
        return
    import psycopg

    with psycopg.connect(database_url) as connection:  # one transaction, committed at the end
        connection.execute('SELECT FROM "surveys_survey" FOR UPDATE')
        yield


def kill_mid_transaction(server: Server, database_url: str, tries: int = 500) -> int | None:
    """Stop every worker; if one is inside a write transaction, SIGKILL it; resume the others.
    Tried again until one is found; returns the killed pid, or None."""
    with writes_held(database_url):
        return _kill_one_writer(server, database_url, tries)


def _kill_one_writer(server: Server, database_url: str, tries: int) -> int | None:
    for _ in range(tries):
        workers = server.worker_pids()
        for pid in workers:
            os.kill(pid, signal.SIGSTOP)
        try:
            inside = in_write_transaction(workers, database_url)
            if inside:
                os.kill(inside[0], signal.SIGKILL)
                return inside[0]
        finally:
            for pid in workers:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
        time.sleep(0.002)
    return None


def killing(server: Server, database_url: str, jobs: list, killed: list, sent: list) -> Iterator:
    """Yield `jobs` while a background thread kills KILLS workers, each in the middle of a
    write transaction and each after the previous one's replacement has booted. The load keeps
    flowing during the search (a search that held it up would find every worker idle). Stops
    once the kills are done and at least MIN_JOBS were sent; `sent` gets the number sent."""
    done = threading.Event()

    def killer() -> None:
        try:
            for _ in range(KILLS):
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and (
                    len(pids := server.worker_pids()) < WORKERS or set(killed) & set(pids)
                ):
                    time.sleep(0.05)
                killed.append(kill_mid_transaction(server, database_url))
        finally:
            done.set()

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    count = 0
    for count, job in enumerate(jobs, start=1):  # noqa: B007 (count is read after the loop)
        yield job
        if done.is_set() and count >= MIN_JOBS:
            break
    sent.append(count)
    done.wait(timeout=60)


def test_it_loses_nothing_and_stores_nothing_partial_when_workers_die_mid_transaction(
    database,
):
    survey = prepare(database)
    jobs = make_jobs(survey["questions"], 20_000, seed=8, prefix="kill")
    killed: list[int | None] = []
    sent: list[int] = []
    with gunicorn_server(database) as server:
        sends = killing(server, database, jobs, killed, sent)
        outcomes = drive(server.url, survey["public_id"], sends, clients=16)
        deadline = time.monotonic() + 30
        while len(server.worker_pids()) < WORKERS and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(server.worker_pids()) == WORKERS  # the killed ones were replaced
    assert None not in killed and len(set(killed)) == KILLS, killed
    # The request each killed worker was writing got no answer, and was sent again.
    assert sum(outcome.status == 0 for outcome in outcomes) >= KILLS
    jobs = jobs[: sent[0]]
    assert_answered_once_each(outcomes, jobs)
    assert_stored_exactly(database, survey, jobs)


def post_json(url: str, path: str, body: dict) -> tuple[int, http.client.HTTPMessage, bytes]:
    connection = connect(url)
    headers = {"Content-Type": "application/json", "X-CSRFToken": CSRF,
               "Cookie": f"csrftoken={CSRF}"}
    connection.request("POST", path, json.dumps(body).encode(), headers)
    response = connection.getresponse()
    result = response.status, response.headers, response.read()
    connection.close()
    return result


@pytest.mark.parametrize(
    "database_url",
    ["postgres://root@127.0.0.1:1/closed_port", "sqlite:////nonexistent-folder/db.sqlite3"],
    ids=["postgresql", "sqlite"],
)
def test_it_answers_503_with_a_clear_message_when_the_database_is_unreachable(database_url):
    body = {"idempotency_key": "unreachable-1", "invitation": None, "reports": {"1": 0}}
    with gunicorn_server(database_url, workers=1) as server:
        status, headers, answer = post_json(server.url, "/s/some-survey/submit/", body)
        assert (status, json.loads(answer)) == (503, UNAVAILABLE)
        assert headers["Retry-After"] == "30"
        page = connect(server.url)
        page.request("GET", "/s/some-survey/", headers={"Accept": "text/html"})
        response = page.getresponse()
        assert response.status == 503
        assert DatabaseUnavailableMiddleware.MESSAGE in response.read().decode()


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_it_stores_nothing_while_postgresql_refuses_connections_and_all_once_back(database):
    survey = prepare(database)
    jobs = make_jobs(survey["questions"], 40, seed=9, prefix="outage")
    path, name = f"/s/{survey['public_id']}/submit/", database.rsplit("/", 1)[1]
    with gunicorn_server(database, workers=2) as server:
        respondent = Respondent(server.url, survey["public_id"])  # its page, while it can
        postgres(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        postgres(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        try:
            during = [respondent.post(path, json.dumps(body).encode()) for _, body in jobs]
        finally:
            postgres(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        after = drive(server.url, survey["public_id"], iter(jobs), clients=4)
    assert all((status, json.loads(answer)) == (503, UNAVAILABLE) for status, answer in during)
    # Nothing was stored during the outage: every retry with the same key stores anew.
    assert sorted(outcome.status for outcome in after) == [201] * len(jobs)
    assert_stored_exactly(database, survey, jobs)


@contextlib.contextmanager
def statements_failing(fragment: str) -> Iterator[None]:
    """Every SQL statement containing `fragment` raises OperationalError, as when the
    connection to the database is lost at that point (in every thread)."""
    execute = CursorWrapper.execute

    def failing(self, sql, params=None):
        if fragment in sql:
            raise OperationalError("server closed the connection unexpectedly")
        return execute(self, sql, params)

    with mock.patch.object(CursorWrapper, "execute", failing):
        yield


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "statement",
    # On PostgreSQL all writes are one statement: the last two fail that statement.
    ['FROM "surveys_survey" WHERE public_id', 'UPDATE "surveys_survey"', 'UPDATE "surveys_tally"'],
    ids=["first read", "mid-transaction", "last write"],
)
def test_it_answers_503_and_rolls_everything_back_when_the_database_fails(
    client, survey, statement
):
    url = reverse("respond-submit", args=[survey.public_id])
    body = {"idempotency_key": "fails-0123", "invitation": None,
            "reports": {str(pk): report for pk, report in valid_reports(survey).items()}}
    with statements_failing(statement):
        response = client.post(url, body, content_type="application/json")
    assert (response.status_code, response.json()) == (503, UNAVAILABLE)
    assert response["Retry-After"] == "30"
    assert_nothing_stored(survey)
    assert client.post(url, body, content_type="application/json").status_code == 201


@pytest.mark.browser
@pytest.mark.usefixtures("transactional_db")
def test_it_keeps_the_answers_and_asks_to_try_again_while_the_database_is_down(
    page, live_server, survey
):
    page.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    chosen = [f"#answer-{question.pk}-1" for question in questions(survey)]
    for answer in chosen:
        page.check(answer)
    with statements_failing('INSERT INTO "surveys_submission"'):
        with page.expect_response(lambda r: r.url.endswith("/submit/")) as response:
            page.click("#send-answers")
        assert response.value.status == 503
        page.wait_for_selector("#respond-status:has-text('Please try again')")
    assert all(page.is_checked(answer) for answer in chosen)
    assert page.is_enabled("#send-answers")
    assert not Submission.objects.exists()
    with page.expect_response(lambda r: r.url.endswith("/submit/")) as response:
        page.click("#send-answers")
    assert response.value.status == 201
    page.wait_for_url("**/thanks/")
    assert Submission.objects.count() == 1
