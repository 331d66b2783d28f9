"""Headline estimate against the peer libraries pure-LDP and multi-freq-ldpy (not a test).

Setup (development only): .venv/bin/pip install -r requirements-bench.txt
Run: .venv/bin/python bench/bench_peers.py [--trials 100]

The occupation histogram of the Adult census (14 categories, 30,718 people) is randomized
with GRR and OUE at epsilon 0.5, 1 and 2, ``--trials`` times each (fixed seed), by this
project's reference randomizer. Every estimator then sees the same reports:

- pure-LDP: ``DEServer`` (GRR) and ``UEServer(use_oue=True)`` aggregate the reports and
  ``estimate_all`` returns the raw estimate (normalization 0), additive normalisation (1),
  the probability-simplex projection (2) and the threshold cut (3);
- multi-freq-ldpy: ``GRR_Aggregator_MI`` / ``UE_Aggregator_MI`` (clip and renormalise) and
  ``GRR_Aggregator_IBU`` / ``UE_Aggregator_IBU`` (iterative Bayesian update, their defaults:
  at most 10,000 iterations, tolerance 1e-12);
- this project: ``estimate().headline`` (``ldp.HEADLINE_METHOD``), and Norm-Sub.

For each estimator: the mean total squared error sum_c (estimate_c - share_c)^2 over the
trials, and its ratio to the headline's, paired trial by trial (the same reports), with the
standard error of the ratio of means (delta method). A ratio below 1 means the peer beats the
headline. Peers' counts are divided by n so all estimates are proportions.

``--skewed`` runs the same comparison on sparse and skewed histograms instead (one answer at
90%; Zipf over 14 and over 50 categories; two answers at 1% among 14), at epsilon 0.5, 1, 2
and 4 and n = 1,000 and 30,718, and prints one line per case: the headline's mean total
squared error, Norm-Sub's ratio to it, and the best other estimator's.
"""

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Aggregator_IBU, GRR_Aggregator_MI
from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Aggregator_IBU, UE_Aggregator_MI
from pure_ldp.frequency_oracles.direct_encoding import DEServer
from pure_ldp.frequency_oracles.unary_encoding import UEServer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402

OCCUPATIONS = {
    "Adm-clerical": 3770, "Armed-Forces": 9, "Craft-repair": 4099, "Exec-managerial": 4066,
    "Farming-fishing": 994, "Handlers-cleaners": 1370, "Machine-op-inspct": 2002,
    "Other-service": 3295, "Priv-house-serv": 149, "Prof-specialty": 4140,
    "Protective-serv": 649, "Sales": 3650, "Tech-support": 928, "Transport-moving": 1597,
}
EPSILONS = (0.5, 1.0, 2.0)
SEED = 20240612


def _zipf(k: int) -> np.ndarray:
    return 1 / np.arange(1, k + 1)


SKEWED = {  # name: relative shares
    "one at 90%": np.array([0.9] + [0.1 / 13] * 13),
    "Zipf, 14": _zipf(14),
    "Zipf, 50": _zipf(50),
    "two at 1%": np.array([0.98 / 12] * 12 + [0.01, 0.01]),
}
SKEWED_EPSILONS = (0.5, 1.0, 2.0, 4.0)
SKEWED_SIZES = (1000, 30718)


def pure_ldp(name: str, epsilon: float, k: int, reports: np.ndarray) -> dict[str, np.ndarray]:
    """pure-LDP's four normalisations of the same reports, as proportions."""
    if name == "grr":
        server = DEServer(epsilon, k, index_mapper=lambda x: x)
    else:
        server = UEServer(epsilon, k, use_oue=True, index_mapper=lambda x: x)
    server.aggregate_all(list(reports))
    n = len(reports)
    labels = ("raw", "additive", "simplex", "threshold cut")
    return {
        f"pure-LDP {label}": server.estimate_all(range(k), suppress_warnings=True,
                                                 normalization=code) / n
        for code, label in enumerate(labels)
    }


def multi_freq(name: str, epsilon: float, k: int, reports: np.ndarray) -> dict[str, np.ndarray]:
    """multi-freq-ldpy's clip-and-renormalise and iterative Bayesian update."""
    if name == "grr":
        values = [int(r) for r in reports]
        return {
            "multi-freq clip+renorm": GRR_Aggregator_MI(values, k, epsilon),
            "multi-freq IBU": GRR_Aggregator_IBU(values, k, epsilon),
        }
    bits = reports.astype(float)
    return {
        "multi-freq clip+renorm": UE_Aggregator_MI(bits, epsilon, optimal=True),
        "multi-freq IBU": UE_Aggregator_IBU(bits, k, epsilon, optimal=True),
    }


