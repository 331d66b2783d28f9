"""What several test modules share: surveys and reports to test with, checks of what was
stored, steps of a respondent or a researcher in a headless browser, axe-core's audit, and the
optional tools some tests need. Fixtures are in conftest.py; the real-server harness is in
load.py."""

import functools
import json
import os
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from types import UnionType
from typing import get_args, get_origin, get_type_hints

import numpy as np
import polib
import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from typing_extensions import is_typeddict  # the contracts' TypedDict is typing_extensions'

from surveys import ldp
from surveys.actions import surveys as survey_actions
from surveys.actions.simulate import simulate_responses
from surveys.actions.submissions import submission_create
from surveys.kinds import RATING
from surveys.models import Choice, Invitation, Question, Submission, Survey, Tally
from surveys.queries import results
from surveys.views.respond import OUTCOME_UNKNOWN
from surveysite.middleware import DatabaseUnavailableMiddleware
from tests.load import Outcome, audit

# --- surveys and their reports ----------------------------------------------------------

MANY_LABELS = tuple(f"Option {i}" for i in range(12))  # k = 12 at epsilon 1 -> unary (OUE)
KEY = "key-0123456789"
# Eight answers at epsilon 0.5 make the automatic choice optimized unary encoding (OUE), three
# answers at epsilon 2 generalized randomized response (GRR): both encodings get tested.
SHAPES = {
    "grr": {"labels": ("Never", "Once", "Often"), "epsilons": (1.0, 2.0)},
    "oue": {"labels": tuple(f"Answer {i}" for i in range(8)), "epsilons": (1.0, 0.5)},
}


def survey_form_data(survey: Survey, **changes) -> dict:
    """What the survey's form posts: its texts as they are, no schedule, then ``changes``."""
    data = {
        "title": survey.title,
        "language": survey.language,
        "introduction": survey.introduction,
        "opens_at": "",
        "closes_at": "",
        "response_target": "",
        "completion_url": "",
        "thank_you_message": "",
    }
    return data | changes


def questions(survey: Survey) -> list:
    return list(survey.ordered_questions())


def valid_reports(survey: Survey, rng: np.random.Generator | None = None) -> dict[int, object]:
    """One valid report per question: randomized from a random true answer with `rng`."""
    rng = rng or np.random.default_rng(0)
    reports = {}
    for question in questions(survey):
        mechanism = question.mechanism()
        report = mechanism.perturb(np.array([rng.integers(mechanism.k)]), rng)[0]
        reports[question.pk] = report.tolist()
    return reports


def tally_counts(survey: Survey) -> dict[int, list[int]]:
    counts = {}
    for tally in Tally.objects.filter(question__survey=survey).order_by("question", "index"):
        counts.setdefault(tally.question_id, []).append(tally.count)
    return counts


def stored_reports(survey: Survey) -> list[dict[str, object]]:
    """The reports of every submission to `survey`, in the order they arrived."""
    return list(survey.submissions.order_by("pk").values_list("reports", flat=True))


def assert_shape(value, shape) -> None:
    """``value`` has exactly ``shape``'s keys (a TypedDict of surveys.queries.contracts), and so
    do its nested contracts."""
    hints = get_type_hints(shape)
    assert set(value) == set(hints), shape.__name__
    for key, hint in hints.items():
        if value[key] is None:
            continue
        options = get_args(hint) if get_origin(hint) is UnionType else (hint,)
        for option in options:
            if is_typeddict(option):
                assert_shape(value[key], option)
            elif get_origin(option) is list and is_typeddict(get_args(option)[0]):
                for item in value[key]:
                    assert_shape(item, get_args(option)[0])


def assert_nothing_stored(survey: Survey) -> None:
    survey.refresh_from_db()
    assert Submission.objects.filter(survey=survey).count() == 0
    assert all(c == 0 for counts in tally_counts(survey).values() for c in counts)
    assert survey.response_count == 0
    assert not Invitation.objects.filter(survey=survey, used=True).exists()


