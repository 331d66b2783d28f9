"""The headline (``Mechanism.headline``): maximum likelihood for the leaders, the other answers
pooled by positive-part James-Stein shrinkage (docs/ldp.md, "The headline")."""

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp import pooling


def random_counts(m, n, size, rng):
    """``size`` studies of n reports from random true shares (Dirichlet(1/2): many small)."""
    truth = rng.dirichlet(np.full(m.k, 0.5), size=size)
    if m.encoding == "unary":
        people = np.array([rng.multinomial(n, t) for t in truth])
        return rng.binomial(people, m.p) + rng.binomial(n - people, m.q)
    return np.array([rng.multinomial(n, m.matrix() @ t) for t in truth])


@pytest.mark.parametrize("m", [
    ldp.randomized_response(1.0), ldp.forced_response(0.75, 0.5), ldp.grr(1.0, 3),
    ldp.oue(0.5, 3), ldp.sue(2.0, 2),
], ids=repr)
def test_with_fewer_than_four_answers_it_is_the_mle_exactly(m):
    counts = random_counts(m, 300, 50, np.random.default_rng(1))
    assert np.array_equal(m.headline(counts, 300), m.mle(counts, 300))
    e = m.estimate(counts[0], 300)
    assert np.array_equal(e.headline, e.mle)


@pytest.mark.parametrize("m", [
    ldp.grr(0.5, 4), ldp.grr(1.0, 14), ldp.grr(4.0, 40), ldp.oue(0.5, 5), ldp.oue(2.0, 20),
    ldp.sue(1.0, 40),
], ids=repr)
@pytest.mark.parametrize("n", [30, 800, 20_000])
def test_it_is_on_the_simplex(m, n):
    counts = random_counts(m, n, 200, np.random.default_rng(2))
    headline = m.headline(counts, n)
    assert np.all((headline >= 0) & (headline <= 1))
    assert np.allclose(headline.sum(axis=-1), 1, rtol=0, atol=1e-12)
    # Leaders keep their MLE share; the rest lie between their MLE share and their mean.
    mle = m.mle(counts, n)
    leaders = mle > pooling.LEADER_SDS * np.sqrt(m.variance(np.zeros(m.k), n))
    assert np.array_equal(headline[leaders], mle[leaders])


def test_it_pools_small_answers_whose_spread_is_noise():
    """One leader at 0.6 (noise floor sd 0.1: 0.6 > 1.75 sd, 0.15 is not); the other five
    spread less than their noise (variance 0.015) would spread them
    (S = 0.0278 < (5 - 3) 0.015), so James-Stein pools them all to their mean, keeping the
    total. With variance 0.006 (S > 2 V) they are shrunk part way (B = 1 - 2 V / S = 0.568),
    their order kept."""
    mle = np.array([0.6, 0.15, 0.1, 0.08, 0.05, 0.02])
    unbiased = np.array([0.6, 0.17, 0.09, 0.06, 0.04, -0.06])
    floor = np.full(6, 0.01)
    headline = pooling.pooled(mle, unbiased, np.full(6, 0.015), floor)
    assert headline[0] == 0.6
    assert np.allclose(headline[1:], 0.08) and np.isclose(headline.sum(), 1)
    variance = np.array([0.015, 0.006, 0.006, 0.006, 0.006, 0.006])
    assert not np.any(mle[1:] > pooling.LEADER_SDS * np.sqrt(floor[1:]))
    partly = pooling.pooled(mle, unbiased, variance, floor)
    factor = 1 - 2 * 0.006 / 0.0278
    assert np.allclose(partly[1:], 0.08 + factor * (mle[1:] - 0.08))
    assert np.all(np.diff(partly[1:]) < 0) and np.isclose(partly.sum(), 1)


def test_rare_answers_are_pulled_up_towards_the_rest():
    """GRR at epsilon 0.5 among 14 answers, two at 1%, 800 people: the rare answers' noise
    swamps their differences, and the headline moves every small answer towards their mean."""
    m, n = ldp.grr(0.5, 14), 800
    truth = np.array([0.98 / 12] * 12 + [0.01, 0.01])
    counts = np.random.default_rng(3).multinomial(n, m.matrix() @ truth, size=400)
    mle, headline = m.mle(counts, n), m.headline(counts, n)
    spread = lambda f: np.std(f, axis=-1).mean()  # noqa: E731
    assert spread(headline) < 0.5 * spread(mle)


@pytest.mark.parametrize("m", [ldp.grr(0.5, 40), ldp.oue(0.5, 40), ldp.grr(1.0, 20)], ids=repr)
def test_it_lowers_the_total_squared_error_on_a_zipf_histogram(m):
    """Zipf over k answers, 800 respondents drawn from it, 400 paired studies (fixed seed): the
    headline's mean total squared error is below the MLE's by more than 4 standard errors of
    the paired mean difference."""
    rng = np.random.default_rng(4)
    n, truth = 800, 1 / np.arange(1, m.k + 1)
    truth /= truth.sum()
    if m.encoding == "unary":
        people = rng.multinomial(n, truth, size=400)
        counts = rng.binomial(people, m.p) + rng.binomial(n - people, m.q)
    else:
        counts = rng.multinomial(n, m.matrix() @ truth, size=400)
    gain = (np.sum((m.mle(counts, n) - truth) ** 2, axis=-1)
            - np.sum((m.headline(counts, n) - truth) ** 2, axis=-1))
    assert gain.mean() > 4 * gain.std(ddof=1) / np.sqrt(gain.size)
