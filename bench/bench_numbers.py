"""Number questions: which mechanism, and the bias and coverage of its mean (and the error
of its bins) (surveys/ldp/numbers.py; not a test).

Run: .venv/bin/python bench/bench_numbers.py [--studies S] [--bin-studies B] [--compare]

Part 1 (``--compare``, the choice of mechanism; docs/ldp.md, "Numbers"): with the number's
place t in [-1, 1] as in Wang et al. (ICDE 2019), the worst-case variance over t of one
report's unbiased value for Duchi et al.'s mechanism, the Piecewise mechanism (PM) and the
Hybrid mechanism (HM) from their closed forms, and for the site's grid mechanism (PM cut
into 64 cells, the window's width chosen for the mean) measured from its exact report law
over a fine grid of t; then, at n = 10,000, the error of the bins (total variation distance
between the estimated and the true shares of 5 bins, averaged over B studies) and the
variance of the mean for the grid mechanism at its width and at the Square Wave's (Li et al.,
SIGMOD 2020), whose wider window suits distributions. (Duchi's and HM's two-point reports
say nothing of the distribution beyond its mean, so they get no bins.)

Part 2, the grid mechanism's estimates: ages 18 to 99 drawn from a skewed distribution and
from the worst case for the variance (half at each end), epsilon 0.5, 1, 2, 4 and n 100 to
100,000, S studies per cell. Respondents are iid, so the 64 cells' counts are
Multinomial(n, the report law averaged over the true distribution), exactly. Prints the
bias of the mean's headline (with its Monte-Carlo error, in years) and the coverage of its
95% interval (with its binomial standard error): ``LOW`` flags a coverage below 0.93, or
``HIGH`` above 0.97, with n >= 1,000 (below 0.93 at any n); and the bins' mean total
variation error over B studies (no intervals: an estimate of the shape).

Part 3 (``--groups``), breakdowns (``ldp.numbers.group_means``): a yes/no grouping question
(30% in group "yes") at the same epsilon as the number; ages 18 to 40 uniform in group
"yes", 30 to 99 uniform in group "no"; G studies per cell, the (group report, cell) counts
Multinomial from their exact law. Prints the coverage of each group's mean and of the
difference between the groups.

Part 4 (``--extras``), the mean among those who gave a number (``NumberWindow`` with extra
answers, Fieller's interval): the skewed ages with 15% answering "Prefer not to say" (one
extra answer), and a conditional question asked of 40% of whom 10% skip it (two extra
answers: "No answer" 4%, "Not asked" 60%); S studies per cell, counts Multinomial from the
exact law. Prints bias, coverage and flags as part 2, and the mean interval width.

Fixed seed; a couple of minutes on one core.
"""

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp import joint, numbers  # noqa: E402, F401 (ldp.joint)

EPSILONS = (0.5, 1.0, 2.0, 4.0)
SIZES = (100, 1000, 10_000, 100_000)
SEED = 20261127
LOW, HIGH, EDGES = 18, 99, [30, 45, 60, 75]


def duchi(epsilon: float) -> float:
    """Worst-case variance of Duchi et al.'s report (at t = 0)."""
    return ((math.exp(epsilon) + 1) / (math.exp(epsilon) - 1)) ** 2


def piecewise(epsilon: float, t: float = 1.0) -> float:
    """PM's variance at t (worst at |t| = 1)."""
    half = math.exp(epsilon / 2)
    return t**2 / (half - 1) + (half + 3) / (3 * (half - 1) ** 2)


def hybrid(epsilon: float) -> float:
    """HM: PM with probability alpha = 1 - e^(-eps/2) (eps > 0.61), else Duchi; worst over t."""
    alpha = 1 - math.exp(-epsilon / 2) if epsilon > 0.61 else 0.0
    return max(
        alpha * piecewise(epsilon, t) + (1 - alpha) * (duchi(epsilon) - t**2) for t in (0.0, 1.0)
    )


def grid_variance(mechanism: ldp.NumberWindow) -> float:
    """Worst-case variance over t of the grid mechanism's unbiased value, on t in [-1, 1]."""
    values = mechanism.position_values()  # mean t in [0, 1] exactly
    steps = mechanism.steps
    worst = 0.0
    for i in range(steps + 1):
        law = mechanism.report_probabilities(i)
        worst = max(worst, law @ values**2 - (i / steps) ** 2)
    return 4 * worst  # t in [-1, 1] is 2 t - 1


def square_wave_width(epsilon: float, cells: int = numbers.CELLS) -> int:
    """The Square Wave's window (2 b of the output range 1 + 2 b) on the grid."""
    e = math.exp(epsilon)
    b = (epsilon * e - e + 1) / (2 * e * (e - 1 - epsilon))
    return max(1, min(cells - 2, round(cells * 2 * b / (1 + 2 * b))))


