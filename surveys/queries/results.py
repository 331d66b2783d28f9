"""The read side of a survey: its corrected estimates, their uncertainty, and its exports.

``survey_results`` builds everything the dashboard, its JSON endpoint and the estimates CSV
show from the per-category support counts (Tally rows) and the number of responses alone: one
query for all the tallies, then one call of the core's ``estimate`` per question (O(k) per
step of its maximum-likelihood fit and interval search), whatever the number of responses. It
never reads a report, and while responses stream in it recomputes at most once per refresh
interval, every worker sharing the snapshot through the cache (``cached``).

``report_rows`` and ``export_metadata`` are the raw-data export: one row per submission, and
everything needed to redo the estimates elsewhere (see docs/exports.md).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.utils import translation
from django.utils.translation import gettext

from surveys import ldp
from surveys.ldp import among, anchors, asked, joint, numbers, scores
from surveys.models import (
    STUDY_TEXTS,
    Question,
    Survey,
    Tally,
    design_blocks,
    drawn_at_random,
    survey_epsilon,
)
from surveys.queries import revisions
from surveys.queries.contracts import Metadata, QuestionResults, SurveyResults
from surveys.queries.counts import pair_counts
from surveys.queries.readable import cell_labels, readable
from surveys.queries.wording import translate

TARGET_MARGIN = 0.05
"""The margin of error (95%, in proportion) the planner line aims at: plus or minus 5 points."""

MEAN_TARGET_MARGIN = 0.25
"""The margin of error (95%) of a rating scale's mean score the planner aims at: plus or minus
a quarter of a point of the scale."""

WARN_MARGIN = 0.10
"""Above this margin of error the page warns that the estimates can still move a lot."""

METHODS = {
    "estimate": {"name": ldp.HEADLINE_METHOD, "description": ldp.HEADLINE_DESCRIPTION},
    "interval": {"name": ldp.INTERVAL_METHOD, "description": ldp.INTERVAL_DESCRIPTION},
    "mean_score": {
        "name": scores.MEAN_INTERVAL_METHOD, "description": scores.MEAN_INTERVAL_DESCRIPTION
    },
    "among": {"name": among.AMONG_METHOD, "description": among.AMONG_DESCRIPTION},
    "among_asked": {"name": asked.ASKED_METHOD, "description": asked.ASKED_DESCRIPTION},
    "number": {
        "name": numbers.NUMBER_INTERVAL_METHOD, "description": numbers.NUMBER_INTERVAL_DESCRIPTION
    },
}
"""How the headline estimates and their intervals are made, for the pages and the JSON (in
the page's language: ``in_words``)."""


def in_words(methods: dict[str, Any]) -> dict[str, Any]:
    """``methods`` with every description (a string, or a "description" key) translated into
    the active language; the core marks them for the catalogues (``surveys.ldp.words``)."""
    return {
        key: gettext(value) if isinstance(value, str)
        else value | {"description": gettext(value["description"])}
        for key, value in methods.items()
    }

RESULTS_VERSION = 16
"""Part of every snapshot, so that results (and result cards) cached by a version of the
site that computed or showed other fields are never served: bump it when they change."""

CACHE_SECONDS = 24 * 3600
"""How long computed results stay cached (a newer snapshot replaces them sooner: see
``cached``)."""

REFRESH_NOW_SECONDS = 5
"""A researcher's "recompute now" recomputes results at most this often per survey, however
many ask."""

COMPUTING_SECONDS = 60
"""How long the mark of a recompute in progress holds off other workers, at most: longer than
any recompute, short enough that a worker that died while computing delays nothing for long."""

EXPORT_CHUNK = 2000
"""Reports fetched per round trip while streaming the export: memory stays flat."""


def now() -> float:
    """The clock of the refresh interval, in seconds since the epoch: the one function tests
    and the live benchmark replace to move time on without waiting."""
    return time.time()


@dataclass(frozen=True)
class Snapshot:
    """One computation of results and when it was made. Every figure a page or its JSON shows
    comes from one Snapshot, read in one cache get, so that two computations never mix."""

    value: dict[str, Any]  # JSON-ready, with the responses counted ("n") and its "snapshot" key
    as_of: float  # ``now()`` when it was computed

    @property
    def as_of_time(self) -> datetime.datetime:
        return datetime.datetime.fromtimestamp(self.as_of, tz=datetime.UTC)


def cached(
    name: str,
    survey: Survey,
    compute: Callable[[], dict[str, Any]],
    *,
    now_asked: bool = False,
    later: Callable[[Callable[[], object]], None] | None = None,
) -> Snapshot:
    """The latest Snapshot of what ``compute`` returns (JSON-ready, with its ``n``: the
    responses it counted) for the survey, recomputed at most once per refresh interval.

    While responses stream in, recomputing every result at every view after a new response
    would cost every view a full computation, so an open survey's results are recomputed only
    when responses arrived since the latest snapshot and it is older than
    ``settings.RESULTS_REFRESH_SECONDS`` (``REFRESH_NOW_SECONDS`` when a researcher asks for a
    recompute now, ``now_asked``); a closed survey's as soon as they are not final, a draft's
    at every view (it has no responses, and nothing is kept).

    Every worker shares the latest snapshot through the cache: a pointer in the shared cache
    ("default") names it, and the snapshot itself is kept under its own key (``snapshot``:
    the survey, ``name`` and n), which never changes value, in ``caches["results"]`` (kept in
    each process's memory too). The worker that finds a recompute due claims it with an atomic
    ``add``; the others, and everyone while it computes, are served the previous snapshot:
    many workers recompute once. With ``later`` (a page's view: ``views.common.after_response``)
    that worker too is served the previous snapshot, and hands ``later`` the recompute, to run
    once its response is sent: no reader waits for an interval's recompute. Without it (a
    script, or no previous snapshot to serve), or without an interval (0: every view shows
    every response), it computes at once. Breakdowns, regressions and answers by wording are
    cached this way, with ``name`` saying which."""
    if survey.is_draft or survey.opened_at is None:
        return Snapshot(compute() | {"snapshot": None}, now())
    kept = caches["results"]
    shared = caches["default"]
    series = _key(survey, name)
    pointer = shared.get(f"latest:{series}")
    latest = kept.get(pointer) if pointer else None
    if latest is not None and not _recompute_due(latest, survey, now_asked):
        return latest
    # Nothing to serve meanwhile (a first view), or final results: computed without a claim.
    claim = f"computing:{series}" if latest is not None and survey.is_open else None
    if claim and not shared.add(claim, True, COMPUTING_SECONDS):
        return latest  # another worker is computing it

    def recompute() -> Snapshot:
        try:
            value = compute()
            value["snapshot"] = snapshot(survey, value["n"], name)
            found = Snapshot(value, now())
            kept.set(value["snapshot"], found, CACHE_SECONDS)
            shared.set(f"latest:{series}", value["snapshot"], CACHE_SECONDS)
        finally:
            if claim:
                shared.delete(claim)
        return found

    if claim and later is not None and settings.RESULTS_REFRESH_SECONDS:
        later(recompute)
        return latest
    return recompute()


def _recompute_due(latest: Snapshot, survey: Survey, now_asked: bool) -> bool:
    """Whether the ``latest`` snapshot of an opened survey's results must be computed again:
    responses arrived since, and either the survey is closed (its results are final, so
    exact) or the refresh interval passed."""
    if latest.value["n"] >= survey.response_count:
        return False
    if not survey.is_open:
        return True
    wait = REFRESH_NOW_SECONDS if now_asked else settings.RESULTS_REFRESH_SECONDS
    return now() >= latest.as_of + wait


def survey_results(
    survey: Survey,
    *,
    now_asked: bool = False,
    later: Callable[[Callable[[], object]], None] | None = None,
) -> SurveyResults:
    """Everything the dashboard shows, as JSON-ready data (shares are proportions in [0, 1]).

    Once a survey is open its questions (with any simulated truth) are frozen and its tallies
    change only together with its response count, in each submission's transaction, so the
    estimates are a function of the survey's snapshot (``snapshot``); they are recomputed at
    most once per refresh interval while responses stream in (``cached``), and say how old
    they are: ``as_of``, and ``new_responses`` since. ``now_asked``: a researcher asks for
    a recompute now; ``later``: a page's view runs a due recompute after its response
    (``cached``).
    """
    found = cached(
        "survey-results", survey, lambda: computed_results(survey), now_asked=now_asked,
        later=later,
    )
    computed = found.value
    return {
        "survey": {
            "id": survey.pk,
            "title": survey.title,
            "status": survey.status,
            "opened_at": survey.opened_at.isoformat() if survey.opened_at else None,
            "closed_at": survey.closed_at.isoformat() if survey.closed_at else None,
            "responses": computed["n"],
            "total_epsilon": computed["total_epsilon"],
        },
        "snapshot": computed["snapshot"],
        "as_of": found.as_of_time,
        "new_responses": max(0, survey.response_count - computed["n"]),
        "wordings": computed["wordings"],
        "methods": in_words(METHODS),
        "questions": computed["questions"],
    }


def computed_results(survey: Survey) -> dict[str, Any]:
    """One full computation of the survey's results from its tallies, what ``survey_results``
    keeps: its ``n`` (responses counted), ``wordings``, ``total_epsilon`` and ``questions``."""
    return _questions_results(survey, *_support_counts(survey))


def snapshot(survey: Survey, n: int, name: str = "survey-results") -> str | None:
    """What an opened survey's results called ``name`` are a function of, as a short key
    (None for drafts): the survey, when it opened, the version of its wording (pages show its
    texts), the language its sentences are written in (the request's), ``RESULTS_VERSION``,
    and its number of responses."""
    if survey.is_draft or survey.opened_at is None:
        return None
    return _key(survey, name, n)


def _key(survey: Survey, *parts: Any) -> str:
    """A short key for the opened ``survey``'s results and ``parts``: without a number of
    responses, it names the series of their snapshots (``cached``'s pointer)."""
    inputs = json.dumps(
        [
            RESULTS_VERSION,
            survey.pk,
            survey.opened_at.isoformat(),
            survey.wording_version,
            translation.get_language(),
            *parts,
        ]
    )
    return hashlib.sha256(inputs.encode()).hexdigest()[:32]


def _questions_results(
    survey: Survey, counts: dict[int, list[int]], n: int, drawn: dict[int, int]
) -> dict[str, Any]:
    """Every question's results from its support counts, over the n respondents, or in a
    survey that asks each respondent a random few, for a question drawn at random, over the
    respondents who drew it (``drawn``): the draw is independent of every answer, so they are
    a random part of the respondents (docs/ldp.md, "Long questionnaires")."""
    questions = list(survey.ordered_questions())
    sampled = drawn_at_random(survey, questions)
    answered = {q.pk: drawn.get(q.pk, 0) if q.pk in sampled else n for q in questions}
    return {
        "n": n,
        "wordings": revisions.summary(survey),  # cached too: a new one is a new snapshot
        "total_epsilon": survey_epsilon(survey, questions),
        "questions": [
            question_results(
                question, position, counts.get(question.pk), answered[question.pk],
                _asked_pairs(survey, question, answered[question.pk])
                if asked_jointly(question) else None,
            )
            for position, question in enumerate(questions, start=1)
        ],
    }


def asked_jointly(question: Question) -> bool:
    """Whether a question's shares among those asked come from the joint estimation of it and
    the question it depends on (``surveys.ldp.asked``): a conditional question whose reports
    and its condition's are one answer each (yes/no, or multiple choice and rating scales
    randomized by GRR). Others, unary-encoded or check-all ones, use their own reports
    alone (``among.among_answered``, ``SampledBoxes.among_answered``)."""
    return question.conditional and ldp.jointly(
        question.asked_if.mechanism(), question.mechanism()
    )


def _asked_pairs(survey: Survey, question: Question, n: int) -> joint.PairCounts:
    """The pair counts of a conditional question's condition (rows) and itself: the kept
    ``PairTally`` with the new submissions folded in (``counts.pair_counts``; none
    before the first response)."""
    condition = question.asked_if
    if n == 0:
        return joint.PairCounts.zero(condition.mechanism().k, question.mechanism().k)
    return pair_counts(survey, condition, question)


def _support_counts(survey: Survey) -> tuple[dict[int, list[int]], int, dict[int, int]]:
    """(question id -> support counts, n, question id -> how many drew it
    (``Question.drawn_count``)), read in one statement.

    Reading n in the same statement as the tallies gives one consistent snapshot: a
    submission committed between two separate queries could otherwise make the counts
    disagree with n. Draft surveys have no tallies (and no responses).
    """
    rows = list(
        Tally.objects.filter(question__survey=survey)
        .order_by("question_id", "index")
        .values_list("question_id", "count", "question__survey__response_count",
                     "question__drawn_count")
    )
    counts: dict[int, list[int]] = {}
    drawn: dict[int, int] = {}
    for question_id, count, _, drawn_count in rows:
        counts.setdefault(question_id, []).append(count)
        drawn[question_id] = drawn_count
    return counts, rows[0][2] if rows else survey.response_count, drawn


def respondents_needed(
    mechanism: ldp.Mechanism, margin: float, share: float | None = None
) -> int | None:
    """Reports needed for a 95% margin of error of ``margin`` at the expected ``share`` (None:
    the worst case), or None when that is more than ``ldp.MAX_PLANNED_RESPONDENTS``, which
    no survey reaches (epsilons near ``ldp.MIN_EPSILON`` with many categories). Callers pass
    a ``margin`` in (0, 1) and a ``share`` in [0, 1], so that limit is the planner's only
    refusal."""
    try:
        return mechanism.n_for_margin(margin, share=share)
    except ValueError:
        return None


def mean_score_plan(mechanism: ldp.Mechanism, sizes: tuple[int, ...]) -> dict[str, Any]:
    """The planner's figures for a rating scale's mean score, in points of the scale and in
    the worst case over the answers: the margin of error with each of ``sizes`` respondents,
    and the respondents needed for ``MEAN_TARGET_MARGIN`` (None beyond the planner's limit)."""
    try:
        needed: int | None = scores.n_for_mean_margin(mechanism, MEAN_TARGET_MARGIN)
    except ValueError:
        needed = None
    return {
        "target_margin": MEAN_TARGET_MARGIN,
        "n_for_target_margin": needed,
        "margins": [{"n": n, "margin": scores.mean_margin(mechanism, n)} for n in sizes],
    }


def number_plan(mechanism: ldp.NumberWindow, sizes: tuple[int, ...]) -> dict[str, Any]:
    """The planner's figures for a number question's mean, in its unit and in the worst case
    over the answers: the margin of error with each of ``sizes`` respondents, and the
    respondents needed for ``TARGET_MARGIN`` of the range (None beyond the planner's
    limit)."""
    return {
        "low": mechanism.low,
        "high": mechanism.high,
        "decimals": mechanism.decimals,
        "target_margin": TARGET_MARGIN * mechanism.span,
        "n_for_target_margin": respondents_needed(mechanism, TARGET_MARGIN),
        "margins": [{"n": n, "margin": mechanism.mean_margin(n)} for n in sizes],
    }


def question_results(
    question: Question, position: int, counts: list[int] | None, n: int,
    pairs: joint.PairCounts | None = None,
) -> QuestionResults:
    """One question's results from its k support counts and the number of reports n; for a
    conditional question whose shares among those asked are estimated jointly with its
    condition (``asked_jointly``), ``pairs`` are the pair counts of the two (rows: the
    condition's categories).

    Planner figures: ``margin_of_error`` (worst case, None without reports; it exceeds 1 when
    the reports say next to nothing), ``n_for_target_margin`` (``respondents_needed`` for
    ``TARGET_MARGIN``: None beyond the planner's limit) and ``more_for_target_margin``.
    Warnings: ``small_sample`` when any category is flagged by the core's interval method,
    ``large_margin`` above ``WARN_MARGIN``, and ``warning`` when either holds.

    ``categories`` is None while there is nothing to estimate (a draft, or no responses yet).
    Otherwise each category carries:

    - ``estimate``: ``Estimate.headline``, the figure to quote (``METHODS["estimate"]``);
    - ``ci_low``/``ci_high``: its 95% interval (``METHODS["interval"]``), which contains it;
    - ``small_sample``: whether that interval is in its small-sample regime, where it is
      conservative and moves in steps as single reports arrive;
    - ``support_count`` (randomized reports supporting it), ``unbiased`` with its
      ``std_error`` and Wald interval (``unbiased_ci_low``/``_high``, clipped to [0, 1]),
      ``mle`` and ``consistent`` (Norm-Sub);
    - ``truth``: the true share the simulation was drawn from, for the simulated demo only
      (``Question.simulated_truth``); otherwise None.

    ``mean_score``, for a kind whose answers are scored points 1..k (a rating scale): the
    mean score with its 95% interval (``METHODS["mean_score"]``), its unclipped unbiased
    value and standard error; None for other kinds. Without reports its estimate is None and
    its interval the whole scale.

    ``anchor``, for a validation anchor (a question with ``known_share``): the answer whose
    share is known, ``known``, the exact test's ``p_value``, whether the answer's 95%
    interval ``agrees`` with it, and the estimated share of ``careless`` respondents with its
    interval (``surveys.ldp.anchors``); None for other questions, and its figures None
    without reports.

    ``mean_count``, for a check-all question: the mean number of options a respondent ticks
    with its 95% interval (``ldp.SampledBoxes.mean_count``; among those who answered where
    it has extra answers, ``SampledBoxes.among_answered``), None for other kinds and
    without reports.

    ``extra_answers``: how many of the last categories are not the question's own answers
    ("No answer" for a refusal or a skip, "Not asked" for a conditional question not shown;
    ``Question.extra_answers``). With any, ``among`` gives its own answers' shares among the
    respondents who gave one (``among``: "answered"; "asked" for a conditional question
    nobody may decline) with 95% intervals, and ``answered`` their share, one minus the
    extra answers' estimates (the only figure the results state for it); its ``method``
    names the key of ``METHODS`` that made them: "among_asked" from ``pairs`` (the joint
    estimation with the condition, ``surveys.ldp.asked``), else "among" (its own reports).
    Every figure comes from ``ldp.question_figures`` (``figures``), which the downloadable
    Python script calls too.
    A rating scale's ``mean_score`` and a check-all question's ``mean_count`` are then the
    means among them (a check-all question's extra answers are boxes, each ticked alone by
    those who gave it: ``SampledBoxes.among_answered``). Without reports every estimate is
    None and every interval [0, 1].

    ``number``, for a number question (``number_results``): its range, the mean with its 95%
    interval and the planner in the question's unit; its ``categories`` are its bins, whose
    shares have no interval (``ci_low``, ``ci_high``, ``std_error`` and the unbiased
    interval None, ``support_count`` None: reports fall in cells, not bins).
    """
    mechanism = question.mechanism()
    number = isinstance(mechanism, ldp.NumberWindow)
    labels = result_labels(question)
    needed = respondents_needed(mechanism, TARGET_MARGIN)
    margin = mechanism.margin_of_error(n) if n else None
    result: QuestionResults = {
        "id": question.pk,
        "position": position,
        "text": question.text,
        "kind": question.kind,
        "used_for_breakdowns": question.used_for_breakdowns,
        "labels": labels,
        "mechanism": mechanism.spec(),
        "mechanism_label": gettext(mechanism.label),
        "n": n,
        "margin_of_error": margin,
        "n_for_target_margin": needed,
        "more_for_target_margin": None if needed is None else max(0, needed - n),
        "small_sample": False,
        "large_margin": margin is not None and margin > WARN_MARGIN,
        "warning": False,
        "categories": None,
        "mean_score": None,
        "anchor": None,
        "mean_count": None,
        "extra_answers": len(question.extra_answers()),
        "among": None,
        "number": None,
    }
    found = figures(question, counts, n, pairs)
    if found.among is not None:
        result["among"] = _among(question, labels, found)
    if question.question_kind.scored:
        result["mean_score"] = found.mean.to_dict()  # type: ignore[union-attr,typeddict-item]
    result["anchor"] = _anchor(question, found.anchor)
    if number:
        result["number"] = number_results(mechanism, found, n)
    if counts is None or n == 0:
        return result
    estimate = found.estimate
    if isinstance(mechanism, ldp.SampledBoxes):
        result["mean_count"] = found.mean.to_dict()  # type: ignore[union-attr,typeddict-item]
    unbiased_low, unbiased_high = found.unbiased_interval
    truth = question.simulated_truth
    result["categories"] = [
        {
            "index": c,
            "label": labels[c],
            "estimate": float(estimate.headline[c]),
            "ci_low": _finite(estimate.ci_low[c]),
            "ci_high": _finite(estimate.ci_high[c]),
            "small_sample": bool(estimate.small_sample[c]),
            "support_count": None if number else int(estimate.counts[c]),
            "unbiased": float(estimate.proportions[c]),
            "std_error": _finite(estimate.std_errors[c]),
            "unbiased_ci_low": _finite(unbiased_low[c]),
            "unbiased_ci_high": _finite(unbiased_high[c]),
            "mle": float(estimate.mle[c]),
            "consistent": float(estimate.consistent[c]),
            "truth": truth[c] if truth else None,
        }
        for c in range(mechanism.k)
    ]
    result["small_sample"] = bool(estimate.small_sample.any())
    result["warning"] = result["small_sample"] or result["large_margin"]
    return result


def result_labels(question: Question) -> list[str]:
    """The labels of a question's categories in its results and metadata: its own answers
    (a number question's bins), then its extra answers ("No answer", "Not asked")."""
    mechanism = question.mechanism()
    own = mechanism.bin_labels() if isinstance(mechanism, ldp.NumberWindow) else question.labels()
    return own + question.all_labels()[len(question.labels()):]


def _finite(x: float) -> float | None:
    """A figure for the JSON: None where there is none (NaN, a number question's bins'
    intervals)."""
    return float(x) if math.isfinite(x) else None


def number_results(
    mechanism: ldp.NumberWindow, found: ldp.QuestionFigures, n: int
) -> dict[str, Any]:
    """A number question's figures in its own unit (``contracts.NumberResults``): its range,
    places and bins' edges; the ``mean`` with its 95% interval (``NumberWindow.mean``; its
    estimate None without reports, its interval the range); ``mean_margin``, the worst-case
    half-width of that interval with n reports (None without), and the respondents needed
    for ``target_margin``, ``TARGET_MARGIN`` of the range (None beyond the planner's limit).
    With extra answers, the mean is among those who gave a number, whose estimated share is
    ``answered`` (``ldp.question_figures``; None without extra answers or reports)."""
    plan = number_plan(mechanism, ())
    del plan["margins"]
    return {
        **plan,
        "edges": list(mechanism.edges),
        "mean": found.mean.to_dict(),  # type: ignore[union-attr]
        "mean_margin": mechanism.mean_margin(n) if n else None,
        "answered": None if found.answered is None else _finite(found.answered),
    }


def figures(
    question: Question, counts: list[int] | None, n: int, pairs: joint.PairCounts | None = None
) -> ldp.QuestionFigures:
    """Every figure of a question (``ldp.question_figures``) from its support counts over n
    reports (None: none yet) and, for a conditional question estimated jointly with its
    condition (``asked_jointly``), the pair counts of the two."""
    mechanism = question.mechanism()
    answer = question.question_kind.anchor_answer
    return ldp.question_figures(
        mechanism, counts if counts else [0] * mechanism.tally_size, n if counts else 0,
        answers=mechanism.bins if isinstance(mechanism, ldp.NumberWindow)
        else len(question.labels()),
        scored=question.question_kind.scored,
        condition=None if pairs is None else ldp.Condition(
            question.asked_if.mechanism(), (question.asked_if_answer,), pairs),
        anchor=None if question.known_share is None or answer is None
        else ldp.Anchored(answer, question.known_share),
    )


def _among(question: Question, labels: list[str], found: ldp.QuestionFigures) -> Any:
    """``contracts.Among`` from the core's figures: ``answered`` is the share the results
    state (``QuestionFigures.answered``), ``method`` the key of ``METHODS`` that made the
    shares."""
    among_found = found.among
    assert among_found is not None
    return {
        "among": "asked" if not question.declinable else "answered",
        "method": found.among_method,
        "answered": _finite(found.answered),  # type: ignore[arg-type]
        "categories": [
            {
                "index": c,
                "label": labels[c],
                "estimate": _finite(among_found.estimate[c]),
                "ci_low": float(among_found.ci_low[c]),
                "ci_high": float(among_found.ci_high[c]),
            }
            for c in range(len(among_found.estimate))
        ],
    }


def _anchor(question: Question, found: anchors.AnchorCheck | None) -> Any:
    """A validation anchor's check (``contracts.Anchor``), or None for another question."""
    if found is None:
        return None
    answer = question.question_kind.anchor_answer
    return {"answer": question.labels()[answer], **found.to_dict()}  # type: ignore[index]


def shows_truth(question: QuestionResults) -> bool:
    """Whether a question's results (from ``question_results``) carry true shares, which only
    the simulated demo's do."""
    return any(category["truth"] is not None for category in question["categories"] or [])


def true_among(question: QuestionResults) -> list[float] | None:
    """The demo's true shares of a question's own answers among those who gave one, beside
    ``among``'s estimates: each answer's true share over the true share who answered (for a
    check-all question, each option's; nobody who gives an extra answer ticks one). None
    without true shares or extra answers, or when nobody answers."""
    if not shows_truth(question) or question["among"] is None:
        return None
    truth = [category["truth"] for category in question["categories"]]  # type: ignore[index]
    answered = 1 - sum(truth[len(truth) - question["extra_answers"]:])
    own = truth[:len(question["among"]["categories"])]
    return [share / answered for share in own] if answered > 1e-12 else None


def true_mean(question: QuestionResults) -> float | None:
    """The demo's true mean beside a rating scale's mean score (points 1..k), a check-all
    question's mean number of options ticked or a number question's mean (its bins' true
    shares, each bin's numbers drawn uniformly: ``NumberWindow.bin_means``), among those who
    answered where the question has extra answers; None for other kinds or without true
    shares."""
    if not shows_truth(question):
        return None
    if question["number"]:
        mechanism = ldp.from_spec(question["mechanism"])
        bins = [category["truth"] for category in question["categories"]]  # type: ignore[index]
        shares = bins[:mechanism.bins]  # type: ignore[attr-defined]
        means = mechanism.bin_means()  # type: ignore[attr-defined]
        return float(sum(share * mean for share, mean in zip(shares, means, strict=True))
                     / sum(shares))
    if not (question["mean_score"] or question["mean_count"]):
        return None
    shares = true_among(question) or [
        category["truth"] for category in question["categories"]]  # type: ignore[index]
    if question["mean_count"]:
        return float(sum(shares))
    return float(sum(point * share for point, share in enumerate(shares, start=1)))


CATEGORY_COLUMNS = [
    "estimate", "ci_low", "ci_high", "support_count", "unbiased", "std_error",
    "unbiased_ci_low", "unbiased_ci_high", "mle",
]
ADDED_CATEGORY_COLUMNS = ["consistent", "small_sample"]
"""Category columns added later: after the others, so that columns keep their positions."""
MEAN_COLUMNS = ["score", "mean_score", "mean_score_ci_low", "mean_score_ci_high"]
"""Rating scales: the answer's score (1..k) and the question's mean score with its interval,
repeated on each of its rows; empty for other kinds."""
_FIRST_COLUMNS = [
    "question", "question_text", "answer_index", "answer", "n", *CATEGORY_COLUMNS,
    "mechanism", "epsilon", *ADDED_CATEGORY_COLUMNS, "estimate_method", "interval_method",
    *MEAN_COLUMNS,
]
FIGURE_COLUMNS = [column for column in ldp.FIGURE_COLUMNS if column not in _FIRST_COLUMNS]
"""The figures added after the others (``ldp.FIGURE_COLUMNS``): the question's mean (a
rating scale's mean score, a check-all question's mean number ticked, a number question's
mean) with its interval, unclipped value and standard error; the share who answered and the
answer's share among them with its interval; a validation anchor's test. Empty where the
question has none; the Python script writes them under the same names."""
ESTIMATE_COLUMNS = [*_FIRST_COLUMNS, *FIGURE_COLUMNS]


def estimate_rows(results: SurveyResults) -> Iterator[list[Any]]:
    """The estimates CSV: a header, then one row per (question, answer) with numbers."""
    yield ESTIMATE_COLUMNS
    methods = [results["methods"]["estimate"]["name"], results["methods"]["interval"]["name"]]
    for question in results["questions"]:
        mean = question["mean_score"]
        points = len(question["labels"]) - question["extra_answers"]  # extras have no score
        for category in question["categories"] or []:
            yield [
                question["position"], question["text"], category["index"], category["label"],
                question["n"], *(category[key] for key in CATEGORY_COLUMNS),
                question["mechanism"]["mechanism"], question["mechanism"]["epsilon"],
                *(category[key] for key in ADDED_CATEGORY_COLUMNS), *methods,
                *(
                    ["", "", "", ""] if mean is None or category["index"] >= points
                    else [category["index"] + 1, mean["estimate"], mean["ci_low"], mean["ci_high"]]
                ),
                *_question_figures(question, category["index"]),
            ]


def _question_figures(question: QuestionResults, index: int) -> list[Any]:
    """The ``FIGURE_COLUMNS`` of a question's row ``index``, from its results."""
    number = question["number"]
    mean = question["mean_score"] or question["mean_count"] or (number and number["mean"])
    among = question["among"]
    answered = among["answered"] if among else number["answered"] if number else None
    mine = among["categories"][index] if among and index < len(among["categories"]) else None
    anchor = question["anchor"]
    found = {
        **{f"mean{suffix}": mean[key] if mean else None for suffix, key in (
            ("", "estimate"), ("_ci_low", "ci_low"), ("_ci_high", "ci_high"),
            ("_unbiased", "unbiased"), ("_std_error", "std_error"))},
        "answered": answered,
        **{f"among_{key}": mine[key] if mine else None
           for key in ("estimate", "ci_low", "ci_high")},
        "anchor_p_value": anchor["p_value"] if anchor else None,
        **{f"careless{suffix}": anchor[f"careless{suffix.replace('_ci', '')}"] if anchor
           else None for suffix in ("", "_ci_low", "_ci_high")},
    }
    return ["" if found[column] is None else found[column] for column in FIGURE_COLUMNS]


def report_columns(question: Question, position: int) -> list[str]:
    """CSV columns of a question: ``q<position>``, or ``q<position>_<c>`` for bit c (category
    c, counted from 0) of a unary report, ``q<position>_option`` and ``q<position>_ticked``
    for a check-all report."""
    mechanism = question.mechanism()
    if mechanism.encoding == "sampled":
        return [f"q{position}_option", f"q{position}_ticked"]
    if mechanism.encoding == "unary":
        return [f"q{position}_{c}" for c in range(mechanism.k)]
    return [f"q{position}"]


def report_rows(survey: Survey, *, wording: bool = True) -> Iterator[list[Any]]:
    """The randomized reports, one row per submission, in the order they arrived: a header
    of column names, then rows of whole numbers.

    The first column numbers the rows (1, 2, ...); database ids and dates are left out, as
    they are not needed to estimate. A question a design's draw left out has empty cells.
    With ``wording``, a column ``wording`` gives the wording version the respondent's page
    showed (``Submission.wording``; blank for submissions stored before it was recorded).
    Then come the readable columns of number and check-all questions
    (``surveys.queries.readable``), in the questions' order. Submissions stream from the
    database ``EXPORT_CHUNK`` at a time, so memory stays flat however many there are.
    """
    header = ["response"]
    widths: dict[str, int] = {}  # question id -> number of columns
    readables = []
    for position, question in enumerate(survey.ordered_questions(), start=1):
        columns = report_columns(question, position)
        widths[str(question.pk)] = len(columns)
        header += columns
        readables.append((str(question.pk), readable(question, position)))
    yield header + (["wording"] if wording else []) + [
        column.name for _, found in readables for column in found.columns
    ]
    submissions = (
        survey.submissions.order_by("pk")
        .values_list("reports", "wording")
        .iterator(chunk_size=EXPORT_CHUNK)
    )
    for number, (reports, shown) in enumerate(submissions, start=1):
        row = [number]
        for question, width in widths.items():  # every submission has every question
            report = reports[question]  # a unary report is a list of k bits: a column each
            if report is None:  # left out by a design's draw: empty cells
                row += [""] * width
            else:
                row += report if width > 1 else [report]
        if wording:
            row.append("" if shown is None else shown)
        for question, found in readables:
            row += found.values(reports[question])
        yield row


PRIVACY_NOTE = (
    "Every value in the reports file was randomized in the respondent's own browser before it "
    "was sent, with the mechanism and epsilon listed for its question. Sharing the file "
    "therefore reveals nothing about any respondent beyond what that mechanism allows: no "
    "true answers, no IP addresses, no devices, no dates or times."
)


def export_metadata(survey: Survey) -> Metadata:
    """What the reports CSV means: each question's columns, labels and frozen mechanism, and
    the survey's texts in every other language of the site, as respondents reading that
    language see them (the main language's texts wherever no translation gives one).

    ``ldp.from_spec(question["mechanism"])`` rebuilds the mechanism, whose ``estimate`` gives
    the dashboard's numbers from the support counts of the CSV's columns. ``wordings``: every
    wording respondents saw, oldest first (``surveys.queries.revisions.wordings``).
    """
    questions = list(survey.ordered_questions())
    given = dict(survey.translations.values_list("language", "texts"))
    translations = {
        language: translate(survey, questions, language, given.get(language))
        for language, _ in settings.LANGUAGES
        if language != survey.language
    }
    described = []
    positions = {question.pk: position for position, question in enumerate(questions, start=1)}
    for position, question in enumerate(questions, start=1):
        mechanism = question.mechanism()
        described.append({
            "position": position,
            "text": question.text,
            "help_text": question.help_text,
            "kind": question.kind,
            "labels": result_labels(question),
            "extra_answers": len(question.extra_answers()),
            "asked_if": (
                {"position": positions[question.asked_if_id], "answer": question.asked_if_answer}
                if question.conditional else None
            ),
            "columns": report_columns(question, position),
            "encoding": mechanism.encoding,
            "epsilon": mechanism.epsilon,
            "mechanism": mechanism.spec(),
            "mechanism_label": mechanism.label,
            "reading": READING[mechanism.encoding],
            **other_tools(mechanism, report_columns(question, position)[0]),
            "anchor": (
                None if question.known_share is None
                else {"answer": question.question_kind.anchor_answer,
                      "known": question.known_share}
            ),
            "scores": (
                list(range(1, len(question.labels()) + 1))
                if question.question_kind.scored else None
            ),
            "unbiased_values": (
                mechanism.unbiased_values().tolist()
                if isinstance(mechanism, ldp.NumberWindow) else None
            ),
            "answered_values": (
                mechanism.answered_values().tolist()
                if isinstance(mechanism, ldp.NumberWindow) else None
            ),
            "translations": {
                language: _translated(texts["questions"][question.pk], language,
                                      ("text", "help_text", "labels"), "label_langs")
                for language, texts in translations.items()
            },
            "readable_columns": [
                {"name": column.name, "description": column.label,
                 "value_labels": column.value_labels}
                for column in readable(question, position).columns
            ],
            "cell_labels": (
                list(cell_labels(question).values())
                if isinstance(mechanism, ldp.NumberWindow) else None
            ),
        })
    return {
        "survey": {
            "title": survey.title,
            "status": survey.status,
            "opened_at": survey.opened_at.isoformat() if survey.opened_at else None,
            "total_epsilon": survey_epsilon(survey, questions),
            "language": survey.language,
            **{name: getattr(survey, name) for name in STUDY_TEXTS},
            "consent_required": survey.consent_required,
            "translations": {
                language: _translated(texts, language, ("title", "introduction", *STUDY_TEXTS))
                for language, texts in translations.items()
            },
            "design": design_description(survey, questions, positions),
        },
        "privacy": PRIVACY_NOTE,
        "rows": "One row per submission; 'response' numbers them in the order they arrived.",
        "questions": described,
        "wordings": revisions.wordings(survey),
    }


def design_description(
    survey: Survey, questions: list[Question], positions: dict[int, int]
) -> dict[str, Any] | None:
    """A survey's design for its metadata (None when every question is asked): its
    ``budget``, the number of blocks ``asked`` of each respondent, the ``always_asked``
    questions' positions and the ``drawn`` blocks' (each respondent's browser draws
    ``asked`` of them uniformly, whatever the answers; a question left out has an empty
    cell in the reports)."""
    if survey.asked is None:
        return None
    always, sampled = design_blocks(questions)
    return {
        "budget": survey.budget,
        "asked": survey.asked,
        "always_asked": [positions[q.pk] for block in always for q in block],
        "drawn": [[positions[q.pk] for q in block] for block in sampled],
    }


def other_tools(mechanism: ldp.Mechanism, column: str) -> dict[str, Any]:
    """How the randomized-response tools take a question's design, where they can: its
    ``randomization_matrix`` (P(report r | true answer a) at [r][a], the misclassification
    matrix of R's RRreg), the ``rrreg`` call that estimates its shares from its column, and
    for yes/no questions the ``rrlogit`` options of Stata's rrlogit (the report is "yes"
    with probability pyes + (1 - pyes - pno) x the true share). None where the reports are
    rows of bits (unary encodings), check-all pairs or number cells, which these tools do
    not read."""
    if mechanism.encoding in ("unary", "sampled", "number"):
        return {"randomization_matrix": None, "rrreg": None, "rrlogit": None}
    matrix = mechanism.matrix()
    by_column = ", ".join(repr(float(x)) for x in matrix.T.ravel())  # R fills by column
    return {
        "randomization_matrix": matrix.tolist(),
        "rrreg": f'RRuni(response = {column}, model = "custom", '
        f"p = matrix(c({by_column}), nrow = {mechanism.k}))",
        "rrlogit": (
            f"pyes({float(matrix[1, 0])!r}) pno({float(matrix[0, 1])!r})"
            if mechanism.encoding == "bit" else None
        ),
    }


def _translated(
    texts: dict[str, Any], language: str, keys: tuple[str, ...], label_langs: str = ""
) -> dict[str, Any]:
    """The ``keys`` of a translation's texts as respondents in ``language`` see them
    (``surveys.queries.wording.translate``), and ``from_main_language``: those among them
    (a label as "labels.<i>") shown in the main language because the translation gives
    none (a blank text is in no language)."""
    def lang(key: str) -> str:  # "title" -> "lang"; "introduction" -> "introduction_lang"
        return "lang" if key in ("title", "text") else f"{key}_lang"

    fallback = [key for key in keys
                if key != "labels" and texts[key] and texts[lang(key)] != language]
    if label_langs:
        fallback += [f"labels.{i}" for i, label_lang in enumerate(texts[label_langs])
                     if label_lang != language]
    return {**{key: texts[key] for key in keys}, "from_main_language": fallback}


READING = {
    "bit": "One column: 1 is a randomized 'yes', 0 a randomized 'no'. P(report 1 | true yes) "
    "= p, P(report 0 | true no) = q.",
    "index": "One column: the randomized answer's index into labels (from 0). The true answer "
    "is reported with probability p, each other answer with probability q.",
    "unary": "One column per answer (suffix = index into labels, from 0): the true answer's "
    "bit is 1 with probability p, every other bit is 1 with probability q.",
    "number": "One column (a number): the randomized cell, from 0 to cells - 1. The number's "
    "place on [low, high] picks a window of 'width' cells (its start moved up by one with the "
    "exact remainder's probability); the report is a cell of the window with probability p, "
    "another cell otherwise; with 'extras' (answers instead of a number: 'No answer', 'Not "
    "asked'), the e-th of them is a window of 'width' cells from cells + e width. "
    "'unbiased_values' gives each cell's unbiased value in the question's unit: their sum over "
    "the reports divided by the sum of their 'answered_values' is the unbiased mean (of those "
    "who gave a number; without extras, simply their average).",
    "sampled": "Two columns (check all that apply): '_option' is the index into labels (from "
    "0) of the option picked uniformly at random, '_ticked' whether its box was ticked (1) or "
    "not (0), kept with probability p and flipped otherwise. Its last 'extra_answers' labels "
    "('No answer', 'Not asked') are boxes too, each ticked alone by those who refused or "
    "were not asked.",
}
