"""Mechanisms of surveys.ldp: privacy, specs, report parsing, planner, shared vectors.

Estimators and seeded simulations are in test_ldp_estimation.py.
"""

import doctest
import itertools
import json
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from surveys import ldp

VECTORS_FILE = Path(__file__).resolve().parents[1] / "ldp_vectors.json"
GRID = [ldp.from_spec(v["spec"]) for v in ldp.test_vectors()["vectors"]]


def ldp_id(m: ldp.Mechanism) -> str:
    params = "-".join(f"{key}{value:.3g}" for key, value in m.params().items())
    return f"{m.name}-k{m.k}-{params}"


def requested_epsilon(m: ldp.Mechanism) -> float:
    """The epsilon each design promises, from the textbook formulas (PRODUCT.md)."""
    params = m.params()
    if m.name == "forced":
        a, b = params["alpha"], params["beta"]
        yes_yes, yes_no = a + (1 - a) * b, (1 - a) * b
        return math.log(max(yes_yes / yes_no, (1 - yes_no) / (1 - yes_yes)))
    if m.name == "pq":
        p, q = params["p"], params["q"]
        return math.log(max(q / (1 - p), p / (1 - q)))
    return params["epsilon"]


def chi_square_critical(df: int, alpha: float = 0.001) -> float:
    """Wilson-Hilferty: chi2_df quantile ~ df (1 - 2/(9 df) + z sqrt(2/(9 df)))^3; within 1% for
    df >= 3 and slightly above the exact value (so conservative) for df = 1, 2."""
    z = NormalDist().inv_cdf(1 - alpha)
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def unary_output_matrix(m: ldp.Mechanism) -> np.ndarray:
    """Full 2^k x k distribution of unary reports: bits independent given the truth."""
    s = m.matrix()
    rows = [
        np.prod([s[c] if bit else 1 - s[c] for c, bit in enumerate(y)], axis=0)
        for y in itertools.product((0, 1), repeat=m.k)
    ]
    return np.array(rows)


# Privacy ---------------------------------------------------------------------------------


@pytest.mark.parametrize("m", GRID, ids=ldp_id)
def test_matrix_epsilon_equals_the_requested_one(m):
    # "Never exceeds" up to rounding: p and q are doubles, so ln-ratios carry ~1e-16 error.
    assert m.exact_epsilon() == pytest.approx(requested_epsilon(m), rel=1e-12, abs=0)
    assert m.exact_epsilon() <= requested_epsilon(m) * (1 + 1e-12)
    assert m.epsilon == pytest.approx(requested_epsilon(m), rel=1e-12, abs=0)


@given(
    epsilon=st.floats(min_value=0.01, max_value=ldp.MAX_EPSILON),
    k=st.integers(min_value=2, max_value=50),
    build=st.sampled_from([ldp.grr, ldp.sue, ldp.oue]),
)
def test_epsilon_never_exceeds_the_requested_one_beyond_float_rounding(epsilon, k, build):
    for m in (build(epsilon, k), ldp.randomized_response(epsilon)):
        # A ratio of two doubles near 1 is only known to ~2^-53 / (its smaller complement).
        smallest = min(m.matrix().min(), 1 - m.matrix().max())
        assert m.exact_epsilon() <= epsilon + 4 * 2.0**-53 / smallest
        assert m.epsilon == epsilon


@pytest.mark.parametrize("m", [m for m in GRID if m.encoding != "unary"], ids=ldp_id)
def test_bit_and_index_matrices_are_output_distributions(m):
    s = m.matrix()
    assert s.shape == (m.k, m.k)
    assert np.allclose(s.sum(axis=0), 1, rtol=0, atol=1e-15)
    assert m.exact_epsilon() == ldp.epsilon_from_matrix(s)


@pytest.mark.parametrize("m", [m for m in GRID if m.encoding == "unary" and m.k <= 6], ids=ldp_id)
def test_unary_epsilon_equals_that_of_the_full_output_distribution(m):
    full = unary_output_matrix(m)
    assert np.allclose(full.sum(axis=0), 1)
    assert m.exact_epsilon() == pytest.approx(ldp.epsilon_from_matrix(full), rel=1e-12)


