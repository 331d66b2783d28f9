"""Breakdowns: the answers to one question within the groups of another, from randomized
reports only.

``counts.pair_counts`` keeps the counts of two questions' reports taken together (``PairTally``) up
to date: each view folds in only the submissions that arrived since the last one, so a view
after the first reads one row, and a busy survey's view reads a handful of new submissions.
``breakdown_results`` turns them into what the breakdown page, its JSON and its CSV show; the
mathematics is in ``surveys.ldp.joint``.

Three-way breakdowns (a question by one grouping question, within each group of a second:
``stratified_results``, mathematics in ``surveys.ldp.strata``) keep their counts the same
way, one ``TripleTally`` per (question, group, stratum) folded forward by ``triple_counts``
(both in ``surveys.queries.counts``).
Kept rather than recomputed: computing them on each view would read three reports of every
submission each time (the database extracts them, ``ReportOf``, but a million submissions
still take seconds), while folding reads only the new ones, and a view with nothing new
reads only the cache. Keyed by the ordered triple, not the set: the rows of the counts are
the pairs of the two grouping questions' reports, so each order is its own table.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from django.utils.translation import gettext

from surveys import ldp
from surveys.helpers import numbers
from surveys.ldp import checkall, joint, scores, strata
from surveys.ldp import numbers as number_means
from surveys.models import Question, Survey
from surveys.queries.contracts import (
    Association,
    BreakdownQuestion,
    BreakdownResults,
    Group,
    MeanScore,
    StratifiedResults,
)
from surveys.queries.counts import pair_counts, triple_counts
from surveys.queries.results import cached, in_words

SIGNIFICANCE = 0.05
"""The association test's p-value below which the page speaks of evidence of a difference."""


def breakdown_results(
    survey: Survey,
    question: Question,
    group: Question,
    compare: tuple[int, int] | None = None,
) -> BreakdownResults:
    """What the breakdown of ``question`` by ``group`` shows, as JSON-ready data (shares are
    proportions in [0, 1]; NaN becomes None): per group its estimated size and share of
    respondents and the share of each answer within it, each with its 95% interval; the
    difference between the groups ``compare`` (default: ``largest_groups``) with intervals; the
    association test. Both questions belong to the opened ``survey`` and differ.

    Like the dashboard's, the results are cached (``results.cached``: recomputed at most once
    per refresh interval while responses arrive) under their ``snapshot``, which names the
    questions and groups and the responses counted, and also keys the page's cached fragment.
    A view with nothing to recompute reads the cache only: not even the pair's counts, which
    are folded forward when it recomputes."""
    compared = "-".join(map(str, compare or ()))

    return cached(
        f"breakdown-{question.pk}-{group.pk}-{compared}",
        survey,
        lambda: _computed(survey, question, group, compare, pair_counts(survey, group, question)),
    ).value


