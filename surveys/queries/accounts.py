"""A researcher's settings (``surveys.models.Account``)."""

from __future__ import annotations

from surveys.models import Account


def time_zone_of(user) -> str:
    """The time zone ``user`` chose, else UTC (a user who never saved their settings)."""
    chosen = Account.objects.filter(user_id=user.pk).values_list("time_zone", flat=True)
    return next(iter(chosen), "UTC")
