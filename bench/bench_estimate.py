"""Benchmark of ``Mechanism.estimate`` (not a test). Run: .venv/bin/python bench/bench_estimate.py
(``--quick``: a smaller equality grid, for a first look; the targets then still apply).

1. Time of ``m.estimate(counts, n)`` for one question, per mechanism (rr, forced, pq, grr,
   sue, oue), over k in {2, 5, 14, 50} (as the mechanism allows), several epsilons and
   n in {30, 1000, 100000, 10**7}: median, 95th percentile and maximum over those cases of
   the median of ``REPEATS`` timings (``time.perf_counter``), with today's interval search
   and, alternately in the same run, with that of commit ``PREVIOUS_COMMIT`` (eight rounds
   of trial points). Target: at most 0.5 ms.
2. Equality with the implementation at commit 3591d42 (loaded from git into a temporary
   module, its Phi replaced by ``scipy.special.ndtr`` like today's): the headline (maximum
   likelihood) on >= 100,000 count vectors and ``estimate`` itself on every timed question.
   Target: largest |difference| <= 1e-9 (intervals: see 3).
3. Interval ends (ci_low, ci_high) on >= 100,000 counts (``intervals`` of many counts at
   once) against two versions of the interval search of commit 06f544b (its
   ``surveys/ldp/_intervals.py``, loaded from git): as it was ("before": exact sums over a
   window of 5 sd + 5 counts, leaving out up to ~1e-7 of the mass, and seven rounds), and a
   high-precision reference (the same search with the window widened to 12 sd + 15 counts,
   so that less than 1e-20 of the mass is left out, and ten refining rounds instead of six,
   so that the bracket is below 1e-13 wide); and against the search of ``PREVIOUS_COMMIT``.
   Target: largest |difference| from the reference <= 1e-9, except for hull corrections:
   ends beyond the reference's (a wider interval) where the p-value 1e-10 inside the new
   end, computed by ``feldman_cousins.p_value`` (the search's independent evaluator), exceeds
   alpha: an accepted pocket that the reference's trial points missed. Those are counted
   and their largest size printed.
4. The change that replacing the old Phi (a Chebyshev fit of erfc, relative error 1.2e-7)
   by ``ndtr`` makes by itself: the old code with either Phi, on part of the grid of 2.

Exits with status 1 when a target is missed.
"""

import importlib.util
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.special import ndtr

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from surveys import ldp  # noqa: E402
from surveys.ldp import estimation, feldman_cousins  # noqa: E402

REFERENCE_COMMIT = "3591d42"
SEARCH_COMMIT = "06f544b"
PREVIOUS_COMMIT = "7404d87"
WINDOW_PATCHES = (
    # (text in the interval code of SEARCH_COMMIT, its high-precision replacement)
    ("math.ceil(2 * EXACT_BELOW_VARIANCE + 10 * math.sqrt(EXACT_BELOW_VARIANCE)) + 14",
     "math.ceil(2 * EXACT_BELOW_VARIANCE + 24 * math.sqrt(EXACT_BELOW_VARIANCE)) + 40"),
    ("2 * math.ceil(5 * float(spread.max()) + 5) + 1",
     "2 * math.ceil(12 * float(spread.max()) + 15) + 1"),
    ("np.floor(n * lam - 5 * spread - 5)", "np.floor(n * lam - 12 * spread - 15)"),
)
TARGET_SECONDS = 0.5e-3
TARGET_DIFFERENCE = 1e-9
REPEATS = 7
SIZES = (30, 1000, 100_000, 10**7)
EPSILONS = (0.1, 0.5, 1.0, 2.0, 4.0, 8.0)
KS = (2, 5, 14, 50)
HEADLINE_CASES = 100_000
INTERVAL_CASES = 100_000


def reference_module(name: str, exact_phi: bool):
    """mechanisms.py as of ``REFERENCE_COMMIT``, as a fresh module; ``exact_phi`` swaps its
    Phi for ``ndtr``."""
    source = subprocess.run(
        ["git", "show", f"{REFERENCE_COMMIT}:surveys/ldp/mechanisms.py"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, f"{REFERENCE_COMMIT}:mechanisms.py", "exec"), module.__dict__)
    if exact_phi:
        module._normal_cdf = ndtr
    return module


