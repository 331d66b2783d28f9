"""Faults lose nothing and store nothing partial: workers killed in the middle of a write
transaction under load, a database that cannot be reached or fails mid-transaction, and the
respondent's page while it is down. The real-server tests need Linux (/proc)."""

import contextlib
import http.client
import json
import os
import signal
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock

import pytest
from django.db import OperationalError, connections
from django.db.backends.utils import CursorWrapper
from django.urls import reverse
from django.utils import translation

from surveys.models import Submission, Survey
from surveys.views.respond import OUTCOME_UNKNOWN
from surveysite.middleware import DatabaseUnavailableMiddleware
from tests.helpers import (
    assert_answered_once_each,
    assert_nothing_stored,
    assert_stored_exactly,
    questions,
    recount,
    tally_counts,
    valid_reports,
)
from tests.load import (
    WORKERS,
    Respondent,
    connect,
    drive,
    gunicorn_server,
    make_jobs,
    postgres,
    prepare,
)

UNAVAILABLE = {"ok": False, "error": str(DatabaseUnavailableMiddleware.MESSAGE)}
JOBS = 1000
KILL_AT = {100, 300, 500, 700, 900}
"""The pauses (one per stored submission, and one per attempt of a killed one) at which a
worker is killed in the middle of its write transaction."""
CSRF = "c" * 32  # a well-formed token: no page can be fetched for one while the database is down


class Pauses:
    """The test's end of the pause inside each write transaction (tests/pause_settings.py):
    answers every worker that reaches it, except at the `kill_at` pauses (counted from 0 in the
    order workers reach it), where it SIGKILLs the worker instead. A thread serves it while
    inside the `with` block."""

    def __init__(self, folder: str, kill_at: set[int]) -> None:
        self.path = str(Path(folder) / "pause.sock")
        self.kill_at = kill_at
        self.killed: list[int] = []
        self.reached = 0
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(self.path)
        self.listener.listen(64)
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> "Pauses":
        self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.thread.join()

    def _serve(self) -> None:
        while True:
            try:
                worker, _ = self.listener.accept()
            except OSError:  # closed by __exit__
                return
            with worker:
                pid = int(worker.recv(32))
                if self.reached in self.kill_at:
                    os.kill(pid, signal.SIGKILL)
                    self.killed.append(pid)
                else:
                    worker.sendall(b"1")
            self.reached += 1


def test_it_loses_nothing_and_stores_nothing_partial_when_workers_die_mid_transaction(
    database, tmp_path
):
    survey = prepare(database)
    jobs = make_jobs(survey["questions"], JOBS, seed=8, prefix="kill")
    with Pauses(tmp_path, KILL_AT) as pauses, gunicorn_server(
        database, settings="tests.pause_settings", env={"PAUSE_SOCKET": pauses.path}
    ) as server:
        outcomes = drive(server.url, survey["public_id"], iter(jobs), clients=16)
        assert server.wait_for_workers(WORKERS)  # the killed ones were replaced
        assert not set(pauses.killed) & set(server.worker_pids())
    assert len(set(pauses.killed)) == len(KILL_AT), pauses.killed
    # The request each killed worker was writing got no answer, and was sent again.
    assert sum(outcome.status == 0 for outcome in outcomes) == len(KILL_AT)
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
    body = {"idempotency_key": "unreachable-1", "invitation": None, "wording": 0,
            "reports": {"1": 0}}
    with gunicorn_server(database_url, workers=1) as server:
        status, headers, answer = post_json(server.url, "/s/some-survey/submit/", body)
        assert (status, json.loads(answer)) == (503, UNAVAILABLE)
        assert headers["Retry-After"] == "30"
        page = connect(server.url)
        page.request("GET", "/s/some-survey/", headers={"Accept": "text/html"})
        response = page.getresponse()
        assert response.status == 503
        assert str(DatabaseUnavailableMiddleware.MESSAGE) in response.read().decode()


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
    ['"surveys_survey"."public_id" =', 'INSERT INTO "surveys_submission"',
     'UPDATE "surveys_tally"'],
    ids=["first read", "mid-transaction", "last write"],
)
def test_it_answers_503_and_rolls_everything_back_when_the_database_fails(
    client, survey, statement
):
    url = reverse("respond-submit", args=[survey.public_id])
    body = {"idempotency_key": "fails-0123", "invitation": None, "wording": 0,
            "reports": {str(pk): report for pk, report in valid_reports(survey).items()}}
    with statements_failing(statement):
        response = client.post(url, body, content_type="application/json")
    assert (response.status_code, response.json()) == (503, UNAVAILABLE)
    assert response["Retry-After"] == "30"
    assert_nothing_stored(survey)
    assert client.post(url, body, content_type="application/json").status_code == 201


