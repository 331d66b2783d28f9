"""Response headers Django 5.2 does not set itself."""

import logging
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)


def security_headers(get_response: Callable[[HttpRequest], HttpResponse]):
    """A strict Content-Security-Policy (no inline script, no other host), a
    Permissions-Policy that turns off device features no survey needs, and no referrer at all
    from respondents' pages, whose address (the survey link) must never leak.

    Other pages keep SECURE_REFERRER_POLICY ("same-origin": nothing is sent to other sites
    either), because with "no-referrer" browsers send "Origin: null" with form posts, which
    Django's CSRF protection rightly refuses.
    """

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        match = request.resolver_match
        if match and match.url_name and match.url_name.startswith("respond"):
            response.headers["Referrer-Policy"] = "no-referrer"
        response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Permissions-Policy", settings.PERMISSIONS_POLICY)
        return response

    return middleware


class DatabaseUnavailableMiddleware:
    """When the database cannot be reached, answer 503 with a clear message instead of 500.

    Nothing can have been written: every write happens inside a transaction that the failed
    connection rolls back.
    """

    MESSAGE = (
        "The service is briefly unavailable. Nothing was stored; please try again in a minute."
    )

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logger.error("Database unavailable: %s", type(exception).__name__)
        headers = {"Retry-After": "30"}
        if request.accepts("text/html") and not request.content_type == "application/json":
            return HttpResponse(
                f"<!doctype html><html lang='en'><title>Unavailable</title><h1>Unavailable</h1>"
                f"<p>{self.MESSAGE}</p></html>",
                status=503,
                headers=headers,
            )
        return JsonResponse({"ok": False, "error": self.MESSAGE}, status=503, headers=headers)
