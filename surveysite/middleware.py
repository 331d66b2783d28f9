"""Response headers Django 5.2 does not set itself."""

import logging
import zoneinfo
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext_lazy
from django.views import defaults

from surveys.queries.accounts import settings_of

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
        if is_respondent_page(request):
            response.headers["Referrer-Policy"] = "no-referrer"
        response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Permissions-Policy", settings.PERMISSIONS_POLICY)
        return response

    return middleware


def is_respondent_page(request: HttpRequest) -> bool:
    """The pages respondents see, and their submission endpoint (URL names ``respond...``)."""
    match = request.resolver_match
    return bool(match and match.url_name and match.url_name.startswith("respond"))


def language_for(request: HttpRequest) -> str:
    """A respondent's language: the one chosen with the page's switcher (``?lang=es``, a link,
    so nothing is stored in the browser), else the browser's ``Accept-Language``, else English.
    Never a cookie: respondents get none."""
    chosen = request.GET.get("lang", "")
    if chosen in dict(settings.LANGUAGES):
        return chosen
    return translation.get_language_from_request(request)


class PageLanguageMiddleware:
    """Every page in its reader's language, and a researcher's in their time zone.

    - Respondents' pages: ``language_for``; times in the site's zone (UTC).
    - A signed-in researcher's pages: the language and the time zone chosen on their account
      page (``surveys.models.Account``; times stored in UTC), else their browser's language.
    - Any other page (signing in, the home page): the browser's language.

    Neither outlives its request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        translation.activate(settings.LANGUAGE_CODE)
        request.LANGUAGE_CODE = settings.LANGUAGE_CODE
        try:
            response = self.get_response(request)
        finally:
            translation.deactivate()
            timezone.deactivate()
        patch_vary_headers(response, ["Accept-Language"])
        response.headers.setdefault("Content-Language", request.LANGUAGE_CODE)
        return response

    def process_view(self, request: HttpRequest, view, args, kwargs) -> None:
        if is_respondent_page(request):
            language = language_for(request)
        elif request.user.is_authenticated:
            time_zone, language = settings_of(request.user)
            timezone.activate(zoneinfo.ZoneInfo(time_zone))
            language = language or translation.get_language_from_request(request)
        else:
            language = translation.get_language_from_request(request)
        request.LANGUAGE_CODE = language
        translation.activate(language)


class DatabaseUnavailableMiddleware:
    """When the database cannot be reached, answer 503 with a clear message instead of 500.

    Nothing can have been written: every write happens inside a transaction that the failed
    connection rolls back.
    """

    MESSAGE = gettext_lazy(
        "The service is briefly unavailable. Nothing was stored; please try again in a minute."
    )
    TITLE = gettext_lazy("Unavailable")

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
                f"<!doctype html><html lang='{translation.get_language()}'>"
                f"<title>{self.TITLE}</title><h1>{self.TITLE}</h1><p>{self.MESSAGE}</p></html>",
                status=503,
                headers=headers,
            )
        return JsonResponse({"ok": False, "error": self.MESSAGE}, status=503, headers=headers)


class SiteErrorPagesMiddleware:
    """With DEBUG on, only staff see Django's debug pages: anyone else gets the site's own
    404.html and 500.html, as in production, never the list of the site's URLs or a traceback.

    A 404 is replaced when no URL matched or a view raised an exception (``Http404``); a 500
    when a view raised one. Pages a view renders itself with such a status are left alone.
    Django has already logged the exception and sent its signal when this runs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        raised = getattr(request, "_site_error_raised", False)
        status, unmatched = response.status_code, request.resolver_match is None
        debug_page = (status == 404 and (raised or unmatched)) or (status == 500 and raised)
        if settings.DEBUG and debug_page and not _is_staff(request):
            return _site_error_page(request, status)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> None:
        request._site_error_raised = True  # Django turns it into a response, then __call__ runs


def _is_staff(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    return bool(user and user.is_active and user.is_staff)


def _site_error_page(request: HttpRequest, status: int) -> HttpResponse:
    """The page production shows for this status: templates/404.html or 500.html."""
    if status == 404:
        return defaults.page_not_found(request, Http404())
    return defaults.server_error(request)
