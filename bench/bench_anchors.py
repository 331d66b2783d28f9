"""Validation anchors (surveys/ldp/anchors.py): test size and power, and the coverage of the
careless share's interval (not a test).

Run: .venv/bin/python bench/bench_anchors.py [--studies R] [--workers W]

A yes/no anchor whose true share of "yes" is ``known``; a share c of respondents answer at
random (half of them "yes"), so the reports are drawn (Binomial, their exact law) from a
true share (1 - c) known + c / 2. For every epsilon x n x known x c, R studies; printed:
the rate at which the exact test rejects at 5% (its size when c = 0, its power otherwise),
the rate at which the 95% interval of the share agrees with ``known``, and the careless
estimate's mean and the coverage of its 95% interval, each coverage with its Monte-Carlo
standard error. Fixed seeds; about 5 minutes on two cores.
"""

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp.anchors import check_anchor  # noqa: E402

SEED = 20261126
EPSILONS = (0.5, 1.0, 2.0, 4.0)
SIZES = (100, 1_000, 10_000, 100_000)
KNOWN = (0.0, 0.3)
CARELESS = (0.0, 0.05, 0.2)


def run_cell(task: tuple[float, int, float, float, int]) -> dict:
    epsilon, n, known, careless, studies = task
    mechanism = ldp.randomized_response(epsilon)
    rng = np.random.default_rng([SEED, EPSILONS.index(epsilon), SIZES.index(n),
                                 KNOWN.index(known), CARELESS.index(careless)])
    looks_like = (1 - careless) * known + careless / 2
    report_yes = (mechanism.matrix() @ [1 - looks_like, looks_like])[1]
    checks = [check_anchor(mechanism, mechanism.estimate([n - yes, yes], n), 1, known)
              for yes in rng.binomial(n, report_yes, size=studies)]
    return {
        "task": task,
        "rejects": float(np.mean([c.p_value < 0.05 for c in checks])),
        "agrees": float(np.mean([c.agrees for c in checks])),
        "careless": float(np.mean([c.careless for c in checks])),
        "covers": float(np.mean([c.careless_low <= careless <= c.careless_high
                                 for c in checks])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = [(e, n, k, c, args.studies) for e in EPSILONS for n in SIZES for k in KNOWN
             for c in CARELESS]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(run_cell, tasks))
    se = math.sqrt(0.95 * 0.05 / args.studies)
    print(f"{args.studies} studies per row; Monte-Carlo standard error of a coverage near "
          f"0.95: {se:.3f}")
    print(f"{'eps':>4} {'n':>7} {'known':>5} {'c':>5} {'rejects':>8} {'agrees':>7} "
          f"{'c mean':>7} {'c covered':>9}  flags")
    for row in rows:
        epsilon, n, known, careless, _ = row["task"]
        flag = "LOW" if row["covers"] < 0.93 else ""
        if careless == 0 and row["rejects"] > 0.05 + 3 * math.sqrt(0.05 * 0.95 / args.studies):
            flag += " SIZE"
        print(f"{epsilon:>4g} {n:>7} {known:>5g} {careless:>5g} {row['rejects']:>8.3f} "
              f"{row['agrees']:>7.3f} {row['careless']:>7.3f} {row['covers']:>9.3f}  {flag}")
    covers = [row["covers"] for row in rows]
    print(f"careless interval coverage: mean {np.mean(covers):.3f}, worst {min(covers):.3f}; "
          f"size: worst {max(r['rejects'] for r in rows if r['task'][3] == 0):.3f}")


if __name__ == "__main__":
    main()
