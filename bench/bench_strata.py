"""Bias, coverage and test size of three-way breakdowns (surveys/ldp/strata.py; not a test).

Run: .venv/bin/python bench/bench_strata.py [--replicates R] [--workers W] [--quick]

For every truth x (epsilons of G, S, Q) x n, R simulated studies (default 400). Respondents
are drawn iid from the true three-way table Pi[g, s, j]; for one-hot questions the table of
report triples is drawn at once, Multinomial(n, (S_G (x) S_S) Pi S_Q^T); with a unary
question Q each respondent is randomized with ``perturb`` and counted with
``strata.triple_counts``. Printed for the shares of the answers within each (group, stratum):

- ``bias``: the largest |mean - truth| over the shares, in percentage points, and the same
  divided by the shares' standard deviation over the studies (``bias/sd``, worst share);
- ``coverage``: coverage of the 95% intervals, mean over the shares and the worst share
  (Monte-Carlo standard error about 0.011 at R = 400);
- ``size``: rejection rate at 5% of the test within each stratum when no stratum has an
  association (Pi replaced, stratum by stratum, by the product of its margins: the same
  stratum, group and answer shares), averaged over the strata, and the worst stratum;
- ``power``: rejection rate at 5% at the truth itself, per stratum.

Fixed seeds; the default grid takes about 15 minutes on two cores (--quick: 100 replicates).
"""

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp import joint, strata  # noqa: E402

SEED = 20261127
SIZES = (1000, 5000, 20_000)
EPSILONS = ((2.0, 2.0, 1.0), (1.0, 1.0, 1.0), (0.5, 0.5, 0.5), (4.0, 4.0, 4.0))
"""(epsilon of G, of S, of Q): grouping questions are often given 2, questions 1."""


def _truth(strata_shares, groups, answers) -> np.ndarray:
    """Pi[g, s, j] from P(s), P(g | s) (row s) and P(j | g, s) ([s][g])."""
    return np.einsum(
        "s,sg,sgj->gsj", np.asarray(strata_shares), np.asarray(groups), np.asarray(answers)
    )


TRUTHS = {
    # Faculty-like stratum (yes/no), year of study (3 groups), a 3-answer question: no
    # association in stratum 0, a strong one in stratum 1.
    "3x2x3": (
        lambda eg, es, eq: (ldp.grr(eg, 3), ldp.grr(es, 2), ldp.grr(eq, 3)),
        _truth(
            [0.6, 0.4],
            [[0.5, 0.3, 0.2], [0.3, 0.3, 0.4]],
            [[[0.6, 0.3, 0.1]] * 3, [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.1, 0.3, 0.6]]],
        ),
    ),
    # Yes/no groups within 3 strata, yes/no question: a modest difference in every stratum,
    # a rare answer and a small stratum (15%).
    "2x3x2": (
        lambda eg, es, eq: (ldp.grr(eg, 2), ldp.grr(es, 3), ldp.grr(eq, 2)),
        _truth(
            [0.5, 0.35, 0.15],
            [[0.7, 0.3], [0.5, 0.5], [0.4, 0.6]],
            [[[0.9, 0.1], [0.75, 0.25]], [[0.8, 0.2], [0.6, 0.4]], [[0.95, 0.05], [0.8, 0.2]]],
        ),
    ),
    # A unary (OUE) question of 4 answers by yes/no groups within yes/no strata.
    "2x2x4 oue": (
        lambda eg, es, eq: (ldp.grr(eg, 2), ldp.grr(es, 2), ldp.oue(eq, 4)),
        _truth(
            [0.55, 0.45],
            [[0.6, 0.4], [0.5, 0.5]],
            [[[0.4, 0.3, 0.2, 0.1]] * 2, [[0.5, 0.3, 0.15, 0.05], [0.1, 0.2, 0.3, 0.4]]],
        ),
    ),
}


def null_of(pi: np.ndarray) -> np.ndarray:
    """Each stratum's slice replaced by the product of its margins."""
    null = np.empty_like(pi)
    for s in range(pi.shape[1]):
        cut = pi[:, s, :]
        null[:, s, :] = np.outer(cut.sum(axis=1), cut.sum(axis=0)) / cut.sum()
    return null