def truth_skewed() -> np.ndarray:
    """Shares of the ages 18..99: most young, a tail of older respondents."""
    ages = np.arange(LOW, HIGH + 1)
    weights = np.exp(-(ages - LOW) / 12.0) + 0.15 * np.exp(-((ages - 55) / 8.0) ** 2)
    return weights / weights.sum()


def truth_ends() -> np.ndarray:
    shares = np.zeros(HIGH - LOW + 1)
    shares[[0, -1]] = 0.5
    return shares


def report_law(mechanism: ldp.NumberWindow, shares: np.ndarray) -> np.ndarray:
    law = np.array([mechanism.report_probabilities(i) for i in range(mechanism.steps + 1)])
    return shares @ law


def true_bins(mechanism: ldp.NumberWindow, shares: np.ndarray) -> np.ndarray:
    ages = np.arange(LOW, HIGH + 1)
    which = np.searchsorted(mechanism.edges, ages, side="right")
    return np.bincount(which, weights=shares, minlength=mechanism.k)


def bins_error(mechanism, shares, n, studies, rng) -> float:
    law, truth = report_law(mechanism, shares), true_bins(mechanism, shares)
    counts = rng.multinomial(n, law, size=studies)
    return float(np.mean([
        0.5 * np.abs(mechanism.estimate(c, n).headline - truth).sum() for c in counts
    ]))


def compare(bin_studies: int, rng: np.random.Generator) -> None:
    print("Part 1: worst-case variance of one report's unbiased value, t in [-1, 1]")
    print(f"{'epsilon':>7} {'Duchi':>8} {'PM':>8} {'HM':>8} {'grid':>8} {'width':>5}"
          f" {'grid/HM':>7}")
    for epsilon in EPSILONS:
        mechanism = ldp.number_window(epsilon, 0, 1000)
        grid = grid_variance(mechanism)
        print(f"{epsilon:7g} {duchi(epsilon):8.3f} {piecewise(epsilon):8.3f} "
              f"{hybrid(epsilon):8.3f} {grid:8.3f} {mechanism.width:5d} "
              f"{grid / hybrid(epsilon):7.2f}")
    n = 10_000
    print(f"\nBins (5 bins, ages {LOW}-{HIGH}, skewed), n = {n:,}, {bin_studies} studies: mean "
          "total variation error; and the mean's worst-case variance (t in [-1, 1])")
    print(f"{'epsilon':>7} {'width':>5} {'TV':>7} {'mean var':>8} | {'SW width':>8} {'TV':>7}"
          f" {'mean var':>8}")
    for epsilon in EPSILONS:
        ours = ldp.number_window(epsilon, LOW, HIGH, 0, EDGES)
        wave = numbers.NumberWindow(epsilon, LOW, HIGH, 0, EDGES,
                                    width=square_wave_width(epsilon))
        row = []
        for mechanism in (ours, wave):
            error = bins_error(mechanism, truth_skewed(), n, bin_studies, rng)
            variance = grid_variance(ldp.number_window(epsilon, 0, 1000)) if mechanism is ours \
                else grid_variance(numbers.NumberWindow(epsilon, 0, 1000,
                                                        width=mechanism.width))
            row.append(f"{mechanism.width:5d} {error:7.4f} {variance:8.3f}")
        print(f"{epsilon:7g} " + " | ".join(row))


def mean_figures(mechanism, law, truth, n, studies, rng) -> tuple[str, str]:
    """The mean's bias (Monte-Carlo error), coverage (binomial error) and mean width over
    ``studies`` studies of n reports drawn from ``law``, and its flag: ``LOW`` below 0.93,
    ``HIGH`` above 0.97 with n >= 1,000. The bias is over the studies with an estimate."""
    found = [mechanism.mean(c, n) for c in rng.multinomial(n, law, size=studies)]
    estimate = np.array([m.estimate for m in found])
    low = np.array([m.ci_low for m in found])
    high = np.array([m.ci_high for m in found])
    covered = float(np.mean((low <= truth) & (truth <= high)))
    known = np.isfinite(estimate)
    bias = float(estimate[known].mean() - truth)
    bias_error = float(estimate[known].std(ddof=1) / math.sqrt(known.sum()))
    covered_error = math.sqrt(covered * (1 - covered) / studies)
    flag = "LOW" if covered < 0.93 else "HIGH" if n >= 1000 and covered > 0.97 else ""
    figures = (f"{bias:8.3f} {bias_error:6.3f} {covered:8.3f} {covered_error:6.3f} "
               f"{np.mean(high - low):7.2f}")
    return figures, flag


