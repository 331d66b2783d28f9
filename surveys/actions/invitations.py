"""Single-use invitation links."""

from __future__ import annotations

from surveys.models import Invitation, Survey

BATCH = 1000
"""Invitations inserted per statement."""


def create_invitations(survey: Survey, count: int) -> None:
    """``count`` new unused invitations to ``survey``, each with a random token."""
    Invitation.objects.bulk_create(
        [Invitation(survey=survey) for _ in range(count)], batch_size=BATCH
    )
