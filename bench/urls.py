"""The site's URLs plus the load benchmark's baseline: a minimal Django view that inserts one
row, served by the same server, middleware (CSRF included) and database as the real endpoint.
"""

import json

from django.http import HttpRequest, JsonResponse
from django.urls import include, path
from django.views.decorators.http import require_POST

from surveys.models import Submission


@require_POST
def insert_one_row(request: HttpRequest, survey_pk: int) -> JsonResponse:
    """The least a submission endpoint does: parse the JSON body, insert one row (a bare
    Submission of the same table, with the body's key), answer 201."""
    body = json.loads(request.body)
    Submission.objects.create(survey_id=survey_pk, idempotency_key=body["idempotency_key"])
    return JsonResponse({"ok": True}, status=201)


urlpatterns = [
    path("bench/insert-one-row/<int:survey_pk>/", insert_one_row, name="bench-insert-one-row"),
    path("", include("surveysite.urls")),
]
