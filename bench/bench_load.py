"""Benchmark: submissions per second through the real server, against a one-row baseline.

    .venv/bin/python bench/bench_load.py [--seconds 10] [--rounds 3] [--clients 16]
                                         [--workers 4] [--databases sqlite postgresql]

For each database (a temporary SQLite file; a fresh PostgreSQL database on LOAD_POSTGRES_URL,
default postgres://root@127.0.0.1:5432/postgres, dropped afterwards) it starts gunicorn on a
loopback port (DEBUG off, sync workers, as ``make serve``) with ``bench.settings``: the site
plus a minimal Django view that parses the same JSON body and inserts one row
(``bench/urls.py``). Concurrent respondents (threads, each with its own connection and CSRF
cookie, as the survey page sends) post freshly randomized reports with new idempotency keys,
for a fixed time per phase, alternating baseline and submission endpoint so that drift hits
both alike. Reports per endpoint: requests per second, p50 and p99 latency, and the
submission endpoint's throughput as a share of the baseline's. Also the client's own CPU
time per request, which shows whether the client, not the server, is the limit.

Target (from the issue): the submission endpoint reaches at least 70% of the baseline's
throughput on each database. A missed target is reported ("target missed"), not a failure:
it exits 0 unless a request failed (then 1). Not a test: it takes a few minutes, and its
figures depend on the machine being otherwise idle.
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
    Unreachable,
    drive,
    fresh_database,
    gunicorn_server,
    make_jobs,
    prepare,
)

TARGET = 0.70
WARM_UP_SECONDS = 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10, help="per phase")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--databases", nargs="+", default=["sqlite", "postgresql"])
    args = parser.parse_args()
    failed = False
    for database in args.databases:
        try:
            figures = measure(database, args)
        except Unreachable as error:
            print(f"{database}: skipped ({error})")
            continue
        failed |= report(database, figures)
    return 1 if failed else 0  # a missed target is reported, not a failure


def measure(database: str, args: argparse.Namespace) -> dict[str, dict]:
    """Endpoint name -> {"requests", "seconds", "latencies", "errors", "client_cpu"}."""
    print(f"{database}: measuring...", file=sys.stderr, flush=True)
    with fresh_database(database) as url:
        survey = prepare(url)
        paths = {
            "baseline (one row)": f"/bench/insert-one-row/{survey['pk']}/",
            "submission": f"/s/{survey['public_id']}/submit/",
        }
        jobs = endless_jobs(survey["questions"])
        totals = {name: {"requests": 0, "seconds": 0.0, "latencies": [], "errors": 0,
                         "client_cpu": 0.0} for name in paths}
        with gunicorn_server(url, workers=args.workers, settings="bench.settings") as server:
            for path in paths.values():  # warm up connections and code paths
                phase(server.url, survey["public_id"], path, jobs, args, WARM_UP_SECONDS)
            for _ in range(args.rounds):
                for name, path in paths.items():
                    measured = phase(server.url, survey["public_id"], path, jobs, args,
                                     args.seconds)
                    for field, value in measured.items():
                        totals[name][field] += value
        return totals


def endless_jobs(questions: dict[str, dict]) -> Iterator[tuple[str, dict]]:
    for chunk in itertools.count():
        yield from make_jobs(questions, 5000, seed=chunk, prefix=f"b{chunk}")


def phase(url: str, public_id: str, path: str, jobs: Iterator, args: argparse.Namespace,
          seconds: float) -> dict:
    cpu, started = time.process_time(), time.monotonic()
    outcomes = drive(url, public_id, jobs, clients=args.clients, path=path,
                     until=started + seconds, retries=0)
    elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
    good = [o.seconds for o in outcomes if o.status == 201]
    return {"requests": len(good), "seconds": elapsed, "latencies": good,
            "errors": len(outcomes) - len(good), "client_cpu": cpu}


def report(database: str, figures: dict[str, dict]) -> bool:
    """Print one line per endpoint and whether the target was met; True if a request failed."""
    rates = {}
    for name, f in figures.items():
        rates[name] = f["requests"] / f["seconds"]
        latencies = sorted(f["latencies"])
        p50 = 1000 * statistics.median(latencies)
        p99 = 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
        client = 1e6 * f["client_cpu"] / max(f["requests"], 1)
        print(f"{database:10} {name:20} {rates[name]:8.1f} req/s   p50 {p50:7.1f} ms   "
              f"p99 {p99:7.1f} ms   {f['errors']} errors   client {client:5.0f} us CPU/request "
              f"({100 * f['client_cpu'] / f['seconds']:.0f}% of one core)")
    ratio = rates["submission"] / rates["baseline (one row)"]
    errors = sum(f["errors"] for f in figures.values())
    verdict = "target met" if ratio >= TARGET else "target missed"
    print(f"{database:10} {verdict}: submission throughput {100 * ratio:.0f}% of the baseline "
          f"(target >= {100 * TARGET:.0f}%), {errors} errors")
    return errors > 0


if __name__ == "__main__":
    sys.exit(main())
