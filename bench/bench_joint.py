"""Coverage, test size and power, and speed of the breakdowns of surveys/ldp/joint.py (not a test).

Run: .venv/bin/python bench/bench_joint.py [--replicates R] [--workers W] [--quick]

For every truth x (epsilon of A, epsilon of B) x n, R simulated studies. Respondents are
drawn iid from the true joint Pi; their reports are simulated from the mechanisms' exact
laws (for one-hot pairs the report-pair table is Multinomial(n, S_A Pi S_B^T); for pairs
with a unary question each respondent is randomized with ``perturb`` and counted with
``pair_counts``). Printed, each coverage with its binomial Monte-Carlo standard error:

- ``cell``: coverage of the joint-share intervals, mean over cells and the worst cell;
- ``share``: the same for the shares of the answers within groups (score-Fieller), and
  ``share-d`` for the plain delta-method interval (estimate +- z sd) it was measured against;
  ``share|big`` only over the studies where the group was not flagged ``small_group`` (groups
  flagged in more than 90% of the studies left out), and ``small`` the share of
  (group, study) pairs flagged;
- ``diff``: differences between groups 0 and 1 and between groups 0 and the last (MOVER),
  and ``diff-d`` for the delta-method interval it was measured against;
- ``power``: rejection rate at 5% of the association test at this truth; ``size``: its
  rejection rate under independence (the same group shares and overall answer shares, Pi =
  row totals x column totals), also from R studies;
- ``clip``: the share of cell and share intervals whose unbiased estimate lay outside
  [0, 1] (a share's: N outside [0, D]), where a central test would reject every value and
  ``score_intervals.score_interval`` relies on Feldman and Cousins' ordering, and ``|clip``: the
  coverage of those intervals alone, over all their cells; ``flat``: how many intervals
  had no width (under 1e-4) in all studies;
- ``bias``: the largest |mean - truth| / (Monte-Carlo standard error) over cells of the
  unbiased joint, and of the headline (maximum-likelihood) joint relative to its own
  standard deviation (its bias near 0 is the price of staying non-negative);
- ``mse``: mean squared error of the headline joint divided by that of the Norm-Sub
  projection of the unbiased joint (below 1: maximum likelihood is better).

Flags: ``LOW`` when a coverage (worst cell) is below 0.93 at n >= 2000 or below 0.90 at
n = 300; ``HIGH`` when above 0.97 at n >= 2000; ``SIZE`` when the size is outside
0.05 +- 0.015; ``FLAT`` when an interval had no width. Then the time of ``breakdown()``
for 2x2, 14x2, 14x14 and 50x50 tables.

Fixed seeds; the default grid takes about 40 minutes on two cores (--quick: 200 replicates).
"""

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp import joint, joint_fit, sides

SEED = 20250105
SIZES = (300, 2000, 10_000)
EPSILONS = ((2.0, 1.0), (1.0, 1.0), (0.5, 0.5), (4.0, 4.0))
"""(epsilon of the grouping question A, epsilon of the question B): the app's defaults give
B epsilon 1, and grouping questions are often given 2."""


def _rows(groups: list[float], within: list[list[float]]) -> np.ndarray:
    """Pi from group shares and the shares of the answers within each group."""
    return np.asarray(groups)[:, None] * np.asarray(within)


