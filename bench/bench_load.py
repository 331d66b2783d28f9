"""Benchmark: submissions per second through the real server, against its respondent page.

    .venv/bin/python bench/bench_load.py [--seconds 10] [--rounds 3] [--clients 16]
                                         [--workers 4] [--databases sqlite postgresql]

For each database (a temporary SQLite file; a throw-away PostgreSQL database on
LOAD_POSTGRES_URL, see tests/load.py) it starts gunicorn on a loopback port (DEBUG off, sync
workers, as ``make serve``) and lets the same number of concurrent respondents (threads, each
with its own CSRF cookie, as the survey page sends) either load the respondent page
(``GET /s/<id>/``, what a respondent loads just before submitting: the baseline) or post
freshly randomized reports with new idempotency keys to the submission endpoint. Phases of a
fixed time alternate, in the order page, submission, then submission, page, and so on, so
that drift on a shared machine hits both alike. Both use the same client code, whose own CPU
time per request is printed: it shows whether the client, not the server, is the limit.

Prints, per round and overall: requests per second, p50 and p99 latency and errors of each,
and the submission endpoint's throughput as a multiple of the page's. Target (agreed): at
least 1.0x on each database. A missed target is reported, not a failure. An answer other
than 2xx (or a broken connection) is an error and makes the run invalid: it exits 1. Not a
test: it takes a few minutes, and its figures are ratios within one run.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.load import (  # noqa: E402 (needs the project root on the path first)
    WORKERS,
    Outcome,
    Unreachable,
    drive,
    fetch,
    fresh_database,
    gunicorn_server,
    make_jobs,
    prepare,
)

TARGET = 1.0
WARM_UP_SECONDS = 3
ENDPOINTS = ("page", "submission")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10, help="per phase")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=WORKERS)
    parser.add_argument("--databases", nargs="+", default=["sqlite", "postgresql"])
    args = parser.parse_args()
    errors = 0
    for database in args.databases:
        try:
            rounds = measure(database, args)
        except Unreachable as error:
            print(f"{database}: skipped ({error})")
            continue
        errors += report(database, rounds)
    if errors:
        print(f"INVALID: {errors} requests failed; these figures are not a measurement.")
    return 1 if errors else 0


def measure(database: str, args: argparse.Namespace) -> list[dict[str, dict]]:
    """One {endpoint: phase figures} per round (see `phase`)."""
    print(f"{database}: measuring...", file=sys.stderr, flush=True)
    with fresh_database(database) as url:
        survey = prepare(url)
        jobs = endless_jobs(survey["questions"])
        with gunicorn_server(url, workers=args.workers) as server:

            def run(endpoint: str, seconds: float) -> dict:
                return phase(server.url, survey["public_id"], endpoint, jobs, args, seconds)

            for endpoint in ENDPOINTS:  # warm up connections and code paths
                run(endpoint, WARM_UP_SECONDS)
            rounds = []
            for number in range(args.rounds):
                order = ENDPOINTS if number % 2 == 0 else ENDPOINTS[::-1]
                rounds.append({endpoint: run(endpoint, args.seconds) for endpoint in order})
            return rounds


def endless_jobs(questions: dict[str, dict]) -> Iterator[tuple[str, dict]]:
    for chunk in itertools.count():
        yield from make_jobs(questions, 5000, seed=chunk, prefix=f"b{chunk}")


def phase(url: str, public_id: str, endpoint: str, jobs: Iterator, args: argparse.Namespace,
          seconds: float) -> dict:
    """{"seconds", "latencies" (of 2xx answers), "errors", "client_cpu"} of `clients`
    respondents loading the page or submitting for `seconds`."""
    cpu, started = time.process_time(), time.monotonic()
    until = started + seconds
    outcomes: list[Outcome]
    if endpoint == "page":
        outcomes = fetch(url, public_id, f"/s/{public_id}/", clients=args.clients, until=until)
    else:
        outcomes = drive(url, public_id, jobs, clients=args.clients, until=until, retries=0)
    elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
    good = [o.seconds for o in outcomes if 200 <= o.status < 300]
    return {"seconds": elapsed, "latencies": good, "errors": len(outcomes) - len(good),
            "client_cpu": cpu}


def summary(phases: list[dict]) -> dict:
    """Requests per second, p50 and p99 in ms, errors and client CPU per request (us) of
    one or more phases of an endpoint, taken together."""
    latencies = sorted(itertools.chain.from_iterable(p["latencies"] for p in phases))
    requests = max(len(latencies), 1)  # a phase without one answer still gets reported
    return {
        "rate": len(latencies) / sum(p["seconds"] for p in phases),
        "p50": 1000 * statistics.median(latencies or [0]),
        "p99": 1000 * latencies[int(0.99 * len(latencies))] if latencies else 0,
        "errors": sum(p["errors"] for p in phases),
        "client_us": 1e6 * sum(p["client_cpu"] for p in phases) / requests,
    }


def report(database: str, rounds: list[dict[str, dict]]) -> int:
    """Print each round, all rounds together and the verdict; the number of failed requests."""
    print(f"{'database':10} {'round':7} {'endpoint':11} {'req/s':>8} {'p50 ms':>8} "
          f"{'p99 ms':>8} {'errors':>6} {'client us/req':>13} {'submission/page':>15}")
    for number, measured in enumerate(rounds, start=1):
        print_rows(database, str(number), [measured])
    ratio, errors = print_rows(database, "overall", rounds)
    verdict = "target met" if ratio >= TARGET else "target missed"
    print(f"{database:10} {verdict}: submissions {ratio:.2f}x the page's throughput "
          f"(target >= {TARGET:.1f}x), {errors} errors")
    return errors


def print_rows(database: str, label: str, rounds: list[dict[str, dict]]) -> tuple[float, int]:
    """Print one line per endpoint for `rounds` taken together; (ratio, errors)."""
    figures = {endpoint: summary([measured[endpoint] for measured in rounds])
               for endpoint in ENDPOINTS}
    ratio = figures["submission"]["rate"] / max(figures["page"]["rate"], 1e-9)
    for endpoint, f in figures.items():
        shown = f"{ratio:.2f}x" if endpoint == "submission" else ""
        print(f"{database:10} {label:7} {endpoint:11} {f['rate']:8.1f} {f['p50']:8.1f} "
              f"{f['p99']:8.1f} {f['errors']:6} {f['client_us']:13.0f} {shown:>15}")
    return ratio, sum(f["errors"] for f in figures.values())


if __name__ == "__main__":
    sys.exit(main())
