"""The headline's worst case over a panel of histograms, against pure-LDP and multi-freq-ldpy
(not a test).

Setup (development only): .venv/bin/pip install -r requirements-bench.txt
Run: .venv/bin/python bench/bench_headline.py [--trials 100] [--quick]

The panel: seven histograms (flat over 10 answers; one answer at 90% among 14; Zipf over 20
and over 40 answers; two answers at 1% among 14; a yes/no question at 3% yes; the Adult
census occupations of bench_peers.py, 14 answers), each randomized by GRR and by OUE at
epsilon 0.5, 1, 2 and 4 with n = 500, 800, 2,000, 5,000 and 30,000 respondents: 280 cells.
In each cell the same people (``counts_for``) are randomized ``--trials`` times (fixed seed)
by this project's reference randomizer, and every estimator sees the same reports: this
project's headline (``ldp.HEADLINE_METHOD``), its maximum-likelihood estimate and Norm-Sub;
pure-LDP's four normalisations; multi-freq-ldpy's clip-and-renormalise and IBU (see
bench_peers.py).

Per cell, each estimator's mean total squared error sum_c (estimate_c - share_c)^2 over the
trials is divided by the smallest one in the cell (the best estimator there), paired trial by
trial, with the delta-method standard error of that ratio of means. The summary gives each
estimator's worst ratio over the panel and the cell where it occurs. ``--quick``: n = 800 and
5,000 only, epsilon 0.5 and 2, 20 trials unless ``--trials`` is given (a look in well
under a minute, not a measurement). The whole panel takes about 7 minutes on one core.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from bench_peers import OCCUPATIONS, compare, counts_for, ratio_with_error

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402

SEED = 20261128


def _zipf(k: int) -> np.ndarray:
    return 1 / np.arange(1, k + 1)


HISTOGRAMS = {  # name: relative shares
    "flat, 10": np.ones(10),
    "one at 90%, 14": np.array([0.9] + [0.1 / 13] * 13),
    "Zipf, 20": _zipf(20),
    "Zipf, 40": _zipf(40),
    "two at 1%, 14": np.array([0.98 / 12] * 12 + [0.01, 0.01]),
    "yes/no at 3%": np.array([0.97, 0.03]),
    "occupations, 14": np.array(list(OCCUPATIONS.values()), dtype=float),
}
MECHANISMS = ("grr", "oue")
EPSILONS = (0.5, 1.0, 2.0, 4.0)
SIZES = (500, 800, 2000, 5000, 30000)
QUICK_EPSILONS = (0.5, 2.0)
QUICK_SIZES = (800, 5000)


def ours(m: ldp.Mechanism, support: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """This project's estimators on the panel: the headline, maximum likelihood, Norm-Sub."""
    return {
        "headline": m.headline(support, n),
        "MLE": m.mle(support, n),
        "Norm-Sub": ldp.project_simplex(m.unbiased(support, n)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=None, help="100; --quick: 20")
    parser.add_argument("--quick", action="store_true", help="a few cells, few trials")
    args = parser.parse_args()
    trials = args.trials or (20 if args.quick else 100)
    epsilons, sizes = (QUICK_EPSILONS, QUICK_SIZES) if args.quick else (EPSILONS, SIZES)
    warnings.simplefilter("ignore", RuntimeWarning)  # pure-LDP warns at small epsilon
    rng = np.random.default_rng(SEED)
    started = time.perf_counter()
    print(f"Headline: {ldp.HEADLINE_METHOD} ({ldp.HEADLINE_DESCRIPTION})")
    print(f"{trials} paired trials per cell (seed {SEED}). Each estimator's mean total squared "
          "error / the cell's best, +- standard error.")
    worst: dict[str, tuple[float, float, str]] = {}
    ratios: dict[str, list[float]] = {}
    cells = 0
    labels: list[str] = []
    for histogram, shares in HISTOGRAMS.items():
        for name in MECHANISMS:
            for epsilon in epsilons:
                for n in sizes:
                    errors = compare(name, epsilon, counts_for(shares, n), trials, rng, ours)
                    if not labels:
                        labels = list(errors)
                        print(f"\n{'histogram':<16}{'mech':>5}{'eps':>5}{'n':>7}{'best TSE':>11}"
                              "  " + "  ".join(f"{i}" for i in range(len(labels)))
                              + "  (" + "; ".join(f"{i}: {lb}" for i, lb in enumerate(labels))
                              + ")")
                    best = min(errors, key=lambda label: errors[label].mean())
                    cell = f"{histogram}, {name.upper()}, eps {epsilon:g}, n {n}"
                    row = []
                    for label in labels:
                        r, se = ratio_with_error(errors[label], errors[best])
                        ratios.setdefault(label, []).append(r)
                        if r > worst.get(label, (0.0, 0.0, ""))[0]:
                            worst[label] = (r, se, cell)
                        row.append(f"{r:.3f}")
                    cells += 1
                    print(f"{histogram:<16}{name:>5}{epsilon:>5g}{n:>7}"
                          f"{errors[best].mean():>11.3e}  " + " ".join(row), flush=True)
    print(f"\nSummary over {cells} cells ({time.perf_counter() - started:.0f} s): each "
          "estimator's worst ratio to the cell's best (+- se), where, and its mean ratio")
    for label in sorted(labels, key=lambda lb: worst[lb][0]):
        r, se, cell = worst[label]
        print(f"  {label:<26}{r:>8.3f} +- {se:.3f}  mean {np.mean(ratios[label]):.3f}  ({cell})")


if __name__ == "__main__":
    main()