def test_p_and_q_mean_what_the_spec_says():
    rr = ldp.keep_probabilities(0.7, 0.6).matrix()
    assert rr[1, 1] == 0.7 and rr[0, 0] == 0.6  # P(report 1 | 1) = p, P(report 0 | 0) = q
    forced = ldp.forced_response(0.75, 0.5)
    assert (forced.p, forced.q) == (0.75 + 0.25 * 0.5, 1 - 0.25 * 0.5)
    g = ldp.grr(1.0, 5)
    assert g.p + 4 * g.q == pytest.approx(1)
    for m in (g, ldp.sue(1.0, 5), ldp.oue(1.0, 5)):
        s = m.matrix()
        assert np.all(np.diag(s) == m.p) and np.all(s[~np.eye(5, dtype=bool)] == m.q)


# Worked examples (sources in PRODUCT.md) ----------------------------------------------------


def test_unary_encoding_with_three_quarters_and_one_quarter_is_epsilon_2_197():
    m = ldp.UnaryMechanism("sue", "example", 4, 0.75, 0.25, {})
    assert round(m.exact_epsilon(), 3) == 2.197
    assert ldp.sue(2 * math.log(3), 4).p == pytest.approx(0.75)


def test_warner_at_epsilon_2_keeps_the_truth_with_probability_0_881():
    m = ldp.randomized_response(2)
    assert round(m.p, 3) == round(m.q, 3) == 0.881


def test_coin_flip_forced_response_is_ln_3():
    m = ldp.forced_response()
    assert (m.p, m.q) == (0.75, 0.75)
    assert m.epsilon == pytest.approx(math.log(3), rel=1e-12)


def test_keep_probabilities_point_seven_and_point_six_is_ln_2():
    assert ldp.keep_probabilities(0.7, 0.6).epsilon == pytest.approx(math.log(2), rel=1e-12)


def test_oue_and_grr_probabilities():
    e = math.exp(1.5)
    assert (ldp.oue(1.5, 9).p, ldp.oue(1.5, 9).q) == (0.5, pytest.approx(1 / (e + 1)))
    assert ldp.grr(1.5, 9).p == pytest.approx(e / (e + 8))


def test_unbiased_estimate_is_warners_formula():
    m = ldp.keep_probabilities(0.7, 0.6)
    n, ones = 1000, 430
    r = (ones / n + 0.6 - 1) / (0.7 + 0.6 - 1)
    assert m.unbiased([n - ones, ones], n) == pytest.approx([1 - r, r])


def test_variance_formulas_match_wang_et_al_at_a_zero_proportion():
    eps, k, n = 1.3, 7, 500
    e = math.exp(eps)
    zero = np.zeros(k)
    assert ldp.grr(eps, k).variance(zero, n)[0] == pytest.approx((k - 2 + e) / (e - 1) ** 2 / n)
    assert ldp.sue(eps, k).variance(zero, n)[0] == pytest.approx(
        math.exp(eps / 2) / (math.exp(eps / 2) - 1) ** 2 / n
    )
    assert ldp.oue(eps, k).variance(zero, n)[0] == pytest.approx(4 * e / (e - 1) ** 2 / n)


# Choosing a categorical mechanism ------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, math.log(2) + 1e-9, 1.5, 2.0, 3.0, 4.0])
def test_choose_categorical_picks_grr_exactly_below_3e_eps_plus_2_where_it_has_lower_variance(
    epsilon,
):
    for k in range(2, 200):
        chosen = ldp.choose_categorical(epsilon, k)
        expected = "grr" if k < 3 * math.exp(epsilon) + 2 else "oue"
        assert chosen.name == expected, k
        other = ldp.oue(epsilon, k) if expected == "grr" else ldp.grr(epsilon, k)
        zero = np.zeros(k)
        assert chosen.variance(zero, 1)[0] <= other.variance(zero, 1)[0]
        assert chosen.epsilon == epsilon


