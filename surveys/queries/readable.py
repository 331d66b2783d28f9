"""The reports' readable columns: what a number question's or a check-all question's report
says, in the question's own terms, beside the columns the estimates are computed from.

The reports file's first columns are the reports as sent (``results.report_columns``): a
number question's cell of the mechanism's grid ("50" for a 0-30 question), a check-all
question's option picked at random and whether its box was ticked. They are what the
scripts redo the estimates from, and stay as they are. After them the file has, per
question of these kinds (docs/exports.md, "The readable columns"):

- a number question ``q<p>``: ``q<p>_low`` and ``q<p>_high``, the smallest and largest
  number whose window holds the reported cell (``NumberWindow.cell_ranges``): a report
  is a cell of its respondent's window with probability p, any other cell otherwise;
  empty for a report in an extra answer's window ("No answer", "Not asked"), which the
  cell's value label names;
- a check-all question ``q<p>``: one column per box, ``q<p>_<c>`` for box c of ``labels``
  (from 0), 1 where the respondent's browser reported box c as ticked, 0 as not ticked, and
  empty where it reported another box (each report is about one box, picked at random).

Other kinds' reports are already one answer per column (or one bit per answer) and have
none. Every value is randomized, like the report it is read from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from surveys import ldp
from surveys.models import Question

Value = int | float | str
"""A cell of the reports file: a number, or "" where there is none."""


@dataclass(frozen=True)
class ReadableColumn:
    name: str
    label: str
    """What the column holds, for the variable's label: the question comes after it."""
    value_labels: dict[int, str] | None
    """What its values mean, where they stand for answers."""


@dataclass(frozen=True)
class Readable:
    """A question's readable columns, and their values for one of its reports (None: the
    question was not drawn for that respondent)."""

    columns: list[ReadableColumn]
    values: Callable[[Any], list[Value]]


TICKED = {0: "not ticked", 1: "ticked"}
"""Value labels of a check-all report's box."""


def cell_labels(question: Question) -> dict[int, str]:
    """A number question's value labels of its cells: each grid cell's range of numbers
    (``NumberWindow.cell_labels``), then each extra answer's window's cells its label."""
    mechanism = question.mechanism()
    assert isinstance(mechanism, ldp.NumberWindow)
    labels = dict(enumerate(mechanism.cell_labels()))
    extras = question.all_labels()[len(question.all_labels()) - mechanism.extras:]
    for e, answer in enumerate(extras):
        start = mechanism.cells + e * mechanism.width
        labels.update(dict.fromkeys(range(start, start + mechanism.width), answer))
    return labels


def readable(question: Question, position: int) -> Readable:
    """The readable columns of the question at ``position`` (from 1): see the module's
    docstring."""
    mechanism = question.mechanism()
    if isinstance(mechanism, ldp.NumberWindow):
        ranges = mechanism.cell_ranges().tolist()
        text = [[_number(x, mechanism.decimals) for x in pair] for pair in ranges]
        extra = ["", ""]
        return Readable(
            [ReadableColumn(f"q{position}_low", "Lowest number the reported cell stands for",
                            None),
             ReadableColumn(f"q{position}_high", "Highest number the reported cell stands for",
                            None)],
            lambda cell: extra if cell is None or cell >= mechanism.cells else text[cell],
        )
    if mechanism.encoding == "sampled":
        boxes = question.all_labels()

        def ticks(report: Any) -> list[Value]:
            row: list[Value] = [""] * len(boxes)
            if report is not None:
                row[report[0]] = report[1]
            return row

        return Readable(
            [ReadableColumn(f"q{position}_{c}",
                            f"Box {box!r} ticked (randomized; empty: another box reported)",
                            TICKED)
             for c, box in enumerate(boxes)],
            ticks,
        )
    return Readable([], lambda report: [])


def _number(x: float, decimals: int) -> Value:
    """A number of the grid as the file writes it ("" for none): whole, or with its places."""
    if x != x:  # NaN: no window holds the cell
        return ""
    return round(x) if decimals == 0 else round(x, decimals)
