"""The one format of each kind of number on researchers' pages, for templates and views.

``{{ 0.0001|epsilon }}`` is "0.0001" (``{{ 1.0|epsilon }}`` "1", ``{{ 2.25|epsilon }}``
"2.25"), ``{{ 1799000|thousands }}`` "1,799,000" (counts) and ``{{ 0.1234|percent }}``
"12.3%" (shares), ``{{ 3.456|score }}`` "3.46" and ``{{ -0.5|signed_score }}`` "−0.50" (mean
scores of rating scales and their differences), ``{{ 41.25|amount:0 }}`` "41.3" (means of
number questions, in their unit), ``{{ 0.0123|p_value }}`` "p = 0.012" (tests);
``{% load numbers %}`` makes them template
filters. Views call them. The authoring panel's script mirrors them
(static/surveys/epsilon_core.js: ``epsilonText``, ``count``, ``percent``).
"""

from __future__ import annotations

from decimal import Decimal

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


def thousands(number: float | None) -> str:
    """A count with thousands separators: "1,234"."""
    return UNKNOWN if number is None else f"{number:,}"


def percent(proportion: float | None) -> str:
    """A share in [0, 1] as a percentage with one decimal: "12.3%"."""
    return UNKNOWN if proportion is None else f"{100 * proportion:.1f}%"


def score(value: float | None) -> str:
    """A mean score on a rating scale (points 1..k) with two decimals: "3.46"."""
    return UNKNOWN if value is None else f"{value:.2f}"


def amount(value: float | None, decimals: int = 0) -> str:
    """A number in a number question's unit, with one place more than its answers have:
    "41.3" for whole numbers, "2.475" for two places; "−3.0" below zero."""
    if value is None:
        return UNKNOWN
    text = f"{value:,.{int(decimals) + 1}f}"
    if float(text.replace(",", "")) == 0:  # no "−0.0"
        text = text.lstrip("-")
    return text.replace("-", "−")


def p_value(value: float | None) -> str:
    """A test's p-value: "p = 0.012", or "p < 0.001" below that."""
    if value is None:
        return UNKNOWN
    return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"


def signed_score(value: float | None) -> str:
    """A difference of mean scores, with its sign: "+0.42", "−0.50" (a true minus sign)."""
    return UNKNOWN if value is None else f"{value:+.2f}".replace("-", "\u2212")
