"""Coverage of the 95% intervals of surveys/ldp/mechanisms.py (not a test).

Run: .venv/bin/python bench/bench_coverage.py [--replicates R] [--workers W] [--widen-to WHAT]

For every cell of mechanism x k x epsilon x n x true share, prints:

- ``mc``: Monte-Carlo coverage of the interval ``estimate()`` shows (``intervals`` widened to
  contain the headline; ``--widen-to mle`` widens to the maximum-likelihood estimate instead,
  as before the headline pooled its small answers), over R simulated studies, with its
  binomial standard error ``se``.
  Respondents are drawn iid from the population (share s on the last category, the rest
  spread evenly) and their support counts simulated from their exact laws: GRR counts are
  Multinomial(n, S pi); unary counts are Binomial(N_c, p) + Binomial(n - N_c, q) given the
  multinomial numbers N of people per true category; yes/no counts are Binomial(n, lam).
- ``exact``: the coverage of the unwidened interval computed without simulation, summing the
  Binomial(n, lam) law of the category's count over every count with probability > 1e-12
  (the interval of a category depends only on its own count).
- ``wid``: share of studies in which the interval had to be widened to contain the headline
  (or the estimate named by ``--widen-to``).
- ``flag``: ``LOW`` if the coverage is below 0.93, ``HIGH`` if above 0.97 with n >= 1000.
- ``E[C]``: expected support count in the smaller tail, min(n lam, n (1 - lam)).
- ``band``: whether any acceptance set of consecutive counts {l, ..., u} has probability in
  [0.93, 0.97] at this lam; ``no`` means no interval whose ends grow with the count could
  cover in the target band here (the count is too lumpy).

Fixed seed; the whole grid (2730 cells) takes a few minutes on two cores.
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

EPSILONS = (0.1, 0.5, 1.0, 2.0, 4.0, 8.0)
SIZES = (30, 100, 300, 1000, 10_000)
SHARES = (0.0, 0.001, 0.01, 0.05, 0.3, 0.5, 0.999)
KS = (2, 5, 14, 50)
SEED = 20240611


def mechanisms() -> list[tuple[str, int, float]]:
    """(name, k, epsilon) of every mechanism in the grid."""
    grid = [("rr", 2, eps) for eps in EPSILONS]
    grid += [(name, k, eps) for name in ("grr", "oue", "sue") for k in KS for eps in EPSILONS]
    return grid


def build(name: str, k: int, epsilon: float) -> ldp.Mechanism:
    return ldp.randomized_response(epsilon) if name == "rr" else ldp.CATEGORICAL[name](epsilon, k)


def binomial_pmf(n: int, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Counts with probability above 1e-12 and their Binomial(n, lam) probabilities."""
    sd = math.sqrt(n * lam * (1 - lam))
    low = max(0, math.floor(n * lam - 9 * sd - 12))
    high = min(n, math.ceil(n * lam + 9 * sd + 12))
    ys = np.arange(low, high + 1)
    log_pmf = np.array(
        [math.lgamma(n + 1) - math.lgamma(y + 1) - math.lgamma(n - y + 1) for y in ys]
    ) + ys * math.log(lam) + (n - ys) * math.log1p(-lam)
    pmf = np.exp(log_pmf)
    keep = pmf > 1e-12
    return ys[keep], pmf[keep]


def band_attainable(pmf: np.ndarray) -> bool:
    """Whether some run of consecutive counts has total probability in [0.93, 0.97]."""
    cumulative = np.concatenate([[0.0], np.cumsum(pmf)])
    totals = cumulative[None, :] - cumulative[:, None]  # totals[l, u + 1] = P(l <= Y <= u)
    return bool(np.any((totals >= 0.93) & (totals <= 0.97)))


def interval_table(m: ldp.Mechanism, n: int, ys: np.ndarray) -> dict[int, tuple[float, float]]:
    """The (unwidened) interval of the last category for each count in ys."""
    low, high = m.category_intervals(m.k - 1, ys, n)
    return {int(y): (float(lo), float(hi)) for y, lo, hi in zip(ys, low, high, strict=True)}


def simulate(
    m: ldp.Mechanism, n: int, share: float, replicates: int, rng: np.random.Generator
) -> np.ndarray:
    """Support counts (replicates, k) of whole studies (see the module docstring)."""
    truth = np.full(m.k, (1 - share) / (m.k - 1))
    truth[-1] = share
    if m.encoding == "unary":
        people = rng.multinomial(n, truth, size=replicates)
        return rng.binomial(people, m.p) + rng.binomial(n - people, m.q)
    return rng.multinomial(n, m.matrix() @ truth, size=replicates)