def survey_of_every_encoding(make_survey, owner) -> Survey:
    """An open survey with a yes/no question (bit), 12 options (unary: OUE) and 3 options
    (index: GRR), in that order, each at epsilon 1: the site's default limit of 3 in all."""
    survey = make_survey(owner, labels=MANY_LABELS, epsilons=(1.0, 1.0))
    grr = Question.objects.create(
        survey=survey, order=3, text="Which colour?", kind="categorical", epsilon=1.0
    )
    for i, label in enumerate(("Red", "Green", "Blue")):
        Choice.objects.create(question=grr, order=i, label=label)
    survey_actions.open_survey(survey)
    assert [q.mechanism().encoding for q in questions(survey)] == ["bit", "unary", "index"]
    return survey


def survey_of_every_kind(owner, n: int) -> Survey:
    """An open survey with ``n`` simulated respondents and every kind and path of question:
    yes/no offering "Prefer not to say", multiple choice, a conditional rating scale (asked
    after "Yes"), check-all with a refusal, a number, and a number with a refusal; each at
    epsilon 0.4."""
    survey = Survey.objects.create(owner=owner, title="Every kind")
    used = Question.objects.create(survey=survey, order=1, text="Used?", kind="yesno",
                                   epsilon=0.4, offers_refusal=True)
    where = Question.objects.create(survey=survey, order=2, text="Where?", kind="categorical",
                                    epsilon=0.4)
    often = Question.objects.create(survey=survey, order=3, text="How often?", kind="rating",
                                    epsilon=0.4, asked_if=used, asked_if_answer=1)
    which = Question.objects.create(survey=survey, order=4, text="Which?", kind="checkall",
                                    epsilon=0.4, offers_refusal=True)
    for question, labels in ((where, ["Home", "Party", "Street"]),
                             (often, RATING.scale_labels(5, "Rarely", "Daily")),
                             (which, ["Tea", "Coffee", "Water"])):
        for i, label in enumerate(labels):
            Choice.objects.create(question=question, order=i, label=label)
    days = Question.objects.create(survey=survey, order=5, text="Days?", kind="number",
                                   epsilon=0.4, number_min=0, number_max=30, number_bins="10")
    age = Question.objects.create(survey=survey, order=6, text="Age?", kind="number",
                                  epsilon=0.4, number_min=18, number_max=99,
                                  number_bins="30, 65", offers_refusal=True)
    survey_actions.open_survey(survey)
    simulate_responses(survey, n, {
        used.pk: [0.4, 0.5, 0.1], where.pk: [0.5, 0.3, 0.2],
        often.pk: [0.2, 0.2, 0.1, 0.1, 0.1, 0.3], which.pk: [0.5, 0.8, 0.2, 0.1],
        days.pk: [0.6, 0.4], age.pk: [0.3, 0.4, 0.2, 0.1]}, seed=3)
    return survey


def random_reports(survey: Survey, rng: np.random.Generator) -> dict[int, object]:
    """Valid raw reports, as a browser would send them, for every question of `survey`."""
    reports = {}
    for question in survey.ordered_questions():
        mechanism = question.mechanism()
        if mechanism.encoding == "unary":
            reports[question.pk] = rng.integers(0, 2, mechanism.k).tolist()
        else:
            reports[question.pk] = int(rng.integers(0, mechanism.k))
    return reports


