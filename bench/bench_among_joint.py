"""Coverage and width of a conditional question's shares among those asked: the joint
estimation with its condition (surveys/ldp/asked.py) against the question's own reports
(surveys/ldp/among.py), on the same reports (not a test).

Run: .venv/bin/python bench/bench_among_joint.py [--replicates R]

A yes/no condition (Warner's randomized response) and a follow-up asked only of those who
answer "Yes", randomized by the mechanism its kind gets (``ldp.choose_categorical``, GRR
here) over its own answers, any "No answer" and "Not asked". Truths:

- "asked 30%": 30% asked; 4 answers, 40/30/20/10% of those asked;
- "rare, asked 5%": 5% asked; 3 answers, 60/30/10%;
- "asked 50%, 10% refuse": 50% asked, of whom 10% refuse; 3 answers, 45/30/15% of those
  asked (shares among those who answered: 50/33/17%).

Both questions at the same epsilon 0.5, 1, 2, 4; n 500, 2,000, 20,000; R studies per cell
(default 1,000). The pair counts are drawn from their exact law: the table of report pairs
is multinomial with probabilities (S_A (x) S_B) vec(Pi) for the true joint table Pi, and the
follow-up's own support counts are its column sums, so both estimators see the same
reports. Prints per cell the worst and best coverage over the shares among those who
answered (and the mean), the mean width of their intervals, and how often an interval is
all of [0, 1], for each estimator. The binomial standard error of a coverage of 0.95 from
R studies is sqrt(0.95 x 0.05 / R) (0.0069 for 1,000): ``LOW`` flags a coverage more than 3
of them below 0.95, ``HIGH`` one above 0.97 with n >= 1,000.

Fixed seed; about two minutes on one core.
"""

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp.among import among_answered  # noqa: E402
from surveys.ldp.asked import among_asked  # noqa: E402
from surveys.ldp.joint import PairCounts  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0, 4.0)
SIZES = (500, 2000, 20_000)
SEED = 20261128

TRUTHS = {
    # name: (share asked, shares of the follow-up's answers among those asked, own answers)
    "asked 30%": (0.30, np.array([0.4, 0.3, 0.2, 0.1]), 4),
    "rare, asked 5%": (0.05, np.array([0.6, 0.3, 0.1]), 3),
    "asked 50%, 10% refuse": (0.50, np.array([0.45, 0.30, 0.15, 0.10]), 3),
}


def joint_table(asked: float, inner: np.ndarray) -> np.ndarray:
    """The true (condition, follow-up) table: row 0 "No" (all "Not asked", the follow-up's
    last category), row 1 "Yes" (the follow-up's answers)."""
    table = np.zeros((2, inner.size + 1))
    table[0, -1] = 1 - asked
    table[1, :-1] = asked * inner
    return table


def cell(asked: float, inner: np.ndarray, answers: int, epsilon: float, n: int, studies: int,
         rng: np.random.Generator) -> dict[str, float]:
    parent = ldp.randomized_response(epsilon)
    child = ldp.choose_categorical(epsilon, inner.size + 1)
    assert child.encoding == "index"
    table = joint_table(asked, inner)
    law = np.kron(parent.matrix(), child.matrix()) @ table.ravel()
    truth = inner[:answers] / inner[:answers].sum()
    found = {name: {"hits": np.zeros(answers), "width": 0.0, "whole": 0}
             for name in ("joint", "own")}
    k_a, k_b = table.shape
    for pairs in rng.multinomial(n, law / law.sum(), size=studies):
        pairs = pairs.reshape(k_a, k_b)
        counts = PairCounts(n, pairs, pairs.sum(axis=1), pairs.sum(axis=0))
        for name, result in (
            ("joint", among_asked(parent, child, counts, [1], answers)),
            ("own", among_answered(child, counts.b, n, answers)),
        ):
            found[name]["hits"] += (result.ci_low <= truth) & (truth <= result.ci_high)
            found[name]["width"] += float(np.mean(result.ci_high - result.ci_low))
            found[name]["whole"] += int(np.any((result.ci_low <= 0) & (result.ci_high >= 1)))
    return {
        f"{name}_{key}": value
        for name, figures in found.items()
        for key, value in (
            ("worst", float(figures["hits"].min() / studies)),
            ("best", float(figures["hits"].max() / studies)),
            ("mean", float(figures["hits"].mean() / studies)),
            ("width", figures["width"] / studies),
            ("whole", figures["whole"] / studies),
        )
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    studies = args.replicates
    low = 0.95 - 3 * math.sqrt(0.95 * 0.05 / studies)
    print(f"{studies} studies per cell; LOW: worst coverage below {low:.3f}; HIGH: best "
          "above 0.97 with n >= 1,000")
    print("| truth | epsilon | n | joint: worst-best (mean) coverage "
          "| own: worst-best (mean) coverage "
          "| joint: mean width | own: mean width | joint / own | joint all of [0, 1] "
          "| own all of [0, 1] |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    start = time.perf_counter()
    for name, (asked, inner, answers) in TRUTHS.items():
        for epsilon in EPSILONS:
            for n in SIZES:
                r = cell(asked, inner, answers, epsilon, n, studies, rng)
                flags = "".join(
                    f" LOW({who})" for who in ("joint", "own") if r[f"{who}_worst"] < low
                ) + "".join(
                    f" HIGH({who})" for who in ("joint", "own")
                    if n >= 1000 and r[f"{who}_best"] > 0.97
                )
                print(
                    f"| {name} | {epsilon:g} | {n:,} | {r['joint_worst']:.3f}-"
                    f"{r['joint_best']:.3f} ({r['joint_mean']:.3f}) | {r['own_worst']:.3f}-"
                    f"{r['own_best']:.3f} ({r['own_mean']:.3f}) | "
                    f"{r['joint_width']:.3f} | {r['own_width']:.3f} | "
                    f"{r['joint_width'] / r['own_width']:.2f} | {r['joint_whole']:.2f} | "
                    f"{r['own_whole']:.2f} |{flags}",
                    flush=True,
                )
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
