"""Benchmark: the dashboard costs about a plain page, however many responses, even when busy.

    .venv/bin/python bench/bench_dashboard.py [--sizes 10000 1000000] [--repeats 30]
                                              [--databases sqlite postgresql]

For each database (a temporary SQLite file; a throw-away PostgreSQL database on
LOAD_POSTGRES_URL, see tests/load.py) it fills one survey (a yes/no question, a categorical
one with k = 20, which gets optimized unary encoding, and one with k = 5, which gets GRR) with
simulated submissions through ``surveys.actions.simulate`` (the bulk path that also keeps the
tallies), then at each size measures the median latency of, in one interleaved run:

- ``plain``: a plain page (the home page), the baseline of every ratio;
- ``dashboard``: the dashboard when nothing changed since the last view (warm);
- ``dashboard_cold``: the first view after a new response, stored through the real write
  path (``surveys.actions.submissions.submission_create``), so the estimates are computed anew;
- ``json`` and ``json_cold``: the same for the dashboard's JSON endpoint;
- ``breakdown`` and ``breakdown_cold``: the breakdown of the k = 5 question by the yes/no one
  (``surveys.queries.breakdowns``), warm and after a new response (which it folds in);
- ``breakdown_first`` and ``breakdown_first_unary``: the first breakdown of a pair (the k = 5
  and the k = 20 question by the yes/no one), which reads every response once, against the
  time of streaming the reports CSV, which does too;
- ``dashboard_busy`` against ``plain_busy``: views while 8 respondents keep submitting to the
  same survey through gunicorn (tests/load.py), each view seeing new responses.

Pages are requested by Django's test Client in this process, with the production settings
(DEBUG off): the whole Django stack, without network noise. The submitting respondents run in
a process of their own, so that they do not compete with the measured requests for the
interpreter lock. Also measured: the peak memory of streaming the reports CSV, in a fresh
process so that nothing else raises its peak.

Targets (agreed): at the largest size the warm dashboard costs at most 1.5 times the plain
page, the cold one (quiet or busy) at most 2 times; breakdowns after the first at most 2
times; a first breakdown at most a quarter of the CSV export's time; from the smallest
to the largest size no ratio grows by 1.5 times or more; the CSV export's memory grows by
less than 100 MB. Prints the figures and exits 1 if a target is missed or a submission
failed. Not a test: it takes minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from harness import (  # bench/harness.py, which puts the project root on the path
    each_database,
    fill,
    frozen_specs,
    make_survey,
    measure_in_child,
    timed_get,
)

from tests.load import (  # noqa: E402 (needs the project root on the path first)
    drive,
    gunicorn_server,
    make_jobs,
)

WARM_UP_ROUNDS = 3
BUSY_CLIENTS = 8
BUSY_WARM_UP_SECONDS = 2
MB = 1024 * 1024
TARGETS = {
    "dashboard": 1.5, "dashboard_cold": 2.0, "dashboard_busy": 2.0,
    "breakdown": 2.0, "breakdown_cold": 2.0,
}
"""Largest multiple of the plain page (measured alongside) each may cost."""
QUIET_ROUND = (
    # (name, URL, whether a new response is stored first). A warm view follows a cold one of
    # the same page, which has just cached what the warm one reads.
    ("dashboard_cold", "dashboard", True),
    ("plain", "plain", False),
    ("dashboard", "dashboard", False),
    ("json_cold", "json", True),
    ("json", "json", False),
    ("breakdown_cold", "breakdown", True),
    ("breakdown", "breakdown", False),
)
FIRST_BREAKDOWNS = {"breakdown_first": "breakdown", "breakdown_first_unary": "breakdown_unary"}
FIRST_BREAKDOWN_SHARE = 0.25
"""A first breakdown may take at most this share of the reports CSV export's time."""
FIRST_BREAKDOWN_REPEATS = 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--databases", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # internal
    parser.add_argument("--export", type=int, help=argparse.SUPPRESS)  # internal: survey pk
    parser.add_argument("--submit", help=argparse.SUPPRESS)  # internal: JSON, see submit()
    args = parser.parse_args()
    # What it measures is the view just after a new response: no refresh interval (the
    # settings' RESULTS_REFRESH_SECONDS), in this process and the children it starts.
    os.environ["RESULTS_REFRESH_SECONDS"] = "0"
    if args.export:
        print(json.dumps(measure_export(args.export)))
        return 0
    if args.submit:
        print(json.dumps(submit(json.loads(args.submit))))
        return 0
    if args.measure:
        print(json.dumps(measure_database(args.sizes, args.repeats)))
        return 0
    options = ["--repeats", str(args.repeats), "--sizes", *map(str, args.sizes)]
    figures = each_database(
        args.databases, lambda url: measure_in_child(__file__, options, url)
    )
    return report(figures, args.sizes)


