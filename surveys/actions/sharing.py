"""Sharing a survey with other researchers, changing their role, and removing their access.
Only its owner does (the views check); the form checks the user is a researcher."""

from __future__ import annotations

from typing import Literal

from surveys.models import Survey, SurveyShare

ADDED, UNCHANGED, CHANGED = "added", "unchanged", "changed"
ShareOutcome = Literal["added", "unchanged", "changed"]


def share_survey(survey: Survey, user, role: str) -> ShareOutcome:
    """Give ``user`` the ``role`` on ``survey``: a new share (``ADDED``), the share they had
    with that role already (``UNCHANGED``), or their share with its role changed
    (``CHANGED``)."""
    share, created = SurveyShare.objects.get_or_create(
        survey=survey, user=user, defaults={"role": role}
    )
    if created:
        return ADDED
    return CHANGED if change_role(share, role) else UNCHANGED


def change_role(share: SurveyShare, role: str) -> bool:
    """Give ``share`` the ``role``; whether it changed."""
    if share.role == role:
        return False
    share.role = role
    share.save(update_fields=["role"])
    return True


def remove_share(share: SurveyShare) -> None:
    share.delete()
