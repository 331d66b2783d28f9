from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from surveys.helpers.ratelimit import is_limited


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "surveys/home.html")


def limit_sign_in(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Limit sign-in attempts per client, against password guessing."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method == "POST" and is_limited(request, "sign-in", settings.RATELIMIT_SIGN_IN):
            return render(request, "429.html", {"what": _("sign-in attempts")}, status=429)
        return view(request, *args, **kwargs)

    return wrapper
