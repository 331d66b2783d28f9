"""Benchmark: the results page of a realistic survey costs about a plain page, just after a new
response, however many responses.

    .venv/bin/python bench/bench_results_page.py [--sizes 1000 1000000] [--repeats 20]
                                                 [--databases sqlite postgresql] [--profile]

For each database (a temporary SQLite file; a throw-away PostgreSQL database on
LOAD_POSTGRES_URL, see tests/load.py) it builds a survey of 40 questions (20 yes/no, 10 with 5
answers, 5 with 14 and 5 with 50, so every encoding appears), fills it with simulated
submissions through ``surveys.actions.simulate`` (the bulk path that also keeps the tallies),
then at each size measures the median latency of, in one interleaved run:

- ``plain``: a plain page (the home page), the baseline of every ratio;
- ``results_cold``: the results page just after a new response, stored through the real write
  path (``surveys.actions.submissions.submission_create``), so its snapshot changed: the
  estimates are computed anew and the page's cards drawn anew;
- ``results_render``: the same, but with the new snapshot's estimates computed (untimed) before
  the request: what drawing the page costs, estimates aside;
- ``results``: the results page again, nothing changed since the last view (warm).

The results page reads the tallies and the response count, never a submission: beyond the
first ``--stored`` responses (default 10,000), responses are simulated the same way but only
added to the tallies and the count (storing a million submissions of 40 questions takes most
of an hour per database); ``--stored`` at the largest size stores them all.

Pages are requested by Django's test Client in this process, with the production settings
(DEBUG off): the whole Django stack, without network noise. With ``--profile`` it also prints,
for the largest size, where the time of one ``results_render`` view goes (cProfile).

Targets (agreed): at every size, ``results_cold`` and ``results_render`` cost at most 2 times
the plain page measured alongside, the warm page at most 1.5 times. Prints the figures and
exits 1 if a target is missed. Not a test: the million responses take minutes to store.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time

from harness import (  # bench/harness.py, which puts the project root on the path
    FILL_CHUNK,
    each_database,
    fill,
    frozen_specs,
    measure_in_child,
    timed_get,
)

from tests.load import make_jobs  # noqa: E402 (needs the project root on the path first)

WARM_UP_ROUNDS = 3
QUESTIONS = ((20, 2), (10, 5), (5, 14), (5, 50))
"""(how many questions, answers each): the survey measured; 2 answers is a yes/no question."""
EPSILON = 0.25
"""Each question's: 40 of them reach the site's limit of a total epsilon of 10."""
TARGETS = {"results_cold": 2.0, "results_render": 2.0, "results": 1.5}
"""Largest multiple of the plain page (measured alongside) each may cost."""
ROUND = (
    # (name, URL, whether a new response is stored first, whether its estimates are computed
    # before the request).
    ("results_cold", "results", True, False),
    ("plain", "plain", False, False),
    ("results", "results", False, False),
    ("results_render", "results", True, True),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--databases", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--stored", type=int, default=10_000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # internal
    args = parser.parse_args()
    # What it measures is the view just after a new response: no refresh interval (the
    # settings' RESULTS_REFRESH_SECONDS), in this process and the children it starts.
    os.environ["RESULTS_REFRESH_SECONDS"] = "0"
    if args.measure:
        print(json.dumps(measure_database(args.sizes, args.repeats, args.stored, args.profile)))
        return 0
    options = ["--repeats", str(args.repeats), "--sizes", *map(str, args.sizes),
         "--stored", str(args.stored), *(["--profile"] if args.profile else [])]
    figures = each_database(
        args.databases, lambda url: measure_in_child(__file__, options, url)
    )
    return report(figures, args.sizes)


def measure_database(sizes: list[int], repeats: int, stored: int, profile: bool) -> dict:
    """In the child: {"sizes": {size: {"fill_seconds", "latency_ms", "page_kb"}}}."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    call_command("migrate", verbosity=0)
    survey = _make_survey()
    client = Client()
    client.force_login(survey.owner)
    urls = {"plain": reverse("home"), "results": reverse("survey-results", args=[survey.pk])}
    results = {}
    for size in sizes:
        started = time.perf_counter()
        fill(survey, min(size, stored))
        _count(survey, size)
        fill_seconds = time.perf_counter() - started
        print(f"  {size:>9,} responses filled in {fill_seconds:.0f} s", file=sys.stderr,
              flush=True)
        latency = _latencies(client, survey, urls, repeats)
        results[size] = {
            "fill_seconds": fill_seconds,
            "latency_ms": latency,
            "page_kb": len(client.get(urls["results"]).content) / 1024,
        }
    if profile:
        _profile(client, survey, urls["results"])
    return {"sizes": results}


