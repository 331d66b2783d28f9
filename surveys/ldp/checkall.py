"""Check-all-that-apply questions: k options, any subset ticked, one epsilon for the whole set.

Mechanism ("sampled box", encoding "sampled"): the browser picks one of the k options
uniformly at random and reports its index j with its box (1 = ticked, 0 = not) randomized by
Warner's randomized response at the full epsilon. A report is the pair [j, y]; every report
has this shape whatever was ticked, and j, drawn independently of the answers, reveals nothing.

Privacy: P([j, y] | ticked set S) = (1/k) P(y | x_j), with P(y | x) = p if y = x and 1 - p
otherwise, p = e^eps / (1 + e^eps). Changing S into any S' changes that probability at most
by the factor p / (1 - p) = e^eps, whatever the number of boxes changed.

Why this mechanism rather than randomizing every box at epsilon / k (which also costs epsilon
for any change of the whole set): an option's share from n_j ~ n / k reports at epsilon has
variance about k (f (1 - f) + e^eps / (e^eps - 1)^2) / n, against
f (1 - f) + e^(eps/k) / (e^(eps/k) - 1)^2 per report for every box at epsilon / k, that is
about k^2 / eps^2 for small eps / k against k / eps^2 here. ``bench/bench_checkall.py --compare``
measures both; the sampled box has the smaller worst-case variance at every epsilon and k
measured but epsilon 4 with 3 options (docs/ldp.md, "Check all that apply").

Estimates, all from the 2k tallies (cell 2 j + y counts the reports [j, y]):

- option j's share: Warner's estimate and Feldman-Cousins interval from the n_j reports
  about it (given n_j, an exact Warner sample: respondents are independent and j is drawn
  independently of their answers);
- the mean number of options ticked, E|S|: every report's y is 1 with probability
  (1 - p) + (2 p - 1) E|S| / k, so the n reports together are a Warner sample about the
  share E|S| / k; its estimate and interval times k;
- with extra boxes after the m options ("No answer", "Not asked": a respondent who refused or
  was not asked ticks only that box), ``among_answered``: each option's share among those
  who answered, pi_j / D with D = 1 - (the extras' shares), and their mean number of options
  ticked, (pi_1 + ... + pi_m) / D, by Fieller's interval for a ratio whose numerator and
  denominator rest on disjoint reports.

Pure numpy; no Django. Guide: docs/ldp.md. Browser twin: ``randomize`` in
``static/surveys/ldp.js`` (encoding "sampled").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import specs
from .checks import check_n, check_probability, is_integer, read_only
from .estimation import Estimate
from .joint import Breakdown, Difference, breakdown
from .means import Mean
from .mechanisms import Mechanism, check_epsilon, randomized_response
from .pair_counts import PairCounts
from .planning import z_value
from .ratios import Among
from .score_intervals import score_interval, widen
from .words import gettext_noop

MAX_OPTIONS: int = 20
"""Most options a check-all question may have: each option's share rests on about n / k
reports, so beyond this few surveys could estimate them."""

MAX_BOXES: int = MAX_OPTIONS + 2
"""Most boxes a check-all question's reports are about: its options and its extra answers
("No answer", "Not asked"), each one more box."""

UNKNOWN_SHARE_ERROR: float = 0.5
"""Standard error given to an option no report was about yet (its share is unknown: the
largest standard deviation a share in [0, 1] can have)."""


class SampledBoxes:
    """The sampled-box mechanism for k options at ``epsilon`` (see the module docstring).

    It answers what the site asks of every mechanism (``surveys.ldp.Mechanism``): ``spec``,
    ``validate_report``, ``support`` (its tally cell, ``tally_size`` = 2 k of them),
    ``estimate`` (the options' shares), ``margin_of_error`` and ``n_for_margin``; and
    ``mean_count``."""

    name = "sampled"
    label = gettext_noop("Sampled box with randomized response")
    encoding = "sampled"

    def __init__(self, epsilon: float, k: int) -> None:
        if not (is_integer(k) and 2 <= k <= MAX_BOXES):
            raise ValueError(
                f"a check-all question has from 2 to {MAX_BOXES} boxes (its options and "
                f"extra answers), got {k!r}"
            )
        self.k = int(k)
        self.epsilon = check_epsilon(epsilon)
        self.box = randomized_response(self.epsilon)
        """Warner's randomized response of the sampled box."""
        self.p = self.q = self.box.p
        self.tally_size = 2 * self.k

    def __repr__(self) -> str:
        return f"<SampledBoxes epsilon={self.epsilon!r} k={self.k}>"

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon}

    def spec(self) -> dict[str, Any]:
        return {
            "mechanism": self.name, "encoding": self.encoding, "k": self.k,
            "epsilon": self.epsilon, "p": self.p, "q": self.q,
        }

    def exact_epsilon(self) -> float:
        """ln(p / (1 - p)): the largest ratio of a report's probabilities under two sets."""
        return math.log(self.box.p / self.box.p_bar)

    def report_probabilities(self, ticked: Any) -> np.ndarray:
        """(k, 2) array: P(report [j, y] | the boxes ``ticked``, k zeros and ones)."""
        x = np.asarray(ticked, dtype=int)
        keep = np.stack([np.where(x == 0, self.box.q, self.box.p_bar),  # P(y = 0 | x)
                         np.where(x == 1, self.box.p, self.box.q_bar)], axis=1)  # P(y = 1 | x)
        return keep / self.k

    # Reports -----------------------------------------------------------------------------

    def perturb(self, ticked: Any, rng: np.random.Generator) -> np.ndarray:
        """Reference randomizer: one report [j, y] per row of ``ticked`` ((n, k) of 0/1)."""
        x = np.asarray(ticked)
        if x.ndim != 2 or x.shape[1] != self.k or np.any((x != 0) & (x != 1)):
            raise ValueError(f"ticked boxes must be an (n, {self.k}) array of 0s and 1s")
        box = rng.integers(0, self.k, size=x.shape[0])
        truth = x[np.arange(x.shape[0]), box].astype(np.int64)
        keep = rng.random(x.shape[0]) < self.p
        return np.stack([box, np.where(keep, truth, 1 - truth)], axis=1)

    def validate_report(self, report: object) -> tuple[int, int]:
        """A report is [option index, 0 or 1]."""
        if (
            not isinstance(report, (list, tuple)) or len(report) != 2
            or not all(is_integer(value) for value in report)
            or not 0 <= report[0] < self.k or report[1] not in (0, 1)
        ):
            raise ValueError(
                f"a report must be a list of an option number from 0 to {self.k - 1} and the "
                f"number 0 or 1, got {report!r}"
            )
        return int(report[0]), int(report[1])

    def support(self, report: object) -> list[int]:
        """The tally cell of one report: 2 j + y."""
        box, ticked = self.validate_report(report)
        return [2 * box + ticked]

    def support_counts(self, reports: Any) -> np.ndarray:
        """Length-2k int array: how many of ``reports`` ((n, 2)) fall in each cell."""
        r = np.asarray(reports)
        if r.size == 0:
            return np.zeros(self.tally_size, dtype=np.int64)
        if (
            r.ndim != 2 or r.shape[1] != 2 or not np.issubdtype(r.dtype, np.integer)
            or r[:, 0].min() < 0 or r[:, 0].max() >= self.k
            or np.any((r[:, 1] != 0) & (r[:, 1] != 1))
        ):
            raise ValueError(f"reports must be an (n, 2) array of [option in [0, {self.k}), 0/1]")
        return np.bincount(2 * r[:, 0] + r[:, 1], minlength=self.tally_size).astype(np.int64)

    def _cells(self, counts: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(n_j, y_j): reports about each option, and how many of them say ticked."""
        n = check_n(n)
        c = np.asarray(counts)
        if (
            c.shape != (self.tally_size,) or c.dtype.kind not in "iu"
            or np.any(c < 0) or c.sum() != n
        ):
            raise ValueError(
                f"counts must be {self.tally_size} whole numbers >= 0 adding up to n = {n}"
            )
        cells = c.astype(np.int64).reshape(self.k, 2)
        return cells.sum(axis=1), cells[:, 1]

    # Estimates ---------------------------------------------------------------------------

    def estimate(self, counts: Any, n: int, confidence: float = 0.95) -> Estimate:
        """Each option's share: Warner's estimates from its own n_j reports (module
        docstring). ``counts`` holds the options' ticked reports y_j. An option no report was
        about has the whole [0, 1] as interval, 1/2 as estimate and ``UNKNOWN_SHARE_ERROR``."""
        about, ticked = self._cells(counts, n)
        fields: dict[str, list[float]] = {key: [] for key in (
            "headline", "ci_low", "ci_high", "small_sample", "proportions", "std_errors",
        )}
        for n_j, y_j in zip(about.tolist(), ticked.tolist(), strict=True):
            one = self.box.estimate([n_j - y_j, y_j], n_j, confidence)
            known = n_j > 0
            fields["headline"].append(one.headline[1] if known else 0.5)
            fields["ci_low"].append(one.ci_low[1])
            fields["ci_high"].append(one.ci_high[1])
            fields["small_sample"].append(one.small_sample[1])
            fields["proportions"].append(one.proportions[1] if known else 0.5)
            fields["std_errors"].append(one.std_errors[1] if known else UNKNOWN_SHARE_ERROR)
        arrays = {key: np.array(values) for key, values in fields.items()}
        headline = arrays["headline"]
        return Estimate(
            n=check_n(n),
            counts=read_only(ticked),
            headline=read_only(headline),
            ci_low=read_only(arrays["ci_low"]),
            ci_high=read_only(arrays["ci_high"]),
            small_sample=read_only(arrays["small_sample"].astype(bool)),
            proportions=read_only(arrays["proportions"]),
            counts_estimate=read_only(n * arrays["proportions"]),
            std_errors=read_only(arrays["std_errors"]),
            consistent=read_only(headline),
            mle=read_only(headline),
            lr_interval=None,
        )

    def mean_count(self, counts: Any, n: int, confidence: float = 0.95) -> Mean:
        """The mean number of options ticked: k times Warner's estimate and Feldman-Cousins
        interval for the share of reports' boxes ticked (module docstring). It counts every
        box: for a question with extra boxes ("No answer", "Not asked"), which are no options,
        ``among_answered`` gives the mean over its options among those who answered."""
        _, ticked = self._cells(counts, n)
        ones = int(ticked.sum())
        one = self.box.estimate([n - ones, ones], n, confidence)
        scale = self.k
        return Mean(
            estimate=float(scale * one.headline[1]),
            ci_low=float(scale * one.ci_low[1]),
            ci_high=float(scale * one.ci_high[1]),
            unbiased=float(scale * one.proportions[1]),
            std_error=float(scale * one.std_errors[1]),
        )

    def among_answered(self, counts: Any, n: int, options: int, confidence: float = 0.95) -> Among:
        """The first ``options`` boxes' shares among respondents who answered (the other
        boxes are extra answers, "No answer" and "Not asked", each ticked alone by those who
        gave it), and their mean number of options ticked (``Among.mean_score``, 0 to
        ``options``). Without reports: NaN estimates, intervals [0, 1] (the mean's [0,
        ``options``]).

        With c = 2 p - 1 and Warner's unbiased share f = (Y / n_a - (1 - p)) / c of a box
        from its n_a reports, Y of them ticked: option j's share among those who answered is
        theta_j = pi_j / D, D = 1 - (the extras' shares); the mean is m t with
        t = ((pi_1 + ... + pi_m) / m) / D, whose numerator is the share of the options' boxes
        ticked, a Warner share from all the reports about an option (any of the m, drawn
        uniformly). Numerator and denominator rest on disjoint reports, so given the n_a
        they are independent, and Fieller's interval is every t in [0, 1] with

            n (f_a - t D_hat)^2 <= z^2 n (Var(f_a | t) + t^2 Var(D_hat)),

        Var(f_a | t) = w (1 - w) / (n_a c^2) at w = (1 - p) + c t D_fit, the numerator's
        variance when the ratio is t (as a score test: Wilson's interval when nothing is
        randomized), and Var(D_hat) the extras' Warner variances at their fitted shares;
        D_fit = 1 - (the extras' shares clipped to [0, 1]), within [0, 1]
        (``score_intervals.score_interval``: Feldman and Cousins' ordering near 0 and 1, [0, 1]
        when D_hat is not above 0), with Yates' continuity correction: the low end is found
        for f_a less half a report, 0.5 / (n_a c), the high end for f_a plus it. The
        headline is the options' clipped shares over D_fit, within [0, 1] (NaN when D_fit is
        0), and the interval is widened to contain it. An option no report was about, or an extra
        answer none was, leaves its intervals [0, 1]."""
        m = int(options)
        if not 2 <= m < self.k:
            raise ValueError(f"options must be from 2 to k - 1 = {self.k - 1}, got {options!r}")
        about, ticked = self._cells(counts, n)
        z = z_value(check_probability("confidence", confidence))
        if n == 0:
            nothing = np.full(m, np.nan)
            return Among(read_only(nothing), read_only(np.zeros(m)), read_only(np.ones(m)),
                         math.nan, Mean(math.nan, 0.0, float(m), math.nan, math.nan))
        # The numerators: each option's reports, then all of the options' reports together.
        n_a = np.append(about[:m], about[:m].sum()).astype(float)
        y_a = np.append(ticked[:m], ticked[:m].sum()).astype(float)
        n_e, y_e = about[m:].astype(float), ticked[m:].astype(float)
        known_e = bool(np.all(n_e > 0))
        a, c = 1 - self.p, 2 * self.p - 1
        with np.errstate(divide="ignore", invalid="ignore"):
            f_a = (y_a / np.maximum(n_a, 1) - a) / c
            f_e = np.where(n_e > 0, (y_e / np.maximum(n_e, 1) - a) / c, 0.0)
        fitted = float(np.clip(1 - np.clip(f_e, 0, 1).sum(), 0, 1))
        w_e = a + c * np.clip(f_e, 0, 1)
        d_variance = float(np.sum(n * w_e * (1 - w_e) / (np.maximum(n_e, 1) * c * c)))
        b = c * fitted
        per_report = n / (np.maximum(n_a, 1) * c * c)
        variance = np.stack([
            per_report * a * (1 - a), per_report * b * c, d_variance - per_report * b * b,
            np.zeros_like(per_report),
        ], axis=-1)
        total = 1 - float(f_e.sum()) if known_e else 0.0
        # Yates' continuity correction: the counts move by whole reports, some 10 or 20 a
        # box at n = 100, so each end is found for an estimate half a report further out.
        half = 0.5 / (np.maximum(n_a, 1) * c)
        scales = np.full(m + 1, total)
        low = score_interval(f_a - half, scales, variance, n, z)[0]
        high = score_interval(f_a + half, scales, variance, n, z)[1]
        unknown = n_a == 0
        low, high = np.where(unknown, 0.0, low), np.where(unknown, 1.0, high)
        if known_e and fitted > 0:
            headline = np.clip(np.clip(f_a, 0, 1) / fitted, 0, 1)
            headline = np.where(unknown, np.nan, headline)
        else:
            headline = np.full(m + 1, np.nan)
        low, high = widen(low, high, headline)
        ratio = float(f_a[-1]) / total if total > 0 else math.nan
        at_ratio = float(variance[-1, :3] @ [1.0, ratio, ratio * ratio]) if total > 0 else math.nan
        mean = Mean(
            estimate=m * float(headline[-1]), ci_low=m * float(low[-1]),
            ci_high=m * float(high[-1]), unbiased=m * ratio,
            std_error=m * math.sqrt(max(at_ratio, 0.0) / n) / total if total > 0 else math.nan,
        )
        return Among(read_only(headline[:m]), read_only(low[:m]), read_only(high[:m]),
                     fitted if known_e else math.nan, mean)

    # Planning ----------------------------------------------------------------------------

    def variance_times_n(self, share: float | None) -> float:
        """n times the variance of an option's share with n reports in all (about n / k
        about it): k times Warner's, at ``share`` (None: the worst case)."""
        return self.k * self.box.variance_times_n(share)

    def margin_of_error(
        self, n: int, confidence: float = 0.95, share: float | None = None
    ) -> float:
        """Half-width of the 95% interval of one option's share with n respondents (each
        option is about n / k of their reports); n = 0 gives infinity."""
        n = check_n(n)
        if n == 0:
            return math.inf
        return z_value(confidence) * math.sqrt(self.variance_times_n(share) / n)

    n_for_margin = Mechanism.n_for_margin  # the same search, on this mechanism's margin


