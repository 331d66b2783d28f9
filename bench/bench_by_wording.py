"""Size and power of the test of equal answers across wordings (surveys/ldp/homogeneity.py;
not a test).

Run: .venv/bin/python bench/bench_by_wording.py [--studies S]

Two wordings with n respondents each, a yes/no question (randomized response) and a
multiple-choice question of 4 answers (GRR), epsilon 0.5, 1 and 2. Each group's support
counts are drawn from their exact law: one report per respondent, so a group's counts are
multinomial with the report probabilities S f (``matrix()``, f the true shares). Size: the
same true shares under both wordings, the share of S studies (1,000 by default, fixed seeds)
whose p-value is below 0.05, with its binomial standard error. Power: the share below 0.05
when the true shares differ (yes/no: 30% against 40% "yes"; GRR: [0.1, 0.2, 0.3, 0.4]
against [0.2, 0.2, 0.3, 0.3]). Unary reports (OUE, 8 answers) get the bitwise Bonferroni
test, simulated report by report (fewer rows). Seconds on one core.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp.homogeneity import homogeneity, simulate_reports  # noqa: E402

ALPHA = 0.05
QUESTIONS = {
    "yes/no": (ldp.randomized_response, [0.7, 0.3], [0.6, 0.4]),
    "GRR k=4": (lambda eps: ldp.grr(eps, 4), [0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.3, 0.3]),
}
UNARY = ("OUE k=8", lambda eps: ldp.oue(eps, 8), [0.125] * 8,
         [0.2, 0.05, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125])


def rejection_rate(mechanism, first, second, n: int, studies: int, seed: int) -> float:
    """The share of ``studies`` whose test rejects at ALPHA: n reports per wording, drawn
    from their exact law."""
    rng = np.random.default_rng(seed)
    matrix = mechanism.matrix()
    laws = [matrix @ np.asarray(shares) for shares in (first, second)]
    rejected = 0
    for _ in range(studies):
        counts = [rng.multinomial(n, law / law.sum()) for law in laws]
        test = homogeneity(mechanism.encoding, counts, [n, n])
        rejected += test is not None and test.p_value < ALPHA
    return rejected / studies


def unary_rate(mechanism, first, second, n: int, studies: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(studies):
        counts = [simulate_reports(mechanism, shares, n, rng)[0] for shares in (first, second)]
        test = homogeneity(mechanism.encoding, counts, [n, n])
        rejected += test is not None and test.p_value < ALPHA
    return rejected / studies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=1000)
    args = parser.parse_args()
    studies = args.studies
    se = (ALPHA * (1 - ALPHA) / studies) ** 0.5
    print(f"Test of equal answers across two wordings, {studies} studies per row "
          f"(size: binomial SE {se:.3f} around {ALPHA})")
    print(f"{'question':<9} {'epsilon':>7} {'n/wording':>9} {'size':>6} {'power':>6}")
    seed = 0
    for name, (make, first, second) in QUESTIONS.items():
        for epsilon in (0.5, 1.0, 2.0):
            mechanism = make(epsilon)
            for n in (500, 2000, 10000):
                seed += 1
                size = rejection_rate(mechanism, first, first, n, studies, seed)
                power = rejection_rate(mechanism, first, second, n, studies, 10_000 + seed)
                print(f"{name:<9} {epsilon:>7} {n:>9,} {size:>6.3f} {power:>6.3f}")
    name, make, first, second = UNARY
    few = max(studies // 5, 50)
    print(f"\n{name}, bitwise Bonferroni test, {few} studies per row, simulated report by report")
    for epsilon in (1.0, 2.0):
        for n in (2000, 10000):
            seed += 1
            size = unary_rate(make(epsilon), first, first, n, few, seed)
            power = unary_rate(make(epsilon), first, second, n, few, 10_000 + seed)
            print(f"{name:<9} {epsilon:>7} {n:>9,} {size:>6.3f} {power:>6.3f}")


if __name__ == "__main__":
    main()
