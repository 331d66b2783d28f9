"""Check-all-that-apply questions: which mechanism, and the bias and coverage of its estimates
(surveys/ldp/checkall.py; not a test).

Run: .venv/bin/python bench/bench_checkall.py [--studies S] [--k K] [--only EPSILON N]

Part 1, the choice of mechanism: the variance of one option's estimated share, times n, for
(a) every box randomized by Warner's randomized response at epsilon / k and (b) the sampled
box (one option picked at random, its box randomized at epsilon), at epsilon 0.5, 1, 2, 4 and
k = 3, 5, 8, 12 options, with every option's true share 1/2 (the worst case of both) and
0.1. Measured over S simulated studies of n = 1,000 respondents (the reports' counts drawn
from their exact laws: Binomial for (a), Multinomial over the 2k cells for (b)); the ratio
(b) / (a) below 1 means the sampled box is more precise.

Part 2, the sampled box's estimates: K options with true shares spread from 2% to 98%,
epsilon 0.5, 1, 2, 4 and n 100 to 100,000, S studies per cell. Respondents are iid and
their boxes independent; a report's law depends only on the option shares, so the 2K cells'
counts are Multinomial(n, cell probabilities), exactly. Prints, for each option's share and
for the mean number of options ticked, the bias of the headline (with its Monte-Carlo error)
and the coverage of the 95% interval (with its binomial standard error). ``LOW`` flags a
coverage below 0.93, ``HIGH`` above 0.97 with n >= 1,000.

Part 3, breakdowns (``ldp.checkall.option_breakdowns``): a yes/no grouping question (30% in
group "yes") and 3 options whose shares differ between the groups, both at the same
epsilon, G studies per cell; the (group report, cell) counts are Multinomial from their
exact law. Prints the coverage of each option's share within each group, of each option's
difference between the groups, and of each group's mean number ticked.

Part 4 (``--among`` runs only this part), shares among those who answered
(``SampledBoxes.among_answered``): a check-all question of 4 options with a refusal box (10%
refuse) and a conditional one asked of 40% (the rest "Not asked"), at epsilon 0.5, 1, 2, 4
and n 100 to 100,000, S studies per cell. A respondent who refuses or is not asked ticks
only that box; those who answer tick each option on its own with its share among them. The
2K cells' counts are Multinomial, exactly (each report is about one box). Prints each
option's coverage and the mean count's (among those who answered), the largest absolute
bias of a headline share and the mean count's bias, each with its Monte-Carlo error.

``--only EPSILON N`` runs Parts 2 and 4 at that one cell (to measure it with many more
studies). Fixed seed; a few minutes on one core.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp import checkall, joint  # noqa: E402, F401 (ldp.checkall, ldp.joint)

EPSILONS = (0.5, 1.0, 2.0, 4.0)
SIZES = (100, 1000, 10_000, 100_000)
OPTION_COUNTS = (3, 5, 8, 12)
SEED = 20261126


def every_box_shares(epsilon: float, k: int, share: float, n: int, studies: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Option 0's unbiased share in each study, every box randomized at epsilon / k."""
    box = ldp.randomized_response(epsilon / k)
    ones = rng.binomial(n, (1 - box.p) + (2 * box.p - 1) * share, size=studies)
    return (ones / n - (1 - box.p)) / (2 * box.p - 1)


def cell_probabilities(mechanism: ldp.SampledBoxes, shares: np.ndarray) -> np.ndarray:
    """P(report [j, y]) for iid respondents ticking option j with probability shares[j]."""
    rate = (1 - mechanism.p) + (2 * mechanism.p - 1) * shares
    return np.stack([1 - rate, rate], axis=1).ravel() / mechanism.k


