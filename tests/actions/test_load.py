"""Nothing lost: thousands of submissions from concurrent respondents through the real server
(gunicorn on loopback, DEBUG off), on SQLite and on PostgreSQL, each stored exactly once.

Each test gets a fresh database and its own server (tests/load.py); pytest-django's test
database is not used. PostgreSQL tests are skipped when its server is unreachable, except in
CI, where that fails them.
"""

from collections.abc import Iterator

from surveys import ldp
from surveys.ldp import joint
from tests.helpers import assert_answered_once_each, assert_stored_exactly
from tests.load import (
    audit,
    drive,
    fold,
    gunicorn_server,
    make_jobs,
    prepare,
)

SUBMISSIONS = 2000
"""Enough for 16 clients to keep every worker busy throughout, with 80 double clicks and 200
sends after an answer: each path many times over. Throughput is bench/bench_load.py's."""
CLIENTS = 16
RETRIED_EVERY = 10
"""Every 10th submission is sent again after its answer, as after an answer that was lost."""
DOUBLED_EVERY = 25
"""Every 25th is sent twice at once, as by a double click."""


def schedule(jobs: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The order of sending: doubled jobs twice in a row, retried ones again at the end."""
    sends = []
    for i, job in enumerate(jobs):
        sends += [job, job] if i % DOUBLED_EVERY == 0 else [job]
    return sends + jobs[1::RETRIED_EVERY]


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
    total, every = 1000, 250
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
