"""Logistic regression when the outcome and every predictor are randomized.

Pure numpy and scipy; no Django. Guide: docs/ldp.md, "Regression".

The outcome Y is a yes/no question (answers 0 = No, 1 = Yes, then its extra answers such as
"No answer"); the predictors X_1..X_p (p <= 3) are one-hot questions (yes/no or GRR reports:
one category per report). Each enters as dummies against its first answer, or, for a rating
scale, as its score (one slope) plus a dummy per extra answer. Nobody's true answers are seen;
what is seen is, for each combination r of reports, how many respondents sent it: N[r].

Model. For a combination x of true predictor answers (a "cell"), with w(x) the share of
respondents in it and D(x) its row of the design (1, dummies, scores):

    P(Y = Yes | answered, x) = 1 / (1 + exp(-D(x) . beta)),
    P(Y answered | x) = u_0(x),  P(Y = extra e | x) = u_e(x)   (free in each cell),

so the true table is pi[y, x] = w(x) u_0(x) {1 - sigma, sigma} (No, Yes), or w(x) u_e(x) for extras.
The reports of the questions are independent given the true answers, so the reports' law is
lambda = (S_Y (x) S_1 (x) ... (x) S_p) pi (Kronecker product of the questions' matrices,
applied axis by axis), and the log-likelihood is l = sum_r N[r] log lambda[r]: a finite
mixture over the unobserved true answers. It is maximised directly over (beta, the logits
of w, the logits of u) with its exact gradient (L-BFGS-B; coefficients within +-30, logits
within +-25), then again from the maximum with each parameter scaled by its curvature there.

Inference. Each coefficient's 95% interval is its profile-likelihood interval (every b with
2 (l_max - max{l : beta_j = b}) <= 3.84, found along the signed root of the ratio, by a path
of fits from the maximum, the other coefficients within +-60; unbounded on a side still open
at +-30; Wald for the intercept); each predictor has a likelihood-ratio
test (all its coefficients 0; chi-square with as many degrees of freedom). Where some
coefficient's maximum lies at the +-30 bound (the reports cannot identify the model, as with
separation in ordinary logistic regression), the chi-square calibration fails: every interval
is then unbounded and no test is given (``Regression.identified`` is False). Predicted shares
per group ("holding the rest equal") set the predictor to the group and average over the
fitted distribution of the other predictors; their intervals are delta-method intervals on the
logit scale with the observed information (numerical derivative of the exact gradient).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import optimize, special, stats

from .mechanisms import Mechanism
from .planning import Z95
from .words import gettext_noop

MAX_PREDICTORS = 3
MAX_CELLS = 1000
"""Most combinations of the predictors' answers a regression may have (the fit's size)."""

ONE_HOT = ("bit", "index")
"""The encodings a question of a regression may have (one category per report)."""

UNBOUNDED = 30.0
"""Coefficients are kept within +-30 (log odds; e^30 is 1e13): beyond, the fitted shares
are 0 or 1 to 13 digits, and when the reports are that uninformative the maximum would
otherwise run off to infinity. A profile interval still open at +-30 is unbounded on that
side: the reports cannot rule out any odds ratio beyond."""

PROFILE_BOUND = 2 * UNBOUNDED
"""The other coefficients' bound in a profile's fits: wide enough that one may compensate a
coefficient held anywhere within +-UNBOUNDED (``_profile``)."""

PROFILE_STEP = 2.0
"""The profile search's longest step outward (log odds): each point's fit starts from the
last one, and one started much farther from its own maximum can stop in a worse local one
(``crossing``)."""

SHARE_LOGIT = 25.0
"""The logits of the groups' shares and of the extras are kept within +-25 (a share of
1e-11 and less is 0): a share whose maximum is 0 then stops there instead of creeping."""

CHI2_95 = float(stats.chi2.ppf(0.95, 1))

DENSE_SIZE = 1200
"""Up to this many combinations of reports, the reports' law is computed with the whole
Kronecker product of the questions' matrices (at most 11 MB) rather than axis by axis."""

