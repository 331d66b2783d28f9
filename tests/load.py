"""The real server, for the load and fault tests and the benchmarks: a fresh database,
gunicorn on a loopback port, and concurrent respondents that speak HTTP as the survey page does.

    with fresh_database("sqlite") as url:            # or "postgresql"
        survey = prepare(url)                        # migrate, then an open survey
        with gunicorn_server(url) as server:
            outcomes = drive(server.url, survey["public_id"], iter(jobs))  # POSTs
            pages = fetch(server.url, survey["public_id"], path, until=deadline)  # GETs
        stored = audit(url, survey["pk"])

Django runs only in child processes (``python -m tests.load prepare|audit`` with
DATABASE_URL set), so the caller's own Django configuration and test database are untouched.
A test's own Redis (``RedisServer``) can be started, killed and started again beside them.
This is the one harness for throw-away databases and servers: the load and fault tests and
the benchmarks under bench/ all use it.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import redis

from surveys import ldp

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_SERVER = os.getenv("LOAD_POSTGRES_URL", "postgres://root@127.0.0.1:5432/postgres")
"""Where fresh PostgreSQL databases are created (the path names the maintenance database), for
the tests and the benchmarks alike: the one setting that names a PostgreSQL server here."""

SERVER_ENV = {
    # Production settings (DEBUG off), as gunicorn gets them; the benchmarks measure with them.
    "DEBUG": "false",
    "SECRET_KEY": "load-test-key-" + "x" * 40,
    "ALLOWED_HOSTS": "127.0.0.1",
    "SECURE_SSL_REDIRECT": "false",
    "SECURE_COOKIES": "false",
    "SECURE_HSTS_SECONDS": "0",
    # Every respondent here comes from 127.0.0.1, which a real limit would stop at once.
    "RATELIMIT_SUBMISSIONS": "1000000/60",
}
LISTENING = re.compile(r"Listening at: http://127\.0\.0\.1:(\d+)")
CONTENT_LENGTH = re.compile(rb"\r\ncontent-length: *(\d+)", re.IGNORECASE)
STOP_SECONDS = 15
RETRIED = {0, 503}
"""Statuses after which a submission is sent again: no answer, or "unavailable, try again"."""
WORKERS = 4
"""gunicorn's sync workers, as ``make serve`` starts."""


class Unreachable(Exception):
    """The PostgreSQL server for fresh databases cannot be reached."""


@contextlib.contextmanager
def fresh_database(kind: str) -> Iterator[str]:
    """DATABASE_URL of a new, empty database, removed afterwards: a SQLite file in a temporary
    folder ("sqlite"), or a new database on POSTGRES_SERVER ("postgresql"; Unreachable if the
    server cannot be reached)."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="load-") as folder:
            yield f"sqlite:///{folder}/db.sqlite3"
        return
    name = f"load_{secrets.token_hex(6)}"
    try:
        postgres(f"CREATE DATABASE {name}")
    except Exception as error:  # noqa: BLE001 (psycopg raises several kinds for "no server")
        raise Unreachable(f"PostgreSQL at {POSTGRES_SERVER} is unreachable: {error}") from error
    try:
        yield f"{POSTGRES_SERVER.rsplit('/', 1)[0]}/{name}"
    finally:
        postgres(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def postgres(statement: str) -> list[tuple]:
    """Run one statement on POSTGRES_SERVER's maintenance database, in autocommit; its rows."""
    import psycopg

    with psycopg.connect(POSTGRES_SERVER, autocommit=True, connect_timeout=5) as connection:
        cursor = connection.execute(statement)
        return cursor.fetchall() if cursor.description else []


def _django_child(database_url: str, *args: str, env: dict[str, str] | None = None) -> dict:
    """Run ``python -m tests.load ARGS`` against `database_url` (with `env` added to the
    environment); its printed JSON."""
    env = {**os.environ, **(env or {}), "DATABASE_URL": database_url,
           "DJANGO_SETTINGS_MODULE": "surveysite.settings"}
    result = subprocess.run([sys.executable, "-m", "tests.load", *args], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"tests.load {' '.join(args)} failed:\n{result.stderr}")
    return json.loads(result.stdout)


