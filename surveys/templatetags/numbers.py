"""The site's number formats as template filters (``{% load numbers %}``): ``epsilon``,
``thousands``, ``percent``, ``score`` and ``signed_score`` of ``surveys.helpers.numbers``."""

from django import template

from surveys.helpers.numbers import epsilon, percent, score, signed_score, thousands

register = template.Library()
for number_format in (epsilon, thousands, percent, score, signed_score):
    register.filter(number_format.__name__, number_format)