def _make_survey():
    from django.contrib.auth.models import User

    from surveys.actions.surveys import open_survey
    from surveys.models import Choice, PrivacyPolicy, Question, Survey

    # The site's default cap is 3 per survey; 40 questions at 0.25 each ask for 10.
    PrivacyPolicy.objects.update_or_create(pk=1, defaults={"max_survey_epsilon": 10.0})
    owner = User.objects.create_user("bench", password=None)
    survey = Survey.objects.create(owner=owner, title="Student life and wellbeing")
    order = 0
    for count, k in QUESTIONS:
        for _ in range(count):
            order += 1
            kind = "yesno" if k == 2 else "categorical"
            question = Question.objects.create(
                survey=survey, order=order, kind=kind, epsilon=EPSILON,
                text=f"Question {order} of the survey, about one aspect of student life, "
                f"with {k} possible answers?",
            )
            if kind == "categorical":
                Choice.objects.bulk_create([
                    Choice(question=question, order=i, label=f"Answer {i + 1} of question {order}")
                    for i in range(k)
                ])
    open_survey(survey)
    return survey


def _count(survey, size: int) -> None:
    """Top the survey up to `size` responses as `_fill` would, but in the tallies and the
    response count only, as ``surveys.actions.submissions.store`` adds them."""
    import numpy as np
    from django.db import transaction
    from django.db.models import F

    from surveys.models import Survey, Tally

    survey.refresh_from_db()
    rng = np.random.default_rng(survey.response_count)
    while survey.response_count < size:
        chunk = min(FILL_CHUNK, size - survey.response_count)
        with transaction.atomic():
            for question in survey.ordered_questions():
                mechanism = question.mechanism()
                weights = np.arange(1.0, mechanism.k + 1)
                values = rng.choice(mechanism.k, size=chunk, p=weights / weights.sum())
                counts = mechanism.support_counts(mechanism.perturb(values, rng))
                for index, count in enumerate(counts.tolist()):
                    Tally.objects.filter(question=question, index=index).update(
                        count=F("count") + count
                    )
            Survey.objects.filter(pk=survey.pk).update(
                response_count=F("response_count") + chunk
            )
        survey.refresh_from_db()


def _respond(survey, jobs) -> None:
    """One new response through the real write path: the results' snapshot changes."""
    from surveys.actions.submissions import submission_create

    key, body = next(jobs)
    reports = {int(pk): report for pk, report in body["reports"].items()}
    submission_create(survey=survey, reports=reports, idempotency_key=key)


def _latencies(client, survey, urls: dict[str, str], repeats: int) -> dict[str, float]:
    """Median milliseconds of each view of ROUND, the views taking turns so that drift hits
    them alike. The first rounds warm up connections and code paths."""
    from surveys.queries import results

    survey.refresh_from_db()
    responses = (repeats + WARM_UP_ROUNDS) * sum(new for _, _, new, _ in ROUND)
    jobs = iter(make_jobs(frozen_specs(survey), responses, seed=survey.response_count,
                          prefix=f"cold{survey.response_count}"))
    times: dict[str, list[float]] = {}
    for round_ in range(repeats + WARM_UP_ROUNDS):
        for name, url, new_response, estimated in ROUND:
            if new_response:
                _respond(survey, jobs)
            if estimated:
                survey.refresh_from_db()
                results.survey_results(survey)
            elapsed = timed_get(client, urls[url])
            if round_ >= WARM_UP_ROUNDS:
                times.setdefault(name, []).append(elapsed)
    return {name: statistics.median(values) for name, values in times.items()}


def _profile(client, survey, url: str) -> None:
    """Print (to stderr) where one view of the results page goes, its estimates computed."""
    from surveys.queries import results

    jobs = iter(make_jobs(frozen_specs(survey), 1, seed=1, prefix="profile"))
    _respond(survey, jobs)
    survey.refresh_from_db()
    results.survey_results(survey)
    profiler = cProfile.Profile()
    profiler.enable()
    client.get(url)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(30)
    print(out.getvalue(), file=sys.stderr)


def ratios(latency: dict[str, float]) -> dict[str, float]:
    """Each view's median as a multiple of the plain page's measured alongside it."""
    return {name: ms / latency["plain"] for name, ms in latency.items() if name != "plain"}


def report(figures: dict[str, dict | None], sizes: list[int]) -> int:
    """Print the table and the targets; 1 if a target is missed."""
    names = ["results_cold", "results_render", "results"]
    print(f"{'database':10} {'responses':>10} {'fill s':>7} {'page KB':>8} {'plain ms':>9} "
          + " ".join(f"{name + ' ms':>22}" for name in names))
    failures = []
    for database, result in figures.items():
        if result is None:
            print(f"{database:10} skipped (not reachable)")
            continue
        by_size = {int(size): measured for size, measured in result["sizes"].items()}
        for size in sizes:
            measured = by_size[size]
            latency = measured["latency_ms"]
            ratio = ratios(latency)
            print(f"{database:10} {size:>10,} {measured['fill_seconds']:>7.0f} "
                  f"{measured['page_kb']:>8.0f} {latency['plain']:>9.2f} "
                  + " ".join(f"{latency[name]:>12.2f} ({ratio[name]:6.2f}x)" for name in names))
            for name, target in TARGETS.items():
                check = (f"{name} at {size:,} <= {target}x plain page "
                         f"(is {ratio[name]:.2f}x)")
                passed = ratio[name] <= target
                print(f"{database:10} {'PASS' if passed else 'FAIL'}  {check}")
                if not passed:
                    failures.append(f"{database}: {check}")
    for failure in failures:
        print(f"FAILED {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
