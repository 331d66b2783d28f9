"""The randomized reports as labelled SPSS (.sav) and Stata (.dta) files.

The same rows and columns as the reports CSV (``results.report_rows``; but its last, the
wording version, which may be blank), with what the CSV needs the metadata file for
written into the file itself: each variable's label (the question, and the answer for a
column of a unary report), value labels (the answers), and how each question was
randomized (SPSS: the file's document, read by ``DISPLAY DOCUMENTS``; Stata, whose files
written by other programs have no notes: a short form in each variable's label). Written
by pyreadstat, that is the ReadStat library R's haven uses; a Stata file is written in
format 118 (Stata 14 and later: Unicode, 80-character labels).

The file is built in a temporary file, then sent: memory holds one 64-bit number per report
column (8 MB per 100,000 responses and 10 columns), read from the database in blocks.
"""

from __future__ import annotations

import itertools
import tempfile
import textwrap
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyreadstat

from surveys import ldp
from surveys.models import Question, Survey
from surveys.queries.readable import TICKED, cell_labels, readable
from surveys.queries.results import report_columns, report_rows

STATA_LABEL_LENGTH = 80
"""The longest variable label a Stata file holds; longer ones are cut, ending with "…"."""

SPSS_LINE_BYTES = 80
"""The longest line of an SPSS file's document."""

BLOCK = 10_000
"""Rows converted to numbers at a time."""


READABLE_NOTE = (
    "The last variables read the reports in the questions' terms: for a number question q<p>, "
    "q<p>_low and q<p>_high are the lowest and highest number the reported cell stands for "
    "(its respondent's window holds the cell with probability p, as below; else the cell "
    "says nothing), missing for an extra answer; for a check-all question, q<p>_<c> is 1 "
    "where box c was reported ticked, 0 not ticked, missing where another box was reported."
)


@dataclass(frozen=True)
class ColumnLabels:
    labels: dict[str, str]
    """Variable labels, by column."""
    short_labels: dict[str, str]
    """The same, short enough for Stata, with the randomization in brief."""
    value_labels: dict[str, dict[int, str]]
    document: list[str]
    """Paragraphs: what every value is, how to read the readable columns, then one per
    question: its columns, mechanism, epsilon and probabilities."""


@dataclass(frozen=True)
class LabelledReports(ColumnLabels):
    frame: pd.DataFrame


def _randomization(question: Question) -> str:
    """How a question's reports were drawn, in one line: what p and q mean for its encoding."""
    mechanism = question.mechanism()
    spec = mechanism.spec()
    p, q = f"{spec['p']:.6g}", f"{spec.get('q', spec['p']):.6g}"
    if mechanism.encoding == "number":
        meaning = (f"the number's place on [{spec['low']:g}, {spec['high']:g}] picks a window of "
                   f"{spec['width']} of {spec['cells']} cells; the report is a cell of the "
                   f"window with probability {p}, another cell otherwise")
    elif mechanism.encoding == "bit":
        meaning = f"P(report 1 | true yes) = {p}, P(report 0 | true no) = {q}"
    elif mechanism.encoding == "sampled":
        meaning = (f"one option picked uniformly at random; its box reported as set with "
                   f"probability {p}, flipped otherwise")
    elif mechanism.encoding == "index":
        meaning = f"true answer reported with probability {p}, each other answer with {q}"
    else:
        meaning = f"true answer's bit is 1 with probability {p}, every other bit with {q}"
    return f"{mechanism.label}, epsilon {mechanism.epsilon:g}: {meaning}"


def _brief(question: Question) -> str:
    """The randomization in a few words, for Stata's short labels: "randomized, p=0.731
    q=0.731"; a number's "cell, in window p=0.679" (the probability that the report is a
    cell of the respondent's window)."""
    spec = question.mechanism().spec()
    if "q" not in spec:  # a number question's window
        return f"cell, in window p={spec['p']:.3f}"
    return f"randomized, p={spec['p']:.3f} q={spec['q']:.3f}"


