"""What the page benchmarks share: one child process per database (Django is configured once
per process), and timing a page with Django's test Client."""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.load import SERVER_ENV, Unreachable, collect_static, fresh_database  # noqa: E402 (needs ROOT first)


def each_database(databases: list[str], measure: Callable[[str], dict]) -> dict[str, dict | None]:
    """``measure(database_url)`` on a throw-away database of each kind (tests.load), None for
    a kind that cannot be reached."""
    figures: dict[str, dict | None] = {}
    for database in databases:
        print(f"{database}: filling and measuring...", file=sys.stderr, flush=True)
        try:
            with fresh_database(database) as url:
                figures[database] = measure(url)
        except Unreachable as error:
            print(f"{database}: skipped ({error})", file=sys.stderr)
            figures[database] = None
    return figures


def measure_in_child(script: str, options: list[str], database_url: str) -> dict:
    """Run ``script --measure *options`` on ``database_url`` with the settings gunicorn gets
    (tests.load.SERVER_ENV), the test Client's host allowed and this process's collected
    static files; the JSON of its last line."""
    env = {
        **os.environ,
        **SERVER_ENV,
        "ALLOWED_HOSTS": "testserver",
        # One thread for numpy's linear algebra, as the site's settings give a server (they
        # are read too late here: this script imports numpy before them).
        "OPENBLAS_NUM_THREADS": "1",
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": os.getenv("DJANGO_SETTINGS_MODULE", "surveysite.settings"),
        # Pages name static files through the manifest, with DEBUG off.
        "STATIC_ROOT": collect_static(),
    }
    command = [sys.executable, script, "--measure", *options]
    result = subprocess.run(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise SystemExit(f"benchmark child failed with exit code {result.returncode}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def timed_get(client, url: str) -> float:
    """Milliseconds of one GET, which must answer 200."""
    started = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, (url, response.status_code)
    return 1000 * elapsed


def served_ms(client, url: str) -> float:
    """Milliseconds until a GET's response is sent, as a WSGI server (gunicorn) serves it: the
    site's handler is called and its body read, timed; then the response is closed, untimed,
    which runs what the site does once a response is sent (``request_finished``). Django's
    test Client would time that too. The request carries ``client``'s cookies (its session)
    and must answer 200."""
    environ = {
        "REQUEST_METHOD": "GET", "PATH_INFO": url, "QUERY_STRING": "", "SCRIPT_NAME": "",
        "SERVER_NAME": "testserver", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_COOKIE": "; ".join(f"{m.key}={m.coded_value}" for m in client.cookies.values()),
        "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(),
        "wsgi.errors": sys.stderr, "wsgi.multithread": False, "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    statuses = []
    started = time.perf_counter()
    body = _wsgi_handler()(environ, lambda status, headers: statuses.append(status))
    b"".join(body)
    elapsed = time.perf_counter() - started
    body.close()
    assert statuses[0].startswith("200"), (url, statuses)
    return 1000 * elapsed


@functools.cache
def _wsgi_handler():
    from django.core.handlers.wsgi import WSGIHandler

    return WSGIHandler()


def frozen_specs(survey) -> dict[str, dict]:
    """Question id (text) -> its frozen mechanism spec."""
    return {str(question.pk): question.spec for question in survey.ordered_questions()}


def make_survey():
    """An open survey owned by a new user "bench": a yes/no question, one with 20 answers
    (optimized unary encoding) and one with 5 (GRR), each at epsilon 1."""
    from django.contrib.auth.models import User

    from surveys.actions.surveys import open_survey
    from surveys.models import Choice, Question, Survey

    owner = User.objects.create_user("bench", password=None)
    survey = Survey.objects.create(owner=owner, title="Benchmark")
    Question.objects.create(survey=survey, order=1, text="Yes or no?", kind="yesno", epsilon=1.0)
    for order, k in ((2, 20), (3, 5)):
        question = Question.objects.create(
            survey=survey, order=order, text=f"One of {k}?", kind="categorical", epsilon=1.0
        )
        Choice.objects.bulk_create(
            [Choice(question=question, order=i, label=f"Answer {i}") for i in range(k)]
        )
    open_survey(survey)
    return survey


FILL_CHUNK = 100_000
"""Simulated responses stored per round while filling a survey: keeps the arrays small."""


def fill(survey, size: int) -> None:
    """Top the open ``survey`` up to ``size`` simulated responses (answer i of k drawn with
    weight i + 1), through the bulk path that keeps the tallies; then, on PostgreSQL, refresh
    the planner's statistics as autovacuum would after a bulk load."""
    from django.db import connection

    from surveys.actions.simulate import simulate_responses

    survey.refresh_from_db()
    truth = {}
    for question in survey.ordered_questions():
        weights = [i + 1.0 for i in range(question.mechanism().k)]
        truth[question.pk] = [w / sum(weights) for w in weights]
    while survey.response_count < size:
        chunk = min(FILL_CHUNK, size - survey.response_count)
        simulate_responses(survey, chunk, truth, seed=survey.response_count)
        survey.refresh_from_db()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # the one statement Django has no API for
            cursor.execute("ANALYZE")