def prepare(database_url: str, env: dict[str, str] | None = None) -> dict:
    """Migrate the database (with `env` added to the settings' environment, REDIS_URL for
    example) and create an open survey with one question of each encoding: a yes/no question
    (bit), 12 choices at epsilon 1 (unary: OUE) and 3 choices at epsilon 2 (index: GRR).
    Returns {"pk", "public_id", "questions": {question id: frozen spec}}."""
    return _django_child(database_url, "prepare", env=env)


def audit(database_url: str, survey_pk: int) -> dict:
    """What the database holds for the survey: {"response_count", "submissions": {key:
    {question id: report, as stored}}, "tallies": {question id: [count per category]}}."""
    return _django_child(database_url, "audit", str(survey_pk))


def fold(database_url: str, survey_pk: int) -> dict:
    """Bring the pair counts of every pair of the survey's questions up to date, as a
    breakdown view does (``surveys.queries.counts.pair_counts``): {"a,b":
    ``PairCounts.to_json``} for each pair of question ids a < b."""
    return _django_child(database_url, "fold", str(survey_pk))


@functools.cache
def collect_static() -> str:
    """The STATIC_ROOT of this process's servers: with DEBUG off, pages name static files
    through whitenoise's manifest, which ``collectstatic`` writes (as ``make serve`` does),
    here once per process into a temporary folder of its own, removed at exit. Not the
    project's staticfiles/: collectstatic deletes and writes files again, which another test
    process (an xdist worker) would meanwhile find missing, serving them or as its own
    WhiteNoise reads that folder for the test client."""
    folder = tempfile.mkdtemp(prefix="static-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    env = {**os.environ, **SERVER_ENV, "STATIC_ROOT": folder,
           "DJANGO_SETTINGS_MODULE": "surveysite.settings"}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
                   cwd=ROOT, env=env, check=True, timeout=120)
    return folder


@dataclass
class Server:
    """A running gunicorn: its address, its arbiter process and its log file."""

    url: str
    process: subprocess.Popen
    log: Path

    def worker_pids(self) -> list[int]:
        """The arbiter's children: its worker processes (Linux)."""
        pid = self.process.pid
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]

    def wait_for_workers(self, count: int, seconds: float = 60) -> bool:
        """Whether the arbiter has `count` workers within `seconds` (it replaces dead ones)."""
        deadline = time.monotonic() + seconds
        while len(self.worker_pids()) != count:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True


