"""Who may author surveys, and finding a researcher's own survey."""

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


def get_own_survey(request: HttpRequest, pk: int) -> Survey:
    """The signed-in researcher's survey; anyone else's is a 404, so its existence is hidden."""
    return get_object_or_404(Survey, pk=pk, owner=request.user)
