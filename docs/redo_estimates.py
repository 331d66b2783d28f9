"""Redo a survey's estimates from its exported reports alone, in Python.

Download, from the survey's results page, into one folder: this script, the randomized
reports (survey-N-reports.csv), what their columns mean (survey-N-metadata.json) and the
estimation library (ldp.zip, unzipped there: a folder "ldp"). Needs Python 3.10 or later
with numpy and scipy (pip install numpy scipy). Then run

    python survey-N-estimates.py

It prints every question's estimates and writes survey-N-estimates-redone.csv: one row per
answer with every figure of the results page and its estimates file, under the estimates
file's column names (ldp.FIGURE_COLUMNS): the answer's share with its 95% interval and the
other estimates; the mean score of a rating scale, the mean number of options ticked of a
check-all question and the mean of a number question, with their 95% intervals; for a
question some did not answer ("No answer", "Not asked"), the share who answered and each
answer's share among them; for a validation anchor, its test. Each figure is computed by
the very function the results page calls, ldp.question_figures, from the same counts.
docs/ldp.md in the site's source says how each number is made.
"""

import csv
import json
import math
import sys
from pathlib import Path

import ldp
import numpy as np
from ldp.pair_counts import pair_counts

PREFIX = "survey-0"
"""The names of this survey's files (set in the copy the results page hands out)."""

COLUMNS = ["question", "question_text", "answer_index", "answer", "n", *ldp.FIGURE_COLUMNS]


def reports_of(question: dict, rows: list[dict]) -> np.ndarray:
    """The question's reports in ``rows`` as the mechanism reads them: one column of
    categories or cells, or a row of columns (unary bits, a check-all option and tick)."""
    columns = question["columns"]
    values = np.array([[int(row[c]) for c in columns] for row in rows],
                      dtype=np.int64).reshape(len(rows), len(columns))
    return values[:, 0] if len(columns) == 1 else values


def figures(question: dict, by_position: dict, reports: list[dict]) -> ldp.QuestionFigures:
    """Every figure of one question, from the reports of the respondents asked it: in a
    survey that asks each a random few, the others' cells are empty (not drawn)."""
    mechanism = ldp.from_spec(question["mechanism"])
    asked = [row for row in reports if row[question["columns"][0]] != ""]
    counts = mechanism.support_counts(reports_of(question, asked))
    condition = None
    if question["asked_if"]:  # estimated jointly with its condition where both are one-hot
        parent = by_position[question["asked_if"]["position"]]
        parent_mechanism = ldp.from_spec(parent["mechanism"])
        if ldp.jointly(parent_mechanism, mechanism):
            both = [row for row in asked if row[parent["columns"][0]] != ""]
            pairs = pair_counts(parent_mechanism, mechanism, reports_of(parent, both),
                                reports_of(question, both))
            condition = ldp.Condition(parent_mechanism, (question["asked_if"]["answer"],),
                                      pairs)
    anchor = question.get("anchor")
    return ldp.question_figures(
        mechanism, counts, len(asked),
        answers=len(question["labels"]) - question["extra_answers"],
        scored=bool(question["scores"]), condition=condition,
        anchor=ldp.Anchored(anchor["answer"], anchor["known"]) if anchor else None,
    )


def percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def show(question: dict, n: int, found: ldp.QuestionFigures) -> None:
    """Print a question's headline figures."""
    print(f"\n{question['position']}. {question['text']} (n = {n})")
    estimate = found.estimate
    for index, label in enumerate(question["labels"]):
        interval = (f" (95% interval {percent(estimate.ci_low[index])} to "
                    f"{percent(estimate.ci_high[index])})"
                    if math.isfinite(estimate.ci_low[index]) else "")  # a number's bins: none
        print(f"  {label}: {percent(estimate.headline[index])}{interval}")
    if found.among is not None:
        print(f"  among those who answered ({percent(found.answered)} of all):")
        for index, share in enumerate(found.among.estimate):
            print(f"    {question['labels'][index]}: {percent(share)} (95% interval "
                  f"{percent(found.among.ci_low[index])} to "
                  f"{percent(found.among.ci_high[index])})")
    elif found.answered is not None:
        print(f"  answered: {percent(found.answered)} of all")
    if found.mean is not None:
        print(f"  mean: {found.mean.estimate:.2f} (95% interval {found.mean.ci_low:.2f} to "
              f"{found.mean.ci_high:.2f})")
    if found.anchor is not None:
        print(f"  validation anchor: p = {found.anchor.p_value:.3g}, careless share "
              f"{percent(found.anchor.careless)}")


def redo(prefix: str) -> list[dict]:
    folder = Path(prefix).parent
    metadata = json.loads(Path(f"{prefix}-metadata.json").read_text(encoding="utf-8"))
    with open(f"{prefix}-reports.csv", newline="", encoding="utf-8") as file:
        reports = list(csv.DictReader(file))
    by_position = {question["position"]: question for question in metadata["questions"]}
    rows = []
    for question in metadata["questions"]:
        found = figures(question, by_position, reports)
        n = found.estimate.n
        if n == 0:
            print(f"{question['position']}. {question['text']}: no responses yet")
            continue
        show(question, n, found)
        for index, (label, figures_of) in enumerate(
            zip(question["labels"], found.rows(), strict=True)
        ):
            rows.append({
                "question": question["position"], "question_text": question["text"],
                "answer_index": index, "answer": label, "n": n,
                **{key: "" if math.isnan(value) else repr(value)
                   for key, value in figures_of.items()},
            })
    with open(folder / f"{Path(prefix).name}-estimates-redone.csv", "w", newline="",
              encoding="utf-8") as file:
        writer = csv.DictWriter(file, COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return rows


if __name__ == "__main__":
    redo(sys.argv[1] if len(sys.argv) > 1 else PREFIX)