def _computed(
    survey: Survey,
    question: Question,
    group: Question,
    compare: tuple[int, int] | None,
    counts: joint.PairCounts,
) -> BreakdownResults:
    positions = {q.pk: position for position, q in enumerate(survey.ordered_questions(), 1)}
    mechanism = question.mechanism()
    number = isinstance(mechanism, ldp.NumberWindow)
    found: Any
    if number:  # a number has no answers to share out: its mean within each group
        found = number_means.number_breakdown(group.mechanism(), mechanism, counts)
    elif isinstance(mechanism, ldp.SampledBoxes):
        found = checkall.option_breakdowns(group.mechanism(), mechanism, counts)
    else:
        found = joint.breakdown(group.mechanism(), mechanism, counts)
    group_labels, answer_labels = group.all_labels(), [] if number else question.all_labels()
    if compare is None:
        compare = largest_groups(found.group_share)
    difference = found.difference(*compare)
    truth = _truth_within_groups(group, question)
    association = found.association
    # A mean score is over a scale's points: none where the question has extra answers.
    scored = question.question_kind.scored and not question.extra_answers()
    means = scores.group_means(found, counts) if scored else None
    return {
        "survey": {"id": survey.pk, "title": survey.title, "status": survey.status},
        "n": counts.n,
        "question": _describe(question, positions[question.pk]),
        "by": _describe(group, positions[group.pk]),
        "groups": [
            {
                "index": g,
                "label": group_labels[g],
                "size": _number(found.group_size[g]),
                "share": _number(found.group_share[g]),
                "ci_low": _number(found.group_ci_low[g]),
                "ci_high": _number(found.group_ci_high[g]),
                "small": bool(found.small_group[g]),
                "answers": [
                    {
                        "index": a,
                        "label": answer_labels[a],
                        "share": _number(found.share[g, a]),
                        "ci_low": _number(found.share_ci_low[g, a]),
                        "ci_high": _number(found.share_ci_high[g, a]),
                        "joint": _number(found.joint[g, a]),
                        "joint_ci_low": _number(found.joint_ci_low[g, a]),
                        "joint_ci_high": _number(found.joint_ci_high[g, a]),
                        "truth": None if truth is None else float(truth[g, a]),
                    }
                    for a in range(len(answer_labels))
                ],
                "mean_score": None if means is None else _mean(
                    means.estimate[g], means.ci_low[g], means.ci_high[g]
                ),
                "mean": None if not number else _mean(
                    found.means.estimate[g], found.means.ci_low[g], found.means.ci_high[g]
                ),
            }
            for g in range(len(group_labels))
        ],
        "difference": {
            "groups": list(compare),
            "labels": [group_labels[g] for g in compare],
            "answers": [
                {
                    "index": a,
                    "label": answer_labels[a],
                    "estimate": _number(difference.estimate[a]),
                    "ci_low": _number(difference.ci_low[a]),
                    "ci_high": _number(difference.ci_high[a]),
                }
                for a in range(len(answer_labels))
            ],
            "mean_score": None if means is None else _mean(*means.difference(*compare)),
            "mean": None if not number else _mean(*found.means.difference(*compare)),
        },
        "association": _association(association),
        "methods": in_words(METHODS),
        "number": number_unit(mechanism) if number else None,
    }


def _association(association: joint.Association) -> Association:
    return {
        "statistic": _number(association.statistic),
        "df": association.df,
        "p_value": _number(association.p_value),
        "evidence": bool(association.p_value < SIGNIFICANCE),
        "summary": association_summary(association.p_value),
    }


def number_unit(mechanism: ldp.NumberWindow) -> dict[str, Any]:
    """What the page needs to write a number question's means in its unit."""
    return {"low": mechanism.low, "high": mechanism.high, "decimals": mechanism.decimals}


METHODS = {
    "joint": joint.JOINT_DESCRIPTION,
    "share_interval": joint.SHARE_INTERVAL_DESCRIPTION,
    "difference_interval": joint.DIFFERENCE_INTERVAL_DESCRIPTION,
    "association": joint.ASSOCIATION_DESCRIPTION,
    "mean_score": scores.GROUP_MEAN_DESCRIPTION,
    "mean": number_means.GROUP_MEAN_DESCRIPTION,
}
"""How a breakdown's figures are made, one sentence each, for the pages and the JSON."""


def association_summary(p_value: float) -> str:
    """The association test in words."""
    if not np.isfinite(p_value):
        return gettext("No test yet: there are too few responses.")
    shown = {"p": numbers.p_value(p_value)}
    if p_value < SIGNIFICANCE:
        return gettext("Evidence that the answers differ between the groups (%(p)s).") % shown
    return gettext(
        "No evidence that the answers differ between the groups (%(p)s). That is not "
        "proof that they are the same: with more responses a difference may show."
    ) % shown


def largest_groups(group_share: np.ndarray) -> tuple[int, int]:
    """The two groups estimated largest, the later answer first ("Yes" minus "No"): a
    comparison that has respondents on both sides (groups unknown yet count as empty)."""
    first, second = sorted(np.argsort(-np.nan_to_num(group_share, nan=-1.0), kind="stable")[:2])
    return int(second), int(first)


def _describe(question: Question, position: int) -> BreakdownQuestion:
    mechanism = question.mechanism()
    return {
        "id": question.pk,
        "position": position,
        "text": question.text,
        "labels": question.all_labels(),
        "epsilon": mechanism.epsilon,
        "mechanism_label": gettext(mechanism.label),
    }


