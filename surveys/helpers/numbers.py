"""The one format of each kind of number on the pages, for templates and views, in the
active language's format (here English; "12,3 %" and "1.799.000" in German).

``{{ 0.0001|epsilon }}`` is "0.0001" (``{{ 1.0|epsilon }}`` "1", ``{{ 2.25|epsilon }}``
"2.25"), ``{{ 1799000|thousands }}`` "1,799,000" (counts) and ``{{ 0.1234|percent }}``
"12.3%" (shares), ``{{ 3.456|score }}`` "3.46" and ``{{ -0.5|signed_score }}`` "−0.50" (mean
scores of rating scales and their differences), ``{{ 41.25|amount:0 }}`` "41.3" (means of
number questions, in their unit), ``{{ 0.0123|p_value }}`` "p = 0.012" (tests);
``{% load numbers %}`` makes them template
filters. Views call them. The authoring panel's script mirrors them
(static/surveys/epsilon_core.js: ``epsilonText``, ``count``, ``percent``).

An epsilon is written as it is typed in the forms' number boxes, with a point, in every
language.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils.formats import number_format
from django.utils.translation import gettext

UNKNOWN = "—"
"""What a filter writes for a figure that cannot be estimated (None), such as a share within
a group that the data say is empty."""

EPSILON_DIGITS = 6
"""Significant digits an epsilon keeps: enough for any value typed, few enough to drop
floating-point noise (0.1 + 0.2 is written "0.3")."""


def epsilon(value: float | None) -> str:
    """An epsilon with the digits it has, never in scientific notation: "0.0001", "1",
    "0.5", "2.25"."""
    if value is None:
        return UNKNOWN
    return f"{Decimal(f'{float(value):.{EPSILON_DIGITS}g}'):f}"


def decimal(value: float, places: int, grouping: bool = False) -> str:
    """``value`` rounded to ``places`` decimals in the active language's format, with a true
    minus sign and never "−0.0"; with thousands separators if ``grouping``. (Django's
    ``number_format`` cuts a float's extra digits, so it is rounded first.)"""
    rounded = round(float(value), places) + 0.0  # + 0.0: no negative zero
    return number_format(rounded, places, force_grouping=grouping).replace("-", "\u2212")


def thousands(number: float | None) -> str:
    """A count with thousands separators: "1,234"."""
    return UNKNOWN if number is None else number_format(number, force_grouping=True)


def percent(proportion: float | None) -> str:
    """A share in [0, 1] as a percentage with one decimal: "12.3%"."""
    return UNKNOWN if proportion is None else percent_number(decimal(100 * proportion, 1))


def percent_number(number: int | str) -> str:
    """A number of percent in the active language: "58%" ("58 %" in French)."""
    return gettext("%(number)s%%") % {"number": number}


def score(value: float | None) -> str:
    """A mean score on a rating scale (points 1..k) with two decimals: "3.46"."""
    return UNKNOWN if value is None else decimal(value, 2)


def amount(value: float | None, decimals: int = 0) -> str:
    """A number in a number question's unit, with one place more than its answers have:
    "41.3" for whole numbers, "2.475" for two places; "−3.0" below zero."""
    return UNKNOWN if value is None else decimal(value, int(decimals) + 1, grouping=True)


def p_value(value: float | None) -> str:
    """A test's p-value: "p = 0.012", or "p < 0.001" below that."""
    if value is None:
        return UNKNOWN
    return f"p < {decimal(0.001, 3)}" if value < 0.001 else f"p = {decimal(value, 3)}"


def signed_score(value: float | None) -> str:
    """A difference of mean scores, with its sign: "+0.42", "−0.50" (a true minus sign)."""
    if value is None:
        return UNKNOWN
    return ("+" if round(value, 2) >= 0 else "") + decimal(value, 2)