def run_group(task: tuple[str, int, float, int, int, str]) -> list[dict]:
    """Every share for one (mechanism, k, epsilon, n)."""
    name, k, epsilon, n, replicates, widen_to = task
    m = build(name, k, epsilon)
    rng = np.random.default_rng([SEED, KS.index(k), EPSILONS.index(epsilon), SIZES.index(n),
                                 ["rr", "grr", "oue", "sue"].index(name)])
    a, b = float(m.a[-1]), float(m.b[-1])
    laws = {share: binomial_pmf(n, b + (a - b) * share) for share in SHARES}
    studies = {share: simulate(m, n, share, replicates, rng) for share in SHARES}
    needed = np.unique(np.concatenate(
        [ys for ys, _ in laws.values()] + [counts[:, -1] for counts in studies.values()]
    ))
    table = interval_table(m, n, needed)
    rows = []
    for share, counts in studies.items():
        ends = np.array([table[int(y)] for y in counts[:, -1]])
        headline = (m.mle if widen_to == "mle" else m.headline)(counts, n)[:, -1]
        low, high = np.minimum(ends[:, 0], headline), np.maximum(ends[:, 1], headline)
        covered = (low <= share) & (share <= high)
        widened = (headline < ends[:, 0]) | (headline > ends[:, 1])
        ys, pmf = laws[share]
        exact = float(sum(
            p for y, p in zip(ys, pmf, strict=True) if table[int(y)][0] <= share <= table[int(y)][1]
        ))
        lam = b + (a - b) * share
        mc = float(covered.mean())
        rows.append({
            "name": name, "k": k, "epsilon": epsilon, "n": n, "share": share, "mc": mc,
            # Binomial standard error; at 0 or 1 misses, that of one miss in R.
            "se": math.sqrt(min(max(mc, 1 / replicates), 1 - 1 / replicates)
                            * (1 - min(max(mc, 1 / replicates), 1 - 1 / replicates)) / replicates),
            "exact": exact, "widened": float(widened.mean()),
            "tail": min(n * lam, n * (1 - lam)), "band": band_attainable(pmf),
        })
    return rows


def flag(row: dict) -> str:
    coverage = row["exact"]
    if coverage < 0.93:
        return "LOW"
    if row["n"] >= 1000 and coverage > 0.97:
        return "HIGH"
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--widen-to", choices=("headline", "mle"), default="headline",
                        help="the estimate the intervals are widened to contain")
    args = parser.parse_args()
    tasks = [(name, k, eps, n, args.replicates, args.widen_to)
             for name, k, eps in mechanisms() for n in SIZES]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = [row for rows in pool.map(run_group, tasks, chunksize=4) for row in rows]
    print(f"Interval: {ldp.INTERVAL_METHOD}. {ldp.INTERVAL_DESCRIPTION}")
    print(f"Widened to contain: {args.widen_to}.")
    print(f"{args.replicates} simulated studies per cell (seed {SEED}); target 95%: "
          "[0.93, 0.97] for n >= 1000, >= 0.93 for every n.")
    print(f"{'mech':<5}{'k':>3}{'eps':>5}{'n':>7}{'share':>7}{'mc':>8}{'se':>7}{'exact':>8}"
          f"{'wid':>6}{'E[C]':>9}{'band':>6}  flag")
    for row in results:
        print(f"{row['name']:<5}{row['k']:>3}{row['epsilon']:>5g}{row['n']:>7}{row['share']:>7g}"
              f"{row['mc']:>8.3f}{row['se']:>7.3f}{row['exact']:>8.3f}{row['widened']:>6.2f}"
              f"{row['tail']:>9.3g}{'yes' if row['band'] else 'no':>6}  {flag(row)}")
    flagged = [row for row in results if flag(row)]
    print(f"\n{len(results)} cells, {len(flagged)} flagged "
          f"({sum(flag(r) == 'LOW' for r in flagged)} LOW, "
          f"{sum(flag(r) == 'HIGH' for r in flagged)} HIGH); "
          f"{time.perf_counter() - started:.0f} s")
    print(f"Monte-Carlo coverage of the shown intervals: lowest "
          f"{min(r['mc'] for r in results):.3f}, mean {np.mean([r['mc'] for r in results]):.3f}.")
    by_tail = sorted(r["tail"] for r in flagged)
    if by_tail:
        print(f"Flagged cells have an expected smaller-tail count from {by_tail[0]:.3g} to "
              f"{by_tail[-1]:.3g}; minimum exact coverage over all cells "
              f"{min(r['exact'] for r in results):.3f}, over n >= 1000 "
              f"{min(r['exact'] for r in results if r['n'] >= 1000):.3f}.")


if __name__ == "__main__":
    main()