def test_choose_categorical_override():
    assert ldp.choose_categorical(1.0, 50, override="grr").name == "grr"
    assert ldp.choose_categorical(1.0, 3, override="sue").name == "sue"
    with pytest.raises(ValueError, match="override"):
        ldp.choose_categorical(1.0, 3, override="rappor")


# Constructors validate ----------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0, -1, 0.005, math.nan, math.inf, 20.5, "1", None, True])
def test_bad_epsilon_is_rejected(epsilon):
    for build in (ldp.randomized_response, lambda e: ldp.grr(e, 3), lambda e: ldp.oue(e, 3)):
        with pytest.raises(ValueError, match="epsilon"):
            build(epsilon)


@pytest.mark.parametrize("k", [1, 0, 2.0, "3", True, None, ldp.MAX_CATEGORIES + 1])
def test_bad_k_is_rejected(k):
    for build in (ldp.grr, ldp.sue, ldp.oue):
        with pytest.raises(ValueError, match="categories"):
            build(1.0, k)


@pytest.mark.parametrize(
    ("p", "q"), [(0.5, 0.5), (0.3, 0.6), (1.0, 0.5), (0.5, 0.0), (1.2, 0.5), (math.nan, 0.9)]
)
def test_bad_keep_probabilities_are_rejected(p, q):
    with pytest.raises(ValueError, match="p|q"):
        ldp.keep_probabilities(p, q)


@pytest.mark.parametrize(("alpha", "beta"), [(0, 0.5), (1, 0.5), (0.5, 0), (0.5, 1), (-0.1, 0.5)])
def test_bad_forced_response_is_rejected(alpha, beta):
    with pytest.raises(ValueError, match="alpha|beta"):
        ldp.forced_response(alpha, beta)


def test_keep_probabilities_with_too_little_privacy_is_rejected():
    with pytest.raises(ValueError, match="epsilon"):
        ldp.keep_probabilities(1 - 1e-12, 0.9)


# Specs --------------------------------------------------------------------------------------


@pytest.mark.parametrize("m", GRID, ids=ldp_id)
def test_from_spec_round_trips_through_json(m):
    spec = json.loads(json.dumps(m.spec()))
    rebuilt = ldp.from_spec(spec)
    assert rebuilt.spec() == m.spec()
    assert type(rebuilt) is type(m)
    assert (rebuilt.label, rebuilt.encoding) == (m.label, m.encoding)
    assert set(spec) >= {"mechanism", "encoding", "k", "epsilon", "p", "q"}


def test_from_spec_accepts_just_the_parameters():
    assert ldp.from_spec({"mechanism": "oue", "epsilon": 1, "k": 4}).spec() == ldp.oue(1, 4).spec()


def test_from_spec_builds_each_spec_once_and_still_checks_it():
    spec = ldp.grr(1.5, 4).spec()
    assert ldp.from_spec(spec) is ldp.from_spec(json.loads(json.dumps(spec)))
    assert ldp.from_spec(spec) is not ldp.from_spec(ldp.grr(1.5, 5).spec())
    with pytest.raises(ValueError, match="does not match"):
        ldp.from_spec({**spec, "p": spec["p"] / 2})  # the same parameters, another matrix
    with pytest.raises(ValueError):
        ldp.from_spec({**spec, "epsilon": float("nan")})  # not JSON: built, checked, refused


@pytest.mark.parametrize(
    "change",
    [
        {"p": 0.9},
        {"epsilon": 2.0},
        {"k": 3},
        {"encoding": "unary"},
        {"label": "extra key"},
        {"mechanism": "rappor"},
    ],
)
def test_from_spec_refuses_a_spec_it_would_not_have_written(change):
    with pytest.raises(ValueError):
        ldp.from_spec({**ldp.randomized_response(1.0).spec(), **change})


@pytest.mark.parametrize("spec", [None, [], {}, {"mechanism": "grr", "epsilon": 1.0}])
def test_from_spec_refuses_junk(spec):
    with pytest.raises(ValueError):
        ldp.from_spec(spec)


# Reports ------------------------------------------------------------------------------------

