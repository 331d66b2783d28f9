"""What several pages share: a survey's link, CSV downloads, a query refused in words, and
work done after a response is sent."""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from django import forms
from django.core.signals import request_finished
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import timezone, translation

from surveys.models import Survey

CSV_CHUNK = 64 * 1024
"""Characters of CSV sent at a time."""


_after = threading.local()
"""This thread's request's jobs for after its response (a request runs in one thread)."""


def after_response(job: Callable[[], object]) -> None:
    """Run ``job`` once the current request's response is sent, in the request's language
    and time zone: the WSGI server closes the response after sending it, which sends
    ``request_finished``. The reader does not wait for it (the worker does, before its next
    request)."""
    language, zone = translation.get_language(), timezone.get_current_timezone()
    _after.__dict__.setdefault("jobs", []).append((job, language, zone))


@receiver(request_finished)
def _run_after_response(**kwargs: object) -> None:
    for job, language, zone in _after.__dict__.pop("jobs", []):
        with translation.override(language), timezone.override(zone):
            job()


class Refused(Exception):
    """A request that cannot be answered: by default a page's query (a draft, questions that
    cannot go together), 400. ``message`` says why, for the page or the JSON's ``error``,
    beside ``code``, a stable identifier of the reason for programs; ``headers`` go with it
    (``WWW-Authenticate`` with a 401, ``Retry-After`` with a 429)."""

    def __init__(
        self, message: str, *, status: int = 400, code: str = "refused",
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message, self.status, self.code = message, status, code
        self.headers = headers or {}

    def json(self) -> JsonResponse:
        return JsonResponse({"code": self.code, "error": self.message}, status=self.status,
                            headers=self.headers)

    def text(self) -> HttpResponse:
        return HttpResponse(self.message, status=self.status, headers=self.headers,
                            content_type="text/plain; charset=utf-8")


def refuse_unless_answerable(survey: Survey, form: forms.Form, draft: str) -> None:
    """Raises ``Refused`` for a draft survey (with the message ``draft``) or an invalid query
    (with every error of the form)."""
    if survey.is_draft:
        raise Refused(draft)
    if not form.is_valid():
        raise Refused(" ".join(message for errors in form.errors.values() for message in errors))


def survey_link(request: HttpRequest, survey: Survey) -> str:
    """The absolute link respondents open (scheme and host as this request reached the site)."""
    return request.build_absolute_uri(survey.get_public_url())


def csv_response(rows: Iterable[Sequence[Any]], filename: str) -> StreamingHttpResponse:
    return StreamingHttpResponse(
        _csv_chunks(rows),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def _csv_chunks(rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """RFC 4180 CSV (the csv module quotes commas, quotes and newlines), in chunks of about
    ``CSV_CHUNK`` characters."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow(row)
        if buffer.tell() >= CSV_CHUNK:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
