"""Local differential privacy: the randomizers of one question, and their specs (each builder
is registered with ``specs``, from which ``from_spec`` rebuilds a frozen mechanism).

Pure numpy + standard library; no Django. The browser twin is ``static/surveys/ldp.js``;
``tests/ldp_vectors.json`` (written by ``python -m surveys.ldp``) keeps the two in step.

Notation: epsilon > 0 is the privacy parameter, k the number of true categories (yes/no
questions have k = 2 with category 0 = "no" and 1 = "yes"), n the number of reports.

Every mechanism here is described by one k x k matrix ``S = m.matrix()``::

    S[c, i] = P(a report supports category c | the respondent's true category is i)

A report supports category c when it *is* c ("bit" and "index" encodings) or when its bit c
is 1 ("unary" encoding). Every row of S has the same value off the diagonal, so category c
is supported with probability a_c = S[c, c] by its own members and b_c = S[c, j] (j != c) by
everyone else, and a_c > b_c. Every estimator follows from that (Wang et al. 2017): they are
in ``estimation`` (``SupportEstimates``, which ``Mechanism`` is).

Sources: Warner (1965); Dwork & Roth; Wang et al., "Locally differentially private protocols
for frequency estimation" (USENIX Security 2017) and "Locally differentially private
frequency estimation with consistency" (NDSS 2020). Guide: docs/ldp.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import specs
from .checks import check_probability, is_integer, is_real, read_only
from .estimation import SupportEstimates
from .words import gettext_noop

MIN_EPSILON: float = 0.01
"""Smallest epsilon accepted, wherever epsilon enters (builders, and the exact epsilon of
probabilities given directly). At epsilon = 0.01 a 95% margin of plus or minus 5 points
already needs about 15 million yes/no reports; below it no survey yields usable numbers."""

MAX_EPSILON: float = 20.0
"""Largest epsilon accepted. At epsilon = 20 a report is already 485 million times likelier
to match the truth than not; beyond it the smallest probabilities approach the 2^-53
resolution with which the browser realises them."""

MAX_CATEGORIES: int = 1000
"""Largest k accepted: matrices are k x k, and unary reports have k bits."""


def epsilon_from_matrix(matrix: np.ndarray) -> float:
    """Exact LDP epsilon of a mechanism with output distribution ``matrix[r, i] = P(r | i)``.

    epsilon = max over outputs r and inputs i, j of ln(P(r | i) / P(r | j)). The matrix must
    list every output (columns summing to 1), so this suits "bit" and "index" mechanisms, or
    the full 2^k-row matrix of a unary one.
    """
    m = np.asarray(matrix, dtype=float)
    return float(np.max(np.log(m.max(axis=1) / m.min(axis=1))))


def check_epsilon(epsilon: object) -> float:
    """``epsilon`` as a float from ``MIN_EPSILON`` to ``MAX_EPSILON``, or ValueError: every
    builder of a mechanism checks its epsilon with it."""
    if not (is_real(epsilon) and math.isfinite(epsilon) and MIN_EPSILON <= epsilon <= MAX_EPSILON):
        raise ValueError(
            f"epsilon must be a number from MIN_EPSILON = {MIN_EPSILON:g} to {MAX_EPSILON:g}, "
            f"got {epsilon!r}"
        )
    return float(epsilon)


def _check_k(k: object) -> int:
    if not (is_integer(k) and 2 <= k <= MAX_CATEGORIES):
        raise ValueError(
            f"the number of categories k must be a whole number from 2 to {MAX_CATEGORIES}, "
            f"got {k!r}"
        )
    return int(k)


class Mechanism(SupportEstimates):
    """A randomizer plus everything needed to plan a study with it and to analyse its reports.

    Subclasses fix the encoding ("bit", "index", "unary") and how reports look; the spec is
    shared here, and estimation and planning (``SupportEstimates``) depend only on the
    support probabilities a and b that ``matrix()`` gives.

    Attributes: ``name`` ("rr", "forced", "pq", "grr", "sue", "oue"), ``label`` (human name),
    ``encoding``, ``k``, ``p``, ``q`` (meaning depends on the encoding; see the subclasses),
    ``epsilon`` (the requested epsilon for mechanisms built from one, which the exact epsilon
    of the matrix equals up to floating-point rounding of p and q; otherwise the exact
    epsilon of the matrix).
    """

    def __init__(
        self,
        name: str,
        label: str,
        k: int,
        p: float,
        q: float,
        params: dict[str, Any],
        p_bar: float | None = None,
        q_bar: float | None = None,
    ) -> None:
        """``p_bar`` and ``q_bar`` are 1 - p and 1 - q. Builders that know them in closed form
        pass them, so that a probability near 1 keeps its full relative precision in its
        complement (at epsilon = 20, 1 - p is 2e-9 and computing it as 1 - p would lose 8
        digits); by default they are computed as 1 - p and 1 - q."""
        self.name = name
        self.label = label
        self.k = _check_k(k)
        self.p = check_probability("p", p)
        self.q = check_probability("q", q)
        self.p_bar = 1 - self.p if p_bar is None else float(p_bar)
        self.q_bar = 1 - self.q if q_bar is None else float(q_bar)
        self._params = dict(params)
        self._check_structure()
        support, complement = self.matrix(), self._matrix_complement()
        others = (np.arange(self.k) + 1) % self.k
        # read-only: one mechanism per spec is shared by every caller (``specs.from_spec``)
        self.a = read_only(np.diag(support))
        self.b = read_only(support[np.arange(self.k), others])
        self.a_bar = read_only(np.diag(complement))
        self.b_bar = read_only(complement[np.arange(self.k), others])
        exact = self.exact_epsilon()
        if not exact <= MAX_EPSILON * (1 + 1e-12):
            raise ValueError(
                f"these probabilities give epsilon = {exact:.4g}, above the maximum "
                f"{MAX_EPSILON:g}: almost no privacy"
            )
        if not exact >= MIN_EPSILON * (1 - 1e-12):
            raise ValueError(
                f"these probabilities give epsilon = {exact:.4g}, below MIN_EPSILON = "
                f"{MIN_EPSILON:g}: reports would carry almost no information"
            )
        self.epsilon: float = float(self._params.get("epsilon", exact))

    def __repr__(self) -> str:
        params = ", ".join(f"{key}={value!r}" for key, value in self.params().items())
        return f"<{type(self).__name__} {self.name}({params}) k={self.k} p={self.p!r} q={self.q!r}>"

    # What subclasses define ----------------------------------------------------------------

    def _check_structure(self) -> None:
        """Raise ValueError unless p and q make sense for this encoding."""
        raise NotImplementedError

    def perturb(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Reference randomizer: one report per true category in ``values`` (ints in [0, k))."""
        raise NotImplementedError

    # Defaults for reports that name one category ("bit", "index"); unary overrides them.

    def matrix(self) -> np.ndarray:
        """k x k matrix S[c, i] = P(report supports category c | true category i); here p on
        the diagonal and q elsewhere."""
        return np.full((self.k, self.k), self.q) + (self.p - self.q) * np.eye(self.k)

    def _matrix_complement(self) -> np.ndarray:
        """1 - ``matrix()`` without cancellation: here 1 - p on the diagonal, 1 - q elsewhere."""
        return np.full((self.k, self.k), self.q_bar) + (self.p_bar - self.q_bar) * np.eye(self.k)

    def exact_epsilon(self) -> float:
        """Exact epsilon of the probability matrix as stored in floating point."""
        return epsilon_from_matrix(self.matrix())

    def support_counts(self, reports: Any) -> np.ndarray:
        """Length-k int array: how many of ``reports`` support each category (here: name it)."""
        r = np.asarray(reports)
        if r.size == 0:
            return np.zeros(self.k, dtype=np.int64)
        if (
            r.ndim != 1
            or not np.issubdtype(r.dtype, np.integer)
            or r.min() < 0
            or r.max() >= self.k
        ):
            raise ValueError(f"reports must be a 1-D array of categories in [0, {self.k})")
        return np.bincount(r, minlength=self.k).astype(np.int64)

    def validate_report(self, report: object) -> int | tuple[int, ...]:
        """Parse one report decoded from JSON; raise ValueError with a human message if bad.
        Here: a JSON integer in [0, k) (not a bool, float or string)."""
        if not is_integer(report) or not 0 <= report < self.k:
            if self.encoding == "bit":
                raise ValueError(f"a yes/no report must be the number 0 or 1, got {report!r}")
            raise ValueError(
                f"a report must be a whole number from 0 to {self.k - 1}, got {report!r}"
            )
        return int(report)

    def support(self, report: object) -> list[int]:
        """Categories that one report supports (it is validated first)."""
        return [self.validate_report(report)]

    # Shared by all: spec, estimation, planning -----------------------------------------------

    @property
    def tally_size(self) -> int:
        """How many tally cells (``support``) its reports fall in: one per category."""
        return self.k

    def params(self) -> dict[str, Any]:
        """The parameters the mechanism was built from, e.g. {"epsilon": 1.0}."""
        return dict(self._params)

    def spec(self) -> dict[str, Any]:
        """JSON-serialisable description for the browser and for freezing in the database."""
        return {
            "mechanism": self.name,
            "encoding": self.encoding,
            "k": self.k,
            "epsilon": self.epsilon,
            "p": self.p,
            "q": self.q,
            **self._params,
        }

    def _check_values(self, values: Any) -> np.ndarray:
        v = np.asarray(values)
        if v.ndim != 1 or (v.size and not np.issubdtype(v.dtype, np.integer)):
            raise ValueError("values must be a 1-D array of integer categories")
        if v.size and (v.min() < 0 or v.max() >= self.k):
            raise ValueError(f"values must lie in [0, {self.k})")
        return v.astype(np.int64)


