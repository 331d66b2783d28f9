"""Times on researchers' pages, with their time zone (``surveys.helpers.times``)."""

from django import template

from surveys.helpers.times import researcher_time

register = template.Library()
register.filter("researcher_time", researcher_time)
