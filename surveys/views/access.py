"""Who may author surveys, and finding the survey a page is about."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from surveys.models import Survey

RESEARCHERS_GROUP = "Researchers"


def is_researcher(user) -> bool:
    return user.is_superuser or user.groups.filter(name=RESEARCHERS_GROUP).exists()


def researcher_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Signed in (else sent to sign in), and allowed to author surveys (else 403): the
    "Researchers" group grants it."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not is_researcher(request.user):
            raise PermissionDenied("Only researcher accounts can author surveys.")
        return view(request, *args, **kwargs)

    return wrapper


def get_own_survey(request: HttpRequest, pk: int, *, staff_may_view: bool = False) -> Survey:
    """The signed-in user's survey; with ``staff_may_view`` (pages that only read it), also
    anyone's survey for staff allowed to view surveys in the admin. Any other survey is a 404,
    so its existence is hidden."""
    user = request.user
    surveys = Survey.objects.all()
    if not (staff_may_view and user.is_staff and user.has_perm("surveys.view_survey")):
        surveys = surveys.filter(owner=user)
    return get_object_or_404(surveys, pk=pk)