def measure_database(sizes: list[int], repeats: int) -> dict:
    """In the child: {"sizes": {size: {"fill_seconds", "latency_ms", "busy", "export"}}}."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    call_command("migrate", verbosity=0)
    survey = make_survey()
    client = Client()
    client.force_login(survey.owner)
    yes_no, unary, index = survey.ordered_questions()
    urls = {
        "plain": reverse("home"),
        "dashboard": reverse("survey-results", args=[survey.pk]),
        "json": reverse("survey-results-json", args=[survey.pk]),
        "breakdown": reverse("question-breakdown", args=[survey.pk, index.pk])
        + f"?by={yes_no.pk}",
        "breakdown_unary": reverse("question-breakdown", args=[survey.pk, unary.pk])
        + f"?by={yes_no.pk}",
    }
    results = {}
    for size in sizes:
        started = time.perf_counter()
        fill(survey, size)
        fill_seconds = time.perf_counter() - started
        print(f"  {size:>9,} responses filled in {fill_seconds:.0f} s", file=sys.stderr,
              flush=True)
        first = _first_breakdowns(client, urls)
        latency = _quiet_latencies(client, survey, urls, repeats)
        busy_latency, busy = _busy_latencies(client, survey, urls, repeats)
        results[size] = {
            "fill_seconds": fill_seconds,
            "latency_ms": latency | busy_latency,
            "busy": busy,
            "export": _export_in_fresh_process(survey.pk),
            "first_breakdown_seconds": first,
        }
    return {"sizes": results}


def _first_breakdowns(client, urls: dict[str, str]) -> dict[str, float]:
    """Median seconds of a pair's first breakdown, which folds in every response: the stored
    pair counts and the cached results are deleted before each."""
    from django.core.cache import caches

    from surveys.models import PairTally

    times: dict[str, list[float]] = {}
    for _ in range(FIRST_BREAKDOWN_REPEATS):
        for name, url in FIRST_BREAKDOWNS.items():
            PairTally.objects.all().delete()
            caches["results"].clear()
            times.setdefault(name, []).append(timed_get(client, urls[url]) / 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def _quiet_latencies(client, survey, urls: dict[str, str], repeats: int) -> dict[str, float]:
    """Median milliseconds of each view of QUIET_ROUND, the views taking turns so that drift
    hits them alike. The first rounds warm up connections and code paths."""
    from surveys.actions.submissions import submission_create

    survey.refresh_from_db()
    responses = (repeats + WARM_UP_ROUNDS) * sum(new for _, _, new in QUIET_ROUND)
    jobs = iter(make_jobs(frozen_specs(survey), responses, seed=survey.response_count,
                          prefix=f"cold{survey.response_count}"))
    times: dict[str, list[float]] = {}
    for round_ in range(repeats + WARM_UP_ROUNDS):
        for name, url, new_response in QUIET_ROUND:
            if new_response:
                key, body = next(jobs)
                reports = {int(pk): report for pk, report in body["reports"].items()}
                submission_create(survey=survey, reports=reports, idempotency_key=key)
            elapsed = timed_get(client, urls[url])
            if round_ >= WARM_UP_ROUNDS:
                times.setdefault(name, []).append(elapsed)
    return {name: statistics.median(values) for name, values in times.items()}


def _busy_latencies(
    client, survey, urls: dict[str, str], repeats: int
) -> tuple[dict[str, float], dict]:
    """Median milliseconds of the plain page and the dashboard, taking turns, while
    BUSY_CLIENTS respondents submit to the survey through gunicorn; and what they did
    (see `submit`)."""
    survey.refresh_from_db()
    times: dict[str, list[float]] = {"plain_busy": [], "dashboard_busy": []}
    with gunicorn_server(os.environ["DATABASE_URL"]) as server, _submitting(
        {"url": server.url, "public_id": survey.public_id, "questions": frozen_specs(survey),
         "prefix": f"busy{survey.response_count}"}
    ) as load:
        time.sleep(BUSY_WARM_UP_SECONDS)  # until the respondents have their pages and cookies
        for round_ in range(repeats + WARM_UP_ROUNDS):
            for name, url in (("plain_busy", "plain"), ("dashboard_busy", "dashboard")):
                elapsed = timed_get(client, urls[url])
                if round_ >= WARM_UP_ROUNDS:
                    times[name].append(elapsed)
    return {name: statistics.median(values) for name, values in times.items()}, load


@contextlib.contextmanager
def _submitting(spec: dict) -> Iterator[dict]:
    """Respondents submitting (`submit`, in a child process) for the duration of the block;
    the dict yielded holds what they did once the block is left."""
    command = [sys.executable, __file__, "--submit", json.dumps(spec)]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    done: dict = {}
    try:
        yield done
    finally:
        output, _ = child.communicate(timeout=120)  # closes its stdin: the signal to stop
    if child.returncode != 0:
        raise RuntimeError(f"the submitting respondents failed ({child.returncode})")
    done.update(json.loads(output))


def submit(spec: dict) -> dict:
    """In a child process: BUSY_CLIENTS respondents submit new responses to the survey
    `spec` names ({"url", "public_id", "questions", "prefix" of idempotency keys}) until
    stdin closes. Returns {"submitted" (201 answers), "errors" (any other), "seconds"}."""
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()

    def jobs() -> Iterator[tuple[str, dict]]:
        for chunk in itertools.count():
            for job in make_jobs(spec["questions"], 1000, seed=chunk,
                                 prefix=f"{spec['prefix']}-{chunk}"):
                if stop.is_set():
                    return
                yield job

    started = time.monotonic()
    outcomes = drive(spec["url"], spec["public_id"], jobs(), clients=BUSY_CLIENTS, retries=0)
    submitted = sum(outcome.status == 201 for outcome in outcomes)
    return {"submitted": submitted, "errors": len(outcomes) - submitted,
            "seconds": time.monotonic() - started}


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
    import django

    django.setup()
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


def ratios(latency: dict[str, float]) -> dict[str, float]:
    """Each view's median as a multiple of the plain page's measured alongside it."""
    return {
        name: ms / latency["plain_busy" if name.endswith("_busy") else "plain"]
        for name, ms in latency.items()
        if not name.startswith("plain")
    }


def report(figures: dict[str, dict | None], sizes: list[int]) -> int:
    """Print the tables and the targets; 1 if a target is missed or a submission failed."""
    small, large = min(sizes), max(sizes)
    names = ["dashboard", "dashboard_cold", "json", "json_cold", "breakdown", "breakdown_cold",
             "dashboard_busy"]
    print(f"{'database':10} {'responses':>10} {'fill s':>7} {'plain ms':>9} "
          + " ".join(f"{name + ' ms':>20}" for name in names)
          + f" {'busy plain ms':>14} {'busy submissions':>17}")
    failures = []
    for database, result in figures.items():
        if result is None:
            print(f"{database:10} skipped (not reachable)")
            continue
        by_size = {int(size): measured for size, measured in result["sizes"].items()}
        for size in sizes:
            measured = by_size[size]
            latency, busy = measured["latency_ms"], measured["busy"]
            ratio = ratios(latency)
            print(f"{database:10} {size:>10,} {measured['fill_seconds']:>7.0f} "
                  f"{latency['plain']:>9.2f} "
                  + " ".join(f"{latency[name]:>11.2f} ({ratio[name]:5.2f}x)" for name in names)
                  + f" {latency['plain_busy']:>14.2f} "
                  f"{busy['submitted'] / busy['seconds']:>8.0f}/s, {busy['errors']} errors")
            if busy["errors"]:
                failures.append(f"{database} at {size:,}: {busy['errors']} submissions failed")
        for size in sizes:
            export = by_size[size]["export"]
            first = by_size[size]["first_breakdown_seconds"]
            print(f"{database:10} {size:>10,} CSV export: {export['rows']:,} rows, "
                  f"{export['megabytes']:.1f} MB in {export['seconds']:.1f} s, "
                  f"peak memory +{export['peak_growth_mb']:.1f} MB; first breakdown "
                  + ", ".join(f"{name} {seconds:.2f} s ({seconds / export['seconds']:.2f}x)"
                              for name, seconds in first.items()))
        top, bottom = ratios(by_size[large]["latency_ms"]), ratios(by_size[small]["latency_ms"])
        checks = {
            f"{name} at {large:,} <= {target}x plain page (is {top[name]:.2f}x)":
                top[name] <= target
            for name, target in TARGETS.items()
        }
        checks[f"CSV export memory growth at {large:,} < 100 MB"] = (
            by_size[large]["export"]["peak_growth_mb"] < 100
        )
        export_seconds = by_size[large]["export"]["seconds"]
        for name, seconds in by_size[large]["first_breakdown_seconds"].items():
            share = seconds / export_seconds
            checks[f"{name} at {large:,} <= {FIRST_BREAKDOWN_SHARE}x the CSV export "
                   f"(is {share:.2f}x)"] = share <= FIRST_BREAKDOWN_SHARE
        for name in names:
            growth = top[name] / bottom[name]
            checks[f"{name} ratio growth {small:,} -> {large:,} < 1.5x (is {growth:.2f}x)"] = (
                growth < 1.5
            )
        for check, passed in checks.items():
            print(f"{database:10} {'PASS' if passed else 'FAIL'}  {check}")
            if not passed:
                failures.append(f"{database}: {check}")
    for failure in failures:
        print(f"FAILED {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
