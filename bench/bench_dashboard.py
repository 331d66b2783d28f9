"""Benchmark: the dashboard's cost does not grow with the number of responses.

    .venv/bin/python bench/bench_dashboard.py [--sizes 10000 1000000] [--repeats 30]
                                              [--databases sqlite postgres]

For each database (a temporary SQLite file; a fresh PostgreSQL database ``bench_dashboard``
on the server of BENCH_POSTGRES_URL, default postgres://root@127.0.0.1:5432/postgres, dropped
afterwards) it fills one survey (a yes/no question, a categorical one with k = 20, which
gets optimized unary encoding, and one with k = 5, which gets GRR) with simulated
submissions through ``surveys.simulate`` (the bulk path that also keeps the tallies), then at
each size measures the median latency of a plain page (the home page), the dashboard and
its JSON endpoint, requested in turn by Django's test Client in the same process (no network
or server noise, the whole Django stack including middleware, sessions and templates), and
the peak memory of streaming the reports CSV, in a fresh process so that nothing else
raises its peak.

Targets (from the issue): at the largest size the dashboard costs at most 3 times the plain
page; from the smallest to the largest size the dashboard and the JSON endpoint grow less
than 1.5 times; the CSV export's memory grows by less than 100 MB. Prints the figures and
exits 1 if a target is missed. Not a test: it takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_SERVER = os.getenv("BENCH_POSTGRES_URL", "postgres://root@127.0.0.1:5432/postgres")
POSTGRES_DATABASE = "bench_dashboard"
FILL_CHUNK = 100_000
MB = 1024 * 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--databases", nargs="+", default=["sqlite", "postgres"])
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # internal: one database
    parser.add_argument("--export", type=int, help=argparse.SUPPRESS)  # internal: survey pk
    args = parser.parse_args()
    if args.export:
        print(json.dumps(measure_export(args.export)))
        return 0
    if args.measure:
        print(json.dumps(measure_database(args.sizes, args.repeats)))
        return 0
    figures = {}
    for database in args.databases:
        print(f"{database}: filling and measuring...", file=sys.stderr, flush=True)
        figures[database] = run_database(database, args)
    return report(figures, args.sizes)


def run_database(database: str, args: argparse.Namespace) -> dict | None:
    """Measure one database in a child process (Django is configured once per process)."""
    command = [sys.executable, __file__, "--measure", database, "--repeats", str(args.repeats),
               "--sizes", *map(str, args.sizes)]
    if database == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            return _child(command, f"sqlite:///{folder}/bench.sqlite3")
    try:
        _postgres(f"DROP DATABASE IF EXISTS {POSTGRES_DATABASE}")
        _postgres(f"CREATE DATABASE {POSTGRES_DATABASE}")
    except Exception as error:  # noqa: BLE001 (any failure to reach the server means: skip)
        print(f"PostgreSQL at {POSTGRES_SERVER} not usable ({error}): skipped.", file=sys.stderr)
        return None
    try:
        return _child(command, POSTGRES_SERVER.rsplit("/", 1)[0] + f"/{POSTGRES_DATABASE}")
    finally:
        _postgres(f"DROP DATABASE IF EXISTS {POSTGRES_DATABASE}")


def _postgres(statement: str) -> None:
    import psycopg

    with psycopg.connect(POSTGRES_SERVER, autocommit=True) as connection:
        connection.execute(statement)


def _child(command: list[str], database_url: str) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": os.getenv("DJANGO_SETTINGS_MODULE", "surveysite.settings"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.getenv("PYTHONPATH")])),
    }
    result = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _django() -> None:
    import django

    django.setup()
    from django.test.utils import setup_test_environment

    # Production-like: DEBUG off (no query log), "testserver" allowed for the test Client.
    setup_test_environment(debug=False)


def measure_database(sizes: list[int], repeats: int) -> dict:
    _django()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    call_command("migrate", verbosity=0)
    survey = _make_survey()
    client = Client()
    client.force_login(survey.owner)
    urls = {
        "plain": reverse("home"),
        "dashboard": reverse("survey-results", args=[survey.pk]),
        "json": reverse("survey-results-json", args=[survey.pk]),
    }
    results = {}
    for size in sizes:
        started = time.perf_counter()
        _fill(survey, size)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:  # as autovacuum would, after a bulk load
                cursor.execute("ANALYZE")
        fill_seconds = time.perf_counter() - started
        print(f"  {size:>9,} responses filled in {fill_seconds:.0f} s", file=sys.stderr,
              flush=True)
        results[size] = {
            "fill_seconds": fill_seconds,
            "latency_ms": _latencies(client, urls, repeats),
            "export": _export_in_fresh_process(survey.pk),
        }
    return {"vendor": connection.vendor, "sizes": results}


def _make_survey():
    from django.contrib.auth.models import User

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
    survey.open()
    return survey


def _fill(survey, size: int) -> None:
    """Top the survey up to `size` responses, in chunks that keep the arrays small."""
    from surveys.simulate import simulate_responses

    survey.refresh_from_db()
    truth = {}
    for question in survey.ordered_questions():
        weights = [i + 1.0 for i in range(question.mechanism().k)]
        truth[question.pk] = [w / sum(weights) for w in weights]
    while survey.response_count < size:
        chunk = min(FILL_CHUNK, size - survey.response_count)
        simulate_responses(survey, chunk, truth, seed=survey.response_count)


def _latencies(client, urls: dict[str, str], repeats: int) -> dict[str, float]:
    """Median milliseconds per URL; the URLs take turns so that drift hits them alike.

    "dashboard" and "json" are what a researcher gets when no response arrived since the
    last view (estimates and chart fragments from the cache). The "_cold" variants, timed in
    a second pass, clear the cache before each request, as a new response does, so that the
    estimates and charts are recomputed from the tallies.
    """
    from django.core.cache import cache

    times: dict[str, list[float]] = {}
    cold = {"plain": urls["plain"], "dashboard_cold": urls["dashboard"], "json_cold": urls["json"]}
    for requests in (urls, cold):
        for round_ in range(repeats + 3):
            for name, url in requests.items():
                if name.endswith("_cold"):
                    cache.clear()
                started = time.perf_counter()
                response = client.get(url)
                elapsed = time.perf_counter() - started
                assert response.status_code == 200, (url, response.status_code)
                if round_ >= 3:  # the first rounds warm up connections and code paths
                    times.setdefault(name, []).append(1000 * elapsed)
    return {name: statistics.median(values) for name, values in times.items()}


def _export_in_fresh_process(survey_pk: int) -> dict:
    command = [sys.executable, __file__, "--export", str(survey_pk)]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def _memory_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def measure_export(survey_pk: int) -> dict:
    """Stream the reports CSV through the test Client and report the peak resident memory
    growth over the process's memory just before the request (Linux /proc)."""
    _django()
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    client = Client()
    client.force_login(User.objects.get(username="bench"))
    url = reverse("export-reports-csv", args=[survey_pk])
    client.get(reverse("home"))  # load templates, middleware and the session first
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current RSS
    before = _memory_kib("VmRSS")
    started = time.perf_counter()
    response = client.get(url)
    size = rows = 0
    for chunk in response.streaming_content:
        size += len(chunk)
        rows += chunk.count(b"\n")
    seconds = time.perf_counter() - started
    return {
        "rows": rows - 1,
        "megabytes": size / MB,
        "seconds": seconds,
        "peak_growth_mb": (_memory_kib("VmHWM") - before) / 1024,
    }


