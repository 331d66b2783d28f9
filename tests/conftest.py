"""Factory fixtures shared by all test modules, fresh databases for the real server, and the
headless browser."""

import asyncio
import contextlib
import os
import shutil
import threading
from collections.abc import Callable, Iterator

import pytest
from django.contrib.auth.models import Group, User
from django.core.cache import caches
from django.core.signals import request_finished, request_started
from django.db import connections

from surveys.actions.surveys import close_survey, open_survey
from surveys.models import Choice, PrivacyPolicy, Question, Survey
from tests.helpers import AXE, Audit, command, lacking, rscript_with
from tests.load import RedisServer, Unreachable, fresh_database

CHROMIUM = os.getenv("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def uses_test_database(item: pytest.Item) -> bool:
    """Whether a test reads or writes Django's test database (the one DATABASE_URL names),
    through a fixture or the django_db mark. The others do not depend on DATABASE_URL: the
    pure mathematics, and the load and fault tests, whose servers run on fresh databases of
    both kinds of their own (``database``)."""
    fixtures = {"db", "transactional_db", "live_server"} & set(item.fixturenames)
    return bool(fixtures or item.get_closest_marker("django_db"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that use the test database ``test_database``: CI runs those again on
    PostgreSQL, but for the browser tests (``-m "test_database and not browser"``), the others
    once."""
    for item in items:
        if uses_test_database(item):
            item.add_marker(pytest.mark.test_database)


@pytest.fixture(autouse=True)
def _fresh_cache(request):
    """Rate-limit counters and computed results live in the cache, a table of the test
    database (computed results also in memory): each test that uses the database starts
    with none. Others have no cache to clear, and may not touch the database."""
    if uses_test_database(request.node):
        request.getfixturevalue("db")  # transactional_db instead, if the test asks for it
        caches["results"].clear()  # this process's copies, and the shared cache behind them


class RequestsInFlight:
    """How many requests the live server is handling, told by Django's request signals."""

    def __init__(self):
        self.count = 0
        self.changed = threading.Condition()

    def started(self, **kwargs):
        with self.changed:
            self.count += 1

    def finished(self, **kwargs):
        with self.changed:
            self.count -= 1
            self.changed.notify_all()

    def settle(self) -> None:
        """Wait until the server has answered every request the pages made, before the test
        itself writes to the database: on SQLite the server's threads share the test's
        connection, and a write while one of them reads fails with "database table is
        locked". (A page's explanation panel, for one, asks the server at every key.)"""
        with self.changed:
            settled = self.changed.wait_for(lambda: self.count <= 0, timeout=60)
        assert settled, f"the live server was still handling {self.count} requests after 60 s"


@pytest.fixture
def live_requests(transactional_db) -> RequestsInFlight:
    """The live server's requests in flight; at teardown, waits until there are none."""
    requests = RequestsInFlight()
    request_started.connect(requests.started)
    request_finished.connect(requests.finished)
    yield requests
    try:
        requests.settle()
    finally:
        request_started.disconnect(requests.started)
        request_finished.disconnect(requests.finished)


@pytest.fixture(autouse=True)
def _server_settled(request):
    """A test with the live server ends only once the server has answered every request its
    pages made: a request still running when the database is flushed, or when the next test
    sets up, would fail one of them (see ``RequestsInFlight.settle``). Set up before the
    test's browser, so torn down after it is closed, and after the database, so torn down
    before the flush."""
    if "live_server" in request.fixturenames:
        request.getfixturevalue("live_requests")


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Password hashing is deliberately slow; tests need no protection against cracking."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_researcher(db):
    def make(username: str = "alice") -> User:
        user = User.objects.create_user(username, f"{username}@example.org", "pass-for-tests-1")
        group, _ = Group.objects.get_or_create(name="Researchers")
        user.groups.add(group)
        return user

    return make


@pytest.fixture
def researcher(make_researcher) -> User:
    return make_researcher("alice")


@pytest.fixture
def other_researcher(make_researcher) -> User:
    return make_researcher("mallory")


@pytest.fixture
def epsilon_limits(db):
    """Sets the site's limits per question and per survey (3 each by default) for tests whose
    surveys spend more."""

    def set_limits(*, question: float, survey: float) -> None:
        PrivacyPolicy.objects.update_or_create(
            pk=1, defaults={"max_question_epsilon": question, "max_survey_epsilon": survey})

    return set_limits


@pytest.fixture
def make_survey(db):
    """A survey with a yes/no question and a categorical one (choices given by `labels`)."""

    def make(
        owner: User,
        *,
        status: str = Survey.Status.DRAFT,
        labels: tuple[str, ...] = ("Never", "Once", "Often"),
        epsilons: tuple[float, float] = (1.0, 2.0),
        title: str = "Habits",
    ) -> Survey:
        survey = Survey.objects.create(owner=owner, title=title, introduction="Please answer.")
        yes_no = Question.objects.create(
            survey=survey,
            order=1,
            text="Have you ever cheated?",
            kind="yesno",
            epsilon=epsilons[0],
        )
        categorical = Question.objects.create(
            survey=survey, order=2, text="How often?", kind="categorical", epsilon=epsilons[1]
        )
        for i, label in enumerate(labels):
            Choice.objects.create(question=categorical, order=i, label=label)
        assert yes_no.pk and categorical.pk
        if status != Survey.Status.DRAFT:
            open_survey(survey)
        if status == Survey.Status.CLOSED:
            close_survey(survey)
        return survey

    return make


@pytest.fixture
def rscript() -> Callable[..., str]:
    """rscript(*packages) -> the path of Rscript once R has those packages; else the test
    skips (fails in CI) with the command that installs them (tests/helpers.py)."""
    return rscript_with


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request) -> Iterator[str]:
    """DATABASE_URL of a fresh database of each kind."""
    try:
        with fresh_database(request.param) as url:
            yield url
    except Unreachable as error:
        lacking(str(error))


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A running redis-server of the test's own (tests/load.py)."""
    command("redis-server", "redis-server")
    with RedisServer() as server:
        yield server


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium per test process (per xdist worker), driven by Playwright:
    launching one costs a second or more, and every browser test's contexts are its own
    anyway (``browser``). Skipped (or failed in CI) when absent."""
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        lacking(
            f"Chromium not found at {CHROMIUM}: browser tests need it. Install it with "
            "`sudo apt-get install chromium chromium-driver` (or set CHROMIUM_PATH)."
        )
    # Playwright's sync API runs an event loop in this thread; Django's ORM calls made by
    # the test itself stay synchronous and safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield instance
    with playwright_loop(instance):
        instance.close()
        playwright.stop()


@contextlib.contextmanager
def playwright_loop(chromium) -> Iterator[None]:
    """Playwright's event loop marked as this thread's running loop, as Playwright leaves it
    after each call it makes, and unmarked afterwards. Marked, Django takes this thread for
    async code and keeps its database connections apart from the usual ones (which the test
    database's transaction and the tests without a browser use); Playwright needs it marked
    for its next call."""
    asyncio._set_running_loop(chromium._loop)  # noqa: SLF001 (Playwright does the same)
    try:
        yield
    finally:
        asyncio._set_running_loop(None)  # noqa: SLF001


@pytest.fixture
def browser(chromium):
    """The worker's Chromium, for one test: every browser context the test opens (each its
    own cookies and storage) is closed when it ends, so nothing passes to the next test."""
    with playwright_loop(chromium):
        yield chromium
        for context in chromium.contexts:
            context.close()
        # While Playwright's loop is marked running, Django keeps this thread's database
        # connections apart from the usual ones (as for async code); close them, or
        # PostgreSQL refuses to drop the test database at the end ("being accessed by other
        # users").
        connections.close_all()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    yield context.new_page()
    context.close()


@pytest.fixture
def axe():
    """audit(page, label) -> violations: injects axe-core into the page as it is now, runs
    axe.run() and prints the violations by impact with their rule ids; check() fails the test
    if any audited page had a serious or critical one (after all pages were printed)."""
    if not AXE.exists():
        lacking(f"{AXE} is missing: run `make test-deps` (npm ci) to install axe-core.")
    return Audit()