def coverage(studies: int, bin_studies: int, rng: np.random.Generator) -> None:
    print(f"\nPart 2: the mean's bias (years) and 95% coverage, {studies} studies per cell; "
          f"bins' total variation error, {bin_studies} studies")
    header = (f"{'truth':>7} {'epsilon':>7} {'n':>7} {'bias':>8} {'+-':>6} {'coverage':>8} "
              f"{'+-':>6} {'width':>7} {'bins TV':>7}")
    print(header)
    for name, shares in (("skewed", truth_skewed()), ("ends", truth_ends())):
        truth = float(shares @ np.arange(LOW, HIGH + 1))
        for epsilon in EPSILONS:
            mechanism = ldp.number_window(epsilon, LOW, HIGH, 0, EDGES)
            law = report_law(mechanism, shares)
            for n in SIZES:
                figures, flag = mean_figures(mechanism, law, truth, n, studies, rng)
                tv = (bins_error(mechanism, shares, n, bin_studies, rng)
                      if name == "skewed" else math.nan)
                print(f"{name:>7} {epsilon:7g} {n:7d} {figures} {tv:7.3f} {flag}", flush=True)


def extras(studies: int, rng: np.random.Generator) -> None:
    print(f"\nPart 4: the mean among those who gave a number (years), {studies} studies per "
          "cell")
    print(f"{'case':>11} {'epsilon':>7} {'n':>7} {'bias':>8} {'+-':>6} {'coverage':>8} "
          f"{'+-':>6} {'width':>7}")
    shares = truth_skewed()
    truth = float(shares @ np.arange(LOW, HIGH + 1))
    for name, extra_shares in (("refuse 15%", [0.15]), ("asked 40%", [0.04, 0.6])):
        for epsilon in EPSILONS:
            mechanism = numbers.NumberWindow(epsilon, LOW, HIGH, 0, EDGES,
                                             extras=len(extra_shares))
            law = (1 - sum(extra_shares)) * report_law(mechanism, shares) + sum(
                share * mechanism.extra_probabilities(e) for e, share in enumerate(extra_shares)
            )
            for n in SIZES:
                figures, flag = mean_figures(mechanism, law, truth, n, studies, rng)
                print(f"{name:>11} {epsilon:7g} {n:7d} {figures} {flag}", flush=True)


def groups(studies: int, rng: np.random.Generator) -> None:
    print(f"\nPart 3: means within the groups of a yes/no question, {studies} studies per cell")
    print(f"{'epsilon':>7} {'n':>7} {'mean no':>8} {'mean yes':>8} {'difference':>10}")
    ages = np.arange(LOW, HIGH + 1)
    within = np.array([(ages >= 30) / np.sum(ages >= 30), (ages <= 40) / np.sum(ages <= 40)])
    sizes = np.array([0.7, 0.3])
    truth = within @ ages
    for epsilon in EPSILONS:
        group = ldp.randomized_response(epsilon)
        mechanism = ldp.number_window(epsilon, LOW, HIGH, 0, EDGES)
        laws = np.array([report_law(mechanism, row) for row in within])  # (group, cell)
        joint_law = np.einsum("g,ag,gc->ac", sizes, group.matrix(), laws).ravel()
        for n in (1000, 10_000):
            counts = rng.multinomial(n, joint_law, size=studies).reshape(studies, 2, -1)
            hits = np.zeros(3)
            for table in counts:
                pairs = ldp.joint.PairCounts(n, table, table.sum(axis=1), table.sum(axis=0))
                found = numbers.group_means(group, mechanism, pairs)
                hits[:2] += (found.ci_low <= truth) & (truth <= found.ci_high)
                _, low, high = found.difference(1, 0)
                hits[2] += low <= truth[1] - truth[0] <= high
            print(f"{epsilon:7g} {n:7d} " + " ".join(
                f"{width}" for width in (f"{hits[0] / studies:8.3f}", f"{hits[1] / studies:8.3f}",
                                         f"{hits[2] / studies:10.3f}")), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--studies", type=int, default=2000)
    parser.add_argument("--bin-studies", type=int, default=50)
    parser.add_argument("--compare", action="store_true", help="part 1 only")
    parser.add_argument("--groups", action="store_true", help="part 3 only")
    parser.add_argument("--extras", action="store_true", help="part 4 only")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    start = time.time()
    if args.compare:
        compare(args.bin_studies, rng)
    elif args.groups:
        groups(args.studies // 2, rng)
    elif args.extras:
        extras(args.studies // 2, rng)
    else:
        coverage(args.studies, args.bin_studies, rng)
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
