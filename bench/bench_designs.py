"""Long questionnaires: the margins of "ask every question" against a random few questions
per respondent, and the coverage and bias of every estimator under the sampled design
(surveys/ldp/designs.py; not a test).

Run: .venv/bin/python bench/bench_designs.py [--studies S] [--respondents N] [--workers W]
     [--quick] [--margins-only]

Part 1, margins (planning, no simulation): at a whole-survey epsilon of 3, for 10, 20 and
40 yes/no questions (none always asked, one question per block) and 1,000, 5,000 and 20,000
respondents, the 95% margin of a yes/no share whose truth is 20% (``margin_of_error`` at
``share=0.2``, as in the issue's table) and of the mean of a number from 0 to 30 (the worst
case, ``NumberWindow.mean_margin``): asking every question at 3 / questions, and drawing
N = 1, 2, 3 or 5 questions per respondent, each at 3 / N and asked of respondents N /
questions of them (``ldp.expected_asked``); then the N that ``ldp.recommended_asked``
recommends (any N from 1 to the number of questions) and its ratio to splitting. Then what
fake reports (RS+FD, Arcolezi et al. 2021) would give instead of marking the draw.

Part 2, coverage and bias (S studies, default 1,000, of 2,000 and of 10,000 respondents): a
survey with one always-asked yes/no question A (the grouping question and the predictor)
and six sampled blocks, each respondent drawing two: a yes/no question Y, a number X from
0 to 30, a check-all question C with 4 options, a 5-point rating R, a yes/no question Y2
that goes with Y, and a block of a yes/no condition W with its yes/no follow-up V (asked
when W is yes). Budget 4: A at epsilon 1, every sampled question at (4 - 1) / 3 = 1 (the
largest two blocks hold 3 questions). Every study is drawn by a sampler written here and
sharing nothing with the site's simulation code: true answers, then each respondent's draw
of two blocks (the first two of a uniformly random order), then each drawn question's
report from its mechanism's matrix row P(report | answer). Each estimate uses the reports of
the respondents who drew its question (and for two sampled questions, those who drew both),
with the site's estimators. Printed: coverage of the 95% intervals (its binomial standard
error), bias of the estimate the page shows (its Monte-Carlo standard error) and its median
less the truth (robust where a few studies' estimates are wild, as the logistic
regression's are with few reports); ``LOW``
flags a coverage below 0.93, ``BIASED`` a bias beyond 3 Monte-Carlo standard errors.

Fixed seeds. About 3 minutes on one core at the default size; --quick runs 100 studies.
"""

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one thread per worker: small matrices

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp import asked, joint, regression, scores  # noqa: E402

SEED = 20261203
Z = ldp.Z95

# Part 1 ------------------------------------------------------------------------------------

BUDGET = 3.0
QUESTIONS = (10, 20, 40)
RESPONDENTS = (1000, 5000, 20_000)
ASKED = (1, 2, 3, 5)
SHARE = 0.2
LOW, HIGH = 0, 30


def share_margin(epsilon: float, n: float) -> float:
    return ldp.randomized_response(epsilon).margin_of_error(round(n), share=SHARE)


def mean_margin(epsilon: float, n: float) -> float:
    return ldp.number_window(epsilon, LOW, HIGH).mean_margin(round(n))


def margins_table(title: str, margin, unit: float, digits: int) -> dict:
    """One table: rows of questions x respondents, columns split and N; returns the
    recommended N and the ratio split / recommended per row."""
    print(f"\n{title}")
    heads = " | ".join(f"N = {n}" for n in ASKED)
    print(f"| questions | respondents | split evenly | {heads} | recommended N "
          "| split / recommended |")
    print("|---|---|---|" + "---|" * len(ASKED) + "---|---|")
    found = {}
    for questions in QUESTIONS:
        for n in RESPONDENTS:
            split = margin(BUDGET / questions, n)
            drawn = [margin(BUDGET / k, ldp.expected_asked(n, questions, k)) for k in ASKED]
            best = ldp.recommended_asked(BUDGET, [], [1] * questions, n, margin)
            best_margin = margin(BUDGET / best, ldp.expected_asked(n, questions, best))
            found[questions, n] = (best, split / best_margin)
            cells = " | ".join(f"±{unit * m:.{digits}f}" for m in drawn)
            print(f"| {questions} | {n:,} | ±{unit * split:.{digits}f} | {cells} | {best} "
                  f"(±{unit * best_margin:.{digits}f}) | {split / best_margin:.1f} |")
    return found


