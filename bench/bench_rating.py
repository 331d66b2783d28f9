"""Bias and coverage of the mean score of rating scales (surveys/ldp/scores.py; not a test).

Run: .venv/bin/python bench/bench_rating.py [--replicates R] [--group-replicates G]

Part 1, the mean over all respondents: for k = 5 and 7 points, epsilon 0.5, 1, 2, 4, n 100
to 100,000 and three true distributions (flat; skewed to point 1; bimodal at both ends),
R simulated studies per cell with the mechanism a rating question gets
(``ldp.choose_categorical``). Respondents are drawn iid and their support counts simulated
from their exact laws: GRR counts are Multinomial(n, S f); unary counts are
Binomial(N_c, p) + Binomial(n - N_c, q) given the Multinomial(n, f) numbers N of people per
true point. Prints the bias of the headline mean (in points, with its Monte-Carlo error),
the coverage of its t interval (``mean_score``) with its binomial standard error, and that of
the plain Wald interval (z instead of t) for comparison. ``LOW`` flags coverage below 0.93,
``HIGH`` above 0.97 with n >= 1000.

Part 2, the mean within groups of a breakdown (``group_means``): a yes/no grouping question
and a 5-point rating question at the same epsilon, the groups 30% / 70% with different
distributions; G studies per cell simulated report by report. Prints the coverage of each
group's mean and of the difference between the two.

Fixed seed; a couple of minutes on one core.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp import joint, scores  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0, 4.0)
SIZES = (100, 1000, 10_000, 100_000)
POINTS = (5, 7)
SEED = 20261126


def distributions(k: int) -> dict[str, np.ndarray]:
    """The true distributions over the k points."""
    skewed = 0.5 ** np.arange(k)
    bimodal = np.full(k, 0.1 / (k - 2))
    bimodal[0], bimodal[-1] = 0.55, 0.35
    return {"flat": np.full(k, 1 / k), "skewed": skewed / skewed.sum(), "bimodal": bimodal}


def simulate_counts(
    mechanism: ldp.Mechanism, truth: np.ndarray, n: int, studies: int, rng: np.random.Generator
) -> np.ndarray:
    """Support counts of ``studies`` studies of n respondents, from their exact laws."""
    if mechanism.encoding == "unary":
        people = rng.multinomial(n, truth, size=studies)
        return rng.binomial(people, mechanism.p) + rng.binomial(n - people, mechanism.q)
    return rng.multinomial(n, mechanism.matrix() @ truth, size=studies)


def whole_cell(k: int, epsilon: float, n: int, name: str, truth: np.ndarray, studies: int,
               rng: np.random.Generator) -> str:
    mechanism = ldp.choose_categorical(epsilon, k)
    true_mean = float(scores.scores(k) @ truth)
    found = [scores.mean_score(mechanism, c, n) for c in simulate_counts(mechanism, truth, n,
                                                                          studies, rng)]
    estimate = np.array([m.estimate for m in found])
    covered = np.array([m.ci_low <= true_mean <= m.ci_high for m in found])
    wald = np.array([abs(m.unbiased - true_mean) <= ldp.Z95 * m.std_error for m in found])
    coverage, se = covered.mean(), covered.std() / np.sqrt(studies)
    flag = "LOW" if coverage < 0.93 else "HIGH" if coverage > 0.97 and n >= 1000 else ""
    bias = estimate.mean() - true_mean
    return (
        f"| {k} | {mechanism.name} | {epsilon:g} | {n:,} | {name} | {true_mean:.2f} | "
        f"{bias:+.4f} ± {estimate.std() / np.sqrt(studies):.4f} | {coverage:.3f} ± {se:.3f} | "
        f"{wald.mean():.3f} | {flag} |"
    )


def group_cell(epsilon: float, n: int, studies: int, rng: np.random.Generator) -> str:
    k = 5
    group_mech, rating_mech = ldp.randomized_response(epsilon), ldp.choose_categorical(epsilon, k)
    within = np.array([[0.4, 0.3, 0.15, 0.1, 0.05], [0.05, 0.1, 0.2, 0.3, 0.35]])
    true_means = within @ scores.scores(k)
    hits = np.zeros(3)
    for _ in range(studies):
        group = (rng.random(n) < 0.7).astype(np.int64)
        answer = (rng.random(n)[:, None] > np.cumsum(within[group], axis=1)).sum(axis=1)
        counts = joint.pair_counts(
            group_mech, rating_mech, group_mech.perturb(group, rng),
            rating_mech.perturb(answer, rng),
        )
        means = scores.group_means(joint.breakdown(group_mech, rating_mech, counts), counts)
        hits[:2] += (means.ci_low <= true_means) & (true_means <= means.ci_high)
        _, low, high = means.difference(1, 0)
        hits[2] += low <= true_means[1] - true_means[0] <= high
    coverage = hits / studies
    se = np.sqrt(coverage * (1 - coverage) / studies)
    shown = " | ".join(f"{c:.3f} ± {s:.3f}" for c, s in zip(coverage, se, strict=True))
    return f"| {epsilon:g} | {n:,} | {shown} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--group-replicates", type=int, default=1000)
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    start = time.perf_counter()
    print(f"Mean score over all respondents ({args.replicates} studies per row)\n")
    print("| k | mechanism | epsilon | n | truth | true mean | bias | t coverage | "
          "Wald coverage | flag |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in POINTS:
        for epsilon in EPSILONS:
            for n in SIZES:
                for name, truth in distributions(k).items():
                    print(whole_cell(k, epsilon, n, name, truth, args.replicates, rng),
                          flush=True)
    print(f"\nMean score within groups, 5 points by a yes/no question ({args.group_replicates} "
          "studies per row)\n")
    print("| epsilon | n | group 30% | group 70% | difference |")
    print("|---|---|---|---|---|")
    for epsilon in (1.0, 2.0, 4.0):
        for n in (1000, 10_000):
            print(group_cell(epsilon, n, args.group_replicates, rng), flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