METHOD = gettext_noop("Maximum likelihood over the unobserved true answers")
DESCRIPTION = gettext_noop(
    # xgettext:no-python-format (a "%" here is a percent sign)
    "Logistic regression fitted by maximum likelihood over the respondents' unobserved true "
    "answers: the reports of every question involved are independent given the true "
    "answers, so their law is a mixture over the true answers, with each question's "
    "randomization. Odds ratios have 95% profile-likelihood intervals; each question has a "
    "likelihood-ratio test; predicted shares set one question's answer and average over the "
    "others, with 95% delta-method intervals on the logit scale."
)


@dataclass(frozen=True)
class Term:
    """One question of a regression: its mechanism, its number of own answers (the rest are
    extras), and for a rating scale its answers' scores (None: categories as dummies)."""

    mechanism: Mechanism
    answers: int
    scores: Sequence[float] | None = None

    def columns(self) -> list[tuple[str, int]]:
        """The design's columns for this predictor: ("answer", c) a dummy for category c,
        ("score", -1) the score's slope."""
        k = self.mechanism.k
        if self.scores is None:
            return [("answer", c) for c in range(1, k)]
        return [("score", -1), *(("answer", c) for c in range(self.answers, k))]

    def design(self) -> np.ndarray:
        """k x (its columns): each category's values of its columns."""
        k = self.mechanism.k
        rows = np.zeros((k, len(self.columns())))
        for j, (kind, c) in enumerate(self.columns()):
            if kind == "score":
                rows[: self.answers, j] = self.scores
            else:
                rows[c, j] = 1.0
        return rows


@dataclass(frozen=True)
class Coefficient:
    predictor: int  # index of the predictor; -1 for the intercept
    kind: str  # "intercept", "answer" or "score"
    category: int  # the answer of a dummy; -1 otherwise
    estimate: float  # log odds ratio (a slope per score point for "score")
    ci_low: float
    ci_high: float
    std_error: float


@dataclass(frozen=True)
class PredictorTest:
    statistic: float
    df: int
    p_value: float


@dataclass(frozen=True)
class Prediction:
    predictor: int
    category: int
    share: float  # predicted P(Yes | answered) with the predictor set to ``category``
    ci_low: float
    ci_high: float
    group_share: float  # fitted share of respondents whose true answer is ``category``


@dataclass(frozen=True)
class Regression:
    n: int
    log_likelihood: float
    coefficients: list[Coefficient]
    tests: list[PredictorTest]
    predictions: list[Prediction]
    answered: float  # fitted share who answered the outcome (not an extra)
    identified: bool = True  # False: some coefficient's maximum is at +-UNBOUNDED (below)


def check_terms(outcome: Term, predictors: Sequence[Term]) -> None:
    """ValueError with a reason unless these questions can make a regression."""
    if not 1 <= len(predictors) <= MAX_PREDICTORS:
        raise ValueError(f"a regression takes 1 to {MAX_PREDICTORS} predictors")
    if outcome.answers != 2 or outcome.scores is not None:
        raise ValueError("the outcome must be a yes/no question")
    for term in (outcome, *predictors):
        if term.mechanism.encoding not in ONE_HOT:
            raise ValueError("every question must have one category per report")
    if math.prod(t.mechanism.k for t in predictors) > MAX_CELLS:
        raise ValueError(f"the predictors have more than {MAX_CELLS} combinations of answers")