def fake_reports() -> None:
    """RS+FD with GRR (Arcolezi et al. 2021) for yes/no questions: every respondent sends a
    report for each of the d questions; one drawn at random is the true answer randomized at
    epsilon', the others are fake, uniform over the 2 answers. Question j's report is then
    "yes" with probability (1/d) (q' + (p' - q') f) + (d - 1) / (2 d), and its estimate has
    variance d^2 lam (1 - lam) / (n (p' - q')^2). Against it: the marked draw at N = 1 (the
    question asked of n / d at epsilon 3)."""
    print("\nFake reports (RS+FD) against the marked draw, one question per respondent, "
          f"{SHARE:.0%} yes, 95% margin in points:")
    print("| questions | respondents | marked draw at ε 3 | RS+FD, true report at ε' = 3 "
          "(whole body ε 3) | RS+FD at the paper's amplified ε' (whole body ε') | ε' |")
    print("|---|---|---|---|---|---|")
    n = 5000
    for d in QUESTIONS:
        marked = share_margin(BUDGET, n / d)
        amplified = math.log(d * (math.exp(BUDGET) - 1) + 1)
        each, paper = rsfd_margin(d, n, BUDGET), rsfd_margin(d, n, amplified)
        print(f"| {d} | {n:,} | ±{100 * marked:.1f} | ±{100 * each:.1f} "
              f"(variance × {(each / marked) ** 2:.0f}) | ±{100 * paper:.1f} | {amplified:.2f} |")


def rsfd_margin(d: int, n: int, epsilon: float) -> float:
    """RS+FD's 95% margin for a yes/no share with d questions and n respondents, the true
    report randomized at ``epsilon`` (``fake_reports``)."""
    m = ldp.randomized_response(epsilon)
    slope = m.p - m.q_bar
    lam = (m.q_bar + slope * SHARE) / d + (d - 1) / (2 * d)
    return Z * math.sqrt(d * d * lam * (1 - lam) / (n * slope**2))


# Part 2 ------------------------------------------------------------------------------------

DESIGN_BUDGET = 4.0
A_EPSILON = 1.0
BLOCKS = ("Y", "X", "C", "R", "Y2", "WV")
BLOCK_SIZES = (1, 1, 1, 1, 1, 2)
DRAWN = 2
A_SHARE = 0.35
Y_BY_A = np.array([0.20, 0.45])  # P(Y = yes | A)
Y2_BY_Y = np.array([0.30, 0.60])  # P(Y2 = yes | Y)
X_LAW = np.exp(-np.arange(LOW, HIGH + 1) / 6.0)
X_LAW /= X_LAW.sum()
OPTIONS = np.array([0.10, 0.30, 0.55, 0.80])  # check-all: each option ticked independently
RATING = np.array([0.10, 0.20, 0.30, 0.25, 0.15])
W_SHARE, V_GIVEN_W = 0.40, 0.30  # V is asked when W is yes
NOT_ASKED = 2

EPSILON = ldp.sampled_epsilon(DESIGN_BUDGET, [A_EPSILON], BLOCK_SIZES, DRAWN)


def logit(p: float) -> float:
    return math.log(p / (1 - p))


Y_SHARE = float(A_SHARE * Y_BY_A[1] + (1 - A_SHARE) * Y_BY_A[0])
TRUTH = {
    "yes/no share (Y)": [Y_SHARE],
    "number's mean (X, 0 to 30)": [float(np.arange(LOW, HIGH + 1) @ X_LAW)],
    "check-all shares (C)": OPTIONS.tolist(),
    "mean score (R, 1 to 5)": [float(np.arange(1, 6) @ RATING)],
    "Y within groups of A (always asked)": Y_BY_A.tolist(),
    "logistic regression of Y on A": [logit(Y_BY_A[0]), logit(Y_BY_A[1]) - logit(Y_BY_A[0])],
    "Y2 within groups of Y (both sampled)": Y2_BY_Y.tolist(),
    "V among those asked (W yes)": [V_GIVEN_W],
}
LABELS = {
    "check-all shares (C)": [f"option {j + 1}" for j in range(len(OPTIONS))],
    "Y within groups of A (always asked)": ["A no", "A yes"],
    "logistic regression of Y on A": ["intercept", "A yes (log odds ratio)"],
    "Y2 within groups of Y (both sampled)": ["Y no", "Y yes"],
}


def mechanisms() -> dict:
    return {
        "A": ldp.randomized_response(A_EPSILON),
        "Y": ldp.randomized_response(EPSILON),
        "Y2": ldp.randomized_response(EPSILON),
        "W": ldp.randomized_response(EPSILON),
        "V": ldp.grr(EPSILON, 3),
        "X": ldp.number_window(EPSILON, LOW, HIGH),
        "C": ldp.sampled_boxes(EPSILON, len(OPTIONS)),
        "R": ldp.grr(EPSILON, len(RATING)),
    }


