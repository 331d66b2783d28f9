"""The site's number formats as template filters (``{% load numbers %}``): ``epsilon``,
``thousands``, ``percent``, ``score``, ``signed_score``, ``amount`` and ``p_value`` of
``surveys.helpers.numbers``."""

from django import template

from surveys.helpers.numbers import (
    amount,
    epsilon,
    p_value,
    percent,
    score,
    signed_score,
    thousands,
)

register = template.Library()
for number_format in (epsilon, thousands, percent, score, signed_score, amount, p_value):
    register.filter(number_format.__name__, number_format)
