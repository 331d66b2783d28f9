"""Local differential privacy, pure numpy: randomizers, estimators, intervals, planning, and
the joint estimation behind breakdowns. No Django, nothing of the app.

The public API is re-exported here (``from surveys import ldp``; ``ldp.grr(1.0, 5)``). The
modules stand in layers, each importing only from those under it (the contract in
pyproject.toml; docs/layout.md lists them): checks and shared numerics, then one question's
mechanisms (``mechanisms``, estimated by ``estimation``, rebuilt from specs by ``specs``),
then intervals and likelihood fitting for several questions, then joint estimation
(breakdowns ``joint``, three-way ``strata``, shares among those who answered ``among`` and
among those asked ``asked``), then the kinds of estimate built on them (``numbers``,
``checkall``, ``scores``), then regression (``regression``, ``linear``); on top, beside
the shared test vectors, a survey's design (``designs``: which questions each respondent is
asked, and the epsilon of everything they send) and every figure of one question's results
(``figures``: what the results page and the downloadable script both call). Importing this
package imports every mechanism, so ``from_spec`` knows them all. The browser twin is
``static/surveys/ldp.js``; ``python -m surveys.ldp`` writes the shared test vectors
(``vectors``). Imports inside the package are relative, so the folder can be copied and used
on its own.
"""

from .checkall import MAX_BOXES, MAX_OPTIONS, SampledBoxes, sampled_boxes
from .designs import (
    asked_share,
    body_epsilon,
    both_asked_share,
    draw_blocks,
    expected_asked,
    recommended_asked,
    sampled_epsilon,
)
from .estimation import (
    EXACT_BELOW_VARIANCE,
    HEADLINE_DESCRIPTION,
    HEADLINE_METHOD,
    INTERVAL_DESCRIPTION,
    INTERVAL_METHOD,
    SMALL_SAMPLE_COUNT,
    Estimate,
    project_simplex,
)
from .figures import (
    AMONG_ASKED,
    AMONG_OWN,
    FIGURE_COLUMNS,
    Anchored,
    Condition,
    QuestionFigures,
    jointly,
    question_figures,
)
from .mechanisms import (
    CATEGORICAL,
    MAX_CATEGORIES,
    MAX_EPSILON,
    MIN_EPSILON,
    BinaryMechanism,
    DirectMechanism,
    Mechanism,
    UnaryMechanism,
    choose_categorical,
    epsilon_from_matrix,
    forced_response,
    grr,
    grr_threshold,
    keep_probabilities,
    oue,
    randomized_response,
    sue,
)
from .numbers import NumberWindow, number_window
from .planning import MAX_PLANNED_RESPONDENTS, Z95, z_value
from .specs import from_spec
from .vectors import test_vectors

__all__ = [
    "CATEGORICAL", "EXACT_BELOW_VARIANCE", "HEADLINE_DESCRIPTION", "HEADLINE_METHOD",
    "INTERVAL_DESCRIPTION", "INTERVAL_METHOD", "MAX_CATEGORIES", "MAX_EPSILON",
    "MAX_PLANNED_RESPONDENTS", "MIN_EPSILON", "SMALL_SAMPLE_COUNT", "Z95", "BinaryMechanism",
    "DirectMechanism", "Estimate", "Mechanism", "UnaryMechanism",
    "choose_categorical", "epsilon_from_matrix", "forced_response", "from_spec", "grr",
    "grr_threshold",
    "keep_probabilities", "oue", "project_simplex", "randomized_response", "sue",
    "test_vectors", "z_value", "MAX_BOXES", "MAX_OPTIONS", "SampledBoxes", "sampled_boxes",
    "NumberWindow", "number_window", "asked_share", "body_epsilon", "both_asked_share",
    "draw_blocks", "expected_asked", "recommended_asked", "sampled_epsilon",
    "AMONG_ASKED", "AMONG_OWN", "FIGURE_COLUMNS", "Anchored", "Condition", "QuestionFigures",
    "jointly", "question_figures",
]
