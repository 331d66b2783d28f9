"""Benchmark: the SPSS and Stata files of the reports cost a small multiple of the CSV.

    .venv/bin/python bench/bench_stats_files.py [--sizes 10000 100000] [--repeats 3]
                                                [--databases sqlite postgresql]

For each database (tests/load.py's throw-away ones) it fills the benchmark survey
(bench/harness.py: a yes/no question, one with 20 answers sent as 20 bits, one with 5; 23
report columns) and, at each size, times downloading the reports as CSV (streamed), .sav
and .dta (written to a temporary file, then sent) with Django's test Client, median of
``--repeats``, and prints each file's time as a ratio to the CSV's, and its size. Not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from harness import each_database, fill, make_survey, measure_in_child

FILES = {"csv": "export-reports-csv", "sav": "export-reports-file", "dta": "export-reports-file"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--databases", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # internal
    args = parser.parse_args()
    options = ["--sizes", *map(str, args.sizes), "--repeats", str(args.repeats)]
    if args.measure:
        print(json.dumps(measure(args.sizes, args.repeats)))
        return 0
    figures = each_database(args.databases, lambda url: measure_in_child(__file__, options, url))
    for database, sizes in figures.items():
        for size, files in (sizes or {}).items():
            csv_seconds = files["csv"]["seconds"]
            shown = "; ".join(
                f"{name} {figure['seconds']:.2f} s ({figure['seconds'] / csv_seconds:.1f}x CSV),"
                f" {figure['megabytes']:.1f} MB"
                for name, figure in files.items()
            )
            print(f"{database:>10} {int(size):>9,} responses: {shown}")
    return 0


def measure(sizes: list[int], repeats: int) -> dict:
    """In the child: {size: {file: {"seconds", "megabytes"}}}."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    call_command("migrate", verbosity=0)
    survey = make_survey()
    client = Client()
    client.force_login(survey.owner)
    figures = {}
    for size in sizes:
        fill(survey, size)
        figures[size] = {}
        for name, route in FILES.items():
            url = reverse(route, args=[survey.pk] if name == "csv" else [survey.pk, name])
            times = []
            for _ in range(repeats):
                started = time.perf_counter()
                response = client.get(url)
                body = b"".join(response.streaming_content)
                times.append(time.perf_counter() - started)
                assert response.status_code == 200, (url, response.status_code)
            figures[size][name] = {"seconds": statistics.median(times),
                                   "megabytes": len(body) / 1e6}
        print(f"  {size:>9,} measured", file=sys.stderr, flush=True)
    return figures


if __name__ == "__main__":
    sys.exit(main())