def simulate(mechanisms, pi: np.ndarray, n: int, rng: np.random.Generator) -> joint.PairCounts:
    mech_g, mech_s, mech_q = mechanisms
    k_g, k_s, k_q = pi.shape
    if mech_q.encoding != "unary":
        combined = np.kron(mech_g.matrix(), mech_s.matrix())
        law = (combined @ pi.reshape(k_g * k_s, k_q) @ mech_q.matrix().T).ravel()
        table = rng.multinomial(n, law / law.sum()).reshape(k_g * k_s, k_q)
        return joint.PairCounts(n, table, table.sum(axis=1), table.sum(axis=0))
    g, rest = np.divmod(rng.choice(pi.size, size=n, p=pi.ravel()), k_s * k_q)
    s, j = np.divmod(rest, k_q)
    return strata.triple_counts(
        mech_g, mech_s, mech_q,
        mech_g.perturb(g, rng), mech_s.perturb(s, rng), mech_q.perturb(j, rng),
    )


def run(setting: tuple[str, tuple[float, float, float], int, int, int]) -> dict:
    name, epsilons, n, replicates, seed = setting
    build, pi = TRUTHS[name]
    mechanisms = build(*epsilons)
    within = np.swapaxes(pi / pi.sum(axis=2, keepdims=True), 0, 1)  # [s, g, j]
    rng = np.random.default_rng(seed)
    shares, covered, rejected = [], np.zeros(within.shape), np.zeros(pi.shape[1])
    for _ in range(replicates):
        found = strata.stratified_breakdown(*mechanisms, simulate(mechanisms, pi, n, rng))
        shares.append(found.share)
        covered += (found.share_ci_low <= within) & (within <= found.share_ci_high)
        rejected += [a.p_value < 0.05 for a in found.association]
    null, null_rejected = null_of(pi), np.zeros(pi.shape[1])
    for _ in range(replicates):
        found = strata.stratified_breakdown(*mechanisms, simulate(mechanisms, null, n, rng))
        null_rejected += [a.p_value < 0.05 for a in found.association]
    shares = np.array(shares)
    mean, sd = np.nanmean(shares, axis=0), np.nanstd(shares, axis=0)
    bias = np.abs(mean - within)
    coverage = covered / replicates
    return {
        "name": name, "epsilons": epsilons, "n": n,
        "bias_points": 100 * float(np.max(bias)),
        "bias_sd": float(np.max(bias / np.where(sd > 0, sd, np.inf))),
        "coverage_mean": float(coverage.mean()), "coverage_worst": float(coverage.min()),
        "size_mean": float(null_rejected.mean() / replicates),
        "size_worst": float(  # the stratum farthest from 0.05
            null_rejected[np.argmax(np.abs(null_rejected / replicates - 0.05))] / replicates
        ),
        "power": (rejected / replicates).round(3).tolist(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="100 replicates")
    args = parser.parse_args()
    replicates = 100 if args.quick else args.replicates
    settings = [
        (name, epsilons, n, replicates, SEED + i)
        for i, (name, epsilons, n) in enumerate(
            (name, epsilons, n) for name in TRUTHS for epsilons in EPSILONS for n in SIZES
        )
    ]
    print(f"{replicates} studies per setting; Monte-Carlo standard error of a 95% coverage "
          f"{math.sqrt(0.95 * 0.05 / replicates):.3f}, of a 5% size "
          f"{math.sqrt(0.05 * 0.95 / replicates):.3f}")
    print("| truth | eps G, S, Q | n | bias, worst (points) | bias/sd, worst | coverage mean "
          "| coverage worst | size mean | size worst | power by stratum |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with ProcessPoolExecutor(args.workers) as pool:
        for r in pool.map(run, settings):
            eps = ", ".join(f"{e:g}" for e in r["epsilons"])
            power = " / ".join(f"{p:.2f}" for p in r["power"])
            print(f"| {r['name']} | {eps} | {r['n']:,} | {r['bias_points']:.2f} | "
                  f"{r['bias_sd']:.2f} | {r['coverage_mean']:.3f} | {r['coverage_worst']:.3f} | "
                  f"{r['size_mean']:.3f} | {r['size_worst']:.3f} | {power} |", flush=True)


if __name__ == "__main__":
    main()
