"""Every figure of one question's results, from its mechanism and its counts: the one
definition that the results page, its JSON, the estimates file and the downloadable Python
script all call (``question_figures``), so that they cannot disagree.

Pure numpy and scipy; no Django. Guide: docs/ldp.md, "Every figure from one definition".

A question's figures are:

- ``estimate``: each category's share among all respondents, with its interval
  (``Mechanism.estimate``; for a number question its bins', then its extra answers').
- With extra answers ("No answer", "Not asked": the last categories), ``answered``: the
  share of respondents who gave one of the question's own answers, one minus the extra
  answers' headline shares. It is the only estimate of that share the results state, so
  that "an estimated 16.6% were asked" and a "Not asked" row of 83.4% always add up.
- ``among``: the own answers' shares among those who gave one (not for numbers, whose
  mean is among them): from the joint estimation with the question it is asked under where
  both are one-hot (``asked.among_asked``, from the pair counts of the two), else from the
  question's own reports (``among.among_answered``, ``SampledBoxes.among_answered``). Their
  headlines are ratios of maximum-likelihood shares, whose denominator is a fitted share,
  never stated: the stated share is ``answered``.
- ``mean``: a rating scale's mean score, a check-all question's mean number of options
  ticked, a number question's mean, each among those who answered where the question has
  extra answers; None for other kinds.
- ``anchor``: a validation anchor's check (``anchors.check_anchor``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .among import among_answered
from .anchors import AnchorCheck, check_anchor
from .asked import ONE_HOT, among_asked
from .checkall import SampledBoxes
from .estimation import Estimate
from .means import Mean
from .mechanisms import Mechanism
from .numbers import NumberWindow
from .pair_counts import PairCounts
from .planning import Z95
from .ratios import Among
from .scores import mean_score

FIGURE_COLUMNS = (
    "estimate", "ci_low", "ci_high", "unbiased", "std_error", "unbiased_ci_low",
    "unbiased_ci_high", "mle", "consistent", "mean", "mean_ci_low", "mean_ci_high",
    "mean_unbiased", "mean_std_error", "answered", "among_estimate", "among_ci_low",
    "among_ci_high", "anchor_p_value", "careless", "careless_ci_low", "careless_ci_high",
)
"""Every figure of a category's row (``QuestionFigures.rows``), named as in the estimates
file: the category's share (headline, 95% interval, unbiased with its standard error and
Wald interval, maximum likelihood, Norm-Sub), the question's mean (``mean``: score, number
ticked or number) with its interval, its unclipped value and standard error, the share who
answered, the category's share among them with its interval, and a validation anchor's
exact test and share of careless respondents with its interval."""

AMONG_OWN = "among"
"""``QuestionFigures.among_method`` of shares among those who answered from the question's
own reports."""
AMONG_ASKED = "among_asked"
"""``QuestionFigures.among_method`` of shares from the joint estimation with the condition."""


@dataclass(frozen=True)
class Condition:
    """What a conditional question is asked under: the ``parent`` question's mechanism, the
    parent's ``answers`` under which it is asked, and ``pairs``, the pair counts of the
    parent's reports (rows) and the question's (columns) from the respondents asked both."""

    parent: Mechanism
    answers: tuple[int, ...]
    pairs: PairCounts


@dataclass(frozen=True)
class Anchored:
    """A validation anchor: the index of the ``answer`` whose true share is ``known``."""

    answer: int
    known: float


@dataclass(frozen=True, eq=False)
class QuestionFigures:
    """Every figure of one question (module docstring). ``among_method`` names how ``among``
    was made (``AMONG_ASKED`` or ``AMONG_OWN``; None without ``among``)."""

    estimate: Estimate
    answered: float | None
    among: Among | None
    among_method: str | None
    mean: Mean | None
    anchor: AnchorCheck | None

    @property
    def unbiased_interval(self) -> tuple[np.ndarray, np.ndarray]:
        """The Wald interval of each unbiased share, unbiased +- 1.96 standard errors,
        clipped to [0, 1] (NaN for a number question's bins, which have no standard
        error)."""
        half = Z95 * self.estimate.std_errors
        return ((self.estimate.proportions - half).clip(0, 1),
                (self.estimate.proportions + half).clip(0, 1))

    def rows(self) -> list[dict[str, float]]:
        """One row per category with every figure, keyed by ``FIGURE_COLUMNS`` (NaN where
        there is none: the question-wide figures repeat on each row, the shares among those
        who answered are on the own answers' rows only): what the downloadable scripts
        write, under the names of the estimates file's columns."""
        estimate, among, mean, anchor = self.estimate, self.among, self.mean, self.anchor
        low, high = self.unbiased_interval
        nan = math.nan
        found = []
        for c in range(estimate.headline.size):
            mine = among is not None and c < among.estimate.size
            found.append({
                "estimate": estimate.headline[c], "ci_low": estimate.ci_low[c],
                "ci_high": estimate.ci_high[c], "unbiased": estimate.proportions[c],
                "std_error": estimate.std_errors[c], "unbiased_ci_low": low[c],
                "unbiased_ci_high": high[c], "mle": estimate.mle[c],
                "consistent": estimate.consistent[c],
                "mean": mean.estimate if mean else nan,
                "mean_ci_low": mean.ci_low if mean else nan,
                "mean_ci_high": mean.ci_high if mean else nan,
                "mean_unbiased": mean.unbiased if mean else nan,
                "mean_std_error": mean.std_error if mean else nan,
                "answered": nan if self.answered is None else self.answered,
                "among_estimate": among.estimate[c] if mine else nan,  # type: ignore[union-attr]
                "among_ci_low": among.ci_low[c] if mine else nan,  # type: ignore[union-attr]
                "among_ci_high": among.ci_high[c] if mine else nan,  # type: ignore[union-attr]
                "anchor_p_value": anchor.p_value if anchor else nan,
                "careless": anchor.careless if anchor else nan,
                "careless_ci_low": anchor.careless_low if anchor else nan,
                "careless_ci_high": anchor.careless_high if anchor else nan,
            })
        return [{key: float(value) for key, value in row.items()} for row in found]


def jointly(parent: Mechanism, mechanism: Mechanism) -> bool:
    """Whether a conditional question's shares among those asked come from the joint
    estimation with its ``parent`` (``asked.among_asked``): both one-hot."""
    return parent.encoding in ONE_HOT and mechanism.encoding in ONE_HOT


def question_figures(
    mechanism: Mechanism, counts: object, n: int, *, answers: int | None = None,
    scored: bool = False, condition: Condition | None = None,
    anchor: Anchored | None = None,
) -> QuestionFigures:
    """Every figure of a question from its support counts over n reports (see the module
    docstring). ``answers``: how many of its first categories are its own answers (the rest
    are extra answers; default all); ``scored``: its own answers are the points 1..answers
    of a rating scale; ``condition``: what a conditional question is asked under, whose pair
    counts make its shares among those asked where both are one-hot (``jointly``);
    ``anchor``: the known share of a validation anchor. Without reports (n = 0) every
    estimate is NaN and every interval the whole range."""
    k = mechanism.k
    own = k if answers is None else int(answers)
    if not 1 <= own <= k:
        raise ValueError(f"answers must be from 1 to k = {k}, got {answers!r}")
    estimate = mechanism.estimate(counts, n)
    extra = own < k
    number = isinstance(mechanism, NumberWindow)
    checkall = isinstance(mechanism, SampledBoxes)
    answered = (
        (float(1 - estimate.headline[own:].sum()) if n else math.nan) if extra else None
    )
    among, method = None, None
    if extra and not number:  # a number's mean is among those who gave one
        if condition is not None and jointly(condition.parent, mechanism):
            among, method = among_asked(
                condition.parent, mechanism, condition.pairs, condition.answers, own,
                scored=scored,
            ), AMONG_ASKED
        elif checkall:
            among, method = mechanism.among_answered(counts, n, own), AMONG_OWN
        else:
            among, method = among_answered(mechanism, counts, n, own, scored=scored), AMONG_OWN
    mean = None
    if number:
        mean = mechanism.mean(counts, n)
    elif among is not None and (scored or checkall):
        mean = among.mean_score
    elif scored:
        mean = mean_score(mechanism, counts, n)
    elif checkall and n:  # no mean count without reports
        mean = mechanism.mean_count(counts, n)
    found_anchor = (
        check_anchor(mechanism, estimate, anchor.answer, anchor.known) if anchor else None
    )
    return QuestionFigures(estimate, answered, among, method, mean, found_anchor)


__all__ = [
    "AMONG_ASKED", "AMONG_OWN", "FIGURE_COLUMNS", "Anchored", "Condition", "QuestionFigures",
    "jointly", "question_figures",
]
