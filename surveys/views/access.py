"""Who may author surveys, and finding the survey a page is about.

A survey's owner may do anything with it. The owner may share it with other researchers
(``SurveyShare``): a *viewer* reads its results and exports, an *editor* also authors it
(title, questions, translations, invitations, opening and closing it). Only the owner
deletes or shares it. A share counts only while its user is a researcher. Whatever a user
may not do with a survey is a 404, so its existence stays hidden.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Literal

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Case, CharField, OuterRef, Q, QuerySet, Subquery, Value, When
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _

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


def researcher_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Signed in (else sent to sign in), and allowed to author surveys (else 403): the
    "Researchers" group grants it."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not is_researcher(request.user):
            raise PermissionDenied(_("Only researcher accounts can author surveys."))
        return view(request, *args, **kwargs)

    return wrapper


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


def get_survey(
    request: HttpRequest, pk: int, need: Need, *, staff_may_view: bool = False
) -> Survey:
    """The survey ``pk`` if the signed-in user may ``need`` it: "view" (owner, editor or
    viewer: reading pages), "edit" (owner or editor: authoring) or "own" (the owner only:
    deleting, sharing). With ``staff_may_view`` (only for "view": results and exports), also
    any survey for staff allowed to view surveys in the admin. Anything else is a 404, so the
    survey's existence is hidden.

    The survey carries, for templates, ``access_role`` ("owner", "editor", "viewer", or None
    for staff reading someone else's survey), ``can_edit`` and ``is_owner``."""
    if staff_may_view and need != "view":
        raise ValueError("staff_may_view only applies to pages that read a survey.")
    user = request.user
    survey = Survey.objects.filter(pk=pk).first() if user.is_authenticated else None
    # Two plain queries (the survey, then a share unless the user owns it) rather than one
    # with the role as a subquery (``surveys_for``): the ORM took longer to build that one
    # than the rest of a view served from the cache (the results JSON, warm, in-process:
    # 2.85 ms with it, 1.60 ms without).
    survey_role = role(user, survey) if survey else None
    staff_reads = staff_may_view and user.is_staff and user.has_perm("surveys.view_survey")
    if survey is None or not (may(survey_role, need) or staff_reads):
        raise Http404("No survey matches the given query.")
    survey.access_role = survey_role
    survey.can_edit = may(survey_role, "edit")
    survey.is_owner = may(survey_role, "own")
    return survey


def role(user, survey: Survey) -> str | None:
    """``user``'s role on ``survey``: "owner", "editor", "viewer", or None (no access through
    ownership or a share; a share counts only while ``user`` is a researcher)."""
    if not user.is_authenticated:
        return None
    if survey.owner_id == user.pk:
        return OWNER
    shares = SurveyShare.objects.filter(SHARE_COUNTS, survey=survey, user=user)
    return shares.values_list("role", flat=True).first()
