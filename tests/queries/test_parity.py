"""Every figure of the results is the same wherever a researcher reads it: the results page's
JSON, the estimates file, and the Python and R scripts the page hands out, run on the
exported reports alone.

One survey holds every kind of question and every path: yes/no with "Prefer not to say",
conditional follow-ups estimated jointly with their condition (one answer per report) and
from their own reports (a row of bits, check all that apply), an optional question, multiple
choice of one and of many answers, a rating scale, check all that apply with and without
extra answers, numbers with and without "Prefer not to say", and a validation anchor; each
respondent is asked a random few of the questions besides the ones always asked
(docs/ldp.md, "Long questionnaires"), so that empty cells ("not drawn") are read too.
"""

import csv
import io
import math
import os
import subprocess
import sys
import zipfile

import pytest
from django.urls import reverse

from surveys import ldp
from surveys.actions.designs import set_design
from surveys.actions.simulate import simulate_responses
from surveys.actions.surveys import open_survey
from surveys.kinds import RATING
from surveys.models import Choice, Question, Survey, drawn_at_random

pytestmark = pytest.mark.django_db

RESPONDENTS = 3000
DECIMALS = 5e-5
"""Every figure agrees to 4 decimals."""


def every_kind(owner) -> Survey:
    """The survey of every kind and path, open, with RESPONDENTS simulated respondents."""
    survey = Survey.objects.create(owner=owner, title="Every kind")
    order = iter(range(1, 100))

    def question(kind: str, labels: tuple[str, ...] = (), **fields) -> Question:
        created = Question.objects.create(survey=survey, order=next(order), text=f"{kind}?",
                                          kind=kind, **fields)
        for i, label in enumerate(labels):
            Choice.objects.create(question=created, order=i, label=label)
        return created

    scale = tuple(RATING.scale_labels(5, "Never", "Daily"))
    use = question("yesno", epsilon=1.0, offers_refusal=True)
    often = question("rating", scale, epsilon=1.0, optional=True, asked_if=use,
                     asked_if_answer=1)
    where = question("categorical", tuple(f"Place {i}" for i in range(7)), epsilon=0.5,
                     asked_if=use, asked_if_answer=1)
    which = question("checkall", ("Tea", "Coffee", "Water"), epsilon=1.0, offers_refusal=True,
                     asked_if=use, asked_if_answer=1)
    mars = question("yesno", epsilon=1.0, known_share=0.0)
    year = question("categorical", ("First", "Second", "Third"), epsilon=1.0,
                    offers_refusal=True)
    city = question("categorical", tuple(f"City {i}" for i in range(8)), epsilon=0.5)
    mood = question("rating", scale, epsilon=1.0)
    drinks = question("checkall", ("Beer", "Wine", "Spirits"), epsilon=1.0)
    age = question("number", epsilon=1.0, number_min=18, number_max=99,
                   number_bins="30, 45, 65")
    days = question("number", epsilon=1.0, number_min=0, number_max=30, number_bins="1, 10",
                    offers_refusal=True)
    set_design(survey, 6.0, 4, {use.pk})  # use and its follow-ups always; 4 of the other 7
    open_survey(survey)
    truth = {
        use.pk: [0.55, 0.35, 0.10], mars.pk: [1.0, 0.0], year.pk: [0.4, 0.3, 0.2, 0.1],
        city.pk: [0.3, 0.2, 0.15, 0.1, 0.1, 0.1, 0.05, 0.0], mood.pk: [0.1, 0.2, 0.4, 0.2, 0.1],
        drinks.pk: [0.6, 0.4, 0.2], age.pk: [0.2, 0.3, 0.3, 0.2],
        days.pk: [0.3, 0.4, 0.2, 0.1],
    }
    asked_if_yes = {  # given the answer to `use`: No, Yes, "Prefer not to say"
        often.pk: [[0] * 6 + [1], [0.15, 0.3, 0.25, 0.15, 0.05, 0.1, 0], [0] * 6 + [1]],
        where.pk: [[0] * 7 + [1], [0.3, 0.2, 0.2, 0.1, 0.1, 0.05, 0.05, 0], [0] * 7 + [1]],
        which.pk: [[0, 0, 0, 0, 1], [0.5, 0.8, 0.3, 0.1, 0], [0, 0, 0, 0, 1]],
    }
    simulate_responses(survey, RESPONDENTS, truth, seed=44, given={
        pk: {"question": use.pk, "shares": shares} for pk, shares in asked_if_yes.items()})
    return survey


def page_rows(questions: list[dict]) -> list[dict]:
    """Every figure of the results' JSON, one row per answer, under the estimates file's
    names (``ldp.FIGURE_COLUMNS``)."""
    rows = []
    for question in questions:
        number = question["number"]
        mean = question["mean_score"] or question["mean_count"] or (number and number["mean"])
        among = question["among"]
        anchor = question["anchor"]
        for category in question["categories"]:
            index = category["index"]
            mine = among["categories"][index] if among and index < len(
                among["categories"]) else None
            rows.append({
                "question": question["position"], "answer_index": index,
                **{key: category[key] for key in (
                    "estimate", "ci_low", "ci_high", "unbiased", "std_error",
                    "unbiased_ci_low", "unbiased_ci_high", "mle", "consistent")},
                **{f"mean{suffix}": mean and mean[key] for suffix, key in (
                    ("", "estimate"), ("_ci_low", "ci_low"), ("_ci_high", "ci_high"),
                    ("_unbiased", "unbiased"), ("_std_error", "std_error"))},
                "answered": among["answered"] if among else number and number["answered"],
                **{f"among_{key}": mine and mine[key] for key in ("estimate", "ci_low",
                                                                   "ci_high")},
                "anchor_p_value": anchor and anchor["p_value"],
                **{f"careless{suffix}": anchor and anchor[f"careless{end}"]
                   for suffix, end in (("", ""), ("_ci_low", "_low"), ("_ci_high", "_high"))},
            })
    return rows


