"""Bias, coverage, test size and power of the linear regression of a randomized rating score
on randomized predictors (surveys/ldp/linear.py; not a test).

Run: .venv/bin/python bench/bench_linear.py [--replicates R]

Respondents are drawn iid from a joint law of dependent predictors: year of study (4
answers, GRR), a yes/no question (Warner) whose share rises with the year, and, in the
three-predictor truth, a 5-point rating (GRR, entered as its score 1..5) that depends on the
yes/no answer. The outcome is a 5-point stress scale with a "No answer" (GRR over 6 answers;
8% refuse in every cell). Its true mean among those who answered is exactly linear:

    two predictors:   2.0 + 0.3 [year 2] + 0.6 [year 3] + 0.9 [year 4] + 0 [yes]
    three predictors: 1.6 + 0.3 [year 2] + 0.6 [year 3] + 0.9 [year 4] + 0 [yes] + 0.25 rating

(the score takes the two points around its mean, so the mean is exact), so the least-squares
coefficients of the true answers are these, and the yes/no predictor's Wald test rejects at
its size; the year and rating tests' rates are their power. Every question has the same
epsilon. Per setting (predictors x epsilon x n), R studies (default 400; Monte-Carlo
standard error of a coverage about 0.011): mean bias per coefficient, coverage of the 95%
Wald intervals, the spread of the standardised errors (``z_spread``: whether the standard
errors are right), the yes/no test's size and the others' power, and the mean time per fit.
Fixed seeds.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surveys import ldp  # noqa: E402
from surveys.ldp import linear  # noqa: E402
from surveys.ldp.regression import Term, simulate_counts  # noqa: E402

SEED = 20261128
YEAR = np.array([0.30, 0.27, 0.23, 0.20])
YES_BY_YEAR = np.array([0.30, 0.40, 0.50, 0.60])
RATING_BY_YES = np.array([[0.30, 0.25, 0.20, 0.15, 0.10], [0.10, 0.15, 0.20, 0.25, 0.30]])
REFUSED = 0.08
TRUTH = {2: np.array([2.0, 0.3, 0.6, 0.9, 0.0]), 3: np.array([1.6, 0.3, 0.6, 0.9, 0.0, 0.25])}


def terms(predictors: int, epsilon: float) -> tuple[Term, list[Term]]:
    outcome = Term(ldp.grr(epsilon, 6), 5, [1, 2, 3, 4, 5])
    chosen = [Term(ldp.grr(epsilon, 4), 4), Term(ldp.randomized_response(epsilon), 2)]
    if predictors == 3:
        chosen.append(Term(ldp.grr(epsilon, 5), 5, [1, 2, 3, 4, 5]))
    return outcome, chosen


def table(predictors: int, outcome: Term, chosen: list[Term]) -> np.ndarray:
    """The true joint table of the outcome's answers and the predictors' answers."""
    cells = YEAR[:, None] * np.stack([1 - YES_BY_YEAR, YES_BY_YEAR], axis=1)
    if predictors == 3:
        cells = cells[:, :, None] * RATING_BY_YES[None]
    design = linear.design_matrix(chosen, cells.shape)
    means = design @ TRUTH[predictors]
    points = np.zeros((len(means), 5))
    low = np.floor(means).astype(int)
    points[np.arange(len(means)), low - 1] = 1 - (means - low)
    points[np.arange(len(means)), np.minimum(low, 4)] += means - low
    full = np.zeros((6, len(means)))
    full[:5] = (1 - REFUSED) * points.T * cells.ravel()
    full[5] = REFUSED * cells.ravel()
    return full.reshape(6, *cells.shape)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=400)
    args = parser.parse_args()
    print(f"{'pred':>4} {'eps':>4} {'n':>7}  {'worst cov':>9} {'mean cov':>8} "
          f"{'max |bias|/se':>13} {'sd of z':>11} {'size':>6} {'power year':>10} "
          f"{'power rating':>12} {'ms/fit':>7}")
    for predictors in (2, 3):
        for epsilon in (1.0, 2.0, 3.0):
            for n in (2000, 10000, 50000):
                row(predictors, epsilon, n, args.replicates)
    print("\nA number outcome (days, 0-30, 10% \"No answer\") by year and the yes/no question:")
    print(f"{'eps':>4} {'n':>7}  {'worst cov':>9} {'mean cov':>8} {'max |bias|/se':>13} "
          f"{'sd of z':>11} {'size':>6} {'power year':>10} {'ms/fit':>7}")
    for epsilon in (1.0, 2.0, 3.0):
        for n in (2000, 10000, 50000):
            number_row(epsilon, n, args.replicates)
    return 0


def row(predictors: int, epsilon: float, n: int, replicates: int) -> None:
    rng = np.random.default_rng([SEED, predictors, int(epsilon * 10), n])
    outcome, chosen = terms(predictors, epsilon)
    truth_table = table(predictors, outcome, chosen)
    truth = TRUTH[predictors]
    covered = np.zeros(len(truth))
    estimates, errors, rejected, seconds = [], [], np.zeros(len(chosen)), 0.0
    for _ in range(replicates):
        counts = simulate_counts(outcome, chosen, truth_table, n, rng)
        started = time.perf_counter()
        fitted = linear.fit(outcome, chosen, counts)
        seconds += time.perf_counter() - started
        low = np.array([c.ci_low for c in fitted.coefficients])
        high = np.array([c.ci_high for c in fitted.coefficients])
        covered += (low <= truth) & (truth <= high)
        estimates.append([c.estimate for c in fitted.coefficients])
        errors.append([c.std_error for c in fitted.coefficients])
        rejected += [test.p_value < 0.05 for test in fitted.tests]
    estimates = np.array(estimates)
    bias = np.abs(estimates.mean(axis=0) - truth) / (estimates.std(axis=0) / np.sqrt(replicates))
    coverage = covered / replicates
    power = rejected / replicates
    rating = f"{power[2]:.3f}" if predictors == 3 else "-"
    print(f"{predictors:>4} {epsilon:>4} {n:>7}  {coverage.min():>9.3f} {coverage.mean():>8.3f} "
          f"{bias.max():>13.2f} {z_spread(estimates, errors, truth):>11} {power[1]:>6.3f} "
          f"{power[0]:>10.3f} {rating:>12} "
          f"{1000 * seconds / replicates:>7.1f}", flush=True)


def z_spread(estimates: np.ndarray, errors: list, truth: np.ndarray) -> str:
    """The smallest and largest, over the coefficients, of the standard deviation of the
    standardised errors (estimate - truth) / standard error: 1 where the standard errors
    measure the estimates' spread, below 1 where they overstate it (a conservative test)."""
    spread = ((estimates - truth) / np.array(errors)).std(axis=0)
    return f"{spread.min():.2f}-{spread.max():.2f}"