_G14 = [0.2, 0.15, 0.12, 0.1, 0.08, 0.07, 0.06, 0.05, 0.04, 0.04, 0.03, 0.03, 0.02, 0.01]
_YES14 = np.linspace(0.05, 0.6, 14)
TRUTHS = {
    "2x2": (
        lambda ea, eb: (ldp.grr(ea, 2), ldp.grr(eb, 2)),
        _rows([0.7, 0.3], [[0.8, 0.2], [0.5, 0.5]]),
    ),
    "3x5": (
        lambda ea, eb: (ldp.grr(ea, 3), ldp.grr(eb, 5)),
        _rows(
            [0.5, 0.35, 0.15],
            [[0.5, 0.2, 0.15, 0.1, 0.05], [0.2, 0.3, 0.3, 0.15, 0.05], [0.05, 0.05, 0.2, 0.3, 0.4]],
        ),
    ),
    "14x2": (
        lambda ea, eb: (ldp.grr(ea, 14), ldp.randomized_response(eb)),
        _rows(_G14, np.column_stack([1 - _YES14, _YES14]).tolist()),
    ),
    "oue5x3": (
        lambda ea, eb: (ldp.oue(ea, 5), ldp.grr(eb, 3)),
        _rows(
            [0.4, 0.25, 0.2, 0.1, 0.05],
            [[0.6, 0.35, 0.05], [0.4, 0.4, 0.2], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6],
             [0.05, 0.15, 0.8]],
        ),
    ),
    "yn x yn": (
        lambda ea, eb: (ldp.randomized_response(ea), ldp.randomized_response(eb)),
        _rows([0.8, 0.2], [[0.95, 0.05], [0.75, 0.25]]),
    ),
    "oue4x4": (
        lambda ea, eb: (ldp.oue(ea, 4), ldp.oue(eb, 4)),
        _rows(
            [0.4, 0.3, 0.2, 0.1],
            [[0.5, 0.3, 0.18, 0.02], [0.25, 0.25, 0.25, 0.25], [0.1, 0.2, 0.3, 0.4],
             [0.02, 0.08, 0.2, 0.7]],
        ),
    ),
}
"""name: (builder of the two mechanisms from the two epsilons, true joint Pi). Every truth
has groups that differ and rare answers (5% or less somewhere)."""


def simulate(
    mech_a: ldp.Mechanism, mech_b: ldp.Mechanism, pi: np.ndarray, n: int,
    rng: np.random.Generator,
) -> joint.PairCounts:
    """The pair counts of one study of n respondents drawn from Pi."""
    if mech_a.encoding != "unary" and mech_b.encoding != "unary":
        table = rng.multinomial(n, (mech_a.matrix() @ pi @ mech_b.matrix().T).ravel())
        table = table.reshape(pi.shape)
        return joint.PairCounts(n, table, table.sum(axis=1), table.sum(axis=0))
    true_a, true_b = np.divmod(rng.choice(pi.size, size=n, p=pi.ravel()), pi.shape[1])
    return joint.pair_counts(
        mech_a, mech_b, mech_a.perturb(true_a, rng), mech_b.perturb(true_b, rng)
    )


def _delta_difference(found: joint.Breakdown, g1: int, g2: int, z: float, n: int) -> tuple:
    v_11, v_22, v_12 = found.model.share_covariance(g1, g2)
    estimate = found.share[g1] - found.share[g2]
    half = z * np.sqrt(np.maximum(v_11 + v_22 - 2 * v_12, 0) / n)
    return np.clip(estimate - half, -1, 1), np.clip(estimate + half, -1, 1)