def submit(survey: Survey, n: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    for i in range(n):
        submission_create(
            survey=survey,
            reports=random_reports(survey, rng),
            idempotency_key=f"key-{seed}-{i:06d}",
        )


def recount(question) -> tuple[np.ndarray, int]:
    """Support counts and n straight from the stored reports, bypassing the tallies."""
    mechanism = question.mechanism()
    values = [reports[str(question.pk)] for reports in stored_reports(question.survey)]
    return mechanism.support_counts(np.array(values, dtype=np.int64)), len(values)


# --- the real server (load.py) ----------------------------------------------------------


def assert_answered_once_each(outcomes: list[Outcome], jobs: list[tuple[str, dict]]) -> None:
    """Every attempt that got an answer got 201 or 200 with the reports echoed, or 503 with
    one of the two messages that say to send again (nothing stored; or the outcome unknown);
    each key got at most one 201 (none if the answer to the storing attempt was lost), and
    every sending of it ended with 201 or 200 (`drive` sends again after no answer or 503)."""
    bodies = dict(jobs)
    retry_messages = {str(DatabaseUnavailableMiddleware.MESSAGE), str(OUTCOME_UNKNOWN)}
    answered = defaultdict(list)
    for outcome in outcomes:
        assert outcome.status in {0, 200, 201, 503}, (outcome.status, outcome.answer)
        if outcome.status == 503:
            assert outcome.answer["error"] in retry_messages, outcome.answer
        elif outcome.status:
            assert outcome.answer == {"ok": True, "received": bodies[outcome.key]["reports"]}
        if outcome.status:
            answered[outcome.key].append(outcome.status)
    assert answered.keys() == bodies.keys()
    assert all(statuses.count(201) <= 1 for statuses in answered.values())
    # Each sending's attempts are listed together and in order: the last one was definite.
    assert all(statuses[-1] in {200, 201} for statuses in answered.values())


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


# --- languages --------------------------------------------------------------------------


def in_language(language: str, message: str) -> str:
    """A message of the pages' catalogue (the "django" domain) in `language`."""
    with translation.override(language):
        return translation.gettext(message)


def script_message(language: str, message: str) -> str:
    """A message of the scripts' catalogue (the "djangojs" domain) in `language`."""
    path = Path(settings.BASE_DIR, "locale", language, "LC_MESSAGES", "djangojs.po")
    return polib.pofile(str(path)).find(message).msgstr


# --- in the browser ---------------------------------------------------------------------


def sign_in(page, live_server) -> None:
    page.goto(live_server.url + reverse("login"))
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pass-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url("**/surveys/")


def cheating_on_campus(make_survey, owner) -> Survey:
    """Open: cheating (yes/no), how often (3 answers), living on campus (yes/no); 2,000
    simulated respondents, cheating depending on how often. Needs a survey limit of 6."""
    survey = make_survey(owner, epsilons=(2.0, 2.0))
    Question.objects.create(
        survey=survey, order=3, text="Do you live on campus?", kind="yesno", epsilon=2.0
    )
    survey_actions.open_survey(survey)
    yes_no, groups, campus = survey.ordered_questions()
    simulate_responses(
        survey, 2000, {groups.pk: [0.5, 0.3, 0.2], campus.pk: [0.6, 0.4]}, seed=8,
        given={yes_no.pk: {"question": groups.pk, "shares": [[0.9, 0.1], [0.7, 0.3], [0.4, 0.6]]}},
    )
    return survey


def is_submit(request) -> bool:
    return request.method == "POST" and request.url.endswith("/submit/")


def open_survey(page, live_server, survey: Survey) -> None:
    page.goto(live_server.url + reverse("respond", args=[survey.public_id]))


def choose(page, survey: Survey, answers: list[int]) -> None:
    for question, answer in zip(questions(survey), answers, strict=True):
        page.check(f"#answer-{question.pk}-{answer}")


def send(page) -> dict:
    """Press the button; return the JSON body of the request the page sent."""
    with page.expect_request(is_submit) as request:
        page.click("#send-answers")
    return request.value.post_data_json


def show(title: str, value) -> None:
    """Print what a test saw: one line per entry of a dict or list."""
    print(f"\n--- {title}:")
    entries = list(value.items() if isinstance(value, dict) else (
        enumerate(value) if isinstance(value, list) else [(None, value)]))
    for name, entry in entries:
        text = entry if isinstance(entry, str) else json.dumps(entry, ensure_ascii=False)
        print(f"  {'' if name is None else f'{name}: '}{text}")
    if not entries:
        print("  (empty)")


# --- axe-core ---------------------------------------------------------------------------

PHONE_CONTEXT = {"viewport": {"width": 360, "height": 740}, "has_touch": True}
AXE_CONTEXTS = {
    "360px": PHONE_CONTEXT,
    "1280px": {"viewport": {"width": 1280, "height": 800}},
    "200%": {"viewport": {"width": 640, "height": 400}, "device_scale_factor": 2},
}
"""Browser contexts for accessibility checks: a phone, a desktop, and 200% zoom of 1,280 px
(a 640 x 400 viewport at a device pixel ratio of 2, media queries included)."""
AXE = Path(settings.BASE_DIR) / "node_modules" / "axe-core" / "axe.min.js"
AXE_URL = "/__axe-core__/axe.min.js"  # answered by the test from node_modules, never by Django
BLOCKING = ("critical", "serious")
IMPACTS = ("critical", "serious", "moderate", "minor")


class Audit:
    def __init__(self) -> None:
        self.blocking: list[str] = []
        self.contexts: list = []  # the browser contexts that serve axe.min.js

    def inject(self, page) -> None:
        """Adds axe.min.js to the page as a same-origin script: the site's Content Security
        Policy (script-src 'self', style-src 'self') stays in force, so pages render as they
        do for visitors (bypass_csp would also let blocked inline styles apply)."""
        if not any(context is page.context for context in self.contexts):
            page.context.route("**" + AXE_URL, lambda route: route.fulfill(path=AXE))
            self.contexts.append(page.context)  # held: a freed context's id could come back
        origin = "/".join(page.url.split("/")[:3])
        page.add_script_tag(url=origin + AXE_URL)

    def __call__(self, page, label: str) -> list[dict]:
        page.wait_for_load_state("load")
        if not page.evaluate("typeof window.axe === 'object'"):
            self.inject(page)
        violations = page.evaluate(
            """async () => {
              const results = await axe.run(document, {resultTypes: ["violations"]});
              return results.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map((n) => n.target.join(" ")),
              }));
            }"""
        )
        counts = {impact: 0 for impact in IMPACTS}
        for violation in violations:
            counts[violation["impact"]] += len(violation["nodes"])
        summary = ", ".join(f"{counts[i]} {i}" for i in IMPACTS)
        ids = ", ".join(f"{v['id']} ({v['impact']}, {len(v['nodes'])})" for v in violations)
        print(f"  axe {label:<48} {summary}{': ' + ids if ids else ''}")
        for violation in violations:
            if violation["impact"] in BLOCKING:
                for node in violation["nodes"][:5]:
                    print(f"      {violation['id']}: {node}  ({violation['help']})")
                self.blocking.append(f"{label}: {violation['id']} on {violation['nodes']}")
        return violations

    def check(self) -> None:
        assert not self.blocking, "serious or critical axe violations:\n" + "\n".join(
            self.blocking
        )


# --- optional tools -----------------------------------------------------------------------


def lacking(message: str) -> None:
    """A test needs what this machine lacks: skipped here with `message` (which says how to
    install it), failed in CI, which installs everything (.ci/run). Every test that needs an
    optional tool (R, Redis, Chromium, gettext, PostgreSQL, axe-core) comes here."""
    if os.getenv("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"{message} (CI must run this test)")
    pytest.skip(message)


def command(name: str, debian_package: str) -> str:
    """The path of the command `name`; lacking it, the test skips (fails in CI) with the
    command that installs it."""
    found = shutil.which(name)
    if not found:
        lacking(f"{name} is needed: `sudo apt-get install {debian_package}`")
    return found


@functools.cache
def _r_has(rscript: str, package: str) -> bool:
    """Whether R has `package` (asked once per process: R takes a while to start)."""
    check = f'quit(status = !requireNamespace("{package}", quietly = TRUE))'
    return subprocess.run([rscript, "-e", check], capture_output=True).returncode == 0


def rscript_with(*packages: str) -> str:
    """The path of Rscript, once R has every one of `packages` (Debian ships R's package x as
    r-cran-x); lacking any, the test skips (fails in CI) with the command that installs them."""
    found = shutil.which("Rscript")
    if not found or not all(_r_has(found, package) for package in packages):
        debian = " ".join(["r-base-core", *(f"r-cran-{package}" for package in packages)])
        lacking(f"R with {', '.join(packages)} is needed: `sudo apt-get install {debian}`")
    return found


CLOCK_START = 1_000_000.0
"""Where ``held_clock`` starts: 1970-01-12 13:46:40 UTC."""


def held_clock(monkeypatch) -> list[float]:
    """Replace the clock of the results' refresh interval (``surveys.queries.results.now``)
    by one that moves only when told, ``clock[0] += seconds``, from ``CLOCK_START``: tests
    move time on instead of waiting."""
    clock = [CLOCK_START]
    monkeypatch.setattr(results, "now", lambda: clock[0])
    return clock
