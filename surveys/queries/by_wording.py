"""Answers by wording: one question's estimates among the respondents of each wording version
of its survey, and a test of whether they differ (mathematics in ``surveys.ldp.homogeneity``).

Each submission records the wording version its respondent's page showed
(``Submission.wording``; None for those stored before it was recorded). The database counts
the question's reports per (wording, report) (``ReportOf``, one grouped statement: no
submission's JSON is loaded here), and each wording's support counts get the results page's
estimates (``question_results``). Cached like the results, and like them recomputed at most
once per refresh interval while responses arrive (``results.cached``); a new wording makes a
new snapshot at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.db.models import Count
from django.utils.translation import gettext

from surveys import ldp
from surveys.helpers import numbers
from surveys.ldp import homogeneity
from surveys.models import Question, Survey
from surveys.queries.breakdowns import SIGNIFICANCE
from surveys.queries.counts import ReportOf
from surveys.queries.results import (
    METHODS,
    cached,
    in_words,
    question_results,
)

KEPT = ("margin_of_error", "small_sample", "warning", "categories", "mean_score", "among",
        "mean_count", "number")
"""The fields of ``question_results`` each wording's entry carries."""


def wording_counts(
    survey: Survey, question: Question
) -> dict[int | None, tuple[list[int], int]]:
    """Wording version (None: not recorded) -> (the question's support counts among the
    submissions of that version, their number), from one grouped statement: the database
    extracts the question's report from each submission and counts each (wording, report)."""
    mechanism = question.mechanism()
    rows = (
        survey.submissions.order_by()
        .values("wording", report=ReportOf(question.pk))
        .annotate(n=Count("pk"))
        .values_list("wording", "report", "n")
    )
    found: dict[int | None, tuple[list[int], int]] = {}
    for wording, report, n in rows:
        counts, total = found.get(wording, ([0] * mechanism.tally_size, 0))
        value = json.loads(report) if isinstance(report, str) else report
        for cell in mechanism.support(mechanism.validate_report(value)):
            counts[cell] += n
        found[wording] = (counts, total + n)
    return found


def by_wording_results(survey: Survey, question: Question) -> dict[str, Any]:
    """What the "Answers by wording" page, its JSON and its CSV show for ``question`` of the
    opened ``survey`` (see docs/results-api.md): per wording version with responses (oldest
    first; those not recorded last) its ``n`` and the question's results among them; the
    ``test`` of equal answers across the recorded versions (None with fewer than two), and
    ``test_summary`` in words. Cached under the results snapshot."""

    computed = cached(f"by-wording-{question.pk}", survey, lambda: _computed(survey, question))
    return computed.value | {"methods": in_words(METHODS)}


def _computed(survey: Survey, question: Question) -> dict[str, Any]:
    questions = list(survey.ordered_questions())
    position = next(i for i, q in enumerate(questions, start=1) if q.pk == question.pk)
    question = questions[position - 1]  # with its choices
    mechanism = question.mechanism()
    found = wording_counts(survey, question)
    shown = _revisions(survey, question)
    versions = sorted(v for v in found if v is not None) + ([None] if None in found else [])
    wordings = []
    for version in versions:
        counts, n = found[version]
        results = question_results(question, position, counts, n)
        revision = shown.get(version) if version is not None else None
        read = (revision or {}).get("labels") or []
        for category in results["categories"] or []:  # the answer as that wording gave it
            index = category["index"]
            category["label_shown"] = read[index] if index < len(read) else None  # type: ignore[typeddict-unknown-key]
        wordings.append({
            "version": version,
            "recorded": version is not None,
            "from": revision["from"] if revision else None,
            "until": revision["until"] if revision else None,
            "text": revision["text"] if revision else None,
            "answer_labels": revision["labels"] if revision else None,
            "n": n,
            **{name: results[name] for name in KEPT},  # type: ignore[literal-required]
        })
    recorded = [found[v] for v in versions if v is not None]
    test = (
        homogeneity.homogeneity(
            mechanism.encoding, [counts for counts, _ in recorded], [n for _, n in recorded]
        )
        if len(recorded) >= 2 else None
    )
    overall = question_results(question, position, None, 0)
    return {
        "survey": {"id": survey.pk, "title": survey.title, "status": survey.status,
                   "wording_version": survey.wording_version},
        "question": {
            "id": question.pk,
            "position": position,
            "text": question.text,
            "kind": question.kind,
            "labels": overall["labels"],
            "mechanism": mechanism.spec(),
            "mechanism_label": gettext(mechanism.label),
        },
        "n": sum(n for _, n in found.values()),
        "wordings": wordings,
        "test": None if test is None else test.to_dict() | {"wordings": len(recorded)},
        "test_summary": test_summary(test, mechanism),
    }


def _revisions(survey: Survey, question: Question) -> dict[int, dict[str, Any]]:
    """Wording version -> when it was shown (``from``, ``until``: ISO date-times, None for
    the current one) and the question's ``text`` and answer ``labels`` in it, for the
    revisions that know their version (``WordingRevision.version``)."""
    revisions = list(survey.revisions.order_by("created_at", "pk"))
    shown = {}
    for i, revision in enumerate(revisions):
        if revision.version is None:
            continue
        following = revisions[i + 1] if i + 1 < len(revisions) else None
        texts = next(
            (q for q in revision.texts.get("questions", []) if q.get("id") == question.pk), {}
        )
        shown[revision.version] = {
            "from": revision.created_at.isoformat(),
            "until": following.created_at.isoformat() if following else None,
            "text": texts.get("text"),
            "labels": texts.get("labels"),
        }
    return shown


def test_summary(test: homogeneity.Homogeneity | None, mechanism: ldp.Mechanism) -> str:
    """The homogeneity test in words."""
    if test is None:
        return gettext(
            "No test yet: it needs responses under at least two recorded wordings."
        )
    shown = {"p": numbers.p_value(test.p_value)}
    if test.p_value < SIGNIFICANCE:
        text = gettext("Evidence that the answers differ between the wordings (%(p)s).") % shown
    else:
        text = gettext(
            "No evidence that the answers differ between the wordings (%(p)s). That is not "
            "proof that they are the same: with more responses a difference may show."
        ) % shown
    if mechanism.encoding == "unary":
        text += " " + gettext(
            "Each answer's box was tested on its own and the smallest p-value multiplied by "
            "the number of answers (Bonferroni): a cautious test."
        )
    if test.rough:
        text += " " + gettext(
            "Some expected counts are below 5: the p-value is only a rough guide."
        )
    return text


def by_wording_rows(results: dict[str, Any]) -> Iterator[list[Any]]:
    """The CSV: one row per wording and answer (the wording version blank where it was not
    recorded), with its number of responses, estimate and 95% interval."""
    yield ["wording", "from", "until", "responses", "answer", "label", "estimate", "ci_low",
           "ci_high", "support_count", "std_error"]
    for wording in results["wordings"]:
        for category in wording["categories"] or []:
            yield [
                "" if wording["version"] is None else wording["version"],
                wording["from"] or "",
                wording["until"] or "",
                wording["n"],
                category["index"],
                category["label"],
                category["estimate"],
                _blank(category["ci_low"]),
                _blank(category["ci_high"]),
                _blank(category["support_count"]),
                _blank(category["std_error"]),
            ]


def _blank(value: Any) -> Any:
    return "" if value is None else value