YES_NO = ldp.randomized_response(1.0)
THREE = ldp.grr(1.0, 3)
UNARY = ldp.oue(1.0, 3)


@pytest.mark.parametrize(
    ("m", "report", "parsed", "supports"),
    [
        (YES_NO, 0, 0, [0]),
        (YES_NO, 1, 1, [1]),
        (THREE, 2, 2, [2]),
        (THREE, 0, 0, [0]),
        (UNARY, [0, 1, 1], (0, 1, 1), [1, 2]),
        (UNARY, [0, 0, 0], (0, 0, 0), []),
        (UNARY, (1, 0, 0), (1, 0, 0), [0]),
    ],
)
def test_good_reports_are_accepted(m, report, parsed, supports):
    assert m.validate_report(report) == parsed
    assert m.support(report) == supports


@pytest.mark.parametrize(
    ("m", "report"),
    [
        (YES_NO, True),
        (YES_NO, False),
        (YES_NO, 1.0),
        (YES_NO, "1"),
        (YES_NO, 2),
        (YES_NO, -1),
        (YES_NO, None),
        (YES_NO, [1]),
        (THREE, 3),
        (THREE, 2.0),
        (THREE, "2"),
        (THREE, {"answer": 1}),
        (UNARY, [0, 1]),
        (UNARY, [0, 1, 1, 0]),
        (UNARY, [0, 1, 2]),
        (UNARY, [0, True, 0]),
        (UNARY, [0, 1.0, 0]),
        (UNARY, "011"),
        (UNARY, [[0], [1], [0]]),
        (UNARY, {"0": 1}),
        (UNARY, 1),
        (UNARY, None),
    ],
)
def test_bad_reports_are_rejected_with_a_message(m, report):
    with pytest.raises(ValueError, match="report|entry"):
        m.validate_report(report)
    with pytest.raises(ValueError):
        m.support(report)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats() | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=2), children, max_size=3)
    ),
    max_leaves=10,
)


@given(report=JSON)
def test_any_json_is_either_a_valid_report_or_a_value_error(report):
    for m in (YES_NO, THREE, UNARY):
        try:
            parsed = m.validate_report(report)
        except ValueError:
            continue
        bits = parsed if isinstance(parsed, tuple) else (parsed,)
        assert all(type(b) is int for b in bits)
        assert m.support_counts(np.array([parsed])).sum() == len(m.support(report))


def test_support_counts():
    assert YES_NO.support_counts(np.array([1, 0, 1, 1])).tolist() == [1, 3]
    assert THREE.support_counts([2, 2, 0]).tolist() == [1, 0, 2]
    assert UNARY.support_counts([(1, 0, 1), (0, 0, 1)]).tolist() == [1, 0, 2]
    for m in (YES_NO, THREE, UNARY):
        assert m.support_counts([]).tolist() == [0] * m.k


@pytest.mark.parametrize(
    ("m", "reports"),
    [
        (YES_NO, [0, 2]),
        (YES_NO, [0.0, 1.0]),
        (YES_NO, [[0, 1]]),
        (THREE, [0, 3]),
        (THREE, [-1]),
        (UNARY, [(1, 0)]),
        (UNARY, [(1, 0, 2)]),
        (UNARY, [1, 0, 1]),
    ],
)
def test_support_counts_rejects_malformed_reports(m, reports):
    with pytest.raises(ValueError):
        m.support_counts(reports)