def stopped_clock(page) -> None:
    """The page's timers fire only when the test moves its clock (page.clock.run_for)."""
    page.clock.install()
    page.clock.pause_at(datetime.now(UTC) + timedelta(minutes=1))


@pytest.mark.browser
@pytest.mark.usefixtures("transactional_db")
def test_it_keeps_the_answers_and_asks_to_try_again_while_the_database_is_down(
    page, live_server, survey
):
    stopped_clock(page)  # the page's own retry, 30 s later, never comes first
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


@contextlib.contextmanager
def commit_failing(*, reached: bool) -> Iterator[None]:
    """The commit of every transaction that inserted a submission raises OperationalError,
    as when the connection is lost while the database commits: after the commit reached the
    database (`reached`), or before. Other commits (the rate limit's counter) succeed."""
    connection = connections["default"]
    commit, execute = type(connection)._commit, CursorWrapper.execute
    inserted = threading.local()

    def noting(self, sql, params=None):
        inserted.submission = getattr(inserted, "submission", False) or (
            'INSERT INTO "surveys_submission"' in sql)
        return execute(self, sql, params)

    def failing(self):
        if not getattr(inserted, "submission", False):
            return commit(self)
        inserted.submission = False
        if reached:
            commit(self)
        with self.wrap_database_errors:  # as Django raises it: django.db.OperationalError
            raise self.Database.OperationalError("server closed the connection unexpectedly")

    with mock.patch.object(CursorWrapper, "execute", noting), mock.patch.object(
        type(connection), "_commit", failing
    ):
        yield


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("reached", [True, False], ids=["stored", "not stored"])
@pytest.mark.parametrize("language", ["en", "es", "fr", "de"])
def test_it_answers_503_maybe_stored_when_the_database_is_lost_at_commit(
    client, survey, reached, language
):
    url = reverse("respond-submit", args=[survey.public_id]) + f"?lang={language}"
    reports = {str(pk): report for pk, report in valid_reports(survey).items()}
    body = {"idempotency_key": "commit-0123", "invitation": None, "wording": 0, "reports": reports}
    with commit_failing(reached=reached):
        response = client.post(url, body, content_type="application/json")
    with translation.override(language):
        expected = {"ok": False, "error": str(OUTCOME_UNKNOWN)}
    with translation.override("en"):
        english = str(OUTCOME_UNKNOWN)
    assert (response.status_code, response.json()) == (503, expected)
    assert (expected["error"] == english) == (language == "en")  # translated
    assert response["Retry-After"] == "30"
    assert Submission.objects.filter(survey=survey).count() == (1 if reached else 0)
    # Sent again, it gets a definite answer, and is stored once.
    again = client.post(url, body, content_type="application/json")
    assert (again.status_code, again.json()) == (200 if reached else 201, {
        "ok": True, "received": reports})
    assert list(Submission.objects.filter(survey=survey).values_list("reports", flat=True)) == [
        reports]
    survey.refresh_from_db()
    assert survey.response_count == 1
    assert all(recount(question)[0].tolist() == tally_counts(survey)[question.pk]
               for question in questions(survey))


@pytest.mark.browser
@pytest.mark.usefixtures("transactional_db")
def test_after_a_commit_lost_the_page_sends_the_same_again_by_itself_until_it_is_definite(
    page, live_server, survey
):
    stopped_clock(page)
    page.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    for question in questions(survey):
        page.check(f"#answer-{question.pk}-1")
    waiting = "#respond-status:has-text('by itself in 30 seconds')"
    answers = []
    with commit_failing(reached=False):
        with page.expect_response(lambda r: r.url.endswith("/submit/")) as answer:
            page.click("#send-answers")
        answers.append(answer.value)
        page.wait_for_selector("#respond-status:has-text('may or may not have been stored')")
        page.wait_for_selector(waiting)  # shown once the next attempt is set
        with page.expect_response(lambda r: r.url.endswith("/submit/")) as answer:
            page.clock.run_for(30_000)
        answers.append(answer.value)
        page.wait_for_selector(waiting)
    with page.expect_response(lambda r: r.url.endswith("/submit/")) as answer:
        page.clock.run_for(30_000)
    answers.append(answer.value)
    page.wait_for_url("**/thanks/")
    assert [answer.status for answer in answers] == [503, 503, 201]
    assert len({json.dumps(a.request.post_data_json, sort_keys=True) for a in answers}) == 1
    assert Submission.objects.count() == 1
