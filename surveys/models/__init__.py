"""The data: surveys and their questions, the randomized reports respondents send, and the
site's privacy rules. Every model is importable from here (``from surveys.models import
Survey``); each lives in the module that says what it holds:

- ``policy``: ``PrivacyPolicy`` and the checks of an epsilon;
- ``survey``: ``Survey``, ``Question``, ``Choice``;
- ``texts``: ``SurveyTranslation`` and ``WordingRevision`` (what respondents read);
- ``sharing``: ``SurveyShare``;
- ``responses``: ``Submission``, ``Tally``, ``PairTally``, ``TripleTally``,
  ``CombinationTally``, ``Invitation``;
- ``tokens``: ``ApiToken``, a researcher's personal API token;
- ``accounts``: ``Account``, a researcher's settings (their time zone).

Models hold fields, constraints and one-row rules; every write that touches more than one
row or model is in ``surveys.actions``.
"""

from surveys.models.accounts import Account, time_zones
from surveys.models.policy import (
    EPSILON_TOO_SMALL,
    PrivacyPolicy,
    epsilon_too_small,
    validate_epsilon_value,
)
from surveys.models.responses import (
    CombinationTally,
    Invitation,
    PairTally,
    Submission,
    Tally,
    TripleTally,
)
from surveys.models.sharing import SurveyShare
from surveys.models.survey import (
    FROZEN_MESSAGE,
    PUBLIC_TOKEN,
    STUDY_TEXTS,
    TOTAL_EPSILON,
    Choice,
    Question,
    Survey,
    asked_together,
    blocks_of,
    build_mechanism,
    condition_problem,
    design_blocks,
    design_epsilon,
    design_problem,
    drawn_at_random,
    max_length,
    new_public_id,
    refuse_if_frozen,
    survey_epsilon,
    total_epsilon,
    validate_contact,
)
from surveys.models.texts import (
    QUESTION_TEXTS,
    SURVEY_TEXTS,
    SurveyTranslation,
    WordingRevision,
    validate_translation_texts,
)
from surveys.models.tokens import TOKEN_START, ApiToken, hash_secret

__all__ = [
    "EPSILON_TOO_SMALL", "FROZEN_MESSAGE", "PUBLIC_TOKEN", "QUESTION_TEXTS", "STUDY_TEXTS",
    "SURVEY_TEXTS", "TOKEN_START",
    "TOTAL_EPSILON", "Account", "ApiToken", "Choice", "CombinationTally", "Invitation",
    "PairTally", "PrivacyPolicy",
    "Question",
    "Submission", "Survey", "SurveyShare", "SurveyTranslation", "Tally", "TripleTally",
    "WordingRevision",
    "build_mechanism", "condition_problem", "epsilon_too_small", "hash_secret", "max_length",
    "new_public_id", "refuse_if_frozen", "time_zones", "total_epsilon", "survey_epsilon",
    "asked_together", "blocks_of", "design_blocks", "design_epsilon", "design_problem",
    "drawn_at_random",
    "validate_contact",
    "validate_epsilon_value", "validate_translation_texts",
]
