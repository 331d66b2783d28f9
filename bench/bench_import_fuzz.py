"""Benchmark: both importers fuzzed through the API, thousands of cases each.

    .venv/bin/python bench/bench_import_fuzz.py [--cases 2000] [--seed 43]

Survey files and XLSForms mutated from valid ones (tests/mutations.py: values, keys, list
items, cells, rows, columns and sheets replaced, removed or repeated) are sent to
``POST /api/v1/surveys`` with a token of the write scope, on a throw-away SQLite database.
Each must be imported as a new draft (201) or refused with a sentence in JSON (400) having
stored nothing. Prints per importer the cases, the answers by status, the server errors
(5xx), the half-created surveys (a refusal that left rows) and the refusals not in JSON with
a sentence, and the time per case; exits 1 if it found any of those three. Not a test: it
takes minutes; the test suite runs a few cases of each (tests/views/test_import_fuzz.py).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=43)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ.update({
            "DATABASE_URL": f"sqlite:///{folder}/fuzz.sqlite3",
            "DJANGO_SETTINGS_MODULE": "surveysite.settings",
            "RATELIMIT_API": "100000000/60",
            "ALLOWED_HOSTS": "testserver",
        })
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        failures = 0
        for name, figures in fuzz(args.cases, args.seed).items():
            statuses = ", ".join(f"{status}: {count}" for status, count in
                                 sorted(figures["statuses"].items()))
            print(f"{name}: {figures['cases']} cases ({statuses}); "
                  f"{figures['server_errors']} server errors, {figures['half_created']} "
                  f"half-created, {figures['unclear_refusals']} refusals not in JSON with a "
                  f"sentence; {figures['ms_per_case']:.1f} ms per case")
            for example in figures["examples"]:
                print(f"  {example}")
            failures += (figures["server_errors"] + figures["half_created"]
                         + figures["unclear_refusals"])
    return 1 if failures else 0


def fuzz(cases: int, seed_value: int) -> dict[str, dict]:
    """The figures of ``cases`` cases of each importer."""
    from django.contrib.auth.models import Group, User
    from django.test import Client

    from surveys.models import ApiToken
    from tests.mutations import survey_files, xlsforms

    owner = User.objects.create_user("fuzz", "fuzz@example.org", "pass-for-fuzz-1")
    owner.groups.add(Group.objects.get_or_create(name="Researchers")[0])
    _token, secret = ApiToken.issue(owner, "fuzz", 30, ApiToken.Scope.WRITE)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {secret}", raise_request_exception=False)
    return {
        "survey files (.json)": run(api, survey_files(), "survey.json", cases, seed_value),
        "XLSForms (.xlsx)": run(api, xlsforms(), "form.xlsx", cases, seed_value),
    }


def run(api, strategy, filename: str, cases: int, seed_value: int) -> dict:
    """Imports ``cases`` files drawn from ``strategy`` as ``filename``; the figures."""
    from hypothesis import HealthCheck, given, seed, settings

    from tests.mutations import import_outcome

    figures = {"cases": 0, "statuses": collections.Counter(), "server_errors": 0,
               "half_created": 0, "unclear_refusals": 0, "examples": []}

    @seed(seed_value)
    @settings(max_examples=cases, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(content=strategy)
    def case(content: bytes) -> None:
        figures["cases"] += 1
        try:
            status = import_outcome(api, content, filename)
        except AssertionError as problem:  # a refusal that stored rows, or said nothing
            kind = "half_created" if "stored rows" in str(problem) else "unclear_refusals"
            figures[kind] += 1
            figures["examples"].append(f"{kind}: {problem}; {content[:200]!r}")
            return
        figures["statuses"][status] += 1
        if status >= 500:
            figures["server_errors"] += 1
            figures["examples"].append(f"{status}: {content[:200]!r}")

    started = time.perf_counter()
    case()
    figures["ms_per_case"] = 1000 * (time.perf_counter() - started) / figures["cases"]
    figures["examples"] = figures["examples"][:5]
    return figures


if __name__ == "__main__":
    sys.exit(main())
