"""Times as pages write them: for respondents in their language, for researchers with the
time zone, and relative to now ("in 7 days")."""

from __future__ import annotations

import datetime

from django.utils import formats, timezone
from django.utils.dateformat import format as format_date
from django.utils.translation import gettext as _
from django.utils.translation import ngettext


def respondent_time(value: datetime.datetime) -> str:
    """A time for respondents' pages, in the page's language and the site's time zone (UTC):
    "Nov. 30, 2026, 6 p.m." in English, "30 novembre 2026 18:00" in French."""
    return formats.date_format(timezone.localtime(value), "DATETIME_FORMAT")


def researcher_time(value: datetime.datetime) -> str:
    """A time for researchers' pages: "30 Nov 2026 18:00 UTC"."""
    local = timezone.localtime(value)
    return f"{format_date(local, 'j M Y H:i')} {local.tzname()}"


def relative(value: datetime.datetime, now: datetime.datetime) -> str:
    """"in 7 days", "in 47 hours", "3 hours ago": rounded to the nearest minute below 90
    minutes, hour below 48 hours, day beyond, so that 47 hours away never reads "1 day"."""
    seconds = abs((value - now).total_seconds())

    def nearest(unit: int) -> int:
        return int(seconds / unit + 0.5)

    if seconds >= 48 * 3600:
        count = nearest(86400)
        text = ngettext("%(count)d day", "%(count)d days", count) % {"count": count}
    elif seconds >= 90 * 60:
        count = nearest(3600)
        text = ngettext("%(count)d hour", "%(count)d hours", count) % {"count": count}
    elif seconds >= 60:
        count = nearest(60)
        text = ngettext("%(count)d minute", "%(count)d minutes", count) % {"count": count}
    else:
        text = _("less than a minute")
    if value > now:
        return _("in %(time)s") % {"time": text}
    return _("%(time)s ago") % {"time": text}
