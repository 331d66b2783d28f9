"""Redis fails under load, and the answers keep flowing: a Redis of the test's own is killed
(SIGKILL) or stopped cleanly in the middle of a load of submissions through the real server
(gunicorn), and started again (empty, as after any restart) later in the same load; and
REDIS_URL is set and unset between restarts of two app servers on one PostgreSQL.

Bars: no answer 500; every submission stored exactly once (a 503 is sent again, as the
survey page does, until it gets a definite answer); and once Redis is back, the rate limit is
exact again: in the first window that starts REDIS_RETRY_SECONDS after Redis returned (when
every worker has tried it again), exactly the limit gets through.

Faults happen at fixed points of the load (before handing out a given submission, with the
other respondents' requests in flight), never after a sleep; the one wait on the clock is for
a rate-limit window to begin, since windows are defined by the clock.
"""

import functools
import math
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack

import pytest

from tests.helpers import assert_answered_once_each, assert_stored_exactly
from tests.load import (
    Outcome,
    RedisServer,
    Server,
    connect,
    drive,
    gunicorn_server,
    in_threads,
    make_jobs,
    prepare,
)

JOBS = 900
DOWN_AT, UP_AT = 300, 600
"""Redis is stopped before the 300th submission is handed out, and started again before the
600th."""
RETRY_SECONDS = 1
"""REDIS_RETRY_SECONDS of the servers: after a failure, each worker tries Redis again this
long after."""
SIGN_IN_LIMIT, WINDOW = 3, 3
CSRF = "c" * 32  # a well-formed token, sent as the cookie and the header alike
LOST = "Redis cannot be reached"


def server_env(redis: RedisServer | None) -> dict[str, str]:
    env = {"RATELIMIT_SIGN_IN": f"{SIGN_IN_LIMIT}/{WINDOW}",
           "REDIS_RETRY_SECONDS": str(RETRY_SECONDS)}
    return env | {"REDIS_URL": redis.url} if redis else env


def with_faults(
    jobs: list[tuple[str, dict]], faults: dict[int, Callable[[], None]]
) -> Iterator[tuple[str, dict]]:
    """The jobs in order; before the i-th is handed out, faults[i]() runs. `drive` hands out
    jobs under a lock, so the other respondents' requests are in flight meanwhile but none
    starts until the fault is done."""
    for i, job in enumerate(jobs):
        if i in faults:
            faults[i]()
        yield job


def sign_in_attempt(server: Server) -> int:
    """The status of a sign-in with no password: the form again (200), or 429 once the
    limit is reached. It counts as an attempt, and costs no password hashing."""
    connection = connect(server.url)
    connection.request("POST", "/accounts/login/", "username=someone&password=", {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": f"csrftoken={CSRF}", "X-CSRFToken": CSRF})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


def attempts_in_one_window(servers: list[Server], count: int, not_before: float) -> list[int]:
    """The statuses of `count` sign-in attempts made one after another (to the servers in
    turn) within one rate-limit window: the first window that starts at or after
    `not_before` (time.time()) and holds all of them. Windows are the site's: whole
    multiples of WINDOW seconds of the clock, which the servers share with the test."""
    start = math.ceil(not_before / WINDOW) * WINDOW
    for _ in range(5):
        while (now := time.time()) < start:
            time.sleep(start - now)
        began = time.time()
        statuses = [sign_in_attempt(servers[i % len(servers)]) for i in range(count)]
        if time.time() // WINDOW == began // WINDOW:
            return statuses
        start = (time.time() // WINDOW + 1) * WINDOW
    raise AssertionError(f"{count} sign-in attempts never fitted in one {WINDOW} s window")


def assert_limit_exact(servers: list[Server], not_before: float) -> None:
    statuses = attempts_in_one_window(servers, SIGN_IN_LIMIT + 2, not_before)
    assert statuses == [200] * SIGN_IN_LIMIT + [429] * 2


def log_lines(server: Server) -> list[str]:
    return server.log.read_text(errors="replace").splitlines()


def summary(outcomes: list[Outcome], jobs: list[tuple[str, dict]], span: range) -> str:
    """Statuses and the slowest answer of the attempts whose job is in `span`: figures that
    `pytest -s` shows."""
    keys = {jobs[i][0] for i in span}
    mine = [outcome for outcome in outcomes if outcome.key in keys]
    statuses = Counter(outcome.status for outcome in mine)
    slowest = max(outcome.seconds for outcome in mine)
    return f"{len(keys)} submissions, statuses {dict(statuses)}, slowest {slowest:.3f} s"


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["killed", "stopped"])
def test_answers_keep_flowing_when_redis_fails_mid_load_and_the_limit_is_exact_once_back(
    database, redis_server, how
):
    survey = prepare(database)
    jobs = make_jobs(survey["questions"], JOBS, seed=21, prefix="redis")
    returned = {}

    def restart() -> None:
        redis_server.start()
        returned["at"] = time.time()
        returned["sign-ins"] = redis_server.watch("*ratelimit:sign-in:*")

    faults = {DOWN_AT: lambda: redis_server.stop(how), UP_AT: restart}
    with gunicorn_server(database, env=server_env(redis_server)) as server:
        outcomes = drive(server.url, survey["public_id"], with_faults(jobs, faults), clients=8)
        assert_limit_exact([server], not_before=returned["at"] + RETRY_SECONDS)
        lines = log_lines(server)
    # Counted in Redis again (its keys expire a window later: their writes are watched).
    assert redis_server.written(returned["sign-ins"])
    assert any(LOST in line for line in lines)  # the workers did lose Redis
    assert_answered_once_each(outcomes, jobs)
    assert_stored_exactly(database, survey, jobs)
    print(f"\n{database.split(':')[0]}, Redis {how.name}: before:",
          summary(outcomes, jobs, range(DOWN_AT)), "| while down:",
          summary(outcomes, jobs, range(DOWN_AT, UP_AT)), "| after:",
          summary(outcomes, jobs, range(UP_AT, JOBS)))


ROUNDS = [(True, True), (False, False), (True, False), (True, True)]
"""Whether each of the two app servers has REDIS_URL, round after round: both with it, both
without (Redis removed), one of each (a rolling restart), both with it again."""


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_redis_url_set_and_unset_between_restarts_of_two_app_servers(database, redis_server):
    survey = prepare(database, env={"REDIS_URL": redis_server.url})  # migrated with Redis
    every_job = []
    for number, uses_redis in enumerate(ROUNDS):
        jobs = make_jobs(survey["questions"], 200, seed=number, prefix=f"round{number}")
        every_job += jobs
        with ExitStack() as stack:
            servers = [
                stack.enter_context(gunicorn_server(
                    database, workers=2, env=server_env(redis_server if redis else None)))
                for redis in uses_redis
            ]
            outcomes = drive_each(servers, survey["public_id"], jobs)
            if len(set(uses_redis)) == 1:  # one shared counter: the limit holds across both
                assert_limit_exact(servers, not_before=time.time())
        assert_answered_once_each(outcomes, jobs)
        print(f"\nround {number}, REDIS_URL {uses_redis}:", summary(outcomes, jobs, range(200)))
    assert_stored_exactly(database, survey, every_job)


def drive_each(servers: list[Server], public_id: str, jobs: list[tuple[str, dict]]) -> list:
    """`drive` on every server at once, each with its share of the jobs."""
    return in_threads([
        functools.partial(drive, server.url, public_id, iter(jobs[i::len(servers)]), clients=4)
        for i, server in enumerate(servers)
    ])
