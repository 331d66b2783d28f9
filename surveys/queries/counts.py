"""Counts of several questions' reports taken together, read from the stored submissions:
what breakdowns, three-way breakdowns, regressions and shares among those asked are
computed from.

``pair_counts`` keeps the counts of two questions' reports taken together (``PairTally``) up
to date: each view folds in only the submissions that arrived since the last one, so a view
after the first reads one row, and a busy survey's view reads a handful of new submissions.
``triple_counts`` does the same for a three-way breakdown (``TripleTally``), and
``combination_counts`` for a regression's questions (``CombinationTally``). The database
extracts the reports from each submission's JSON (``ReportOf``, ``ReportsOf``): no
submission is decoded whole in Python.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from django.db.models import Count, F, Func, Max, TextField

from surveys import ldp
from surveys.ldp import joint, strata
from surveys.models import CombinationTally, PairTally, Question, Survey, TripleTally


def pair_counts(survey: Survey, group: Question, question: Question) -> joint.PairCounts:
    """The pair counts of two questions of the opened ``survey`` over all its submissions
    (at least those counted in ``survey.response_count``), rows = ``group``'s categories.

    Folds the submissions that arrived since the stored counts were made into them and stores
    the result, unless another request stored newer counts meanwhile (both are correct)."""
    first, second = sorted((group, question), key=lambda q: q.pk)
    tally, _ = PairTally.objects.get_or_create(
        question_a=first,
        question_b=second,
        defaults={  # a callable: evaluated only when the row is created
            "counts": lambda: joint.PairCounts.zero(
                first.mechanism().tally_size, second.mechanism().tally_size
            ).to_json()
        },
    )
    counts = _folded(survey, tally, (first, second), joint.pair_counts)
    return counts if first.pk == group.pk else counts.transposed()


def triple_counts(
    survey: Survey, question: Question, group: Question, stratum: Question
) -> joint.PairCounts:
    """The counts of ``question`` by ``group`` within each stratum of ``stratum``
    (``strata.triple_counts``: rows are the pairs of the two grouping questions' reports),
    kept like ``pair_counts``'s in a ``TripleTally``: a view folds in only the submissions
    that arrived since the last one. Kept rather than computed on each view because the
    three reports of every submission would otherwise be read again each time (a view
    with nothing new reads the cache only, see ``stratified_results``)."""
    tally, _ = TripleTally.objects.get_or_create(
        question=question,
        group=group,
        stratum=stratum,
        defaults={
            "counts": lambda: joint.PairCounts.zero(
                group.mechanism().k * stratum.mechanism().k, question.mechanism().tally_size
            ).to_json()
        },
    )
    return _folded(survey, tally, (group, stratum, question), strata.triple_counts)


def combination_counts(
    survey: Survey, questions: Sequence[Question], shape: Sequence[int]
) -> np.ndarray:
    """Submissions of the opened ``survey`` per combination of the ``questions``' reports (an
    array of ``shape``: one axis per question, indexed by its report), without those that
    lack a report of one of them.

    Kept in a ``CombinationTally`` like ``pair_counts``'s: each call folds in only the
    submissions that arrived since the stored counts were made, grouped by their combination
    of reports in one statement (``ReportsOf``), and stores the result unless another request
    stored newer counts meanwhile (both are correct). Grouping a million submissions took
    about 1 s on SQLite, as long as the fit of a regression with three predictors; the
    submissions since the last view take milliseconds."""
    tally, _ = CombinationTally.objects.get_or_create(
        survey=survey,
        questions="-".join(str(q.pk) for q in questions),
        defaults={"counts": lambda: [0] * math.prod(shape)},
    )
    counts = np.array(tally.counts, dtype=np.int64).reshape(shape)
    rows = (
        survey.submissions.filter(pk__gt=tally.through)
        .order_by()
        .values(reports_of=ReportsOf([q.pk for q in questions]))
        .annotate(n=Count("pk"), last=Max("pk"))
        .values_list("reports_of", "n", "last")
    )
    through = tally.through
    for reports, n, last in rows:
        through = max(through, last)
        combination = json.loads(reports)
        if None not in combination:
            counts[tuple(int(r) for r in combination)] += n
    if through > tally.through:
        CombinationTally.objects.filter(pk=tally.pk, through=tally.through).update(
            counts=counts.ravel().tolist(), through=through
        )
    return counts


def _folded(
    survey: Survey,
    tally: PairTally | TripleTally,
    questions: tuple[Question, ...],
    count: Callable[..., joint.PairCounts],
) -> joint.PairCounts:
    """The counts of ``tally`` with the submissions that arrived since it was stored folded
    in (``count``: the mechanisms, then one list of reports per question), stored again
    unless another request stored newer counts meanwhile (both are correct)."""
    counts = joint.PairCounts.from_json(tally.counts)
    if counts.n < survey.response_count:
        added, through = _fold(survey, questions, tally.through, count)
        if through > tally.through:
            counts = counts if added is None else counts + added
            type(tally).objects.filter(pk=tally.pk, through=tally.through).update(
                counts=counts.to_json(), through=through
            )
    return counts


FOLD_CHUNK = 20_000
"""Submissions read per round trip while folding: memory stays flat."""


def _fold(
    survey: Survey,
    questions: tuple[Question, ...],
    after: int,
    count: Callable[..., joint.PairCounts],
) -> tuple[joint.PairCounts | None, int]:
    """Counts (``count``) of the submissions with an id above ``after``, and the largest id
    read (None and ``after`` when there are none; None when none has every report). The
    database extracts the questions' reports from each submission; they are counted
    FOLD_CHUNK submissions at a time, leaving out those that lack one of the reports (null:
    a question a design's draw left out)."""
    mechanisms = [q.mechanism() for q in questions]
    rows = (
        survey.submissions.filter(pk__gt=after)
        .order_by("pk")
        .values_list(*(ReportOf(q.pk) for q in questions), "pk")
        .iterator(chunk_size=FOLD_CHUNK)
    )
    total, through = None, after
    for chunk in _chunks(rows, FOLD_CHUNK):
        through = chunk[-1][-1]
        # Only the respondents asked every one of the questions: in a survey that asks each
        # a random few, the others' reports of those not drawn are null.
        chunk = [row for row in chunk if not any(_not_drawn(report) for report in row[:-1])]
        if not chunk:
            continue
        counts = count(
            *mechanisms,
            *(_parse(m, [row[i] for row in chunk]) for i, m in enumerate(mechanisms)),
        )
        total = counts if total is None else total + counts
    return total, through


def _not_drawn(report: Any) -> bool:
    """Whether a report as the database gives it (``ReportOf``) is null: the question was not
    drawn (SQLite gives None, PostgreSQL the text "null")."""
    return report is None or report == "null"


def _chunks(rows: Iterator[Any], size: int) -> Iterator[list[Any]]:
    chunk = list(itertools.islice(rows, size))
    while chunk:
        yield chunk
        chunk = list(itertools.islice(rows, size))


def _parse(mechanism: ldp.Mechanism, reports: list[Any]) -> np.ndarray:
    """Stored reports as the database gives them (``ReportOf``) as an array for
    ``joint.pair_counts``: numbers (as numbers or text), or JSON lists of 0s and 1s, whose
    digits, in order, are the bits. Decoding the lists with ``json`` took longer than
    reading them (3 to 5 s per million). A check-all question's reports, JSON lists
    [option, 0 or 1], become their tally cells."""
    if mechanism.encoding == "sampled":
        pairs = [json.loads(report) if isinstance(report, str) else report for report in reports]
        return np.array([mechanism.support(pair)[0] for pair in pairs], dtype=np.int64)
    if mechanism.encoding != "unary":
        return np.array([int(report) for report in reports], dtype=np.int64)
    digits = np.frombuffer("".join(reports).encode("ascii"), dtype=np.uint8)
    bits = digits[(digits == ord("0")) | (digits == ord("1"))] - ord("0")
    return bits.reshape(len(reports), mechanism.k).astype(np.int64)


class ReportOf(Func):
    """One question's report in ``Submission.reports``, extracted by the database: a number
    (or its text), or a JSON list of 0s and 1s as text.

    Hand-written SQL because Django's key lookups read a key made of digits, as question ids
    are, as an array index. Measured on SQLite with 1,000,000 submissions, as a share of the
    time of streaming the reports CSV in the same run: decoding each submission's whole JSON
    in Python, 0.34x (a GRR question by a yes/no one) and 0.49x (unary by yes/no); with the
    two reports extracted by the database, see docs/results-api.md ("Cost")."""

    output_field = TextField()

    def __init__(self, question_pk: int) -> None:
        self.key = str(question_pk)
        super().__init__(F("reports"))

    def as_sqlite(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"json_extract({sql}, %s)", (*params, f'$."{self.key}"')

    def as_postgresql(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"({sql} -> %s)::text", (*params, self.key)


class ReportsOf(Func):
    """Several questions' reports in ``Submission.reports`` as one JSON array (text), for
    grouping submissions by their combination of reports in one statement.

    One expression rather than one ``ReportOf`` per question because SQLite then parses each
    submission's JSON once: grouping 1,000,000 submissions by four reports took 1.74 s
    instead of 2.58 s (in-memory SQLite, same run)."""

    output_field = TextField()

    def __init__(self, question_pks: list[int]) -> None:
        self.keys = [str(pk) for pk in question_pks]
        super().__init__(F("reports"))

    def as_sqlite(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        paths = ", ".join(["%s"] * len(self.keys))
        return f"json_extract({sql}, {paths})", (*params, *(f'$."{key}"' for key in self.keys))

    def as_postgresql(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        items = ", ".join([f"{sql} -> %s"] * len(self.keys))
        return f"jsonb_build_array({items})::text", tuple(
            value for key in self.keys for value in (*params, key)
        )
