"""Pages for researchers only, and finding the survey a page is about (the rules of who may
do what are ``surveys.queries.access``). Whatever a user may not do with a survey is a 404,
so its existence stays hidden.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from surveys.helpers.ratelimit import is_limited, seconds_left
from surveys.models import ApiToken, Survey
from surveys.queries.access import Need, is_researcher, may, role
from surveys.queries.tokens import token_for
from surveys.views.common import Refused


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


def token_or_login_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """For the pages that read a survey's data (results JSON, breakdowns' JSON and CSV,
    exports): a request with an ``Authorization`` header is served as its token's owner
    (``token_user``), or refused in JSON. Without the header, the page is as
    ``login_required`` makes it. Every other page but the API ignores tokens."""
    signed_in = login_required(view)

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if "Authorization" not in request.headers:
            return signed_in(request, *args, **kwargs)
        try:
            token_user(request)
        except Refused as refusal:
            return refusal.json()
        return view(request, *args, **kwargs)

    return wrapper


def token_user(request: HttpRequest) -> ApiToken:
    """The token of the request's ``Authorization: Bearer <token>`` header, whose owner the
    request is then served as, for this request only (no session, no cookie). Refused with
    401 when the header is missing, is not a bearer token, or names a token unknown, revoked
    or expired; with 429 past ``RATELIMIT_API`` requests with one token."""
    header = request.headers.get("Authorization")
    if header is None:
        raise Refused(
            _("Send an API token in the header “Authorization: Bearer <token>”."),
            status=401, code="token_missing", headers={"WWW-Authenticate": "Bearer"},
        )
    scheme, _space, secret = header.partition(" ")
    token = token_for(secret.strip()) if scheme.lower() == "bearer" else None
    if token is None:
        raise Refused(
            _("This API token is unknown, revoked or expired."), status=401,
            code="token_invalid", headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
    if is_limited(request, "api", settings.RATELIMIT_API, client=f"token-{token.pk}"):
        raise Refused(
            _("Too many requests with this API token: wait, then try again."), status=429,
            code="rate_limited", headers={"Retry-After": str(seconds_left(settings.RATELIMIT_API))},
        )
    token.note_use()
    request.user = token.owner
    return token


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