@pytest.mark.parametrize("m", GRID, ids=ldp_id)
def test_perturb_follows_the_matrix(m):
    """Chi-square goodness of fit of 100,000 seeded reports, true answers cycling over all k
    categories. "bit"/"index": the (answer, report) table, k (k - 1) degrees of freedom.
    "unary": every (answer, bit) cell is binomial and bits are independent, so the sum of the
    k^2 squared z-scores is chi-square(k^2). Significance 0.001 per vector."""
    rng = np.random.default_rng(20240601)
    values = np.arange(100_000) % m.k
    reports = m.perturb(values, rng)
    per_answer = np.bincount(values, minlength=m.k)
    s = m.matrix()
    if m.encoding == "unary":
        assert reports.shape == (values.size, m.k) and reports.dtype == np.uint8
        ones = np.stack([reports[values == i].sum(axis=0) for i in range(m.k)], axis=1)
        expected = s * per_answer
        statistic = np.sum((ones - expected) ** 2 / (expected * (1 - s)))
        df = m.k * m.k
    else:
        assert reports.shape == values.shape and np.issubdtype(reports.dtype, np.integer)
        table = np.bincount(reports * m.k + values, minlength=m.k * m.k).reshape(m.k, m.k)
        expected = s * per_answer
        statistic = np.sum((table - expected) ** 2 / expected)
        df = m.k * (m.k - 1)
    assert statistic < chi_square_critical(df)


def test_perturb_rejects_values_outside_the_categories():
    rng = np.random.default_rng(0)
    for m in (YES_NO, THREE, UNARY):
        with pytest.raises(ValueError):
            m.perturb(np.array([0, m.k]), rng)
        with pytest.raises(ValueError):
            m.perturb(np.array([0.0, 1.0]), rng)


# Planner ------------------------------------------------------------------------------------

PLANNED = [
    ldp.randomized_response(1.0),
    ldp.forced_response(),
    ldp.keep_probabilities(0.55, 0.95),
    ldp.grr(0.5, 20),
    ldp.grr(2.0, 3),
    ldp.sue(1.0, 6),
    ldp.oue(4.0, 20),
]


@pytest.mark.parametrize("m", PLANNED, ids=ldp_id)
@pytest.mark.parametrize("margin", [0.5, 0.1, 0.05, 0.031, 0.01, 0.002])
def test_n_for_margin_is_the_smallest_n_reaching_the_margin(m, margin):
    n = m.n_for_margin(margin)
    assert m.margin_of_error(n) <= margin < m.margin_of_error(n - 1)
    assert m.n_for_margin(margin, confidence=0.99) > n


def test_coin_flip_needs_1537_reports_for_five_points():
    # sd of the estimate is sqrt(lam (1 - lam) / n) / (p + q - 1) <= 0.5 / 0.5 / sqrt(n).
    assert ldp.forced_response().n_for_margin(0.05) == math.ceil((ldp.Z95 / 0.05) ** 2)
    assert ldp.forced_response().n_for_margin(0.05) == 1537


@pytest.mark.parametrize("m", PLANNED, ids=ldp_id)
def test_margin_of_error_is_the_worst_case_over_true_proportions(m):
    n = 1000
    worst = m.margin_of_error(n)
    for f in np.linspace(0, 1, 101):
        assert ldp.Z95 * np.sqrt(m.variance(np.full(m.k, f), n)).max() <= worst * (1 + 1e-12)
    assert m.margin_of_error(0) == math.inf


def test_z95():
    assert ldp.z_value(0.95) == pytest.approx(ldp.Z95, rel=1e-15)
    with pytest.raises(ValueError):
        ldp.z_value(1.0)


# Shared vectors -----------------------------------------------------------------------------


def test_vectors_file_is_up_to_date():
    """If this fails: .venv/bin/python -m surveys.ldp > tests/ldp_vectors.json"""
    assert json.loads(VECTORS_FILE.read_text(encoding="utf-8")) == ldp.test_vectors()


def test_vectors_cover_the_grid():
    names = {(m.name, m.k) for m in GRID}
    assert {"rr", "forced", "pq"} <= {name for name, _ in names}
    for name in ("grr", "sue", "oue"):
        assert {k for n, k in names if n == name} == {2, 3, 6, 20}
    assert {m.epsilon for m in GRID if m.name == "rr"} == {0.5, 1.0, 2.0, math.log(3), 4.0}


def test_the_examples_in_docs_ldp_md_run():
    docs = Path(__file__).resolve().parents[2] / "docs" / "ldp.md"
    result = doctest.testfile(str(docs), module_relative=False, verbose=False)
    assert result.failed == 0 and result.attempted > 20


