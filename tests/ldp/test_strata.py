"""Three-way breakdowns (surveys.ldp.strata): counting, estimates within strata, the test
within each stratum.

Statistical tests use fixed seeds and tolerances from sampling theory, stated at each test:
a rate estimated from R studies has binomial standard error sqrt(r (1 - r) / R).
"""

import math

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp import joint, strata


def truth(strata_shares, groups, answers):
    """pi[g, s, j] from P(s), P(g | s) (rows s) and P(j | g, s) ([s][g])."""
    s_shares, g_shares = np.asarray(strata_shares), np.asarray(groups)
    answers = np.asarray(answers)
    return np.einsum("s,sg,sgj->gsj", s_shares, g_shares, answers)


# Stratum 0: no association (every group answers alike); stratum 1: a strong one.
PI = truth(
    [0.6, 0.4],
    [[0.5, 0.3, 0.2], [0.3, 0.3, 0.4]],
    [[[0.6, 0.3, 0.1]] * 3, [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.1, 0.3, 0.6]]],
)
MECHANISMS = ldp.grr(2.0, 3), ldp.randomized_response(2.0), ldp.grr(1.0, 3)


def simulate(mechanisms, pi, n, rng):
    """Counts of one study, each report drawn with the reference ``perturb``."""
    mech_g, mech_s, mech_q = mechanisms
    k_g, k_s, k_q = pi.shape
    g, rest = np.divmod(rng.choice(pi.size, size=n, p=pi.ravel()), k_s * k_q)
    s, j = np.divmod(rest, k_q)
    return strata.triple_counts(
        mech_g, mech_s, mech_q,
        mech_g.perturb(g, rng), mech_s.perturb(s, rng), mech_q.perturb(j, rng),
    )


def simulate_fast(mechanisms, pi, n, rng):
    """The same law for one-hot questions, at once: the table of report triples is
    Multinomial(n, (S_G (x) S_S) pi S_Q^T)."""
    mech_g, mech_s, mech_q = mechanisms
    k_g, k_s, k_q = pi.shape
    combined = np.kron(mech_g.matrix(), mech_s.matrix())
    law = combined @ pi.reshape(k_g * k_s, k_q) @ mech_q.matrix().T
    table = rng.multinomial(n, law.ravel()).reshape(k_g * k_s, k_q)
    return joint.PairCounts(n, table, table.sum(axis=1), table.sum(axis=0))


def test_triple_counts_are_the_pair_counts_of_the_combined_reports():
    rng = np.random.default_rng(1)
    g, s, q = rng.integers(0, 3, 50), rng.integers(0, 2, 50), rng.integers(0, 3, 50)
    counts = strata.triple_counts(*MECHANISMS, g.tolist(), s.tolist(), q.tolist())
    assert counts == joint.pair_counts(ldp.grr(1.0, 6), MECHANISMS[2], (g * 2 + s).tolist(), q)
    weighted = strata.triple_counts(*MECHANISMS, g[:2], s[:2], q[:2], weights=[3, 4])
    assert weighted.n == 7 and weighted.joint.sum() == 7
    with pytest.raises(ValueError, match="differ in length"):
        strata.triple_counts(*MECHANISMS, g, s[:3], q)
    with pytest.raises(ValueError, match="mech_s must report one category"):
        strata.triple_counts(MECHANISMS[0], ldp.oue(1.0, 3), MECHANISMS[2], g, s, q)
    with pytest.raises(ValueError, match="reports_s"):
        strata.triple_counts(*MECHANISMS, g, s + 5, q)


def test_it_refuses_counts_of_the_wrong_shape():
    with pytest.raises(ValueError, match="shape"):
        strata.stratified_breakdown(*MECHANISMS, joint.PairCounts.zero(3, 3))
    with pytest.raises(ValueError, match="mech_g must report one category"):
        strata.stratified_breakdown(
            ldp.oue(1.0, 3), *MECHANISMS[1:], joint.PairCounts.zero(6, 3)
        )