@dataclass(frozen=True)
class OptionBreakdowns:
    """A check-all question broken down by the groups of a one-answer question.

    ``options[j]``: the breakdown of "option j is ticked" (a yes/no question randomized by
    Warner at epsilon, ``SampledBoxes.box``) by the groups, from the reports about option j:
    its ``share[g, 1]`` is the share of group g who tick option j. ``ticked``: the same from
    every report, the sampled box whatever its option, whose ``share[g, 1]`` times k is the
    mean number of options ticked in group g; its group sizes and association test use all
    the reports."""

    options: list[Breakdown]
    ticked: Breakdown

    def __getattr__(self, name: str) -> Any:
        """What ``joint.Breakdown`` holds, for the pages: the groups' sizes, shares, intervals
        and association test from ``ticked``; ``share``, ``joint`` and their intervals with
        a column per option (the "ticked" column of its breakdown)."""
        if name in ("n", "group_share", "group_ci_low", "group_ci_high", "group_size",
                    "small_group", "association"):
            return getattr(self.ticked, name)
        if name in ("share", "share_ci_low", "share_ci_high", "joint", "joint_ci_low",
                    "joint_ci_high"):
            return np.stack([getattr(option, name)[:, 1] for option in self.options], axis=1)
        raise AttributeError(name)

    def difference(self, group_1: int, group_2: int) -> Difference:
        """Each option's share in ``group_1`` minus in ``group_2``, with its interval."""
        found = [option.difference(group_1, group_2) for option in self.options]
        return Difference(group_1, group_2, *(
            read_only(np.array([getattr(one, name)[1] for one in found]))
            for name in ("estimate", "ci_low", "ci_high")
        ))


