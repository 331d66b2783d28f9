"""Bias, coverage, test size and power of the randomized-response logistic regression
(surveys/ldp/regression.py; not a test).

Run: .venv/bin/python bench/bench_regression.py [--replicates R] [--workers W] [--quick]
     [--settings a,b,...] [--raw FILE] [--studies FILE]

Respondents are drawn iid from a realistic joint law of three dependent predictors: year of
study (4 answers, GRR), a yes/no question (Warner) whose share rises with the year, and a
5-point rating (GRR, entered as its score 1..5) that depends on the yes/no answer. The outcome
is a yes/no question; in the three-predictor truth it also has a "No answer" (GRR over 3
answers, 5% to 11% by year). True model (logit of P(Yes | answered)):

    two predictors:   -0.8 + 0.3 [year 2] + 0.6 [year 3] + 0.9 [year 4] + 0 [yes]
    three predictors:  0.1 + 0.3 [year 2] + 0.6 [year 3] + 0.9 [year 4] + 0 [yes] - 0.3 rating

The yes/no predictor has no effect once the others are held equal (though it is associated
with the outcome through year and rating), so its likelihood-ratio test's rejection rate is
the test's size; the year and rating tests' rates are their power. Every question has the
same epsilon. For every setting (predictors x epsilon x n), R simulated studies (default
400), each randomized respondent by respondent (``simulate_counts``). Printed per setting:

- ``bias``: mean estimate - truth per coefficient (its Monte-Carlo standard error is the
  estimates' sd / sqrt(R)), and the median estimate - truth (robust when estimates are wild);
- ``coverage``: share of the 95% profile-likelihood intervals (Wald for the intercept) that
  contain the truth, per coefficient (Monte-Carlo standard error about 0.011 at R = 400),
  and the share of intervals unbounded on a side;
- ``size`` of the yes/no predictor's test at 5% (Monte-Carlo standard error 0.011), and
  ``power`` of the year and rating tests;
- the share of studies the reports cannot identify (some coefficient's maximum at the
  +-30 bound): their intervals are unbounded (they cover) and they have no test (the
  rejection rates are among the others);
- ``time``: mean seconds per fit (profile intervals, tests and predictions included).

Fixed seeds. The default grid (2 and 3 predictors x epsilon 1, 2, 3 x n 2,000, 10,000,
50,000) takes several hours on two cores: most fits take 0.1 to 2 seconds, but with three
predictors at epsilon 1 about 10 (the likelihood is flat and its parameters strongly
correlated, so each profile point takes hundreds of steps). --settings picks some (e.g.
3:1:2000,3:3:50000), --replicates fewer studies.
"""

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one thread per worker: small matrices, shared cores

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp import regression  # noqa: E402

SEED = 20261128
CHUNK = 25
"""Studies per task given to a worker (tasks finish in order, setting by setting)."""

YEAR = np.array([0.30, 0.27, 0.23, 0.20])
YES_BY_YEAR = np.array([0.30, 0.40, 0.50, 0.60])  # P(yes/no predictor = yes | year)
RATING_BY_YES = np.array([[0.10, 0.20, 0.30, 0.25, 0.15], [0.25, 0.30, 0.25, 0.12, 0.08]])
NO_ANSWER_BY_YEAR = np.array([0.11, 0.08, 0.06, 0.05])
SCORES = (1.0, 2.0, 3.0, 4.0, 5.0)

TRUE = {
    2: np.array([-0.8, 0.3, 0.6, 0.9, 0.0]),
    3: np.array([0.1, 0.3, 0.6, 0.9, 0.0, -0.3]),
}
NULL = 1  # the predictor with no effect (yes/no): its test's rate is the size
NAMES = {
    2: ["intercept", "year 2", "year 3", "year 4", "yes"],
    3: ["intercept", "year 2", "year 3", "year 4", "yes", "rating"],
}


def terms(predictors: int, epsilon: float):
    outcome_k = 2 if predictors == 2 else 3
    outcome = regression.Term(
        ldp.randomized_response(epsilon) if outcome_k == 2 else ldp.grr(epsilon, 3), 2
    )
    chosen = [
        regression.Term(ldp.grr(epsilon, 4), 4),
        regression.Term(ldp.randomized_response(epsilon), 2),
        regression.Term(ldp.grr(epsilon, 5), 5, SCORES),
    ][:predictors]
    return outcome, chosen


def truth(predictors: int) -> np.ndarray:
    """The true table pi[y, year, yes(, rating)]."""
    w = np.einsum(
        "a,ab,bc->abc", YEAR, np.stack([1 - YES_BY_YEAR, YES_BY_YEAR], axis=1), RATING_BY_YES
    )
    design = np.zeros((*w.shape, 6))
    design[..., 0] = 1.0
    for year in (1, 2, 3):
        design[year, ..., year] = 1.0
    design[:, 1, :, 4] = 1.0
    design[..., 5] = np.array(SCORES)
    if predictors == 2:
        w, design = w.sum(axis=2), design[:, :, 0, :5]  # the rating is not in the model
    share = 1 / (1 + np.exp(-design @ TRUE[predictors]))
    if predictors == 2:
        return np.stack([w * (1 - share), w * share])
    answered = (1 - NO_ANSWER_BY_YEAR)[:, None, None]
    return np.stack([w * answered * (1 - share), w * answered * share, w * (1 - answered)])