def _lines(paragraph: str) -> list[str]:
    """A paragraph as lines of at most ``SPSS_LINE_BYTES`` bytes in UTF-8."""
    for width in range(SPSS_LINE_BYTES, 0, -10):
        lines = textwrap.wrap(paragraph, width, break_on_hyphens=False)
        if all(len(line.encode()) <= SPSS_LINE_BYTES for line in lines):
            return lines
    return []


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def labelled_reports(survey: Survey) -> LabelledReports:
    """The reports table with its labels (see the module's docstring)."""
    rows = report_rows(survey, wording=False)  # whole numbers, or blank: not drawn
    header = next(rows)
    blocks = [np.empty((0, len(header)))]
    while block := list(itertools.islice(rows, BLOCK)):
        blocks.append(np.array([[np.nan if v == "" else v for v in row] for row in block],
                               dtype=float))
    # Whole numbers where every cell has one; a question a design's draw left out for some
    # respondents, a check-all question's boxes not reported on and a number's range for an
    # extra answer have missing values there (system-missing in SPSS, "." in Stata).
    frame = pd.DataFrame(np.concatenate(blocks), columns=header)
    frame = frame.astype({c: np.int64 for c in header
                          if not frame[c].isna().any() and (frame[c] % 1 == 0).all()})
    found = column_labels(survey)
    return LabelledReports(found.labels, found.short_labels, found.value_labels, found.document,
                           frame)


def column_labels(survey: Survey) -> ColumnLabels:
    """What every column of the reports means (see the module's docstring), without the
    rows: the README of the downloads reads them too."""
    labels = {"response": "Response number, in the order responses arrived"}
    short_labels = dict(labels)
    value_labels: dict[str, dict[int, str]] = {}
    document = [
        "Every value was randomized in the respondent's browser before it was sent; "
        "no true answers, IP addresses, devices, dates or times are held here.",
        READABLE_NOTE,
    ]
    for position, question in enumerate(survey.ordered_questions(), start=1):
        columns = report_columns(question, position)
        answers = question.all_labels()
        brief = _brief(question)
        added = readable(question, position).columns
        document.append(f"{', '.join(columns + [c.name for c in added])}: {question.text} "
                        f"[{_randomization(question)}]")
        for column in added:
            labels[column.name] = short_labels[column.name] = f"{column.label}: {question.text}"
            if column.value_labels:
                value_labels[column.name] = column.value_labels
        if question.mechanism().encoding == "sampled":
            option, ticked = columns
            labels[option] = f"{question.text}: option asked about (picked at random)"
            short_labels[option] = f"option asked about, random: {question.text}"
            value_labels[option] = dict(enumerate(answers))
            labels[ticked] = f"{question.text}: that option ticked (randomized)"
            short_labels[ticked] = f"its box ticked, {brief}: {question.text}"
            value_labels[ticked] = TICKED
            continue
        if isinstance(question.mechanism(), ldp.NumberWindow):
            name = columns[0]
            labels[name] = (f"{question.text} (randomized cell of the mechanism's grid; value "
                            f"label: the numbers it stands for, also in {name}_low, {name}_high)")
            short_labels[name] = f"{brief}: {question.text}"
            value_labels[name] = cell_labels(question)
            continue
        if len(columns) == 1:
            name = columns[0]
            labels[name] = f"{question.text} (randomized)"
            short_labels[name] = f"{brief}: {question.text}"
            value_labels[name] = dict(enumerate(answers))
            continue
        for index, (name, answer) in enumerate(zip(columns, answers, strict=True)):
            labels[name] = f"{question.text}: {answer} (randomized bit)"
            short_labels[name] = f"bit {index} {answer}, {brief}: {question.text}"
            value_labels[name] = {0: "0", 1: "1 (supports this answer)"}
    return ColumnLabels(labels, short_labels, value_labels, document)


def write(survey: Survey, kind: str) -> Any:
    """A temporary file holding the survey's reports as ``kind`` ("sav" or "dta"), at its
    start; it is deleted when closed."""
    table = labelled_reports(survey)
    target = tempfile.NamedTemporaryFile(suffix=f".{kind}")  # noqa: SIM115 (the caller closes it)
    title = _cut(survey.title, STATA_LABEL_LENGTH)
    if kind == "sav":
        pyreadstat.write_sav(
            table.frame, target.name, file_label=title, column_labels=table.labels,
            row_compress=True,
            variable_value_labels=table.value_labels,
            note=[line for paragraph in table.document for line in _lines(paragraph)],
            variable_measure={name: "nominal" for name in table.value_labels},
        )
    else:
        pyreadstat.write_dta(
            table.frame, target.name, file_label=title, version=14,
            column_labels={
                name: _cut(label, STATA_LABEL_LENGTH) for name, label in table.short_labels.items()
            },
            variable_value_labels=table.value_labels,
        )
    target.seek(0)
    return target