def laws(m: dict) -> dict:
    """Each question's matrix P(report | answer), columns the answers: for the number its
    31 values, for the check-all question its 16 ticked sets (bit j: option j) over the
    2k tally cells [j, y]."""
    sets = (np.arange(16)[:, None] >> np.arange(4)[None, :]) & 1
    return {
        **{name: m[name].matrix() for name in ("A", "Y", "Y2", "W", "V", "R")},
        "X": np.stack([m["X"].report_probabilities(i) for i in range(HIGH - LOW + 1)], axis=1),
        "C": np.stack([m["C"].report_probabilities(s).ravel() for s in sets], axis=1),
    }


def report(law: np.ndarray, answers: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One report per answer, drawn from its column of ``law`` by inverting its CDF."""
    cumulative = np.cumsum(law, axis=0)[:, answers]
    return np.minimum((rng.random(answers.size) > cumulative).sum(axis=0), law.shape[0] - 1)


def pair(first: np.ndarray, second: np.ndarray, k_a: int, k_b: int) -> joint.PairCounts:
    table = np.zeros((k_a, k_b), dtype=np.int64)
    np.add.at(table, (first, second), 1)
    return joint.PairCounts(int(first.size), table, table.sum(axis=1), table.sum(axis=0))


def study(n: int, m: dict, law: dict, rng: np.random.Generator) -> dict:
    """One survey of n respondents: true answers, the draw, the reports, the estimates;
    returns, per estimator, (estimates, interval lows, interval highs)."""
    # True answers.
    a = (rng.random(n) < A_SHARE).astype(int)
    y = (rng.random(n) < Y_BY_A[a]).astype(int)
    y2 = (rng.random(n) < Y2_BY_Y[y]).astype(int)
    x = rng.choice(HIGH - LOW + 1, size=n, p=X_LAW)
    ticked = (rng.random((n, len(OPTIONS))) < OPTIONS).astype(int)
    c = ticked @ (1 << np.arange(len(OPTIONS)))
    r = rng.choice(len(RATING), size=n, p=RATING)
    w = (rng.random(n) < W_SHARE).astype(int)
    v = np.where(w == 1, (rng.random(n) < V_GIVEN_W).astype(int), NOT_ASKED)
    # The draw: the first two blocks of a uniformly random order, whatever the answers.
    order = np.argsort(rng.random((n, len(BLOCKS))), axis=1)[:, :DRAWN]
    drew = np.zeros((n, len(BLOCKS)), dtype=bool)
    drew[np.arange(n)[:, None], order] = True
    drew = dict(zip(BLOCKS, drew.T, strict=True))
    # The reports: A of everyone, each sampled question of those who drew its block.
    ra = report(law["A"], a, rng)

    def of(name: str, answers: np.ndarray, block: str) -> np.ndarray:
        return report(law[name], answers[drew[block]], rng)

    ry, rx, rc, rr = of("Y", y, "Y"), of("X", x, "X"), of("C", c, "C"), of("R", r, "R")
    ry2, rw, rv = of("Y2", y2, "Y2"), of("W", w, "WV"), of("V", v, "WV")
    found = {}

    count = np.bincount
    one = m["Y"].estimate(count(ry, minlength=2), ry.size)
    found["yes/no share (Y)"] = ([one.headline[1]], [one.ci_low[1]], [one.ci_high[1]])
    mean = m["X"].mean(count(rx, minlength=m["X"].tally_size), rx.size)
    found["number's mean (X, 0 to 30)"] = ([mean.estimate], [mean.ci_low], [mean.ci_high])
    shares = m["C"].estimate(count(rc, minlength=m["C"].tally_size), rc.size)
    found["check-all shares (C)"] = (shares.headline, shares.ci_low, shares.ci_high)
    score = scores.mean_score(m["R"], count(rr, minlength=len(RATING)), rr.size)
    found["mean score (R, 1 to 5)"] = ([score.estimate], [score.ci_low], [score.ci_high])

    # A (always asked) against Y: the respondents who drew Y.
    by_a = pair(ra[drew["Y"]], ry, 2, 2)
    split = joint.breakdown(m["A"], m["Y"], by_a)
    found["Y within groups of A (always asked)"] = (
        split.share[:, 1], split.share_ci_low[:, 1], split.share_ci_high[:, 1])
    outcome, predictor = regression.Term(m["Y"], 2), regression.Term(m["A"], 2)
    fitted = regression.fit(outcome, [predictor], by_a.joint.T)
    found["logistic regression of Y on A"] = tuple(
        [getattr(coefficient, key) for coefficient in fitted.coefficients]
        for key in ("estimate", "ci_low", "ci_high"))

    # Two sampled questions: the respondents who drew both.
    both = drew["Y"] & drew["Y2"]
    y_of_both = ry[both[drew["Y"]]]  # their reports to Y and to Y2, sent above
    y2_of_both = ry2[both[drew["Y2"]]]
    split = joint.breakdown(m["Y"], m["Y2"], pair(y_of_both, y2_of_both, 2, 2))
    found["Y2 within groups of Y (both sampled)"] = (
        split.share[:, 1], split.share_ci_low[:, 1], split.share_ci_high[:, 1])

    # A follow-up in a sampled block: among those asked, from its block's respondents.
    among = asked.among_asked(m["W"], m["V"], pair(rw, rv, 2, 3), [1], 2)
    found["V among those asked (W yes)"] = ([among.estimate[1]], [among.ci_low[1]],
                                            [among.ci_high[1]])
    return {key: tuple(np.asarray(part, dtype=float) for part in value)
            for key, value in found.items()}


def run(task: tuple[int, int, int]) -> list[dict]:
    n, count, seed = task
    m = mechanisms()
    law = laws(m)
    rng = np.random.default_rng(seed)
    return [study(n, m, law, rng) for _ in range(count)]


def coverage(studies: list[dict], n: int) -> None:
    r = len(studies)
    print(f"\nCoverage and bias under the design: {r} studies of {n:,} respondents; A always "
          f"asked at ε {A_EPSILON:g}, each respondent draws {DRAWN} of {len(BLOCKS)} blocks, "
          f"sampled questions at ε {EPSILON:g} (whole body ε {DESIGN_BUDGET:g}); each block "
          f"drawn by about {ldp.expected_asked(n, len(BLOCKS), DRAWN):,.0f} respondents, two "
          f"blocks by about {n * DRAWN * (DRAWN - 1) / (len(BLOCKS) * (len(BLOCKS) - 1)):,.0f}")
    print("| estimate | truth | coverage (se) | bias (MC se) | median − truth | |")
    print("|---|---|---|---|---|---|")
    for name, truth in TRUTH.items():
        estimate = np.array([s[name][0] for s in studies])
        low = np.array([s[name][1] for s in studies])
        high = np.array([s[name][2] for s in studies])
        labels = LABELS.get(name, [""])
        for j, true in enumerate(truth):
            covered = float(np.mean((low[:, j] <= true) & (true <= high[:, j])))
            se = math.sqrt(covered * (1 - covered) / r) if 0 < covered < 1 else 0.0
            bias = float(np.mean(estimate[:, j]) - true)
            bias_se = float(np.std(estimate[:, j], ddof=1) / math.sqrt(r))
            median = float(np.median(estimate[:, j]) - true)
            flags = " ".join(flag for flag, bad in (
                ("LOW", covered < 0.93), ("BIASED", abs(bias) > 3 * bias_se)) if bad)
            label = f"{name}: {labels[j]}" if labels[j] else name
            print(f"| {label} | {true:.3f} | {covered:.3f} ({se:.3f}) | {bias:+.4f} "
                  f"({bias_se:.4f}) | {median:+.4f} | {flags} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--respondents", default="2000,10000",
                        help="respondents per study, one table per number (comma-separated)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="100 studies")
    parser.add_argument("--margins-only", action="store_true", help="part 1 only")
    args = parser.parse_args()

    print(f"Whole-survey ε {BUDGET:g}, yes/no questions, none always asked; 95% margins.")
    shares = margins_table(
        f"A yes/no share whose truth is {SHARE:.0%}, in percentage points:", share_margin,
        100, 1)
    means = margins_table(
        f"The mean of a number from {LOW} to {HIGH} (worst case), in its unit:", mean_margin,
        1, 2)
    for what, found in (("yes/no share", shares), ("number's mean", means)):
        best, ratio = found[20, 5000]
        print(f"20 questions, 5,000 respondents, {what}: recommended N = {best}, "
              f"{ratio:.1f} times narrower than splitting")
    fake_reports()
    if args.margins_only:
        return

    studies = 100 if args.quick else args.studies
    chunk = 20
    for n in (int(value) for value in args.respondents.split(",")):
        tasks = [(n, min(chunk, studies - start), SEED + n + start)
                 for start in range(0, studies, chunk)]
        found: list[dict] = []
        if args.workers > 1:
            with ProcessPoolExecutor(args.workers) as pool:
                for part in pool.map(run, tasks):
                    found.extend(part)
        else:
            for task in tasks:
                found.extend(run(task))
        coverage(found, n)


if __name__ == "__main__":
    main()
