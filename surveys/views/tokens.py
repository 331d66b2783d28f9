"""The API tokens page of a researcher's account: make a token (its secret shown once, in
the answer to the form, never again), see one's tokens, revoke one (after a confirmation).
Each user sees and revokes only their own tokens; anyone else's is a 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from surveys.forms import ApiTokenForm
from surveys.models import ApiToken


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@never_cache  # the answer to the form holds the secret: no cache may keep it
def token_list(request: HttpRequest) -> HttpResponse:
    """A valid POST makes a token and answers with this page, the secret shown above the
    list; bad input shows the page again with status 400 and the reasons."""
    posted = request.method == "POST"
    form = ApiTokenForm(request.POST if posted else None, owner=request.user)
    context = {"form": form}
    status = 200
    if posted:
        if form.is_valid():
            token, secret = ApiToken.issue(
                request.user, form.cleaned_data["name"], form.cleaned_data["days"],
                form.cleaned_data["scope"],
            )
            context = {"form": ApiTokenForm(owner=request.user), "new": token, "secret": secret}
        else:
            status = 400
    tokens = ApiToken.objects.filter(owner=request.user)
    context["page"] = Paginator(tokens, 20).get_page(request.GET.get("page"))
    return render(request, "surveys/tokens.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks to confirm; POST revokes the token (again: no change) and goes back."""
    token = get_object_or_404(ApiToken, pk=pk, owner=request.user)
    if request.method == "POST":
        token.revoke()
        messages.success(request, _("Token “%(name)s” revoked: it is refused from now on.")
                         % {"name": token.name})
        return redirect("api-tokens")
    return render(request, "surveys/token_revoke.html", {"token": token})
