"""Personal API tokens: a researcher's scripts read, with one, what the researcher's pages
show (results, breakdowns, exports), and with a token of the write scope also make drafts
from survey files and open and close surveys; nothing else.

The secret is shown once, when the token is made; only its SHA-256 hash is stored, with a
short prefix of it that names the token in lists. A token is accepted only by the API
(``surveys.views.api``) and by the pages that read a survey's data
(``surveys.views.access.token_or_login_required``), which never write.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

TOKEN_START = "pst_"
"""Every secret starts so, which lets secret scanners (and people) recognise one."""
PREFIX_LENGTH = len(TOKEN_START) + 8
"""The characters of a secret kept in the clear, to name the token in lists."""


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiToken(models.Model):
    class Lifetime(models.IntegerChoices):
        MONTH = 30, _("30 days")
        QUARTER = 90, _("90 days")
        YEAR = 365, _("1 year")

    class Scope(models.TextChoices):
        READ = "read", _("Read")
        WRITE = "write", _("Read and write")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=100)
    prefix = models.CharField(max_length=PREFIX_LENGTH)
    digest = models.CharField(max_length=64, unique=True)
    """SHA-256 of the secret, in hexadecimal: never the secret itself."""
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    last_used = models.DateField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)
    scope = models.CharField(_("scope"), max_length=5, choices=Scope.choices, default=Scope.READ)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, owner, name: str, days: int, scope: str = Scope.READ) -> tuple[ApiToken, str]:
        """A new token of ``owner``'s valid for ``days`` with ``scope``, and its secret (never
        stored)."""
        secret = TOKEN_START + secrets.token_urlsafe(32)
        token = cls.objects.create(
            owner=owner, name=name, prefix=secret[:PREFIX_LENGTH], digest=hash_secret(secret),
            expires=timezone.now() + timedelta(days=days), scope=scope,
        )
        return token, secret

    @property
    def status(self) -> str:
        """"active", "expired" or "revoked"."""
        if self.revoked:
            return "revoked"
        return "active" if self.expires > timezone.now() else "expired"

    @property
    def writes(self) -> bool:
        """Whether the token may make drafts and open and close surveys."""
        return self.scope == self.Scope.WRITE

    def revoke(self) -> None:
        if not self.revoked:
            self.revoked = timezone.now()
            self.save(update_fields=["revoked"])

    def note_use(self) -> None:
        """Records the day of use: one write a day at most."""
        today = timezone.localdate()
        if self.last_used != today:
            self.last_used = today
            ApiToken.objects.filter(pk=self.pk).update(last_used=today)