@contextlib.contextmanager
def gunicorn_server(
    database_url: str,
    *,
    workers: int = WORKERS,
    settings: str = "surveysite.settings",
    env: dict[str, str] | None = None,
    ready_seconds: float = 60,
) -> Iterator[Server]:
    """gunicorn serving `settings` on a free loopback port, with DEBUG off and SERVER_ENV (plus
    `env`); yields once it answers HTTP. Always stopped afterwards: SIGTERM, then SIGKILL to
    its whole process group after STOP_SECONDS."""
    static_root = collect_static()
    with tempfile.TemporaryDirectory(prefix="gunicorn-") as folder:
        log = Path(folder) / "gunicorn.log"
        command = [sys.executable, "-m", "gunicorn", "surveysite.wsgi", "--bind", "127.0.0.1:0",
                   "--workers", str(workers), "--graceful-timeout", "5", "--timeout", "60"]
        process_env = {**os.environ, **SERVER_ENV, **(env or {}), "DATABASE_URL": database_url,
                       "STATIC_ROOT": static_root, "DJANGO_SETTINGS_MODULE": settings}
        with log.open("wb") as output:
            process = subprocess.Popen(command, cwd=ROOT, env=process_env, stdout=output,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        try:
            server = Server(_wait_until_answering(process, log, ready_seconds), process, log)
            yield server
        finally:
            _stop(process)


def _wait_until_answering(process: subprocess.Popen, log: Path, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited:\n{log.read_text(errors='replace')}")
        found = LISTENING.search(log.read_text(errors="replace"))
        if found:
            url = f"http://127.0.0.1:{found[1]}"
            with contextlib.suppress(OSError, http.client.HTTPException):
                connection = connect(url)
                connection.request("GET", "/static/")  # any answer: a worker is up
                connection.getresponse().read()
                connection.close()
                return url
        time.sleep(0.05)
    raise RuntimeError(f"gunicorn did not answer in {seconds} s:\n{log.read_text()}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(STOP_SECONDS)
    with contextlib.suppress(ProcessLookupError):  # workers the arbiter left behind, if any
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def redis_port() -> int:
    """A free loopback port for a RedisServer, below the ephemeral ports: while the server is
    stopped, the port must stay free for its restart, and an ephemeral one could be taken
    meanwhile by any connection's local end (the respondents' own, thousands a second).
    Each test process (xdist worker) has a thousand ports of its own, so that two running
    side by side never pick the same, and starts at a random one of them, so that test runs
    of other checkouts on the same machine rarely do."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as ephemeral:
        first_ephemeral = int(ephemeral.read().split()[0])
    worker = int(os.getenv("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    lowest = first_ephemeral - 1000 * (worker + 1)
    start = secrets.randbelow(1000)
    for step in range(1000):
        port = lowest + (start + step) % 1000
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {lowest}-{lowest + 999} for redis-server")


class RedisServer:
    """A redis-server of the test's own on a free loopback port, keeping nothing on disk (as
    after any restart, it starts empty). `start` returns once it says it is ready to accept
    connections; `stop` once its process has exited, killed (SIGKILL, as by a crash or the
    out-of-memory killer) or stopped cleanly (SIGTERM: it closes its connections and exits).
    Started again, it listens on the same port."""

    def __init__(self) -> None:
        self.port = redis_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        executable = shutil.which("redis-server")
        if executable is None:
            raise RuntimeError("redis-server is needed (`sudo apt-get install redis-server`)")
        self.process = subprocess.Popen(
            [executable, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--loglevel", "notice"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        for line in self.process.stdout:
            if "Ready to accept connections" in line:
                # Read the rest of its log as it comes, so that it never waits on a full pipe.
                self.draining = threading.Thread(target=self.process.stdout.read, daemon=True)
                self.draining.start()
                return
        raise RuntimeError(f"redis-server ended before it was ready: {self.process.wait()}")

    def stop(self, how: signal.Signals = signal.SIGKILL) -> None:
        self.process.send_signal(how)
        self.process.wait()
        self.draining.join()
        self.process.stdout.close()
        self.process = None

    def keys(self) -> list[str]:
        client = redis.Redis(port=self.port)
        try:
            return [key.decode() for key in client.keys("*")]
        finally:
            client.close()

    def watch(self, pattern: str) -> redis.client.PubSub:
        """From now on, a message for every write to a key matching ``pattern`` (keyspace
        notifications), kept until read: unlike the keys themselves, which expire, they show
        what was written however long ago (``written``)."""
        client = redis.Redis(port=self.port)
        try:
            client.config_set("notify-keyspace-events", "K$")
        finally:
            client.close()
        # On a pool of its own: closing a client closes its pool's connections.
        watcher = redis.client.PubSub(
            redis.ConnectionPool(port=self.port), ignore_subscribe_messages=True
        )
        watcher.psubscribe(f"__keyspace@0__:{pattern}")
        return watcher

    @staticmethod
    def written(watcher: redis.client.PubSub) -> bool:
        """Whether a key ``watcher`` watches was written (the messages are already there: the
        wait is only for a server that sent none). Reading the subscription's confirmation
        gives None too, so it reads on until a write or the deadline."""
        deadline = time.monotonic() + 10
        try:
            while (left := deadline - time.monotonic()) > 0:
                if watcher.get_message(timeout=left) is not None:
                    return True
            return False
        finally:
            watcher.close()

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        if self.process:
            self.stop()


def make_jobs(
    questions: dict[str, dict], n: int, *, seed: int, prefix: str
) -> list[tuple[str, dict]]:
    """`n` (idempotency key, request body) pairs with distinct keys, each holding one report per
    question randomized by its mechanism from a uniformly drawn true answer."""
    rng = np.random.default_rng(seed)
    columns = {}
    for question_id, spec in questions.items():
        mechanism = ldp.from_spec(spec)
        columns[question_id] = mechanism.perturb(rng.integers(mechanism.k, size=n), rng).tolist()
    jobs = []
    for i in range(n):
        key = f"{prefix}-{i:08d}"
        reports = {question_id: column[i] for question_id, column in columns.items()}
        jobs.append((key, {"idempotency_key": key, "invitation": None, "wording": 0,
                           "reports": reports}))
    return jobs


@dataclass(frozen=True)
class Outcome:
    """One HTTP attempt. `status` 0: the connection broke before an answer came; `answer`
    None: the answer was not JSON."""

    key: str
    status: int
    answer: dict | None
    seconds: float


def connect(url: str) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)


class Respondent:
    """One browser: gets the survey page once, then sends requests as the survey page does
    (JSON, with the site's own Origin; no cookie, as the site sets none for respondents).
    Plain sockets, the same code for GET and POST: http.client would cost the client twice
    the CPU, which the server on the same cores then lacks, and an equal cost per request
    keeps the client from favouring either method in a comparison."""

    def __init__(self, url: str, public_id: str) -> None:
        page = connect(url)
        page.request("GET", f"/s/{public_id}/")
        response = page.getresponse()
        response.read()
        page.close()
        if response.status != 200:
            raise RuntimeError(f"the survey page answered {response.status}")
        self.address = (page.host, page.port)
        self.page_headers = f"Host: {page.host}:{page.port}\r\nConnection: close\r\n"
        self.headers = (f"{self.page_headers}Content-Type: application/json\r\n"
                        f"Origin: http://{page.host}:{page.port}\r\n")

    def get(self, path: str) -> tuple[int, bytes]:
        """(status, body) of a GET on a new connection; (0, b"") as for `post`."""
        return self._exchange(f"GET {path} HTTP/1.1\r\n{self.page_headers}\r\n".encode())

    def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        """(status, body) of a POST on a new connection (gunicorn's sync workers close each
        anyway); (0, b"") if the connection broke before the whole answer came."""
        return self._exchange(
            f"POST {path} HTTP/1.1\r\n{self.headers}Content-Length: {len(body)}\r\n\r\n"
            .encode() + body
        )

    def _exchange(self, request: bytes) -> tuple[int, bytes]:
        try:
            with socket.create_connection(self.address, timeout=120) as connection:
                connection.sendall(request)
                answer = b"".join(iter(lambda: connection.recv(65536), b""))
        except OSError:
            return 0, b""
        head, _, content = answer.partition(b"\r\n\r\n")
        length = CONTENT_LENGTH.search(head)
        if not head.startswith(b"HTTP/1.1 ") or (length and int(length[1]) != len(content)):
            return 0, b""
        return int(head[9:12]), content


def drive(
    url: str,
    public_id: str,
    jobs: Iterator[tuple[str, dict]],
    *,
    clients: int = 16,
    path: str | None = None,
    until: float | None = None,
    retries: int = 20,
) -> list[Outcome]:
    """Post every job's body to `path` (default: the survey's submission endpoint) from
    `clients` concurrent respondents, until `jobs` runs out or time.monotonic() passes `until`.

    An attempt whose connection breaks before the answer, or that is answered 503, is sent
    again with the same body, as the survey page does (at most `retries` times; here without
    waiting the 503's Retry-After). Returns every attempt; those of one sending of a job in
    the order they were made.
    """
    path = path or f"/s/{public_id}/submit/"
    lock = threading.Lock()

    def next_job() -> tuple[str, dict] | None:
        if until is not None and time.monotonic() >= until:
            return None
        with lock:
            return next(jobs, None)

    def respondent(client: Respondent) -> list[Outcome]:
        mine = []
        while (job := next_job()) is not None:
            key, body = job
            raw = json.dumps(body).encode()
            for _ in range(retries + 1):
                started = time.perf_counter()
                status, answer = client.post(path, raw)
                seconds = time.perf_counter() - started
                mine.append(Outcome(key, status, _json_or_none(answer), seconds))
                if status not in RETRIED:
                    break
                time.sleep(0.05)
        return mine

    return _concurrently(url, public_id, clients, respondent)


def fetch(url: str, public_id: str, path: str, *, clients: int = 16, until: float) -> list[Outcome]:
    """GET `path` over and over from `clients` concurrent respondents (the same client as
    `drive`'s) until time.monotonic() passes `until`. Returns every attempt (`key`: the path;
    `answer`: None, as pages are not JSON), in no particular order."""

    def respondent(client: Respondent) -> list[Outcome]:
        mine = []
        while time.monotonic() < until:
            started = time.perf_counter()
            status, _ = client.get(path)
            mine.append(Outcome(path, status, None, time.perf_counter() - started))
        return mine

    return _concurrently(url, public_id, clients, respondent)


def _concurrently(
    url: str, public_id: str, clients: int, work: Callable[[Respondent], list[Outcome]]
) -> list[Outcome]:
    """Run `work` in `clients` threads, each with its own Respondent; all their outcomes."""
    return in_threads([lambda: work(Respondent(url, public_id))] * clients)


def in_threads(tasks: list[Callable[[], list[Outcome]]]) -> list[Outcome]:
    """Run each task in a thread of its own; all their outcomes. An exception in a thread is
    raised here, after every thread has finished."""
    lock = threading.Lock()
    outcomes: list[Outcome] = []
    failures: list[BaseException] = []

    def run(task: Callable[[], list[Outcome]]) -> None:
        try:
            mine = task()
            with lock:
                outcomes.extend(mine)
        except BaseException as error:  # noqa: BLE001 (re-raised in the caller's thread)
            failures.append(error)

    threads = [threading.Thread(target=run, args=(task,)) for task in tasks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return outcomes


def _json_or_none(raw: bytes) -> dict | None:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _prepare() -> dict:
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from surveys.actions.surveys import open_survey
    from surveys.models import Choice, Question, Survey

    call_command("migrate", verbosity=0)
    owner = User.objects.create_user("load", password=None)
    survey = Survey.objects.create(owner=owner, title="Load")
    Question.objects.create(survey=survey, order=1, text="Yes or no?", kind="yesno", epsilon=1.0)
    for order, k, epsilon in ((2, 12, 1.0), (3, 3, 1.0)):
        question = Question.objects.create(survey=survey, order=order, text=f"One of {k}?",
                                           kind="categorical", epsilon=epsilon)
        Choice.objects.bulk_create(
            [Choice(question=question, order=i, label=f"Answer {i}") for i in range(k)]
        )
    open_survey(survey)
    questions = {str(q.pk): q.spec for q in survey.ordered_questions()}
    encodings = [ldp.from_spec(spec).encoding for spec in questions.values()]
    assert encodings == ["bit", "unary", "index"], encodings
    return {"pk": survey.pk, "public_id": survey.public_id, "questions": questions}


def _audit(survey_pk: int) -> dict:
    from surveys.models import Submission, Survey, Tally

    submissions = dict(
        Submission.objects.filter(survey=survey_pk).values_list("idempotency_key", "reports")
    )
    tallies: dict[str, list[int]] = {}
    for question_id, count in Tally.objects.filter(question__survey=survey_pk).order_by(
        "question", "index"
    ).values_list("question_id", "count"):
        tallies.setdefault(str(question_id), []).append(count)
    return {
        "response_count": Survey.objects.get(pk=survey_pk).response_count,
        "submissions": submissions,
        "tallies": tallies,
    }


def _fold(survey_pk: int) -> dict:
    from itertools import combinations

    from surveys.models import Survey
    from surveys.queries.counts import pair_counts

    survey = Survey.objects.get(pk=survey_pk)
    return {
        f"{a.pk},{b.pk}": pair_counts(survey, a, b).to_json()
        for a, b in combinations(survey.ordered_questions(), 2)
    }


if __name__ == "__main__":
    import django

    django.setup()
    command, *arguments = sys.argv[1:]
    commands = {"prepare": _prepare, "audit": _audit, "fold": _fold}
    print(json.dumps(commands[command](*map(int, arguments))))