def figures_of(rows: list[dict]) -> list[dict]:
    """CSV rows (text) as numbers: an empty cell is None."""
    return [
        {"question": int(row["question"]), "answer_index": int(row["answer_index"]),
         **{key: None if row[key] == "" else float(row[key]) for key in ldp.FIGURE_COLUMNS}}
        for row in rows
    ]


def assert_same(found: list[dict], shown: list[dict], name: str) -> None:
    assert len(found) == len(shown), name
    for mine, theirs in zip(found, shown, strict=True):
        place = (name, mine["question"], mine["answer_index"])
        assert (mine["question"], mine["answer_index"]) == (
            theirs["question"], theirs["answer_index"]), place
        for key in ldp.FIGURE_COLUMNS:
            expected = theirs[key]
            if expected is None or (isinstance(expected, float) and math.isnan(expected)):
                assert mine[key] is None, (*place, key, mine[key])
            else:
                assert mine[key] == pytest.approx(expected, abs=DECIMALS), (*place, key)


def test_every_figure_is_the_same_on_the_page_in_the_files_and_in_both_scripts(
    client, researcher, tmp_path, rscript, epsilon_limits
):
    epsilon_limits(question=3, survey=10)
    survey = every_kind(researcher)
    encodings = [q.mechanism().encoding for q in survey.ordered_questions()]
    assert encodings == [
        "index", "index", "unary", "sampled", "bit", "index", "unary", "index", "sampled",
        "number", "number",
    ]
    client.force_login(researcher)
    questions = client.get(reverse("survey-results-json", args=[survey.pk])).json()["questions"]
    shown = page_rows(questions)
    # every path is taken: joint and own shares among those asked, a number's share who
    # gave one, an anchor, and questions not drawn for some respondents
    assert [q["among"] and q["among"]["method"] for q in questions[:4]] == [
        "among", "among_asked", "among", "among"]
    assert questions[10]["number"]["answered"] is not None and questions[4]["anchor"]
    assert questions[0]["n"] == RESPONDENTS > questions[5]["n"] > 0
    # one share answered per question: the share the page states is its rows' own
    for question in questions:
        if question["extra_answers"]:
            extras = question["categories"][-question["extra_answers"]:]
            stated = question["among"] or question["number"]
            assert stated["answered"] == pytest.approx(
                1 - sum(c["estimate"] for c in extras), abs=1e-12)

    prefix = f"survey-{survey.pk}"
    for name, route, args in (
        (f"{prefix}-estimates.py", "export-redo-script", [survey.pk]),
        (f"{prefix}-estimates.R", "export-redo-r-script", [survey.pk]),
        ("ldp.zip", "export-library", []),
        (f"{prefix}-reports.csv", "export-reports-csv", [survey.pk]),
        (f"{prefix}-metadata.json", "export-metadata", [survey.pk]),
        (f"{prefix}-estimates.csv", "export-estimates-csv", [survey.pk]),
    ):
        response = client.get(reverse(route, args=args))
        assert response.status_code == 200
        body = b"".join(response.streaming_content) if response.streaming else response.content
        (tmp_path / name).write_bytes(body)
    with zipfile.ZipFile(tmp_path / "ldp.zip") as archive:
        archive.extractall(tmp_path)

    def read(name: str) -> list[dict]:
        text = (tmp_path / name).read_text(encoding="utf-8")
        return figures_of(list(csv.DictReader(io.StringIO(text))))

    assert_same(read(f"{prefix}-estimates.csv"), shown, "estimates.csv")
    # Each question's figures rest on the respondents asked it: all, or those who drew it.
    counted = {int(row["question"]): int(row["n"]) for row in csv.DictReader(
        io.StringIO((tmp_path / f"{prefix}-estimates.csv").read_text(encoding="utf-8")))}
    drawn = drawn_at_random(survey, list(survey.ordered_questions()))
    assert [counted[position] for position, _q in enumerate(survey.ordered_questions(), 1)] == [
        q.drawn_count if q.pk in drawn else RESPONDENTS for q in survey.ordered_questions()]
    assert 0 < min(counted.values()) < RESPONDENTS
    bare = {"PATH": os.environ["PATH"]}  # not the site's path: the unzipped library only
    subprocess.run([sys.executable, f"{prefix}-estimates.py"], cwd=tmp_path, check=True,
                   capture_output=True, env=bare)
    assert_same(read(f"{prefix}-estimates-redone.csv"), shown, "Python")
    run = subprocess.run([rscript("jsonlite"), f"{prefix}-estimates.R"], cwd=tmp_path,
                         capture_output=True, text=True, env=bare)
    assert run.returncode == 0, run.stderr
    assert_same(read(f"{prefix}-estimates-redone-R.csv"), shown, "R")