def run(task: tuple[int, float, int, int, int]) -> list[dict]:
    predictors, epsilon, n, count, seed = task
    outcome, chosen = terms(predictors, epsilon)
    table = truth(predictors)
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(count):
        counts = regression.simulate_counts(outcome, chosen, table, n, rng)
        started = time.perf_counter()
        fitted = regression.fit(outcome, chosen, counts)
        found.append({
            "seconds": time.perf_counter() - started,
            "estimate": [c.estimate for c in fitted.coefficients],
            "low": [c.ci_low for c in fitted.coefficients],
            "high": [c.ci_high for c in fitted.coefficients],
            "p": [t.p_value for t in fitted.tests],
            "identified": fitted.identified,
        })
    return found


def summary(predictors: int, epsilon: float, n: int, studies: list[dict]) -> dict:
    true = TRUE[predictors]
    estimate = np.array([s["estimate"] for s in studies])
    low, high = np.array([s["low"] for s in studies]), np.array([s["high"] for s in studies])
    p = np.array([s["p"] for s in studies])
    r = len(studies)
    covered = ((low <= true) & (true <= high)).mean(axis=0)
    return {
        "predictors": predictors, "epsilon": epsilon, "n": n, "studies": r,
        "bias": (estimate.mean(axis=0) - true).tolist(),
        "bias_se": (estimate.std(axis=0) / math.sqrt(r)).tolist(),
        "median_bias": (np.median(estimate, axis=0) - true).tolist(),
        "coverage": covered.tolist(),
        "unbounded": np.mean(np.isinf(low) | np.isinf(high), axis=0).tolist(),
        # among the studies given a test (not those the reports cannot identify)
        "rejected": ((p < 0.05).sum(axis=0) / max(np.isfinite(p[:, 0]).sum(), 1)).tolist(),
        "unidentified": float(np.mean([not s["identified"] for s in studies])),
        "seconds": float(np.mean([s["seconds"] for s in studies])),
    }


def show(result: dict) -> None:
    names = NAMES[result["predictors"]]
    print(f"\n{result['predictors']} predictors, epsilon {result['epsilon']:g}, "
          f"n {result['n']:,}: {result['studies']} studies, {result['seconds']:.2f} s per fit")
    print("| coefficient | truth | bias (MC se) | median bias | coverage | unbounded |")
    print("|---|---|---|---|---|---|")
    for i, name in enumerate(names):
        print(f"| {name} | {TRUE[result['predictors']][i]:g} | {result['bias'][i]:+.3f} "
              f"({result['bias_se'][i]:.3f}) | {result['median_bias'][i]:+.3f} | "
              f"{result['coverage'][i]:.3f} | {result['unbounded'][i]:.3f} |")
    tests = ["year", "yes (size)", "rating"][: result["predictors"]]
    rates = ", ".join(f"{t} {r:.3f}" for t, r in zip(tests, result["rejected"], strict=True))
    print(f"rejected at 5%: {rates}; not identified (no interval or test given): "
          f"{result['unidentified']:.3f}", flush=True)


SETTINGS = [  # the cheapest informative ones first: they finish first
    (3, 3.0, 50_000), (3, 1.0, 50_000), (3, 3.0, 2000),
    (2, 3.0, 50_000), (2, 1.0, 50_000), (2, 3.0, 2000), (2, 1.0, 2000), (3, 1.0, 2000),
    (3, 3.0, 10_000), (3, 1.0, 10_000), (2, 3.0, 10_000), (2, 1.0, 10_000),
    (3, 2.0, 2000), (3, 2.0, 10_000), (3, 2.0, 50_000),
    (2, 2.0, 2000), (2, 2.0, 10_000), (2, 2.0, 50_000),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="100 replicates")
    parser.add_argument("--settings", help="predictors:epsilon:n,... (default: all)")
    parser.add_argument("--raw", help="append each setting's summary to this file (JSON lines)")
    parser.add_argument("--studies", help="append every study's fit to this file (JSON lines)")
    args = parser.parse_args()
    replicates = 100 if args.quick else args.replicates
    settings = SETTINGS
    if args.settings:
        settings = [
            (int(p), float(e), int(n))
            for p, e, n in (item.split(":") for item in args.settings.split(","))
        ]
    tasks, owner = [], []
    for s, (predictors, epsilon, n) in enumerate(settings):
        for start in range(0, replicates, CHUNK):
            seed = SEED + 1000 * predictors + 100 * int(epsilon) + n + start
            tasks.append((predictors, epsilon, n, min(CHUNK, replicates - start), seed))
            owner.append(s)
    print(f"{replicates} studies per setting; Monte-Carlo standard error of a 95% coverage "
          f"{math.sqrt(0.95 * 0.05 / replicates):.3f}, of a 5% size "
          f"{math.sqrt(0.05 * 0.95 / replicates):.3f}", flush=True)
    studies: dict[int, list[dict]] = {}
    with ProcessPoolExecutor(args.workers) as pool:
        for s, found in zip(owner, pool.map(run, tasks), strict=True):
            studies.setdefault(s, []).extend(found)
            if args.studies:
                with open(args.studies, "a") as kept:
                    for study in found:
                        kept.write(json.dumps({"setting": settings[s], **study}) + "\n")
            if len(studies[s]) == replicates:
                result = summary(*settings[s], studies.pop(s))
                show(result)
                if args.raw:
                    with open(args.raw, "a") as raw:
                        raw.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
