"""Who may do what with a survey.

A survey's owner may do anything with it. The owner may share it with other researchers
(``SurveyShare``): a *viewer* reads its results and exports, an *editor* also authors it
(title, questions, translations, invitations, opening and closing it). Only the owner
deletes or shares it. A share counts only while its user is a researcher (a member of the
``RESEARCHERS_GROUP``, or a superuser).
"""

from __future__ import annotations

from typing import Literal

from django.db.models import Case, CharField, OuterRef, Q, QuerySet, Subquery, Value, When

from surveys.models import Survey, SurveyShare

RESEARCHERS_GROUP = "Researchers"

OWNER = "owner"
EDITOR = SurveyShare.Role.EDITOR.value
VIEWER = SurveyShare.Role.VIEWER.value

Need = Literal["view", "edit", "own"]
ROLES_FOR: dict[str, tuple[str, ...]] = {
    "view": (OWNER, EDITOR, VIEWER),
    "edit": (OWNER, EDITOR),
    "own": (OWNER,),
}
"""The roles that allow each need: owner > editor > viewer."""


def is_researcher(user) -> bool:
    return user.is_superuser or user.groups.filter(name=RESEARCHERS_GROUP).exists()


SHARE_COUNTS = Q(user__is_superuser=True) | Q(user__groups__name=RESEARCHERS_GROUP)
"""A share counts only while its user is a researcher (``is_researcher``), as a condition on
shares, so that a query decides it with the rest of the access rule."""


def may(role: str | None, need: Need) -> bool:
    """Whether ``role`` ("owner", "editor", "viewer" or None) allows ``need``."""
    return role in ROLES_FOR[need]


def with_roles(surveys: QuerySet[Survey], user) -> QuerySet[Survey]:
    """``surveys`` annotated with ``access_role``: "owner", "editor", "viewer", or None for
    a survey ``user`` has no access to (a share counts only while ``user`` is a researcher)."""
    if not user.is_authenticated:
        return surveys.annotate(access_role=Value(None, output_field=CharField()))
    shares = SurveyShare.objects.filter(SHARE_COUNTS, survey=OuterRef("pk"), user=user)
    shared = Subquery(shares.values("role")[:1])
    return surveys.annotate(
        access_role=Case(
            When(owner=user, then=Value(OWNER)), default=shared, output_field=CharField()
        )
    )


def surveys_for(user, need: Need) -> QuerySet[Survey]:
    """The surveys ``user`` may ``need`` ("view", "edit" or "own"), annotated with
    ``access_role`` (see ``with_roles``)."""
    if need not in ROLES_FOR:
        raise ValueError(f"Unknown access need: {need!r}")
    if not user.is_authenticated:
        return Survey.objects.none()
    shared_roles = [role for role in ROLES_FOR[need] if role != OWNER]
    allowed = Q(owner=user)
    if shared_roles:
        # A subquery, not a join: a join on shares would repeat a survey once per share.
        shared = SurveyShare.objects.filter(SHARE_COUNTS, user=user, role__in=shared_roles)
        allowed |= Q(pk__in=shared.values("survey"))
    return with_roles(Survey.objects.filter(allowed), user)


def role(user, survey: Survey) -> str | None:
    """``user``'s role on ``survey``: "owner", "editor", "viewer", or None (no access through
    ownership or a share; a share counts only while ``user`` is a researcher)."""
    if not user.is_authenticated:
        return None
    if survey.owner_id == user.pk:
        return OWNER
    shares = SurveyShare.objects.filter(SHARE_COUNTS, survey=survey, user=user)
    return shares.values_list("role", flat=True).first()
