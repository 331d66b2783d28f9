"""The answers the site gives in its own words, which respondents read in their language (the
respondents' translation catalogues are made from this module; kinds' other texts are for
researchers)."""

from django.utils.translation import pgettext_lazy

YES_NO_ANSWERS = (pgettext_lazy("answer", "No"), pgettext_lazy("answer", "Yes"))
"""A yes/no question's answers, index 0 and 1."""
