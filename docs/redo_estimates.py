"""Redo a survey's estimates from its exported reports alone, in Python.

Download, from the survey's results page, into one folder: this script, the randomized
reports (survey-N-reports.csv), what their columns mean (survey-N-metadata.json) and the
estimation library (ldp.zip, unzipped there: a folder "ldp"). Needs Python 3.10 or later
with numpy and scipy (pip install numpy scipy). Then run

    python survey-N-estimates.py

It prints every question's estimates and writes survey-N-estimates-redone.csv: one row per
answer with the same numbers as the results page and its estimates file (estimate, the 95%
interval ci_low to ci_high, the unbiased estimate and its standard error), and for a rating
scale the mean score, for a check-all question the mean number of options ticked, each with
its 95% interval. docs/ldp.md in the site's source says how each number is made.
"""

import csv
import json
import sys
from pathlib import Path

import ldp
import numpy as np
from ldp import scores

PREFIX = "survey-0"
"""The names of this survey's files (set in the copy the results page hands out)."""

COLUMNS = ["question", "question_text", "answer_index", "answer", "n", "estimate", "ci_low",
           "ci_high", "unbiased", "std_error", "mean", "mean_ci_low", "mean_ci_high"]


def redo(prefix: str) -> list[dict]:
    folder = Path(prefix).parent
    metadata = json.loads(Path(f"{prefix}-metadata.json").read_text(encoding="utf-8"))
    with open(f"{prefix}-reports.csv", newline="", encoding="utf-8") as file:
        reports = list(csv.DictReader(file))
    rows = []
    for question in metadata["questions"]:
        mechanism = ldp.from_spec(question["mechanism"])
        columns = question["columns"]
        # The respondents asked it: in a survey that asks each a random few, the others'
        # cells are empty (not drawn).
        asked = [report for report in reports if report[columns[0]] != ""]
        n = len(asked)
        values = np.array([[int(report[c]) for c in columns] for report in asked],
                          dtype=np.int64).reshape(n, len(columns))
        counts = mechanism.support_counts(values[:, 0] if len(columns) == 1 else values)
        if n == 0:
            print(f"{question['position']}. {question['text']}: no responses yet")
            continue
        estimate = mechanism.estimate(counts, n)
        mean = None
        if question["scores"]:  # a rating scale: points 1..k
            mean = scores.mean_score(mechanism, counts, n)
        elif question["encoding"] == "sampled":  # check all that apply: options ticked
            mean = mechanism.mean_count(counts, n)
        elif question["encoding"] == "number":  # a number: its mean; labels are its bins
            mean = mechanism.mean(counts, n)
        print(f"\n{question['position']}. {question['text']} (n = {n})")
        for index, label in enumerate(question["labels"]):
            rows.append({
                "question": question["position"], "question_text": question["text"],
                "answer_index": index, "answer": label, "n": n,
                "estimate": estimate.headline[index], "ci_low": estimate.ci_low[index],
                "ci_high": estimate.ci_high[index], "unbiased": estimate.proportions[index],
                "std_error": estimate.std_errors[index],
                "mean": mean.estimate if mean else None,
                "mean_ci_low": mean.ci_low if mean else None,
                "mean_ci_high": mean.ci_high if mean else None,
            })
            print(f"  {label}: {100 * estimate.headline[index]:.1f}% "
                  f"(95% interval {100 * estimate.ci_low[index]:.1f}% "
                  f"to {100 * estimate.ci_high[index]:.1f}%)")
        if mean:
            print(f"  mean: {mean.estimate:.2f} (95% interval {mean.ci_low:.2f} to "
                  f"{mean.ci_high:.2f})")
    with open(folder / f"{Path(prefix).name}-estimates-redone.csv", "w", newline="",
              encoding="utf-8") as file:
        writer = csv.DictWriter(file, COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return rows


if __name__ == "__main__":
    redo(sys.argv[1] if len(sys.argv) > 1 else PREFIX)