def _number(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _mean(estimate: float, ci_low: float, ci_high: float) -> MeanScore:
    return {"estimate": _number(estimate), "ci_low": _number(ci_low), "ci_high": _number(ci_high)}


def _truth_within_groups(group: Question, question: Question) -> np.ndarray | None:
    """For the simulated demo: the true share of each answer of ``question`` within each
    group of ``group`` (rows), from how the simulation drew them; None otherwise."""
    if group.simulated_truth is None or question.simulated_truth is None:
        return None
    given = question.simulated_given
    if given and given["question"] == group.pk:
        return np.asarray(given["shares"], dtype=float)
    if group.simulated_given is None and given is None:  # drawn independently
        groups = len(group.all_labels())
        return np.tile(np.asarray(question.simulated_truth, dtype=float), (groups, 1))
    reverse = group.simulated_given
    if reverse and reverse["question"] == question.pk and given is None:  # Bayes' rule
        both = np.asarray(reverse["shares"], dtype=float).T * question.simulated_truth
        return both / both.sum(axis=1, keepdims=True)
    return None


BREAKDOWN_COLUMNS = [
    "group_index", "group", "group_size", "group_share", "group_ci_low", "group_ci_high",
    "small_group", "answer_index", "answer", "share", "ci_low", "ci_high", "joint",
    "joint_ci_low", "joint_ci_high", "n", "group_mean_score", "group_mean_score_ci_low",
    "group_mean_score_ci_high", "group_mean", "group_mean_ci_low", "group_mean_ci_high",
]
"""``group_mean_score`` and its interval: a rating scale's mean score within the group, with
its 95% interval (repeated on each of the group's rows; empty for other kinds).
``group_mean`` and its interval: a number question's mean within the group, in its unit,
on one row per group whose answer columns are empty (a number has no answers to share
out); empty for other kinds."""


def breakdown_rows(results: BreakdownResults) -> Iterator[list[Any]]:
    """The breakdown CSV: a header, then one row per (group, answer)."""
    yield BREAKDOWN_COLUMNS
    for group in results["groups"]:
        if group["mean"] is not None:
            yield [
                group["index"], group["label"], group["size"], group["share"], group["ci_low"],
                group["ci_high"], group["small"], *[""] * 8, results["n"], "", "", "",
                *(group["mean"][key] for key in ("estimate", "ci_low", "ci_high")),
            ]
        for answer in group["answers"]:
            yield [
                group["index"], group["label"], group["size"], group["share"], group["ci_low"],
                group["ci_high"], group["small"], answer["index"], answer["label"],
                answer["share"], answer["ci_low"], answer["ci_high"], answer["joint"],
                answer["joint_ci_low"], answer["joint_ci_high"], results["n"],
                *(
                    ["", "", ""] if group["mean_score"] is None
                    else [group["mean_score"][key] for key in ("estimate", "ci_low", "ci_high")]
                ),
                "", "", "",
            ]


# Three-way breakdowns: within the groups of a second grouping question -----------------------


def stratified_results(
    survey: Survey, question: Question, group: Question, stratum: Question
) -> StratifiedResults:
    """What the breakdown of ``question`` by ``group`` within each group ("stratum") of
    ``stratum`` shows, as JSON-ready data: per stratum its estimated size and share, per group
    within it its size and the share of each answer with their 95% intervals, and the test
    of whether the answers differ between the groups within the stratum. The three
    questions belong to the opened ``survey`` and differ; the two grouping questions report
    one answer each (``strata.ONE_HOT``), and ``question`` is not a number or check-all one
    (the form refuses the others). Cached like ``breakdown_results``."""

    return cached(
        f"strata-{question.pk}-{group.pk}-within-{stratum.pk}",
        survey,
        lambda: _stratified(
            survey, question, group, stratum, triple_counts(survey, question, group, stratum)
        ),
    ).value


def _stratified(
    survey: Survey,
    question: Question,
    group: Question,
    stratum: Question,
    counts: joint.PairCounts,
) -> StratifiedResults:
    positions = {q.pk: position for position, q in enumerate(survey.ordered_questions(), 1)}
    found = strata.stratified_breakdown(
        group.mechanism(), stratum.mechanism(), question.mechanism(), counts
    )
    k_s = len(stratum.all_labels())
    # A rating scale's mean score within each (group, stratum): the groups of the combined
    # question, as in a two-way breakdown (none where the scale has extra answers).
    scored = question.question_kind.scored and not question.extra_answers()
    means = scores.group_means(found.combined, counts) if scored else None
    joint_cells = found.combined.joint
    joint_low, joint_high = found.combined.joint_ci_low, found.combined.joint_ci_high
    group_labels, answer_labels = group.all_labels(), question.all_labels()

    def groups(s: int) -> list[Group]:
        return [
            {
                "index": g,
                "label": group_labels[g],
                "size": _number(found.group_size[s, g]),
                "share": _number(found.group_share[s, g]),
                "ci_low": _number(found.group_ci_low[s, g]),
                "ci_high": _number(found.group_ci_high[s, g]),
                "small": bool(found.small_group[s, g]),
                "answers": [
                    {
                        "index": a,
                        "label": answer_labels[a],
                        "share": _number(found.share[s, g, a]),
                        "ci_low": _number(found.share_ci_low[s, g, a]),
                        "ci_high": _number(found.share_ci_high[s, g, a]),
                        "joint": _number(joint_cells[g * k_s + s, a]),
                        "joint_ci_low": _number(joint_low[g * k_s + s, a]),
                        "joint_ci_high": _number(joint_high[g * k_s + s, a]),
                        "truth": None,
                    }
                    for a in range(len(answer_labels))
                ],
                "mean_score": None if means is None else _mean(
                    means.estimate[g * k_s + s], means.ci_low[g * k_s + s],
                    means.ci_high[g * k_s + s],
                ),
                "mean": None,
            }
            for g in range(len(group_labels))
        ]

    return {
        "survey": {"id": survey.pk, "title": survey.title, "status": survey.status},
        "n": counts.n,
        "question": _describe(question, positions[question.pk]),
        "by": _describe(group, positions[group.pk]),
        "within": _describe(stratum, positions[stratum.pk]),
        "strata": [
            {
                "index": s,
                "label": label,
                "size": _number(found.stratum_size[s]),
                "share": _number(found.stratum_share[s]),
                "ci_low": _number(found.stratum_ci_low[s]),
                "ci_high": _number(found.stratum_ci_high[s]),
                "groups": groups(s),
                "association": _association(found.association[s]),
            }
            for s, label in enumerate(stratum.all_labels())
        ],
        "methods": in_words({**METHODS, "stratum_association": strata.ASSOCIATION_DESCRIPTION}),
    }


STRATIFIED_COLUMNS = [
    "stratum_index", "stratum", "stratum_size", "stratum_share", "stratum_ci_low",
    "stratum_ci_high", "stratum_statistic", "stratum_df", "stratum_p_value",
    *BREAKDOWN_COLUMNS[:15], "n",
]
"""The three-way breakdown CSV: one row per (stratum, group, answer). The ``stratum_``
columns describe the group of the second grouping question ("stratum") and its test of
whether the answers differ between the groups (``stratum_p_value``); the others are
``BREAKDOWN_COLUMNS``' within the stratum (``group_share``, ``joint``: shares of all
respondents)."""


def stratified_rows(results: StratifiedResults) -> Iterator[list[Any]]:
    """The three-way breakdown CSV: a header, then one row per (stratum, group, answer)."""
    yield STRATIFIED_COLUMNS
    for stratum in results["strata"]:
        test = stratum["association"]
        head = [
            stratum["index"], stratum["label"], stratum["size"], stratum["share"],
            stratum["ci_low"], stratum["ci_high"], test["statistic"], test["df"],
            test["p_value"],
        ]
        for group in stratum["groups"]:
            for answer in group["answers"]:
                yield [
                    *head, group["index"], group["label"], group["size"], group["share"],
                    group["ci_low"], group["ci_high"], group["small"], answer["index"],
                    answer["label"], answer["share"], answer["ci_low"], answer["ci_high"],
                    answer["joint"], answer["joint_ci_low"], answer["joint_ci_high"],
                    results["n"],
                ]
