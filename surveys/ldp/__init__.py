"""Local differential privacy, pure numpy: randomizers, estimators, intervals, planning, and
the joint estimation behind breakdowns. No Django, nothing of the app.

The public API is re-exported here (``from surveys import ldp``; ``ldp.grr(1.0, 5)``); the
modules behind it are ``mechanisms`` and ``joint`` (``surveys.ldp.joint``; three-way
breakdowns: ``surveys.ldp.strata``; a conditional question with its condition:
``surveys.ldp.asked``). The browser
twin is ``static/surveys/ldp.js``; ``python -m surveys.ldp`` writes the shared test vectors.
Imports inside the package are relative, so the folder can be copied and used on its own.
"""

from .checkall import MAX_BOXES, MAX_OPTIONS, SampledBoxes, sampled_boxes
from .mechanisms import (
    CATEGORICAL,
    EXACT_BELOW_VARIANCE,
    HEADLINE_DESCRIPTION,
    HEADLINE_METHOD,
    INTERVAL_DESCRIPTION,
    INTERVAL_METHOD,
    MAX_CATEGORIES,
    MAX_EPSILON,
    MAX_PLANNED_RESPONDENTS,
    MIN_EPSILON,
    SMALL_SAMPLE_COUNT,
    Z95,
    BinaryMechanism,
    DirectMechanism,
    Estimate,
    Mechanism,
    UnaryMechanism,
    choose_categorical,
    epsilon_from_matrix,
    forced_response,
    from_spec,
    grr,
    grr_threshold,
    keep_probabilities,
    oue,
    project_simplex,
    randomized_response,
    sue,
    test_vectors,
    z_value,
)
from .numbers import NumberWindow, number_window

__all__ = [
    "CATEGORICAL", "EXACT_BELOW_VARIANCE", "HEADLINE_DESCRIPTION", "HEADLINE_METHOD",
    "INTERVAL_DESCRIPTION", "INTERVAL_METHOD", "MAX_CATEGORIES", "MAX_EPSILON",
    "MAX_PLANNED_RESPONDENTS", "MIN_EPSILON", "SMALL_SAMPLE_COUNT", "Z95", "BinaryMechanism",
    "DirectMechanism", "Estimate", "Mechanism", "UnaryMechanism",
    "choose_categorical", "epsilon_from_matrix", "forced_response", "from_spec", "grr",
    "grr_threshold",
    "keep_probabilities", "oue", "project_simplex", "randomized_response", "sue",
    "test_vectors", "z_value", "MAX_BOXES", "MAX_OPTIONS", "SampledBoxes", "sampled_boxes",
    "NumberWindow", "number_window",
]
