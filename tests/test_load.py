"""Nothing lost: thousands of submissions from concurrent respondents through the real server
(gunicorn on loopback, DEBUG off), on SQLite and on PostgreSQL, each stored exactly once.

Each test gets a fresh database and its own server (tests/load.py); pytest-django's test
database is not used. PostgreSQL tests are skipped when its server is unreachable, except in
CI, where that fails them.
"""

import os
from collections import defaultdict
from collections.abc import Iterator

import pytest

from surveys import ldp
from surveys.ldp import joint
from tests.load import (
    Outcome,
    Unreachable,
    audit,
    drive,
    fold,
    fresh_database,
    gunicorn_server,
    make_jobs,
    prepare,
)

SUBMISSIONS = 5000
CLIENTS = 16
RETRIED_EVERY = 10
"""Every 10th submission is sent again after its answer, as after an answer that was lost."""
DOUBLED_EVERY = 25
"""Every 25th is sent twice at once, as by a double click."""


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request) -> Iterator[str]:
    """DATABASE_URL of a fresh database of each kind."""
    try:
        with fresh_database(request.param) as url:
            yield url
    except Unreachable as error:
        if os.getenv("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"{error}: CI must test PostgreSQL too")
        pytest.skip(str(error))


def schedule(jobs: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The order of sending: doubled jobs twice in a row, retried ones again at the end."""
    sends = []
    for i, job in enumerate(jobs):
        sends += [job, job] if i % DOUBLED_EVERY == 0 else [job]
    return sends + jobs[1::RETRIED_EVERY]


def assert_answered_once_each(outcomes: list[Outcome], jobs: list[tuple[str, dict]]) -> None:
    """Every attempt that got an answer got 201 or 200, with the reports echoed; each key got
    at most one 201 (none if the answer to the storing attempt was lost) and some answer."""
    bodies = dict(jobs)
    answered = defaultdict(list)
    for outcome in outcomes:
        assert outcome.status in {0, 200, 201}, (outcome.status, outcome.answer)
        if outcome.status:
            answered[outcome.key].append(outcome.status)
            assert outcome.answer == {"ok": True, "received": bodies[outcome.key]["reports"]}
    assert answered.keys() == bodies.keys()
    assert all(statuses.count(201) <= 1 for statuses in answered.values())


def assert_stored_exactly(database_url: str, survey: dict, jobs: list[tuple[str, dict]]) -> None:
    """The database holds exactly the jobs' submissions, each with exactly its reports; the
    response count and every tally equal a recount from the stored reports."""
    stored = audit(database_url, survey["pk"])
    mechanisms = {pk: ldp.from_spec(spec) for pk, spec in survey["questions"].items()}
    expected = {key: body["reports"] for key, body in jobs}
    submissions = stored["submissions"]
    missing, extra = expected.keys() - submissions.keys(), submissions.keys() - expected.keys()
    assert not missing and not extra, (sorted(missing)[:5], sorted(extra)[:5])
    wrong = [key for key in expected if submissions[key] != expected[key]]
    assert not wrong, [(key, submissions[key], expected[key]) for key in wrong[:5]]
    assert stored["response_count"] == len(expected)
    recount = {pk: [0] * mechanism.k for pk, mechanism in mechanisms.items()}
    for reports in submissions.values():
        for pk, report in reports.items():
            for category in mechanisms[pk].support(report):
                recount[pk][category] += 1
    assert stored["tallies"] == recount


def test_it_stores_every_accepted_submission_exactly_once(database):
    survey = prepare(database)
    jobs = make_jobs(survey["questions"], SUBMISSIONS, seed=7, prefix="load")
    sends = schedule(jobs)
    with gunicorn_server(database) as server:
        outcomes = drive(server.url, survey["public_id"], iter(sends), clients=CLIENTS)
    assert len(outcomes) == len(sends)  # every request answered at the first attempt
    assert_answered_once_each(outcomes, jobs)
    assert sum(outcome.status == 201 for outcome in outcomes) == SUBMISSIONS
    assert_stored_exactly(database, survey, jobs)


def test_pair_counts_folded_while_respondents_submit_equal_a_recount(database):
    """Breakdowns fold new submissions into stored pair counts (surveys.queries.breakdowns). Fold
    every pair three times while respondents are submitting (the next submissions wait, the
    ones in flight go on), then once more: the counts equal a recount from the stored reports."""
    survey = prepare(database)
    total, every = 2000, 500
    jobs = make_jobs(survey["questions"], total, seed=8, prefix="pairs")
    folds = []

    def sends() -> Iterator[tuple[str, dict]]:
        for i, job in enumerate(jobs):
            if i and i % every == 0:
                folds.append(fold(database, survey["pk"]))
            yield job

    with gunicorn_server(database) as server:
        outcomes = drive(server.url, survey["public_id"], sends(), clients=CLIENTS)
    assert sum(outcome.status == 201 for outcome in outcomes) == total
    assert [len(pairs) for pairs in folds] == [3, 3, 3]
    assert all(0 < counts["n"] < total for pairs in folds for counts in pairs.values())
    final = fold(database, survey["pk"])
    reports = list(audit(database, survey["pk"])["submissions"].values())
    mechanisms = {pk: ldp.from_spec(spec) for pk, spec in survey["questions"].items()}
    for pair, counts in final.items():
        a, b = pair.split(",")
        recount = joint.pair_counts(
            mechanisms[a], mechanisms[b], [r[a] for r in reports], [r[b] for r in reports]
        )
        assert counts == recount.to_json()