def test_no_respondents_means_nothing_is_known():
    found = strata.stratified_breakdown(*MECHANISMS, joint.PairCounts.zero(6, 3))
    assert found.share.shape == (2, 3, 3) and np.all(np.isnan(found.share))
    assert np.all(found.share_ci_low == 0) and np.all(found.share_ci_high == 1)
    assert np.all(found.stratum_ci_low == 0) and np.all(found.stratum_ci_high == 1)
    assert all(a.df == 0 and math.isnan(a.p_value) for a in found.association)
    data = found.to_dict()
    assert data["share"][0][0] == [None, None, None]
    assert data["association"][0] == {"statistic": None, "df": 0, "p_value": None}


@pytest.mark.parametrize("mechanisms", [
    MECHANISMS,
    (ldp.grr(2.0, 3), ldp.randomized_response(2.0), ldp.oue(1.0, 3)),  # a unary question
], ids=["grr x yes/no x grr", "grr x yes/no x oue"])
def test_estimates_are_near_the_truth_and_the_tests_see_what_is_there(mechanisms):
    """One study of 20,000: every share within 5 standard errors of its truth (the standard
    error read from the 95% interval, whose half-width is about 1.96 of them); the stratum
    without association is not rejected at 0.1% (probability 0.001 under the hypothesis), the
    one with a strong association rejected at 10^-6."""
    found = strata.stratified_breakdown(
        *mechanisms, simulate(mechanisms, PI, 20_000, np.random.default_rng(7))
    )
    within = np.swapaxes(PI / PI.sum(axis=2, keepdims=True), 0, 1)  # [s, g, j]
    standard_error = (found.share_ci_high - found.share_ci_low) / (2 * 1.96)
    assert np.all(np.abs(found.share - within) <= 5 * standard_error)
    assert np.allclose(found.share.sum(axis=2), 1)
    assert np.allclose(found.group_share.sum(axis=1), found.stratum_share)
    assert np.allclose(found.stratum_share, [0.6, 0.4], atol=0.03)
    assert np.all((found.share_ci_low <= found.share) & (found.share <= found.share_ci_high))
    quiet, strong = found.association
    assert quiet.p_value > 1e-3 and strong.p_value < 1e-6
    assert quiet.df == strong.df == (2 * 2 if mechanisms[2].encoding != "unary" else 2 * 3)


def test_the_shares_intervals_cover_their_truth():
    """100 studies of 3,000: the mean coverage over the 18 shares within strata is 95% up to
    3 binomial standard errors of one cell's rate (the cells' rates are correlated, so the
    mean is no tighter than one of them): 0.95 - 3 * 0.022; and every share's own coverage
    is within 4 standard errors (a chance miss among 18 about 18 * 3e-5): a broken interval
    fails. The coverage over many truths, epsilons and sizes at 400 studies each is
    bench/bench_strata.py's (docs/ldp.md, three-way breakdowns, "Measured")."""
    rng = np.random.default_rng(11)
    within = np.swapaxes(PI / PI.sum(axis=2, keepdims=True), 0, 1)
    covered = np.zeros(within.shape)
    studies = 100
    for _ in range(studies):
        found = strata.stratified_breakdown(*MECHANISMS, simulate_fast(MECHANISMS, PI, 3000, rng))
        covered += (found.share_ci_low <= within) & (within <= found.share_ci_high)
    coverage = covered / studies
    assert coverage.mean() >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / studies)
    assert coverage.min() >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / studies)


def test_the_test_within_a_stratum_has_its_size():
    """Under "no association in stratum 0" the test rejects 5% of 200 studies, within 3
    binomial standard errors (0.05 +- 0.046), and its statistic averages its 4 degrees of
    freedom within 3 standard errors (sd of chi-square 4: sqrt(8)). The size over many
    settings is bench/bench_strata.py's (docs/ldp.md)."""
    rng = np.random.default_rng(3)
    studies = 200
    statistics = np.array([
        strata.stratified_breakdown(
            *MECHANISMS, simulate_fast(MECHANISMS, PI, 3000, rng)
        ).association[0].statistic
        for _ in range(studies)
    ])
    size = np.mean(statistics > 9.487729036781154)  # chi-square 4 at 95%
    assert abs(size - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / studies)
    assert abs(statistics.mean() - 4) <= 3 * math.sqrt(8 / studies)
