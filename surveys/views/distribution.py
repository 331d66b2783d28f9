"""Handing a survey out: its full link, and that link as a QR code for posters and slides."""

from __future__ import annotations

import io

import segno
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from surveys.views.access import get_survey
from surveys.views.common import survey_link

QR_SCALE = 8
"""SVG units per module of the code (the SVG has a viewBox and no fixed size: it scales)."""


def qr_svg(link: str) -> bytes:
    """``link`` as a regular QR code (never a Micro QR, which phone cameras do not read), in
    SVG that scales to any size: black on white with the standard quiet zone of four modules."""
    buffer = io.BytesIO()
    segno.make_qr(link).save(
        buffer, kind="svg", scale=QR_SCALE, border=4, dark="#000", light="#fff",
        xmldecl=False, omitsize=True, title=_("QR code: %(link)s") % {"link": link},
    )
    return buffer.getvalue()


@require_safe
@login_required
def survey_qr(request: HttpRequest, pk: int) -> HttpResponse:
    """The survey's link as a QR code (SVG), while that link works for anyone; whoever may
    view the survey gets it, anyone else a 404. ``?download=1`` serves it as a file to
    save."""
    survey = get_survey(request, pk, "view")
    if not survey.link_works_for_anyone:
        raise Http404(_("This survey's link is not open to anyone: it has no QR code now."))
    response = HttpResponse(qr_svg(survey_link(request, survey)), content_type="image/svg+xml")
    if request.GET.get("download") == "1":
        response.headers["Content-Disposition"] = (
            f'attachment; filename="survey-{survey.pk}-qr.svg"'
        )
    return response