class BinaryMechanism(Mechanism):
    """Yes/no randomizers, all described by keep-probabilities (encoding "bit").

    p = P(report 1 | truth 1), q = P(report 0 | truth 0), with p + q > 1 so that "yes"
    reports are likelier from people whose answer is yes. Reports are ints 0/1.
    ``matrix()`` is the 2 x 2 output distribution [[q, 1 - p], [1 - q, p]] (rows: report 0/1;
    columns: truth 0/1), with 1 - p and 1 - q taken from ``p_bar`` and ``q_bar`` (exact
    complements). epsilon = ln max(p / (1 - q), q / (1 - p)).
    """

    encoding = "bit"

    def _check_structure(self) -> None:
        if self.k != 2:
            raise ValueError("a yes/no mechanism has exactly k = 2 categories")
        if not self.p + self.q > 1:
            raise ValueError(
                f"p + q must exceed 1 (got p = {self.p}, q = {self.q}): otherwise reports "
                "carry no information, or point the wrong way"
            )

    def matrix(self) -> np.ndarray:
        return np.array([[self.q, self.p_bar], [self.q_bar, self.p]])

    def _matrix_complement(self) -> np.ndarray:
        return np.array([[self.q_bar, self.p], [self.q, self.p_bar]])

    def perturb(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        v = self._check_values(values)
        keep = rng.random(v.size) < np.where(v == 1, self.p, self.q)
        return np.where(keep, v, 1 - v)

    def lr_interval(self, counts: Any, n: int, confidence: float = 0.95) -> tuple[float, float]:
        """Interval for pi = P(yes): ``intervals`` for category 1, the likelihood-ratio ordered
        (Feldman-Cousins) interval from the binomial count of "yes" reports, with
        P(report yes) = 1 - q + pi (p + q - 1) and pi restricted to [0, 1]. It contains the
        maximum-likelihood pi (``mle``, Warner's estimate clipped to [0, 1]); the interval for
        P(no) is its mirror image. n = 0 -> (0, 1).
        """
        low, high = self.intervals(counts, n, confidence)
        return (float(low[1]), float(high[1]))


class DirectMechanism(Mechanism):
    """Generalized randomized response, GRR or k-RR (encoding "index").

    Report the true category with probability p, otherwise one of the other k - 1 categories,
    each with probability q (so p + (k - 1) q = 1). Reports are ints in [0, k).
    ``matrix()`` is the k x k output distribution: p on the diagonal, q elsewhere.
    epsilon = ln(p / q).
    """

    encoding = "index"

    def _check_structure(self) -> None:
        if not math.isclose(self.p + (self.k - 1) * self.q, 1, rel_tol=1e-12):
            raise ValueError("GRR probabilities must satisfy p + (k - 1) q = 1")
        if not self.p > self.q:
            raise ValueError("GRR must report the truth more often than any other answer")

    def perturb(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        v = self._check_values(values)
        keep = rng.random(v.size) < self.p
        other = rng.integers(0, self.k - 1, size=v.size)
        other += other >= v  # skip the true category: uniform over the k - 1 others
        return np.where(keep, v, other)


class UnaryMechanism(Mechanism):
    """Unary encoding, SUE (basic RAPPOR) and OUE (encoding "unary").

    The true category becomes a one-hot vector of k bits; each bit is reported as 1 with
    probability p if it is the true category's bit and q otherwise, independently. Reports are
    k-tuples of 0/1. ``matrix()`` is the k x k matrix S[c, i] = P(bit c = 1 | truth i): p on
    the diagonal, q elsewhere; its columns do not sum to 1 (the full distribution of a report
    y is prod_c S[c, i]^y_c (1 - S[c, i])^(1 - y_c)).
    """

    encoding = "unary"

    def _check_structure(self) -> None:
        if not self.p > self.q:
            raise ValueError("unary encoding needs p > q")

    def exact_epsilon(self) -> float:
        """ln(p (1 - q) / ((1 - p) q)), with the exact complements ``p_bar`` and ``q_bar``.
        Changing the truth from i to j changes the law of only bits i and j, which are
        independent, so the worst privacy loss is the sum of the worst losses of those two
        bits: ln(p / q) for bit i reported 1 and ln((1-q) / (1-p)) for bit j reported 0
        (p > q). Equals ``epsilon_from_matrix`` of the full 2^k-row matrix."""
        return math.log(self.p * self.q_bar / (self.p_bar * self.q))

    def perturb(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        v = self._check_values(values)
        bits = rng.random((v.size, self.k)) < self.q
        bits[np.arange(v.size), v] = rng.random(v.size) < self.p
        return bits.astype(np.uint8)

    def support_counts(self, reports: Any) -> np.ndarray:
        r = np.asarray(reports)
        if r.size == 0:
            return np.zeros(self.k, dtype=np.int64)
        if (
            r.ndim != 2
            or r.shape[1] != self.k
            or not np.issubdtype(r.dtype, np.integer)
            or np.any((r != 0) & (r != 1))
        ):
            raise ValueError(f"unary reports must be an (n, {self.k}) array of 0s and 1s")
        return r.sum(axis=0, dtype=np.int64)

    def validate_report(self, report: object) -> tuple[int, ...]:
        if not isinstance(report, (list, tuple)) or len(report) != self.k:
            raise ValueError(f"a report must be a list of exactly {self.k} zeros and ones")
        if not all(is_integer(bit) and bit in (0, 1) for bit in report):
            raise ValueError(f"every entry of a report must be the number 0 or 1, got {report!r}")
        return tuple(int(bit) for bit in report)

    def support(self, report: object) -> list[int]:
        return [c for c, bit in enumerate(self.validate_report(report)) if bit]


def randomized_response(epsilon: float) -> BinaryMechanism:
    """Warner's symmetric randomized response, the default for yes/no questions: tell the
    truth with probability p = q = e^eps / (1 + e^eps), otherwise the opposite. For a given
    epsilon this symmetric design has the smallest variance among binary mechanisms."""
    eps = check_epsilon(epsilon)
    keep, flip = 1 / (1 + math.exp(-eps)), 1 / (1 + math.exp(eps))
    return BinaryMechanism(
        "rr",
        gettext_noop("Randomized response (Warner)"),
        2, keep, keep, {"epsilon": eps}, flip, flip,
    )


def forced_response(alpha: float = 0.5, beta: float = 0.5) -> BinaryMechanism:
    """Forced response: with probability alpha answer truthfully, otherwise answer "yes" with
    probability beta and "no" otherwise. p = alpha + (1 - alpha) beta, q = 1 - (1 - alpha) beta;
    the coin-flip design alpha = beta = 1/2 gives p = q = 3/4 and epsilon = ln 3."""
    a = check_probability("alpha", alpha)
    b = check_probability("beta", beta)
    return BinaryMechanism(
        "forced",
        gettext_noop("Forced response"),
        2,
        a + (1 - a) * b,
        1 - (1 - a) * b,
        {"alpha": a, "beta": b},
        (1 - a) * (1 - b),
        (1 - a) * b,
    )


def keep_probabilities(p: float, q: float) -> BinaryMechanism:
    """General yes/no randomizer: keep a true "yes" with probability p and a true "no" with
    probability q (p + q > 1); epsilon = ln max(q / (1 - p), p / (1 - q))."""
    p = check_probability("p", p)
    q = check_probability("q", q)
    return BinaryMechanism(
        "pq", gettext_noop("Randomized response with keep-probabilities"), 2, p, q, {"p": p, "q": q}
    )


def grr(epsilon: float, k: int) -> DirectMechanism:
    """Generalized randomized response: p = e^eps / (e^eps + k - 1), q = 1 / (e^eps + k - 1)."""
    eps, k = check_epsilon(epsilon), _check_k(k)
    denominator = math.exp(eps) + k - 1
    return DirectMechanism(
        "grr",
        gettext_noop("Generalized randomized response (GRR)"),
        k,
        math.exp(eps) / denominator,
        1 / denominator,
        {"epsilon": eps},
        (k - 1) / denominator,
        (math.exp(eps) + k - 2) / denominator,
    )


def sue(epsilon: float, k: int) -> UnaryMechanism:
    """Symmetric unary encoding (basic one-time RAPPOR): p = e^(eps/2) / (e^(eps/2) + 1),
    q = 1 - p."""
    eps, k = check_epsilon(epsilon), _check_k(k)
    keep, flip = 1 / (1 + math.exp(-eps / 2)), 1 / (1 + math.exp(eps / 2))
    return UnaryMechanism(
        "sue",
        gettext_noop("Symmetric unary encoding (SUE, basic RAPPOR)"),
        k,
        keep,
        flip,
        {"epsilon": eps},
        flip,
        keep,
    )


def oue(epsilon: float, k: int) -> UnaryMechanism:
    """Optimized unary encoding: p = 1/2, q = 1 / (e^eps + 1); the lowest-variance unary
    encoding (Wang et al. 2017)."""
    eps, k = check_epsilon(epsilon), _check_k(k)
    return UnaryMechanism(
        "oue",
        gettext_noop("Optimized unary encoding (OUE)"),
        k,
        0.5,
        1 / (math.exp(eps) + 1),
        {"epsilon": eps},
        0.5,
        1 / (1 + math.exp(-eps)),
    )


CATEGORICAL: dict[str, Callable[[float, int], Mechanism]] = {"grr": grr, "sue": sue, "oue": oue}


def grr_threshold(epsilon: float) -> float:
    """The number of categories from which OUE estimates more precisely than GRR at
    ``epsilon``: 3e^epsilon + 2 (Wang et al. 2017)."""
    return 3 * math.exp(epsilon) + 2


def choose_categorical(epsilon: float, k: int, override: str | None = None) -> Mechanism:
    """The lower-variance mechanism for a k-category question: GRR exactly when
    k < 3 e^eps + 2, else OUE. That is where Wang et al.'s approximate variances cross:
    (e^eps + k - 2) / (e^eps - 1)^2 for GRR against 4 e^eps / (e^eps - 1)^2 for OUE.
    ``override`` ("grr", "sue" or "oue") forces a mechanism."""
    if override is not None:
        if override not in CATEGORICAL:
            raise ValueError(f"override must be one of {sorted(CATEGORICAL)}, got {override!r}")
        return CATEGORICAL[override](epsilon, k)
    eps, k = check_epsilon(epsilon), _check_k(k)
    return grr(eps, k) if k < grr_threshold(eps) else oue(eps, k)


specs.register("rr", randomized_response, ("epsilon",))
specs.register("forced", forced_response, ("alpha", "beta"))
specs.register("pq", keep_probabilities, ("p", "q"))
specs.register("grr", grr, ("epsilon", "k"))
specs.register("sue", sue, ("epsilon", "k"))
specs.register("oue", oue, ("epsilon", "k"))


def test_vectors() -> list[dict[str, Any]]:
    """Shared test vectors: spec and exact ``matrix()`` for a grid of mechanisms (the
    "vectors" of tests/ldp_vectors.json, ``vectors.test_vectors``)."""
    binary = [randomized_response(eps) for eps in (0.5, 1.0, 2.0, math.log(3), 4.0)]
    binary += [forced_response(a, b) for a, b in ((0.5, 0.5), (0.75, 0.5), (0.6, 0.3))]
    binary += [keep_probabilities(p, q) for p, q in ((0.7, 0.6), (0.55, 0.95), (0.9, 0.3))]
    categorical = [
        build(eps, k)
        for build in CATEGORICAL.values()
        for k in (2, 3, 6, 20)
        for eps in (0.5, 1.0, 2.0, 4.0)
    ]
    return [{"spec": m.spec(), "matrix": m.matrix().tolist()} for m in binary + categorical]
