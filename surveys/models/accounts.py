"""A researcher's own settings."""

from __future__ import annotations

import zoneinfo
from functools import cache

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _


@cache
def time_zones() -> tuple[str, ...]:
    """Every IANA time zone name this machine knows ("Europe/Paris", ...), sorted."""
    return tuple(sorted(zoneinfo.available_timezones()))


def validate_time_zone(name: str) -> None:
    if name not in time_zones():
        raise ValidationError(_("Choose a time zone from the list, for example Europe/Paris."))


class Account(models.Model):
    """A researcher's settings: the time zone their pages show and take times in (times are
    stored in UTC), and the language of their pages (blank: their browser's); both applied by
    ``surveysite.middleware.PageLanguageMiddleware``."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account"
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, default="UTC", validators=[validate_time_zone]
    )
    language = models.CharField(
        _("language"), max_length=8, blank=True, default="", choices=settings.LANGUAGES
    )

    def __str__(self) -> str:
        return f"{self.user}: {self.time_zone}"

