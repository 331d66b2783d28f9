"""The site's number formats as template filters (``{% load numbers %}``): ``epsilon``,
``thousands`` and ``percent`` of ``surveys.helpers.numbers``."""

from django import template

from surveys.helpers.numbers import epsilon, percent, thousands

register = template.Library()
for number_format in (epsilon, thousands, percent):
    register.filter(number_format.__name__, number_format)
