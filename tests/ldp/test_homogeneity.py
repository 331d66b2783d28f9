"""The test of equal randomized answers across groups (surveys/ldp/homogeneity.py)."""

import numpy as np
import pytest

from surveys import ldp
from surveys.ldp import homogeneity


def test_the_contingency_test_by_hand():
    found = homogeneity.contingency_test([[10, 20], [20, 10]])
    expected = 4 * (5**2 / 15)
    assert found.statistic == pytest.approx(expected)
    assert found.df == 1
    assert homogeneity.contingency_test([[10, 20], [0, 0]]) is None
    assert homogeneity.contingency_test([[10, 0], [5, 0]]) is None
    with pytest.raises(ValueError):
        homogeneity.homogeneity("index", [[1, 2], [3, 4]], [3, 8])


def test_the_bitwise_test_is_bonferroni_over_the_bits():
    found = homogeneity.bitwise_test([[50, 10, 30], [50, 30, 30]], [100, 100])
    single = homogeneity.contingency_test([[10, 90], [30, 70]])
    assert found.method == "bitwise-bonferroni"
    assert found.p_value == pytest.approx(min(1.0, 3 * single.p_value))


def test_a_test_holds_its_size_over_many_studies_with_fixed_seeds():
    """Equal truths under two wordings, 400 studies: the share rejected at 0.05 stays within
    four binomial standard errors of 0.05."""
    rng = np.random.default_rng(2024)
    mechanism = ldp.grr(1.0, 3)
    law = mechanism.matrix() @ np.array([0.2, 0.3, 0.5])
    rejected = sum(
        homogeneity.homogeneity("index", [rng.multinomial(800, law) for _ in range(2)],
                                [800, 800]).p_value < 0.05
        for _ in range(400)
    )
    assert abs(rejected / 400 - 0.05) < 4 * (0.05 * 0.95 / 400) ** 0.5
