"""Bias and coverage of the shares among those who answered (surveys/ldp/among.py; not a test).

Run: .venv/bin/python bench/bench_among.py [--replicates R]

Questions with extra answers ("No answer", "Not asked"), each randomized over all its answers
by the mechanism its kind gets (``ldp.choose_categorical``): a yes/no question with 15%
refusing, a 5-point rating scale with 10% refusing (shares and the mean score among those who
answered), and a conditional multiple-choice follow-up of 4 answers asked of 30% (the rest
"Not asked") of whom 5% refuse. Epsilon 0.5, 1, 2, 4; n 100 to 100,000; R studies per cell,
support counts drawn from their exact laws (``bench_rating.simulate_counts``). Prints, per
cell, the worst, best and mean coverage over the answers' shares (and the mean score's) with the
binomial standard error, the largest absolute bias of a headline share, and how often the
interval is all of [0, 1]. ``LOW`` flags coverage below 0.93, ``HIGH`` above 0.97 with
n >= 1000.

With --widths, instead: the mean width of the 95% intervals of a conditional follow-up's
shares among those asked, from its own reports (the results card) and from its breakdown by
its condition (both questions' reports): a yes/no condition and a 4-answer follow-up asked
of 30%, each at epsilon 0.5, 1 and 2, n 2,000 and 20,000, 40 studies per row, simulated
report by report.

Fixed seed; a few minutes on one core.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_rating import simulate_counts  # noqa: E402

from surveys import ldp  # noqa: E402
from surveys.ldp import joint  # noqa: E402
from surveys.ldp.among import among_answered  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0, 4.0)
SIZES = (100, 1000, 10_000, 100_000)
SEED = 20261127

CASES = {
    # name: (true shares over every answer, number of own answers, scored)
    "yes/no, 15% refuse": (np.array([0.6, 0.25, 0.15]), 2, False),
    "rating 5, 10% refuse": (np.array([0.3, 0.25, 0.15, 0.1, 0.1, 0.1]), 5, True),
    "follow-up of 4, asked 30%": (
        np.array([0.12, 0.08, 0.05, 0.035, 0.015, 0.70]), 4, False
    ),
}


def cell(truth: np.ndarray, answers: int, scored: bool, epsilon: float, n: int, studies: int,
         rng: np.random.Generator) -> dict[str, float]:
    mechanism = ldp.choose_categorical(epsilon, len(truth))
    answered = truth[:answers].sum()
    true_shares = truth[:answers] / answered
    true_mean = float(np.arange(1, answers + 1) @ true_shares)
    hits = np.zeros(answers)
    whole = np.zeros(answers)
    errors = np.zeros(answers)
    mean_hits = 0
    for counts in simulate_counts(mechanism, truth, n, studies, rng):
        found = among_answered(mechanism, counts, n, answers, scored=scored)
        hits += (found.ci_low <= true_shares) & (true_shares <= found.ci_high)
        whole += (found.ci_low <= 0) & (found.ci_high >= 1)
        errors += np.nan_to_num(found.estimate - true_shares)
        if scored:
            mean_hits += found.mean_score.ci_low <= true_mean <= found.mean_score.ci_high
    coverage = hits / studies
    return {
        "mechanism": mechanism.label.split(" ")[0],
        "worst": float(coverage.min()),
        "best": float(coverage.max()),
        "mean": float(coverage.mean()),
        "bias": float(np.abs(errors / studies).max()),
        "whole": float(whole.max() / studies),
        "mean_score": mean_hits / studies if scored else float("nan"),
    }


def widths(rng: np.random.Generator) -> None:
    """The follow-up's own reports against its breakdown by its condition (see --widths)."""
    print(f"{'eps':>4} {'n':>6} {'own reports':>12} {'breakdown':>10}")
    for epsilon in (0.5, 1.0, 2.0):
        condition, follow_up = ldp.randomized_response(epsilon), ldp.choose_categorical(epsilon, 5)
        for n in (2000, 20_000):
            own, both = [], []
            for _ in range(40):
                asked = rng.random(n) < 0.3
                answers = np.where(asked, rng.choice(4, size=n, p=[0.4, 0.3, 0.2, 0.1]), 4)
                first = condition.perturb(asked.astype(int), rng)
                second = follow_up.perturb(answers, rng)
                found = among_answered(follow_up, follow_up.support_counts(second), n, 4)
                own.append(np.mean(found.ci_high - found.ci_low))
                pair = joint.breakdown(
                    condition, follow_up, joint.pair_counts(condition, follow_up, first, second)
                )
                both.append(np.mean(pair.share_ci_high[1, :4] - pair.share_ci_low[1, :4]))
            print(f"{epsilon:4} {n:6} {np.mean(own):12.3f} {np.mean(both):10.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--widths", action="store_true")
    arguments = parser.parse_args()
    studies = arguments.replicates
    rng = np.random.default_rng(SEED)
    if arguments.widths:
        widths(rng)
        return
    error = np.sqrt(0.95 * 0.05 / studies)
    print(f"{studies} studies per cell; a coverage's Monte-Carlo standard error is "
          f"about {error:.3f}")
    print(f"{'case':27} {'eps':>4} {'n':>7} {'mech':>5} {'worst':>6} {'best':>6} "
          f"{'mean':>6} {'|bias|':>7} {'[0,1]':>6} {'mean score':>10}")
    for name, (truth, answers, scored) in CASES.items():
        for epsilon in EPSILONS:
            for n in SIZES:
                found = cell(truth, answers, scored, epsilon, n, studies, rng)
                flags = [
                    x for x in (found["worst"], found["best"], found["mean_score"])
                    if np.isfinite(x)
                ]
                flag = "LOW" if min(flags) < 0.93 else (
                    "HIGH" if n >= 1000 and max(flags) > 0.97 else "")
                print(f"{name:27} {epsilon:4} {n:7} {found['mechanism']:>5} "
                      f"{found['worst']:6.3f} {found['best']:6.3f} {found['mean']:6.3f} "
                      f"{found['bias']:7.4f} "
                      f"{found['whole']:6.3f} {found['mean_score']:10.3f} {flag}")


if __name__ == "__main__":
    main()
