"""Finding a researcher's API tokens (``surveys.models.ApiToken``)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from surveys.models import ApiToken, hash_secret

MAX_ACTIVE_TOKENS = 20
"""Active tokens a user may have at once."""


def active_tokens(user) -> QuerySet[ApiToken]:
    """``user``'s tokens neither revoked nor expired."""
    return ApiToken.objects.filter(owner=user, revoked=None, expires__gt=timezone.now())


def token_for(secret: str) -> ApiToken | None:
    """The active token whose secret is ``secret``, with its owner, if that owner's account is
    active; else None. Only the hash is compared: the database never sees a secret."""
    tokens = ApiToken.objects.select_related("owner").filter(
        digest=hash_secret(secret), revoked=None, expires__gt=timezone.now(),
        owner__is_active=True,
    )
    return tokens.first()
