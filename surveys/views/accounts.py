"""A researcher's settings page: the language and time zone of their pages."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from surveys.forms import AccountForm
from surveys.models import Account


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def account_settings(request: HttpRequest) -> HttpResponse:
    """Show and change the signed-in user's settings; bad input: the page again, status 400,
    with the reason beside the field."""
    account = Account.objects.filter(user=request.user).first() or Account(user=request.user)
    form = AccountForm(request.POST or None, instance=account)
    if request.method == "POST":
        if form.is_valid():
            form.save()
            # Said in the language the next pages will be in.
            language = form.instance.language or translation.get_language_from_request(request)
            with translation.override(language):
                messages.success(request, _(
                    "Your settings were saved: times are now shown in %(zone)s."
                ) % {"zone": form.instance.time_zone})
            return redirect("account-settings")
        return render(request, "surveys/account.html", {"form": form}, status=400)
    return render(request, "surveys/account.html", {"form": form})