class Model:
    """The log-likelihood of report counts under the model, and its exact gradient: what
    ``fit`` maximises (the tests check the gradient against finite differences)."""

    def __init__(self, outcome: Term, predictors: Sequence[Term], counts: np.ndarray) -> None:
        self.shape = tuple(t.mechanism.k for t in predictors)
        self.cells = math.prod(self.shape)
        self.extras = outcome.mechanism.k - 2
        self.matrices = [t.mechanism.matrix() for t in (outcome, *predictors)]
        self.dense = None  # the whole Kronecker product, when small enough to hold
        if outcome.mechanism.k * self.cells <= DENSE_SIZE:
            self.dense = self.matrices[0]
            for matrix in self.matrices[1:]:
                self.dense = np.kron(self.dense, matrix)
        self.counts = np.asarray(counts, dtype=float)
        self.n = float(self.counts.sum())
        blocks = [t.design() for t in predictors]
        rows = [np.ones((self.cells, 1))]
        for axis, block in enumerate(blocks):  # each cell's values of this predictor's columns
            index = np.unravel_index(np.arange(self.cells), self.shape)[axis]
            rows.append(block[index])
        self.design = np.hstack(rows)
        self.width = self.design.shape[1]  # number of coefficients
        self.size = self.width + self.cells - 1 + self.cells * self.extras
        self.scale = np.ones(self.size)  # the optimizer sees theta / scale
        self.starts: list[np.ndarray] = []  # the starts of the fit (fit() sets them)

    def precondition(self, information: np.ndarray) -> None:
        """Scale each parameter by its curvature at the maximum (the diagonal of the
        information): the fits near it (profiles, tests) then take far fewer steps."""
        curvature = np.diag(information) / self.n
        self.scale = 1 / np.sqrt(np.clip(curvature, 1e-4, 1e4))

    def split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        beta = theta[: self.width]
        alpha = np.concatenate([[0.0], theta[self.width : self.width + self.cells - 1]])
        eta = theta[self.width + self.cells - 1 :].reshape(self.cells, self.extras)
        return beta, alpha, eta

    def parts(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """w (cells), u (cells x (1 + extras)), sigma (cells)."""
        beta, alpha, eta = self.split(theta)
        u = _softmax(np.hstack([np.zeros((self.cells, 1)), eta]))
        return _softmax(alpha), u, special.expit(self.design @ beta)

    @staticmethod
    def given(u: np.ndarray, sigma: np.ndarray) -> np.ndarray:
        """P(y | x): rows No, Yes, then the extras; columns the cells."""
        return np.vstack([u[:, 0] * (1 - sigma), u[:, 0] * sigma, u[:, 1:].T])

    def _apply(self, tensor: np.ndarray, transpose: bool) -> np.ndarray:
        if self.dense is not None:  # one product instead of one per axis: faster when small
            m = self.dense.T if transpose else self.dense
            return (m @ tensor.ravel()).reshape(tensor.shape)
        for axis, matrix in enumerate(self.matrices):
            m = matrix.T if transpose else matrix
            tensor = np.moveaxis(np.tensordot(m, tensor, axes=(1, axis)), 0, axis)
        return tensor

    def value(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """-l / n and its gradient."""
        w, u, sigma = self.parts(theta)
        given = self.given(u, sigma)
        pi = given * w
        law = self._apply(pi.reshape(-1, *self.shape), transpose=False)
        law = np.maximum(law, 1e-300)
        loss = -float(np.sum(self.counts * np.log(law))) / self.n
        g = self._apply(self.counts / law, transpose=True).reshape(pi.shape) / self.n  # dl/dpi
        # d/d beta: through sigma in the Yes and No rows
        slope = w * u[:, 0] * sigma * (1 - sigma) * (g[1] - g[0])
        d_beta = self.design.T @ slope
        # d/d alpha: pi[:, x] = w(x) P(y | x)
        h = np.sum(g * given, axis=0)
        d_alpha = (w * (h - w @ h))[1:]
        # d/d eta: P(y | x) = u_0 {1 - sigma, sigma}, u_e
        v = np.hstack([((1 - sigma) * g[0] + sigma * g[1])[:, None], g[2:].T])
        d_eta = (w[:, None] * u * (v - np.sum(u * v, axis=1, keepdims=True)))[:, 1:]
        grad = np.concatenate([d_beta, d_alpha, d_eta.ravel()])
        return loss, -grad

    def log_likelihood(self, loss: float) -> float:
        return -loss * self.n

    def fit(
        self, start: np.ndarray, fixed: dict[int, float] | None = None,
        bound: float = UNBOUNDED,
    ) -> tuple[np.ndarray, float]:
        """The maximum (theta, -l / n) with the coordinates in ``fixed`` held at their values
        and the coefficients within +-``bound``."""
        fixed = fixed or {}
        free = np.array([i for i in range(self.size) if i not in fixed], dtype=int)
        theta = start.copy()
        for i, value in fixed.items():
            theta[i] = value

        scale = self.scale[free]

        def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
            theta[free] = x * scale
            loss, grad = self.value(theta)
            return loss, grad[free] * scale

        box = np.full(self.size, SHARE_LOGIT)
        box[: self.width] = bound
        lower, upper = -box[free] / scale, box[free] / scale
        found = optimize.minimize(
            objective, np.clip(theta[free] / scale, lower, upper), jac=True,
            method="L-BFGS-B", bounds=optimize.Bounds(lower, upper),
            options={"maxiter": 5000, "ftol": 1e-15, "gtol": 1e-10, "maxcor": 30},
        )
        theta[free] = found.x * scale
        return theta.copy(), float(found.fun)

    def several_starts(self, outcome_share: float, count: int = 3) -> list[np.ndarray]:
        """The plain start and ``count - 1`` others whose coefficients are drawn (fixed
        seeds) around no effect: the likelihood can have more than one local maximum when
        the reports say little, so every fit that matters is tried from each."""
        plain = self.start(outcome_share)
        starts = [plain]
        for seed in range(1, count):
            other = plain.copy()
            other[1 : self.width] = np.random.default_rng(seed).normal(0, 1, self.width - 1)
            starts.append(other)
        return starts

    def start(self, outcome_share: float) -> np.ndarray:
        theta = np.zeros(self.size)
        theta[0] = special.logit(min(max(outcome_share, 0.05), 0.95))
        theta[self.width + self.cells - 1 :] = -2.0
        return theta

    def information(self, theta: np.ndarray) -> np.ndarray:
        """Observed information (of l, not l / n): central differences of the gradient."""
        step = 1e-5
        columns = []
        for i in range(self.size):
            e = np.zeros(self.size)
            e[i] = step
            columns.append((self.value(theta + e)[1] - self.value(theta - e)[1]) / (2 * step))
        hessian = np.array(columns) * self.n
        return (hessian + hessian.T) / 2


def fit(
    outcome: Term, predictors: Sequence[Term], counts: np.ndarray, profile: bool = True
) -> Regression:
    """The regression of ``outcome`` on ``predictors`` from the report counts ``counts``
    (shape (k_Y, k_1, ..., k_p): respondents per combination of reports; weighted counts,
    not whole numbers, are taken as they are)."""
    check_terms(outcome, predictors)
    model = Model(outcome, predictors, counts)
    if model.counts.shape != (outcome.mechanism.k, *model.shape):
        raise ValueError("counts must have one axis per question, one entry per report")
    if model.n <= 0:
        raise ValueError("no reports")
    reported = model.counts.sum(axis=tuple(range(1, model.counts.ndim))) / model.n
    yes = np.linalg.solve(model.matrices[0], reported)  # the unbiased outcome shares
    model.starts = model.several_starts(float(yes[1] / max(yes[0] + yes[1], 1e-9)))
    theta, loss = min((model.fit(start) for start in model.starts), key=lambda pair: pair[1])
    model.precondition(model.information(theta))
    theta, loss = model.fit(theta)  # a restart from the optimum removes L-BFGS's early stops
    information = model.information(theta)
    covariance = np.linalg.pinv(information, hermitian=True, rcond=1e-12)
    model.precondition(information)
    # A maximum at the bound is at infinity: no interval or test can be calibrated there.
    identified = bool(np.all(np.abs(theta[: model.width]) < UNBOUNDED - 1e-6))
    names = [(-1, "intercept", -1)] + [
        (j, kind, c) for j, term in enumerate(predictors) for kind, c in term.columns()
    ]
    coefficients = []
    for i, (j, kind, c) in enumerate(names):
        se = math.sqrt(max(covariance[i, i], 0.0))
        if not identified:
            low, high, se = -math.inf, math.inf, math.inf
        elif profile and j >= 0:
            low, high = _profile(model, theta, loss, i, se)
        else:
            low, high = float(theta[i] - Z95 * se), float(theta[i] + Z95 * se)
        coefficients.append(Coefficient(j, kind, c, float(theta[i]), low, high, se))
    tests, column = [], 1
    for term in predictors:
        width = len(term.columns())
        tests.append(
            _test(model, theta, loss, range(column, column + width)) if identified
            else PredictorTest(math.nan, width, math.nan)
        )
        column += width
    w, u, _ = model.parts(theta)
    predictions = _predictions(model, predictors, theta, covariance)
    if not identified:
        predictions = [replace(p, ci_low=0.0, ci_high=1.0) for p in predictions]
    return Regression(
        n=round(model.n),
        log_likelihood=model.log_likelihood(loss),
        coefficients=coefficients,
        tests=tests,
        predictions=predictions,
        answered=float(w @ u[:, 0]),
        identified=identified,
    )


def _test(model: Model, theta: np.ndarray, loss: float, columns: range) -> PredictorTest:
    """The likelihood-ratio test that the coefficients ``columns`` (one predictor's) are 0."""
    fixed = {i: 0.0 for i in columns}
    # from the maximum and from every start: the mixture's likelihood can have more than one
    # local maximum, and a worse one would make the statistic too large
    restricted = min(model.fit(start, fixed)[1] for start in (theta, *model.starts))
    statistic = max(2 * model.n * (restricted - loss), 0.0)
    return PredictorTest(statistic, len(columns), float(stats.chi2.sf(statistic, len(columns))))


def _profile(
    model: Model, theta: np.ndarray, loss: float, i: int, se: float
) -> tuple[float, float]:
    """The profile-likelihood 95% interval of coefficient i (may be infinite on a side).

    On each side, the end is where the signed root r(b) = +-sqrt(2 (l_max - profile l at b))
    reaches +-1.96 (``crossing``). The profile's maximum at b starts from the one found at
    the nearest point between the estimate and b that is below the cut-off (a path from the
    maximum, in steps of at most ``PROFILE_STEP``); a point found beyond the end is tried
    from the maximum and from the plain start too, and the better kept. Far from the maximum
    the mixture's likelihood can have more than one local maximum: a fit that strayed into a
    worse one would make the interval too short, so a point above the cut-off starts no
    other, and one that the points closing in on it contradict is fitted again from them
    (``crossing``). An end found only where a fit strayed, such as at +-UNBOUNDED itself
    when every start there lands in a worse maximum, is no end: that side is unbounded.

    The other coefficients may go to +-2 UNBOUNDED in these fits (``PROFILE_BOUND``): held
    within +-UNBOUNDED, one that compensates coefficient i (b + beta_k nearly constant, as
    when the reports cannot tell two answers' effects apart) would stop at the bound before
    b does, and the profile would rise there because of the bound, not the reports."""
    target = math.sqrt(CHI2_95)
    ends = []
    for side in (-1, 1):
        # The path: distance from the estimate -> the profile's maximum there, at the points
        # found below the cut-off (one above may be a worse local maximum: no start).
        found = {0.0: theta}

        def excess(d: float, found: dict = found, side: int = side) -> float:
            """|r| - 1.96 at the distance d from the estimate on this side."""
            start = found[max(k for k in found if k < d)]
            point, value = model.fit(start, {i: theta[i] + side * d}, PROFILE_BOUND)
            if math.sqrt(max(2 * model.n * (value - loss), 0.0)) >= target:
                for other_start in (theta, model.starts[0]):
                    again, other = model.fit(
                        other_start, {i: theta[i] + side * d}, PROFILE_BOUND
                    )
                    if other < value:
                        point, value = again, other
            beyond = math.sqrt(max(2 * model.n * (value - loss), 0.0)) - target
            if beyond < 0:
                found[d] = point
            return beyond

        limit = UNBOUNDED - side * theta[i]  # as far as the coefficient may go
        ends.append(float(theta[i] + side * crossing(excess, se, limit)))
    return ends[0], ends[1]


def crossing(excess, se: float, limit: float, tolerance: float = 1e-3) -> float:
    """The distance d > 0 from the estimate where ``excess(d)`` (= |r| - 1.96, -1.96 at 0,
    rising) crosses 0, to within ``tolerance`` in r; inf if not before ``limit``.

    First outward: each trial point extrapolates r linearly from the last one, aiming 10%
    beyond the end (at most 4 times farther, and ``PROFILE_STEP``); then regula falsi in the
    bracket (``_regula_falsi``), which r's near linearity makes converge in a step or two. A
    bracket that closes without r reaching 1.96 holds a jump: its outer point's fit, started
    from a point far from it, found a worse local maximum than the points closing in on it,
    each started from its neighbour. That point is fitted again, now from the point next to
    it (``excess`` starts from the nearest point inside); below the cut-off, the search goes
    on outward from there, and at ``limit`` the end is unbounded."""
    target = math.sqrt(CHI2_95)
    if limit <= 0:
        return math.inf
    inner, low = 0.0, -target  # distance with excess < 0, and its excess
    distance = min(max(se, 0.05) * target, limit)  # the Wald end
    while True:
        high = excess(distance)
        if abs(high) < tolerance:
            return distance
        if high > 0:
            end, inner, low, outer = _regula_falsi(excess, inner, low, distance, high, tolerance)
            if end is not None:
                return end
            high = excess(outer)  # the jump's outer point, fitted from the path next to it
            if high >= -tolerance:
                return outer
            distance = outer
        if distance >= limit:
            return math.inf
        inner, low = distance, high
        distance *= min(max(1.1 * target / max(high + target, 1e-9), 1.25), 4.0)
        distance = min(distance, inner + PROFILE_STEP, limit)


def _regula_falsi(
    excess, inner: float, low: float, outer: float, high: float, tolerance: float
) -> tuple[float | None, float, float, float]:
    """Where ``excess`` crosses 0 between ``inner`` (``low`` < 0 there) and ``outer``
    (``high`` > 0), by regula falsi with the Illinois step: (the crossing, ...), or (None,
    inner, its excess, outer) for a bracket that closed without a crossing (a jump)."""
    side = 0
    for _ in range(60):
        point = inner - low * (outer - inner) / (high - low)
        value = excess(point)
        if abs(value) < tolerance:
            return point, inner, low, outer
        if outer - inner < 1e-9:
            break
        if value < 0:
            inner, low = point, value
            high = high / 2 if side < 0 else high  # Illinois: the stale end counts half
            side = -1
        else:
            outer, high = point, value
            low = low / 2 if side > 0 else low
            side = 1
    return None, inner, low, outer


def _predictions(
    model: Model, predictors: Sequence[Term], theta: np.ndarray, covariance: np.ndarray
) -> list[Prediction]:
    """Each predictor set to each of its answers, the others at their fitted distribution."""
    predictions = []
    w = model.parts(theta)[0].reshape(model.shape)
    for j, term in enumerate(predictors):
        group_shares = w.sum(axis=tuple(a for a in range(len(model.shape)) if a != j))
        for c in range(term.mechanism.k):

            def logit(t: np.ndarray, c: int = c, j: int = j) -> float:
                beta = t[: model.width]
                w_t = _softmax(model.split(t)[1]).reshape(model.shape)
                rest = w_t.sum(axis=j).ravel()
                rows = np.take(model.design.reshape(*model.shape, -1), c, axis=j)
                share = float(rest @ special.expit(rows.reshape(-1, model.width) @ beta))
                return float(special.logit(min(max(share, 1e-12), 1 - 1e-12)))

            centre = logit(theta)
            gradient = np.array([
                (logit(theta + e) - logit(theta - e)) / 2e-6
                for e in np.eye(model.size) * 1e-6
            ])
            se = math.sqrt(max(gradient @ covariance @ gradient, 0.0))
            predictions.append(Prediction(
                j, c, float(special.expit(centre)),
                float(special.expit(centre - Z95 * se)),
                float(special.expit(centre + Z95 * se)),
                float(group_shares[c]),
            ))
    return predictions


def _softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax along the last axis (scipy's, without its overhead on small arrays)."""
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def simulate_counts(
    outcome: Term,
    predictors: Sequence[Term],
    table: np.ndarray,
    n: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Report counts of n respondents drawn from the true table ``table`` (shape (k_Y,
    k_1, ..., k_p)), each answer randomized by its question's mechanism (tests, benchmarks)."""
    flat = np.asarray(table, dtype=float).ravel()
    truth = rng.choice(flat.size, size=n, p=flat / flat.sum())
    answers = np.unravel_index(truth, np.shape(table))
    terms = (outcome, *predictors)
    reports = [t.mechanism.perturb(a, rng) for t, a in zip(terms, answers, strict=True)]
    counts = np.zeros(np.shape(table), dtype=np.int64)
    np.add.at(counts, tuple(reports), 1)
    return counts