def option_breakdowns(
    group: Mechanism, mechanism: SampledBoxes, counts: PairCounts
) -> OptionBreakdowns:
    """Each option's share within the groups of ``group`` (rows of ``counts``, whose columns
    are the check-all question's 2k tally cells, ``joint.pair_counts``).

    The respondents whose browser picked option j are a random part of all respondents,
    drawn independently of their answers, so their pairs (group report, box of option j)
    are an exact sample for the yes/no breakdown of ``joint.breakdown``, with its estimates,
    intervals and their measured coverage (docs/ldp.md, "Breakdowns")."""
    if counts.joint.shape[1] != mechanism.tally_size:
        raise ValueError(f"counts must have the {mechanism.tally_size} cells as columns")

    def part(table: np.ndarray, cells: np.ndarray) -> PairCounts:
        return PairCounts(int(table.sum()), table, table.sum(axis=1), cells)

    tables = counts.joint.reshape(-1, mechanism.k, 2)
    cells = counts.b.reshape(mechanism.k, 2)
    return OptionBreakdowns(
        options=[
            breakdown(group, mechanism.box, part(tables[:, j], cells[j]))
            for j in range(mechanism.k)
        ],
        ticked=breakdown(group, mechanism.box, part(tables.sum(axis=1), cells.sum(axis=0))),
    )


def sampled_boxes(epsilon: float, k: int) -> SampledBoxes:
    """The check-all mechanism: one option sampled, its box randomized at ``epsilon``."""
    return SampledBoxes(epsilon, k)


specs.register("sampled", sampled_boxes, ("epsilon", "k"))


def every_box_variance(epsilon: float, k: int, share: float) -> float:
    """n times the variance of an option's share when every box is randomized by Warner at
    epsilon / k (the alternative ``bench/bench_checkall.py --compare`` measures)."""
    return float(randomized_response(epsilon / k).variance(np.array([1 - share, share]), 1)[1])


def test_vectors() -> list[dict[str, Any]]:
    """Shared test vectors: spec and P(report [j, y] | ticked set) for a few sets."""
    vectors = []
    for epsilon, k in ((0.5, 3), (1.0, 5), (2.0, 8), (4.0, 12)):
        mechanism = sampled_boxes(epsilon, k)
        sets = [[0] * k, [1] * k, [int(c % 3 == 0) for c in range(k)]]
        vectors.append({
            "spec": mechanism.spec(),
            "cases": [
                {"ticked": ticked, "probabilities": mechanism.report_probabilities(ticked).tolist()}
                for ticked in sets
            ],
        })
    return vectors

