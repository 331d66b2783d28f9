"""The researcher's single-use invitation links: create them, count them, export them."""

from __future__ import annotations

import csv

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from surveys.actions.invitations import create_invitations
from surveys.forms import InvitationForm
from surveys.views.access import get_survey, researcher_required


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def invitation_list(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "edit")
    form = InvitationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        count = form.cleaned_data["count"]
        create_invitations(survey, count)
        messages.success(
            request,
            ngettext(
                "%(count)d new invitation link created.",
                "%(count)d new invitation links created.",
                count,
            )
            % {"count": count},
        )
        return redirect("invitation-list", pk=survey.pk)
    counts = survey.invitations.aggregate(total=Count("pk"), used=Count("pk", filter=Q(used=True)))
    context = {
        "survey": survey,
        "form": form,
        "used": counts["used"],
        "unused": counts["total"] - counts["used"],
    }
    return render(request, "surveys/invitations.html", context)


@require_safe
@researcher_required
@never_cache
def invitation_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The full links of the survey's unused invitations, one per row (they are secrets, so
    the response must not be cached)."""
    survey = get_survey(request, pk, "edit")
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="survey-{survey.pk}-invitations.csv"'
    writer = csv.writer(response)
    writer.writerow(["link"])
    tokens = survey.invitations.filter(used=False).order_by("pk").values_list("token", flat=True)
    for token in tokens.iterator():
        writer.writerow([request.build_absolute_uri(reverse("respond-invitation", args=[token]))])
    return response