def ratio_with_error(peer: np.ndarray, ours: np.ndarray) -> tuple[float, float]:
    """mean(peer) / mean(ours) and its delta-method standard error for paired trials."""
    r = peer.mean() / ours.mean()
    residual = peer - r * ours
    return float(r), float(residual.std(ddof=1) / math.sqrt(peer.size) / ours.mean())


def counts_for(shares: np.ndarray, n: int) -> np.ndarray:
    """How many of n people give each answer, for the given relative shares (largest-remainder
    rounding)."""
    raw = shares / shares.sum() * n
    counts = np.floor(raw).astype(int)
    counts[np.argsort(counts - raw)[: n - counts.sum()]] += 1
    return counts


def ours_headline(m: ldp.Mechanism, support: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """This project's estimates compared with the peers': the headline and Norm-Sub."""
    estimate = m.estimate(support, n)
    return {"headline": estimate.headline, "Norm-Sub": estimate.consistent}


def compare(
    name: str, epsilon: float, counts: np.ndarray, trials: int, rng: np.random.Generator,
    ours=ours_headline,
) -> dict[str, np.ndarray]:
    """Total squared error of every estimator in each of ``trials`` randomizations of the
    same people (``counts[c]`` of them answer c; every estimator sees the same reports):
    the peers' and ``ours(mechanism, support counts, n)``'s."""
    k, n = counts.size, int(counts.sum())
    people = np.repeat(np.arange(k), counts)
    truth = counts / n
    m = ldp.CATEGORICAL[name](epsilon, k)
    errors: dict[str, list[float]] = {}
    for _ in range(trials):
        reports = m.perturb(people, rng)
        found = ours(m, m.support_counts(reports), n)
        found |= pure_ldp(name, epsilon, k, reports)
        found |= multi_freq(name, epsilon, k, reports)
        for label, value in found.items():
            errors.setdefault(label, []).append(float(np.sum((value - truth) ** 2)))
    return {label: np.array(values) for label, values in errors.items()}


def best_other(errors: dict[str, np.ndarray]) -> str:
    return min((float(np.mean(v)), label) for label, v in errors.items() if label != "headline")[1]


def occupations(trials: int) -> None:
    counts = np.array(list(OCCUPATIONS.values()))
    rng = np.random.default_rng(SEED)
    print(f"Occupations: k = {counts.size}, n = {counts.sum()}; {trials} trials per row; "
          f"headline: {ldp.HEADLINE_METHOD} ({ldp.HEADLINE_DESCRIPTION})")
    for name in ("grr", "oue"):
        for epsilon in EPSILONS:
            started = time.perf_counter()
            errors = compare(name, epsilon, counts, trials, rng)
            ours = errors["headline"]
            print(f"\n{name.upper()} epsilon {epsilon:g} ({time.perf_counter() - started:.0f} s)")
            print(f"  {'estimator':<26}{'mean TSE':>11}{'vs headline':>13}{'se':>8}")
            best = best_other(errors)
            for label, values in errors.items():
                r, se = ratio_with_error(values, ours)
                mark = "  <- best other" if label == best else ""
                print(f"  {label:<26}{np.mean(values):>11.3e}{r:>13.4f}{se:>8.4f}{mark}")
            r, se = ratio_with_error(ours, errors[best])
            print(f"  headline / best other ({best}): {r:.4f} +- {se:.4f}")


def skewed(trials: int) -> None:
    rng = np.random.default_rng(SEED + 1)
    print(f"Sparse and skewed histograms; {trials} trials per row; headline: "
          f"{ldp.HEADLINE_METHOD}. Ratios: estimator's mean TSE / headline's, +- se.")
    print(f"{'histogram':<12}{'mech':>5}{'eps':>5}{'n':>7}{'headline TSE':>14}"
          f"{'Norm-Sub':>18}{'best other':>18}  best other")
    for label, shares in SKEWED.items():
        for name in ("grr", "oue"):
            for epsilon in SKEWED_EPSILONS:
                for n in SKEWED_SIZES:
                    errors = compare(name, epsilon, counts_for(shares, n), trials, rng)
                    ours, best = errors["headline"], best_other(errors)
                    cells = [ratio_with_error(errors[key], ours) for key in ("Norm-Sub", best)]
                    print(f"{label:<12}{name:>5}{epsilon:>5g}{n:>7}{ours.mean():>14.3e}"
                          + "".join(f"{r:>10.4f} +- {se:.4f}" for r, se in cells)
                          + f"  {best}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--skewed", action="store_true", help="sparse and skewed histograms")
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)  # pure-LDP warns at small epsilon
    (skewed if args.skewed else occupations)(args.trials)


if __name__ == "__main__":
    main()