def run_cell(task: tuple[str, int, int, int]) -> dict:
    """R studies of one truth x epsilons x n."""
    name, e, n, replicates = task
    build, pi = TRUTHS[name]
    mech_a, mech_b = build(*EPSILONS[e])
    rng = np.random.default_rng([SEED, list(TRUTHS).index(name), e, SIZES.index(n)])
    within = pi / pi.sum(axis=1, keepdims=True)
    last = pi.shape[0] - 1
    pairs = ((0, 1), (0, last)) if last > 1 else ((0, 1),)
    z = ldp.z_value(0.95)
    side_a, side_b = sides.Side(mech_a), sides.Side(mech_b)
    hits: dict[str, list[np.ndarray]] = {
        key: [] for key in ("cell", "share", "share-d", "diff", "diff-d")
    }
    unbiased, headline, norm_sub, rejected, elapsed = [], [], [], [], 0.0
    clipped_hits, clipped, flat = [], [], 0
    small: list[np.ndarray] = []
    for _ in range(replicates):
        counts = simulate(mech_a, mech_b, pi, n, rng)
        started = time.perf_counter()
        found = joint.breakdown(mech_a, mech_b, counts)
        differences = [found.difference(*pair) for pair in pairs]
        elapsed += time.perf_counter() - started
        hits["cell"].append((found.joint_ci_low <= pi) & (pi <= found.joint_ci_high))
        hits["share"].append((found.share_ci_low <= within) & (within <= found.share_ci_high))
        small.append(found.small_group)
        v_nn = np.stack([found.model.share_covariance(g, g)[0] for g in range(pi.shape[0])])
        half = z * np.sqrt(np.maximum(v_nn, 0) / n)
        hits["share-d"].append(np.abs(np.nan_to_num(found.share, nan=0.5) - within) <= half)
        truth_differences = [within[g1] - within[g2] for g1, g2 in pairs]
        hits["diff"].append(np.concatenate([
            (d.ci_low <= t) & (t <= d.ci_high)
            for d, t in zip(differences, truth_differences, strict=True)
        ]))
        hits["diff-d"].append(np.concatenate([
            (low <= t) & (t <= high)
            for (low, high), t in zip(
                (_delta_difference(found, *pair, z, n) for pair in pairs),
                truth_differences, strict=True,
            )
        ]))
        rejected.append(found.association.p_value < 0.05)
        unbiased.append(joint_fit.unbiased_joint(side_a, side_b, counts))
        cell_clipped = (unbiased[-1] < 0) | (unbiased[-1] > 1)
        totals = unbiased[-1].sum(axis=1, keepdims=True)
        share_clipped = (totals > 0) & ((unbiased[-1] < 0) | (unbiased[-1] > totals))
        clipped.append(np.concatenate([cell_clipped.ravel(), share_clipped.ravel()]))
        clipped_hits.append(np.concatenate([
            hits["cell"][-1][cell_clipped], hits["share"][-1][share_clipped]
        ]))
        flat += int(np.sum(found.joint_ci_high - found.joint_ci_low < 1e-4)
                    + np.sum(found.share_ci_high - found.share_ci_low < 1e-4))
        headline.append(found.joint)
        norm_sub.append(ldp.project_simplex(unbiased[-1].ravel()).reshape(pi.shape))
    null = np.outer(pi.sum(axis=1), pi.sum(axis=0))
    null_rejected = [
        joint.breakdown(mech_a, mech_b, simulate(mech_a, mech_b, null, n, rng)).association.p_value
        < 0.05
        for _ in range(replicates)
    ]
    unbiased, headline = np.array(unbiased), np.array(headline)
    row = {"name": name, "eps": EPSILONS[e], "n": n, "R": replicates,
           "time": elapsed / replicates}
    for key, values in hits.items():
        rate = np.mean(values, axis=0)
        row[key] = (float(rate.mean()), float(rate.min()))
    # Shares of groups not flagged small_group, among the studies where they were not.
    small = np.array(small)
    share_hits = np.array(hits["share"])
    kept = [share_hits[~small[:, g], g].mean(axis=0) for g in range(pi.shape[0])
            if (~small[:, g]).sum() >= replicates // 10]
    row["share|big"] = ((float(np.mean(kept)), float(np.min(kept))) if kept else (math.nan,) * 2)
    row["small"] = float(small.mean())
    row["clip"] = float(np.mean(clipped))
    pooled = np.concatenate(clipped_hits)
    row["|clip"] = float(pooled.mean()) if pooled.size else math.nan
    row["flat"] = flat
    row["power"] = float(np.mean(rejected))
    row["size"] = float(np.mean(null_rejected))
    mc_se = unbiased.std(axis=0) / math.sqrt(replicates)
    row["bias_unbiased"] = float(np.max(np.abs(unbiased.mean(axis=0) - pi) / mc_se))
    row["bias_headline"] = float(
        np.max(np.abs(headline.mean(axis=0) - pi) / np.maximum(headline.std(axis=0), 1e-12))
    )
    row["mse"] = float(
        np.mean(np.sum((headline - pi) ** 2, axis=(1, 2)))
        / np.mean(np.sum((np.array(norm_sub) - pi) ** 2, axis=(1, 2)))
    )
    return row


def se(rate: float, replicates: int) -> float:
    """Binomial standard error of a rate over R studies (that of one event in R at 0 or 1)."""
    r = min(max(rate, 1 / replicates), 1 - 1 / replicates)
    return math.sqrt(r * (1 - r) / replicates)


def flags(row: dict) -> str:
    out = []
    for key in ("cell", "share", "diff"):
        worst = row[key][1]
        if worst < (0.93 if row["n"] >= 2000 else 0.90):
            out.append(f"LOW-{key}")
        if row["n"] >= 2000 and worst > 0.97:
            out.append(f"HIGH-{key}")
    if abs(row["size"] - 0.05) > 0.015:
        out.append("SIZE")
    if row["flat"]:
        out.append("FLAT")
    return " ".join(out)


def timing() -> None:
    """Median time of breakdown() on one study of 20,000 respondents."""
    print("\nTime of breakdown() (median of 5; 20,000 respondents; A at epsilon 2, B at 1; "
          "Pi ~ Dirichlet(1)):")
    rng = np.random.default_rng(SEED)
    for k_a, k_b, override in ((2, 2, None), (14, 2, None), (14, 14, None), (14, 14, "grr"),
                               (50, 50, None), (50, 50, "grr")):
        mech_a, mech_b = (
            ldp.choose_categorical(eps, k, override) if k > 2 else ldp.randomized_response(eps)
            for eps, k in ((2.0, k_a), (1.0, k_b))
        )
        pi = rng.dirichlet(np.ones(k_a * k_b)).reshape(k_a, k_b)
        counts = simulate(mech_a, mech_b, pi, 20_000, rng)
        times = []
        for _ in range(5):
            started = time.perf_counter()
            joint.breakdown(mech_a, mech_b, counts)
            times.append(time.perf_counter() - started)
        print(f"  {k_a:>2} x {k_b:<2} {mech_a.name:>3} x {mech_b.name:<3} "
              f"{1000 * float(np.median(times)):8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="200 replicates")
    parser.add_argument("--truths", nargs="*", choices=list(TRUTHS), default=list(TRUTHS),
                        help="only these truths")
    args = parser.parse_args()
    replicates = 200 if args.quick else args.replicates
    tasks = [(name, e, n, replicates) for name in args.truths for e in range(len(EPSILONS))
             for n in SIZES]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(run_cell, tasks))
    print(f"{replicates} simulated studies per row (seed {SEED}); coverage as mean over "
          "cells / worst cell, each +- its Monte-Carlo standard error.")
    print(f"{'truth':<8}{'epsA,B':>8}{'n':>7} {'cell':>11} {'share':>11} {'share|big':>11} "
          f"{'share-d':>11} {'diff':>11} {'diff-d':>11} {'small':>5} {'power':>6} {'size':>6} "
          f"{'clip':>5} {'|clip':>5} {'flat':>4} {'bias':>10} {'mse':>5} {'ms':>5}  flags")
    for row in rows:
        def pair(key: str, row: dict = row) -> str:
            return f"{row[key][0]:.3f}/{row[key][1]:.3f}"

        epsilons = "{:g},{:g}".format(*row["eps"])
        print(f"{row['name']:<8}{epsilons:>8}{row['n']:>7} {pair('cell'):>11} {pair('share'):>11}"
              f" {pair('share|big'):>11} {pair('share-d'):>11} "
              f"{pair('diff'):>11} {pair('diff-d'):>11} {row['small']:>5.2f} "
              f"{row['power']:>6.3f} {row['size']:>6.3f} "
              f"{row['clip']:>5.3f} {row['|clip']:>5.3f} {row['flat']:>4} "
              f"{row['bias_unbiased']:>4.1f}/{row['bias_headline']:<5.2f} {row['mse']:>5.2f} "
              f"{1000 * row['time']:>5.1f}  {flags(row)}")
    print(f"Monte-Carlo standard error of a coverage near 0.95: {se(0.95, replicates):.3f}; "
          f"of the size near 0.05: {se(0.05, replicates):.3f}.")
    for key in ("cell", "share", "share|big", "diff", "share-d", "diff-d"):
        for label, keep in (("n >= 2000", lambda r: r["n"] >= 2000),
                            ("n = 300", lambda r: r["n"] == 300)):
            chosen = [r for r in rows if keep(r)]
            means = [r[key][0] for r in chosen if not math.isnan(r[key][0])]
            worst = [r[key][1] for r in chosen if not math.isnan(r[key][1])]
            print(f"{key:>9}, {label}: mean coverage {np.mean(means):.3f}, "
                  f"worst cell {min(worst):.3f}")
    sizes = [r["size"] for r in rows]
    print(f"size: mean {np.mean(sizes):.3f}, range {min(sizes):.3f} to {max(sizes):.3f}")
    flagged = [r for r in rows if flags(r)]
    print(f"{len(rows)} rows, {len(flagged)} flagged; {time.perf_counter() - started:.0f} s")
    timing()


if __name__ == "__main__":
    main()
