"""A survey's sharing page: its owner gives other researchers access as viewers (results and
exports) or editors (also authoring), changes their role, or removes their access. Only the
owner sees the page; anyone else gets 404. Bad input changes nothing and says why."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from surveys.actions import sharing
from surveys.forms.sharing import ShareChangeForm, ShareForm
from surveys.models import Survey, SurveyShare
from surveys.views.access import get_survey, researcher_required

ACTIONS = ("add", "change", "remove")


def _role_name(role: str) -> str:
    return SurveyShare.Role(role).label


def _add(request: HttpRequest, survey: Survey, form: ShareForm) -> None:
    user, role = form.cleaned_data["user"], form.cleaned_data["role"]
    values = {"name": user.get_username(), "role": _role_name(role)}
    outcome = sharing.share_survey(survey, user, role)
    if outcome == sharing.ADDED:
        messages.success(request, _("%(name)s now has access to this survey: %(role)s.") % values)
    elif outcome == sharing.UNCHANGED:
        messages.info(request, _("%(name)s already has access to this survey: %(role)s.") % values)
    else:
        messages.success(request, _(
            "%(name)s already had access to this survey; their role is now: %(role)s."
        ) % values)


def _change(request: HttpRequest, form: ShareChangeForm) -> None:
    share, role = form.cleaned_data["share"], form.cleaned_data["role"]
    values = {"name": share.user.get_username(), "role": _role_name(role)}
    if sharing.change_role(share, role):
        messages.success(request, _("%(name)s's role is now: %(role)s.") % values)
    else:
        messages.info(request, _("%(name)s's role is already: %(role)s.") % values)


def _remove(request: HttpRequest, form: ShareChangeForm) -> None:
    share = form.cleaned_data["share"]
    sharing.remove_share(share)
    messages.success(request, _("%(name)s no longer has access to this survey.") % {
        "name": share.user.get_username()})


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def survey_sharing(request: HttpRequest, pk: int) -> HttpResponse:
    """Who has access to the survey, with their role. A POST's ``action`` is "add" (fields
    ``who``, a username or email, and ``role``), "change" (``share`` and ``role``) or "remove"
    (``share``). Success redirects back here with a message; bad input shows the page again
    with status 400 and the reason."""
    survey = get_survey(request, pk, "own")
    add_form = ShareForm(survey=survey)
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "add":
            add_form = ShareForm(request.POST, survey=survey)
            form = add_form
        elif action in ACTIONS:
            form = ShareChangeForm(request.POST, survey=survey, remove=action == "remove")
        else:
            form = None
        if form is not None and form.is_valid():
            if action == "add":
                _add(request, survey, form)
            elif action == "change":
                _change(request, form)
            else:
                _remove(request, form)
            return redirect("survey-sharing", survey.pk)
        status = 400
        if form is None:
            messages.error(request, _("Unknown action: nothing was changed."))
        elif action != "add":  # the add form shows its errors beside its fields
            for errors in form.errors.values():
                for error in errors:
                    messages.error(request, error)
        else:
            messages.error(request, _("Nobody was given access: see below why."))
    shares = survey.shares.select_related("user").order_by("user__username")
    context = {
        "survey": survey,
        "shares": shares,
        "add_form": add_form,
        "roles": SurveyShare.Role.choices,
    }
    return render(request, "surveys/sharing.html", context, status=status)