def search_module(name: str, precise: bool, commit: str = SEARCH_COMMIT):
    """surveys/ldp/_intervals.py as of ``commit``, as a fresh module; ``precise`` widens
    the exact sums of ``SEARCH_COMMIT`` (``WINDOW_PATCHES``) and adds four refining
    rounds."""
    source = subprocess.run(
        ["git", "show", f"{commit}:surveys/ldp/_intervals.py"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    if precise:
        for old, new in WINDOW_PATCHES:
            assert source.count(old) == 1, old
            source = source.replace(old, new)
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(source, f"{commit}:_intervals.py", "exec"), module.__dict__)
    if precise:
        module.SEARCH_ROUNDS = (128,) + (16,) * 10
    return module


def mechanisms(module):
    """(name, mechanism) for every mechanism kind, epsilon and k of the grid."""
    out = [("rr", module.randomized_response(eps)) for eps in EPSILONS]
    out += [("forced", module.forced_response(a, b)) for a, b in ((0.5, 0.5), (0.75, 0.5),
                                                                  (0.6, 0.3))]
    out += [("pq", module.keep_probabilities(p, q)) for p, q in ((0.7, 0.6), (0.55, 0.95),
                                                                (0.9, 0.3))]
    for name in ("grr", "sue", "oue"):
        out += [(name, getattr(module, name)(eps, k)) for k in KS for eps in EPSILONS]
    return out


def draw_counts(m, n: int, rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` support-count vectors of n reports from random truths, sparse to flat."""
    truth = rng.dirichlet(np.ones(m.k) * rng.choice([0.05, 0.3, 1.0, 10.0]), size=size)
    lam = m.b + (m.a - m.b) * truth
    if m.encoding == "unary":
        return rng.binomial(n, lam)
    return np.array([rng.multinomial(n, row / row.sum()) for row in lam])


def timings(ref, previous):
    """Per mechanism name: the median time of estimate() of each question with today's
    interval search and with ``previous`` (timed alternately); and the largest
    |difference| of headline, ci_low, ci_high from the reference's estimate()."""
    rng = np.random.default_rng(2026)
    seconds: dict[str, list[float]] = {}
    before: dict[str, list[float]] = {}
    worst = np.zeros(3)
    questions = 0
    today = estimation.feldman_cousins
    for (name, m), (_, r) in zip(mechanisms(ldp), mechanisms(ref), strict=True):
        for n in SIZES:
            for counts in draw_counts(m, n, rng, 2):
                for search, out in ((previous, before), (today, seconds)):
                    estimation.feldman_cousins = search
                    times = []
                    for _ in range(REPEATS):
                        start = time.perf_counter()
                        got = m.estimate(counts, n)
                        times.append(time.perf_counter() - start)
                    out.setdefault(name, []).append(float(np.median(times)))
                want = r.estimate(counts, n)
                worst = np.maximum(worst, [np.max(np.abs(getattr(got, f) - getattr(want, f)))
                                           for f in ("headline", "ci_low", "ci_high")])
                questions += 1
    return seconds, before, worst, questions


def headline_equality(ref, cases: int) -> tuple[int, float]:
    """Largest |mle difference| over about ``cases`` count vectors, vectorised for both."""
    rng = np.random.default_rng(7)
    pairs = list(zip(mechanisms(ldp), mechanisms(ref), strict=True))
    each = -(-cases // (len(pairs) * len(SIZES)))
    worst, done = 0.0, 0
    for (_, m), (_, r) in pairs:
        for n in SIZES:
            counts = draw_counts(m, n, rng, each)
            worst = max(worst, float(np.max(np.abs(m.mle(counts, n) - r.mle(counts, n)))))
            done += len(counts)
    return done, worst


def interval_counts(m, category: int, n: int, size: int, rng: np.random.Generator):
    """``size`` counts of one category: spread over the likely range [n b, n a] widened by
    a few standard deviations, plus the edges 0, 1, n - 1, n."""
    a, b = m.a[category], m.b[category]
    sd = np.sqrt(n * 0.25)
    low, high = max(0.0, n * b - 4 * sd), min(float(n), n * a + 4 * sd)
    counts = rng.uniform(low, high, size - 4).round().astype(np.int64)
    return np.concatenate([[0, 1, n - 1, n], counts])


def accepted_inside(ends: tuple[float, ...], counts: np.ndarray, n: int, f: np.ndarray,
                    upward: bool, alpha: float = 0.05) -> np.ndarray:
    """Whether the p-value of each count at 1e-10 inside its interval end f (below an upper
    end, above a lower one) exceeds alpha, by ``feldman_cousins.p_value`` (trial points of one
    direction, exact sums or Gaussian limit as in the search)."""
    size = counts.size
    count = counts.astype(float)[:, None]
    a, b, a_bar, b_bar = (np.full((size, 1), v) for v in ends)
    side = feldman_cousins.Ends(count, a, b, a_bar, b_bar, a - b, count, np.zeros(size, int),
                           np.arange(size))
    side = side._replace(best=feldman_cousins.best_log_likelihood(count, n, side))
    direction = np.full(size, upward)
    table = feldman_cousins.crossings(n, side, direction)
    point = np.clip(f + (-1e-10 if upward else 1e-10), 0, 1)[:, None]
    return feldman_cousins.p_value(point, n, side, table, direction)[:, 0] > alpha


def interval_equality(before, precise, previous, ref_a, ref_b, cases: int, share_b: float):
    """Over about ``cases`` counts: the largest |difference| of the interval ends (low, high)
    of today's code from ``previous``, from ``before`` and from ``precise``
    (``search_module``), and of ``previous`` and ``before`` from ``precise``; the hull
    corrections (see the module's docstring: their number and largest size, left out of
    today's differences from ``previous`` and ``precise``), the wider ends not verified,
    and the number of ends more than 1e-9 from ``previous``; on about ``share_b`` of the
    counts, the largest |difference| of ``ref_b`` from ``ref_a``. ``intervals`` takes many
    counts at once, as ``category_intervals`` does."""
    rng = np.random.default_rng(11)
    triples = list(zip(mechanisms(ldp), mechanisms(ref_a), mechanisms(ref_b), strict=True))
    jobs = [(m, ra, rb, c) for (_, m), (_, ra), (_, rb) in triples
            for c in range(2 if m.encoding == "bit" else 1)]
    each = 64 * -(-cases // (len(jobs) * len(SIZES) * 64))
    # rows: now - previous, now - before, now - precise (the first and third without the
    # hull corrections),
    # previous - precise, before - precise
    worst = np.zeros((5, 2))
    corrections, largest, unverified, changed = 0, 0.0, 0, 0
    swap = np.zeros(2)
    done = swapped = 0
    for index, (m, ra, rb, category) in enumerate(jobs):
        ends = tuple(v[category] for v in (m.a, m.b, m.a_bar, m.b_bar))
        for n in SIZES:
            counts = interval_counts(m, category, n, each, rng)
            same = tuple(np.full(counts.size, v) for v in ends)
            got = m.category_intervals(category, counts, n)
            last = previous.intervals(counts.astype(float), n, same, 0.05)
            old = before.intervals(counts.astype(float), n, same, 0.05)
            best = precise.intervals(counts.astype(float), n, same, 0.05)
            for side, sign in ((0, -1.0), (1, 1.0)):
                wider = sign * (got[side] - best[side]) > TARGET_DIFFERENCE
                if wider.any():
                    ok = accepted_inside(ends, counts[wider], n, got[side][wider], side == 1)
                    corrections += int(ok.sum())
                    unverified += int((~ok).sum())
                    size = np.abs(got[side] - best[side])[wider][ok]
                    largest = max(largest, float(size.max(initial=0.0)))
                    wider[np.nonzero(wider)[0][~ok]] = False
                changed += int((np.abs(got[side] - last[side]) > TARGET_DIFFERENCE).sum())
                rows = ((got, last), (got, old), (got, best), (last, best), (old, best))
                for row, (x, y) in enumerate(rows):
                    gap = np.abs(x[side] - y[side])
                    if row in (0, 2):
                        gap = np.where(wider, 0.0, gap)
                    worst[row, side] = max(worst[row, side], float(gap.max()))
            done += counts.size
            if index % round(1 / share_b) == 0:
                want = ra.category_intervals(category, counts, n)
                other = rb.category_intervals(category, counts, n)
                swap = np.maximum(swap, [np.max(np.abs(o - w)) for o, w in zip(other, want,
                                                                              strict=True)])
                swapped += counts.size
    return done, worst, (corrections, largest, unverified, changed), swapped, swap


def main() -> int:
    quick = "--quick" in sys.argv
    # The old bisection takes square roots of negative numbers that it then discards.
    warnings.filterwarnings("ignore", category=RuntimeWarning, module="reference_")
    scale = 0.1 if quick else 1.0
    ref = reference_module("reference_ndtr", exact_phi=True)
    ref_old_phi = reference_module("reference_erfc_fit", exact_phi=False)
    missed = []

    previous = search_module("search_previous", precise=False, commit=PREVIOUS_COMMIT)
    seconds, before_seconds, worst_estimate, questions = timings(ref, previous)
    print(f"estimate() of one question, {REPEATS} repeats each (median per question), "
          f"k in {KS}, epsilon in {EPSILONS}, n in {SIZES}; today's interval search, and "
          f"that of {PREVIOUS_COMMIT} timed alternately:")
    print(f"  {'mechanism':<10}{'questions':>10}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}"
          f"   {PREVIOUS_COMMIT}:{'median':>8}{'p95':>9}{'max':>9}")
    for name, values in seconds.items():
        ms = np.array(values) * 1e3
        old_ms = np.array(before_seconds[name]) * 1e3
        print(f"  {name:<10}{ms.size:>10}{np.median(ms):>11.3f}{np.percentile(ms, 95):>9.3f}"
              f"{ms.max():>9.3f}   {'':8}{np.median(old_ms):>8.3f}"
              f"{np.percentile(old_ms, 95):>9.3f}{old_ms.max():>9.3f}")
        if ms.max() > TARGET_SECONDS * 1e3:
            missed.append(f"{name}: slowest estimate {ms.max():.3f} ms > 0.5 ms")

    print(f"\nEquality with {REFERENCE_COMMIT} (its Phi replaced by ndtr):")
    print(f"  estimate() of the {questions} timed questions: largest |difference| headline "
          f"{worst_estimate[0]:.2e}, ci_low {worst_estimate[1]:.2e}, "
          f"ci_high {worst_estimate[2]:.2e}")
    cases, worst_mle = headline_equality(ref, int(HEADLINE_CASES * scale))
    print(f"  headline (mle) of {cases:,} count vectors: largest |difference| {worst_mle:.2e}")
    before = search_module("search_before", precise=False)
    precise = search_module("search_precise", precise=True)
    cases_iv, worst_iv, hull, swapped, swap = interval_equality(
        before, precise, previous, ref, ref_old_phi, int(INTERVAL_CASES * scale), 0.25
    )
    print(f"\nInterval ends of {cases_iv:,} counts, largest |difference| (low, high):")
    for label, (low, high) in zip(
        (f"today's code from {PREVIOUS_COMMIT} (previous search) (*)",
         f"today's code from {SEARCH_COMMIT} (before)",
         "today's code from the high-precision reference (*)",
         f"{PREVIOUS_COMMIT} (previous search) from the high-precision reference",
         f"{SEARCH_COMMIT} (before) from the high-precision reference"),
        worst_iv, strict=True,
    ):
        print(f"  {label:<70}{low:.2e}  {high:.2e}")
    print(f"  (*) leaving out {hull[0]:,} hull corrections (ends wider than the reference's, "
          f"accepted 1e-10 inside), up to {hull[1]:.4f}; {hull[2]} wider ends not verified; "
          f"{hull[3]:,} ends differ from {PREVIOUS_COMMIT} by more than 1e-9")
    print(f"\nPhi swap alone ({REFERENCE_COMMIT}, erfc fit vs ndtr) on {swapped:,} counts: "
          f"largest change ci_low {swap[0]:.2e}, ci_high {swap[1]:.2e}")
    largest = max(*worst_estimate[:1], worst_mle)
    if largest > TARGET_DIFFERENCE:
        missed.append(f"largest headline difference from {REFERENCE_COMMIT} {largest:.2e} > 1e-9")
    if worst_iv[2].max() > TARGET_DIFFERENCE or hull[2]:
        missed.append(f"largest interval difference from the high-precision reference "
                      f"{worst_iv[2].max():.2e} > 1e-9, or {hull[2]} wider ends not verified")
    if cases < HEADLINE_CASES * scale or cases_iv < INTERVAL_CASES * scale:
        missed.append("fewer equality cases than planned")
    for line in missed:
        print("MISSED:", line)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