NUMBER_TRUTH = np.array([6.0, 2.0, 4.0, 6.0, 0.0])
"""Days of drinking: 6 + 2 [year 2] + 4 [year 3] + 6 [year 4] + 0 [yes], exactly linear."""


def number_row(epsilon: float, n: int, replicates: int) -> None:
    """Respondents drawn one by one: year and the yes/no question as above, the number
    exactly linear in mean (uniform within +-4 days of it, on whole days), 10% refusing."""
    rng = np.random.default_rng([SEED, 9, int(epsilon * 10), n])
    number = ldp.number_window(epsilon, 0, 30, extras=1)
    outcome = Term(number, 0)
    _, chosen = terms(2, epsilon)
    covered, estimates, errors, rejected, seconds = np.zeros(5), [], [], np.zeros(2), 0.0
    for _ in range(replicates):
        year = rng.choice(4, size=n, p=YEAR)
        yes = (rng.random(n) < YES_BY_YEAR[year]).astype(int)
        mean = linear.design_matrix(chosen, (4, 2))[year * 2 + yes] @ NUMBER_TRUTH
        days = mean + rng.integers(-4, 5, size=n)
        refused = np.where(rng.random(n) < 0.1, 0, -1)
        counts = np.zeros((linear.report_size(outcome), 4, 2), dtype=np.int64)
        np.add.at(counts, (number.perturb(days, rng, extra=refused),
                           chosen[0].mechanism.perturb(year, rng),
                           chosen[1].mechanism.perturb(yes, rng)), 1)
        started = time.perf_counter()
        fitted = linear.fit(outcome, chosen, counts)
        seconds += time.perf_counter() - started
        low = np.array([c.ci_low for c in fitted.coefficients])
        high = np.array([c.ci_high for c in fitted.coefficients])
        covered += (low <= NUMBER_TRUTH) & (NUMBER_TRUTH <= high)
        estimates.append([c.estimate for c in fitted.coefficients])
        errors.append([c.std_error for c in fitted.coefficients])
        rejected += [test.p_value < 0.05 for test in fitted.tests]
    estimates = np.array(estimates)
    spread = estimates.std(axis=0) / np.sqrt(replicates)
    bias = np.abs(estimates.mean(axis=0) - NUMBER_TRUTH) / spread
    coverage, power = covered / replicates, rejected / replicates
    print(f"{epsilon:>4} {n:>7}  {coverage.min():>9.3f} {coverage.mean():>8.3f} "
          f"{bias.max():>13.2f} {z_spread(estimates, errors, NUMBER_TRUTH):>11} "
          f"{power[1]:>6.3f} {power[0]:>10.3f} "
          f"{1000 * seconds / replicates:>7.1f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