def report(figures: dict[str, dict | None], sizes: list[int]) -> int:
    """Print the table and the targets; 1 if a target is missed."""
    small, large = min(sizes), max(sizes)
    names = ["dashboard", "json", "dashboard_cold", "json_cold"]
    print(f"{'database':10} {'responses':>10} {'fill s':>7} {'plain ms':>9} "
          + " ".join(f"{name + ' ms':>20}" for name in names) + "   CSV export")
    failures = []
    for database, result in figures.items():
        if result is None:
            print(f"{database:10} skipped (not reachable)")
            continue
        by_size = {int(size): measured for size, measured in result["sizes"].items()}
        for size in sizes:
            latency, export = by_size[size]["latency_ms"], by_size[size]["export"]
            plain = latency["plain"]
            print(f"{database:10} {size:>10,} {by_size[size]['fill_seconds']:>7.0f} {plain:>9.2f} "
                  + " ".join(f"{latency[name]:>11.2f} ({latency[name] / plain:5.2f}x)"
                             for name in names)
                  + f"   {export['rows']:,} rows, {export['megabytes']:.1f} MB in "
                  f"{export['seconds']:.1f} s, peak memory +{export['peak_growth_mb']:.1f} MB")
        top = by_size[large]["latency_ms"]
        checks = {
            f"dashboard at {large:,} <= 3x plain page": top["dashboard"] / top["plain"] <= 3,
            f"JSON at {large:,} <= 3x plain page": top["json"] / top["plain"] <= 3,
            f"CSV export memory growth at {large:,} < 100 MB":
                by_size[large]["export"]["peak_growth_mb"] < 100,
        }
        for name in names:
            growth = top[name] / by_size[small]["latency_ms"][name]
            checks[f"{name} growth {small:,} -> {large:,} < 1.5x (is {growth:.2f}x)"] = (
                growth < 1.5
            )
        for check, passed in checks.items():
            print(f"{database:10} {'PASS' if passed else 'FAIL'}  {check}")
            if not passed:
                failures.append(f"{database}: {check}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
