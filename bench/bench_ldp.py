"""Benchmark of surveys/ldp/mechanisms.py (not a test). Run: .venv/bin/python bench/bench_ldp.py

1. ``estimate`` from support counts for n = 1e3, 1e6, 1e9 reports: the cost must not grow
   with n (it only sees k counts). Shown in microseconds and as a multiple of a baseline
   measured in the same run, ``np.sum`` over a length-k array.
2. The reference ``perturb`` of 1,000,000 reports, as a multiple of a plain numpy baseline
   measured in the same run, ``rng.random(1_000_000) < p``.
"""

import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402

K = 20
SIZES = (10**3, 10**6, 10**9)
REPORTS = 1_000_000
MECHANISMS = [
    ldp.randomized_response(1.0),
    ldp.forced_response(),
    ldp.keep_probabilities(0.7, 0.6),
    ldp.grr(1.0, K),
    ldp.sue(1.0, K),
    ldp.oue(1.0, K),
]


def best_seconds(statement, repeat: int = 5, number: int = 1) -> float:
    """Fastest of ``repeat`` timings, per call: the least disturbed by the rest of the machine."""
    return min(timeit.repeat(statement, repeat=repeat, number=number)) / number


def expected_counts(m: ldp.Mechanism, n: int, rng: np.random.Generator) -> np.ndarray:
    """Support counts of n reports from a skewed truth (random but realistic)."""
    truth = rng.dirichlet(np.ones(m.k))
    lam = m.matrix() @ truth
    if m.encoding == "unary":
        return rng.binomial(n, lam)
    return rng.multinomial(n, lam / lam.sum())


def main() -> None:
    rng = np.random.default_rng(0)
    baseline_array = rng.random(K)
    baseline = best_seconds(lambda: np.sum(baseline_array), number=1000)
    print(f"Estimate from counts (k = {K} for categorical, 2 for yes/no)")
    print(f"baseline np.sum over {K} floats: {baseline * 1e6:.2f} us")
    print(f"{'mechanism':<10}" + "".join(f"{f'n=1e{len(str(n)) - 1}':>22}" for n in SIZES))
    for m in MECHANISMS:
        cells = []
        for n in SIZES:
            counts = expected_counts(m, n, rng)
            seconds = best_seconds(lambda m=m, c=counts, n=n: m.estimate(c, n), number=20)
            cells.append(f"{seconds * 1e6:8.0f} us {seconds / baseline:7.0f}x")
        print(f"{m.name:<10}" + "".join(f"{cell:>22}" for cell in cells))

    print()
    print(f"Reference perturbation of {REPORTS:,} reports")
    p = 0.5
    plain = best_seconds(lambda: rng.random(REPORTS) < p)
    print(f"baseline rng.random({REPORTS:_}) < p: {plain * 1e3:.1f} ms")
    for m in MECHANISMS:
        values = rng.integers(0, m.k, size=REPORTS)
        seconds = best_seconds(lambda m=m, v=values: m.perturb(v, rng), repeat=3)
        print(f"{m.name:<10}{seconds * 1e3:9.1f} ms {seconds / plain:7.1f}x baseline")


if __name__ == "__main__":
    main()