@pytest.mark.parametrize("epsilon", [1e-17, 1e-6, 0.0099])
def test_epsilon_below_the_minimum_is_rejected_by_name(epsilon):
    for build in (ldp.randomized_response, lambda e: ldp.grr(e, 3), lambda e: ldp.oue(e, 3)):
        with pytest.raises(ValueError, match="MIN_EPSILON"):
            build(epsilon)
    with pytest.raises(ValueError, match="MIN_EPSILON"):
        ldp.choose_categorical(epsilon, 5)
    keep = 1 / (1 + math.exp(-epsilon))  # rr(epsilon) written as keep-probabilities
    with pytest.raises(ValueError, match="MIN_EPSILON" if keep > 0.5 else "p \\+ q must exceed 1"):
        ldp.keep_probabilities(keep, keep)


def test_the_minimum_epsilon_itself_works():
    m = ldp.randomized_response(ldp.MIN_EPSILON)
    assert m.epsilon == ldp.MIN_EPSILON
    assert ldp.keep_probabilities(m.p, m.q).exact_epsilon() == pytest.approx(0.01, rel=1e-9)


@pytest.mark.parametrize(
    "m", [ldp.randomized_response(20.0), ldp.grr(20.0, 2), ldp.sue(20.0, 3), ldp.oue(20.0, 3)],
    ids=ldp_id,
)
def test_no_epsilon_is_lost_at_epsilon_20(m):
    # 1 - p near 1 is computed from epsilon directly, not by subtraction: ln(p / (1 - p)) at
    # epsilon = 20 used to come out 3.6e-8 short.
    assert m.exact_epsilon() == pytest.approx(20.0, rel=1e-14)
    s = m.matrix()
    if m.encoding == "bit":
        assert s[0, 1] == 1 / (1 + math.exp(20.0))  # P(report 0 | truth yes) = 1 - p
        assert ldp.epsilon_from_matrix(s) == pytest.approx(20.0, rel=1e-14)


@pytest.mark.parametrize("margin", [0, -0.1, 1, 1.5, math.nan, "0.05"])
def test_n_for_margin_refuses_margins_outside_0_1(margin):
    with pytest.raises(ValueError, match="margin"):
        ldp.randomized_response(1.0).n_for_margin(margin)


def test_n_for_margin_refuses_targets_beyond_a_billion_reports():
    m = ldp.randomized_response(ldp.MIN_EPSILON)
    assert m.n_for_margin(0.05) < ldp.MAX_PLANNED_RESPONDENTS  # about 15 million
    with pytest.raises(ValueError, match="1,000,000,000"):
        m.n_for_margin(0.001)  # would need about 3.8e10 reports


@pytest.mark.parametrize("m", PLANNED, ids=ldp_id)
def test_margin_for_an_expected_share_uses_the_variance_there(m):
    n = 1000
    for share in (0.0, 0.01, 0.3, 1.0):
        expected = ldp.Z95 * np.sqrt(m.variance(np.full(m.k, share), n)).max()
        assert m.margin_of_error(n, share=share) == pytest.approx(expected, rel=1e-12)
        assert m.margin_of_error(n, share=share) <= m.margin_of_error(n) * (1 + 1e-12)
        needed = m.n_for_margin(0.05, share=share)
        assert m.margin_of_error(needed, share=share) <= 0.05 < m.margin_of_error(
            needed - 1, share=share
        )


def test_worst_case_planning_overstates_grr_with_many_categories():
    # GRR, epsilon 1, k = 50: lam ranges over [q, p] = [0.019, 0.053]; the worst case is a
    # share of 1 (lam = p), a 2% share has lam ~ q: p (1 - p) / (q (1 - q)) ~ 2.5.
    m = ldp.grr(1.0, 50)
    ratio = m.n_for_margin(0.01) / m.n_for_margin(0.01, share=0.02)
    assert 2.3 < ratio < 2.7


@pytest.mark.parametrize("share", [-0.1, 1.1, math.nan, "0.2"])
def test_bad_share_is_rejected(share):
    with pytest.raises(ValueError, match="share"):
        ldp.grr(1.0, 5).margin_of_error(100, share=share)
