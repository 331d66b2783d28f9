"""The answers the site gives in its own words, which respondents read in their language (the
respondents' translation catalogues are made from this module; kinds' other texts are for
researchers)."""

from django.utils.translation import pgettext_lazy

YES_NO_ANSWERS = (pgettext_lazy("answer", "No"), pgettext_lazy("answer", "Yes"))
"""A yes/no question's answers, index 0 and 1."""

PREFER_NOT_TO_SAY = pgettext_lazy("answer", "Prefer not to say")
"""The option a question that offers a refusal shows after its own answers."""

NO_ANSWER = pgettext_lazy("answer", "No answer")
"""The extra answer a refusal or a skipped optional question is randomized as (results,
exports, and the report read back to the respondent)."""

NOT_ASKED = pgettext_lazy("answer", "Not asked")
"""The extra answer of a conditional question its condition did not show."""