def sampled_shares(epsilon: float, k: int, share: float, n: int, studies: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Option 0's unbiased share in each study, with the sampled box."""
    mechanism = ldp.sampled_boxes(epsilon, k)
    counts = rng.multinomial(n, cell_probabilities(mechanism, np.full(k, share)), size=studies)
    about, ones = counts[:, 0] + counts[:, 1], counts[:, 1]
    about = np.maximum(about, 1)
    return (ones / about - (1 - mechanism.p)) / (2 * mechanism.p - 1)


def compare(studies: int, rng: np.random.Generator) -> None:
    n = 1000
    print(f"Part 1: n x variance of one option's share, n = {n:,}, {studies:,} studies per cell")
    print("share  eps   k   every box at eps/k   sampled box   ratio sampled/every")
    for share in (0.5, 0.1):
        for epsilon in EPSILONS:
            for k in OPTION_COUNTS:
                every = n * every_box_shares(epsilon, k, share, n, studies, rng).var()
                sampled = n * sampled_shares(epsilon, k, share, n, studies, rng).var()
                # relative Monte-Carlo error of a variance: about sqrt(2 / studies)
                print(f"{share:5.1f} {epsilon:4g} {k:3d} {every:20.1f} {sampled:13.1f} "
                      f"{sampled / every:11.2f} ({'sampled' if sampled < every else 'every box'})")
    print(f"(each variance within about {100 * np.sqrt(2 / studies):.0f}% of its true value)")


def intervals_by_size(box: ldp.BinaryMechanism, ones: np.ndarray, about: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Feldman-Cousins intervals of Warner's share for counts ``ones`` out of ``about``
    reports, one call per distinct number of reports."""
    low, high = np.zeros(ones.shape), np.ones(ones.shape)
    for size in np.unique(about):
        if size == 0:
            continue
        at = about == size
        low[at], high[at] = box.category_intervals(1, ones[at], int(size))
    return low, high


def coverage(studies: int, k: int, rng: np.random.Generator, epsilons=EPSILONS,
             sizes=SIZES) -> None:
    shares = np.linspace(0.02, 0.98, k)
    print(f"\nPart 2: sampled box, {k} options with true shares "
          f"{', '.join(f'{s:.2f}' for s in shares)}; mean count {shares.sum():.2f}; "
          f"{studies:,} studies per cell")
    print("eps       n   worst share coverage (option)   share coverages"
          "                      mean-count bias (MC err)   coverage")
    flags = 0
    for epsilon in epsilons:
        mechanism = ldp.sampled_boxes(epsilon, k)
        box = mechanism.box
        for n in sizes:
            counts = rng.multinomial(n, cell_probabilities(mechanism, shares), size=studies)
            cells = counts.reshape(studies, k, 2)
            about, ones = cells.sum(axis=2), cells[:, :, 1]
            covered = np.empty((studies, k), dtype=bool)
            for j in range(k):
                low, high = intervals_by_size(box, ones[:, j], about[:, j])
                covered[:, j] = (low <= shares[j]) & (shares[j] <= high)
            share_coverage = covered.mean(axis=0)
            total_ones = ones.sum(axis=1)
            low, high = box.category_intervals(1, total_ones, n)
            mean_share = shares.sum() / k
            unbiased = k * (total_ones / n - (1 - box.p)) / (2 * box.p - 1)
            headline = k * np.clip(unbiased / k, 0, 1)
            bias, bias_error = headline.mean() - shares.sum(), headline.std() / np.sqrt(studies)
            mean_coverage = ((low <= mean_share) & (mean_share <= high)).mean()
            row_flags = []
            for found in (*share_coverage, mean_coverage):
                if found < 0.93:
                    row_flags.append("LOW")
                elif found > 0.97 and n >= 1000:
                    row_flags.append("HIGH")
            flags += len(row_flags)
            worst = int(share_coverage.argmin())
            error = np.sqrt(0.95 * 0.05 / studies)
            print(f"{epsilon:4g} {n:7,d}   {share_coverage[worst]:.3f} ({shares[worst]:.2f})"
                  f"            {' '.join(f'{c:.3f}' for c in share_coverage)}"
                  f"   {bias:+.4f} ({bias_error:.4f})          {mean_coverage:.3f} "
                  f"+-{error:.3f} {' '.join(sorted(set(row_flags)))}")
    print(f"\n{flags} flagged coverages")


def bias_of_shares(studies: int, k: int, rng: np.random.Generator) -> None:
    """Bias of each option's headline share (clipped Warner estimate), n = 1,000."""
    shares = np.linspace(0.02, 0.98, k)
    print(f"\nBias of each option's headline share (n = 1,000, {studies:,} studies; MC error)")
    for epsilon in EPSILONS:
        mechanism = ldp.sampled_boxes(epsilon, k)
        counts = rng.multinomial(1000, cell_probabilities(mechanism, shares), size=studies)
        headlines = np.array([mechanism.estimate(c, 1000).headline for c in counts])
        bias = headlines.mean(axis=0) - shares
        error = headlines.std(axis=0) / np.sqrt(studies)
        print(f"eps {epsilon:g}: " + "  ".join(
            f"{s:.2f}: {b:+.4f} ({e:.4f})" for s, b, e in zip(shares, bias, error, strict=True)))


GROUP_TRUTH = np.array([[0.6, 0.5, 0.1], [0.2, 0.5, 0.8]])
"""Each option's share within the groups "no" (row 0) and "yes" (row 1) of Part 3."""


def group_coverage(studies: int, rng: np.random.Generator) -> None:
    k, in_yes = GROUP_TRUTH.shape[1], 0.3
    print(f"\nPart 3: breakdowns by a yes/no group ({in_yes:.0%} yes), option shares "
          f"{GROUP_TRUTH.tolist()} by group; {studies:,} studies per cell")
    print("eps      n   shares in groups: lowest / mean coverage   differences: lowest / mean"
          "   group mean counts: coverages")
    for epsilon in (0.5, 1.0, 2.0, 4.0):
        group_mechanism, mechanism = ldp.randomized_response(epsilon), ldp.sampled_boxes(epsilon, k)
        report_law = group_mechanism.matrix()  # [report, true group]
        law = sum(  # P(group report r, cell c) = sum over true groups g
            share * np.outer(report_law[:, g], cell_probabilities(mechanism, GROUP_TRUTH[g]))
            for g, share in enumerate((1 - in_yes, in_yes))
        )
        for n in (1000, 10_000):
            tables = rng.multinomial(n, law.ravel(), size=studies).reshape(studies, 2, 2 * k)
            shares, differences, means = [], [], []
            for table in tables:
                counts = ldp.joint.PairCounts(n, table, table.sum(axis=1), table.sum(axis=0))
                found = ldp.checkall.option_breakdowns(group_mechanism, mechanism, counts)
                shares.append((found.share_ci_low <= GROUP_TRUTH)
                              & (GROUP_TRUTH <= found.share_ci_high))
                difference = found.difference(1, 0)
                true_difference = GROUP_TRUTH[1] - GROUP_TRUTH[0]
                differences.append((difference.ci_low <= true_difference)
                                   & (true_difference <= difference.ci_high))
                low, high = found.ticked.share_ci_low[:, 1], found.ticked.share_ci_high[:, 1]
                mean_share = GROUP_TRUTH.sum(axis=1) / k
                means.append((low <= mean_share) & (mean_share <= high))
            share_coverage = np.mean(shares, axis=0)
            difference_coverage = np.mean(differences, axis=0)
            print(f"{epsilon:4g} {n:7,d}   {share_coverage.min():.3f} / {share_coverage.mean():.3f}"
                  f"                        {difference_coverage.min():.3f} / "
                  f"{difference_coverage.mean():.3f}           "
                  f"{' '.join(f'{c:.3f}' for c in np.mean(means, axis=0))}")


AMONG_SHARES = np.array([0.05, 0.25, 0.5, 0.85])
"""Part 4: each option's true share among those who answered (mean count 1.65)."""
AMONG_CASES = {
    # name: the extra boxes' true shares of all respondents
    "check-all, 4 options + refusal (10% refuse)": np.array([0.10]),
    "conditional check-all asked of 40%": np.array([0.60]),
}


def among_coverage(studies: int, rng: np.random.Generator, epsilons=EPSILONS,
                   sizes=SIZES) -> None:
    m = AMONG_SHARES.size
    true_mean = AMONG_SHARES.sum()
    error = np.sqrt(0.95 * 0.05 / studies)
    print(f"\nPart 4: shares among those who answered, {m} options with true shares "
          f"{', '.join(f'{s:.2f}' for s in AMONG_SHARES)} among them (mean count "
          f"{true_mean:.2f}); {studies:,} studies per cell; coverage MC error +-{error:.3f}")
    flags = 0
    for name, extras in AMONG_CASES.items():
        print(f"\n{name}")
        print("eps       n   option coverages          mean-count coverage   "
              "max |share bias| (MC err)   mean-count bias (MC err)")
        answered = 1 - extras.sum()
        shares = np.concatenate([answered * AMONG_SHARES, extras])
        for epsilon in epsilons:
            mechanism = ldp.sampled_boxes(epsilon, shares.size)
            law = cell_probabilities(mechanism, shares)
            for n in sizes:
                counts = rng.multinomial(n, law, size=studies)
                found = [mechanism.among_answered(row, n, m) for row in counts]
                low = np.array([f.ci_low for f in found])
                high = np.array([f.ci_high for f in found])
                estimate = np.array([f.estimate for f in found])
                share_coverage = ((low <= AMONG_SHARES) & (AMONG_SHARES <= high)).mean(axis=0)
                means = [f.mean_score for f in found]
                mean_coverage = np.mean([mean.ci_low <= true_mean <= mean.ci_high
                                         for mean in means])
                mean_estimate = np.array([mean.estimate for mean in means])
                # A headline is NaN when the answered share is estimated 0: left out here.
                bias = np.nanmean(estimate, axis=0) - AMONG_SHARES
                bias_error = np.nanstd(estimate, axis=0) / np.sqrt(studies)
                worst = int(np.abs(bias).argmax())
                mean_bias = np.nanmean(mean_estimate) - true_mean
                mean_error = np.nanstd(mean_estimate) / np.sqrt(studies)
                row_flags = [
                    "LOW" if found < 0.93 else "HIGH"
                    for found in (*share_coverage, mean_coverage)
                    if found < 0.93 or (found > 0.97 and n >= 1000)
                ]
                flags += len(row_flags)
                print(f"{epsilon:4g} {n:7,d}   {' '.join(f'{c:.3f}' for c in share_coverage)}"
                      f"   {mean_coverage:.3f}                 {bias[worst]:+.4f} "
                      f"({bias_error[worst]:.4f})          {mean_bias:+.4f} ({mean_error:.4f}) "
                      f"{' '.join(sorted(set(row_flags)))}")
    print(f"\n{flags} flagged coverages")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--skip-compare", action="store_true")
    parser.add_argument("--group-studies", type=int, default=1000)
    parser.add_argument("--among", action="store_true", help="only Part 4")
    parser.add_argument("--only", nargs=2, type=float, metavar=("EPSILON", "N"),
                        help="only Parts 2 and 4, at this one cell")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    start = time.time()
    if args.only:
        cell = {"epsilons": (args.only[0],), "sizes": (int(args.only[1]),)}
        coverage(args.studies, args.k, rng, **cell)
        among_coverage(args.studies, rng, **cell)
        print(f"\n{time.time() - start:.0f} s")
        return
    if args.among:
        among_coverage(args.studies, rng)
        print(f"\n{time.time() - start:.0f} s")
        return
    if not args.skip_compare:
        compare(max(args.studies, 2000), rng)
    coverage(args.studies, args.k, rng)
    bias_of_shares(args.studies, args.k, rng)
    group_coverage(args.group_studies, rng)
    among_coverage(args.studies, rng)
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
