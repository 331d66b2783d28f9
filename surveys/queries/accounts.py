"""A researcher's settings (``surveys.models.Account``)."""

from __future__ import annotations

from surveys.models import Account


def settings_of(user) -> tuple[str, str]:
    """The time zone and the language ``user`` chose, in one query: UTC and "" (their
    browser's language) for a user who never saved their settings."""
    chosen = Account.objects.filter(user_id=user.pk).values_list("time_zone", "language")
    return next(iter(chosen), ("UTC", ""))
