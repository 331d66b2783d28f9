"""The respondent's pages and the endpoint that receives their randomized reports.

True answers never reach this code: the page's JavaScript randomizes every answer and sends
only the reports. The endpoint validates everything before `submission_create` stores
anything, answers bad input with a 4xx JSON error, and never logs a report.

Respondents get no identifier: none of these views sets a cookie (no CSRF token, no session).
The endpoint carries no ambient authority (it reads no cookie and no session), so instead of
Django's cookie-based CSRF check it accepts only JSON posted by a page of this very site: a
same-origin `Origin` header (or, without one, `Sec-Fetch-Site: same-origin`), which no other
site can forge in a browser. An HTML form on another site can post neither JSON nor a
same-origin Origin.

A survey's schedule and response target (`surveys.queries.schedule`) are applied here: an open
survey whose closing time has come or whose target is reached is closed before anything is shown,
and before its opening time it is shown as not open yet (404, like a draft). A survey's
completion link (a recruitment panel's) is given to the page only if it is http(s): the
browser goes there only after the server stored the answers, and sends it nothing but the
navigation itself (these pages send no referrer).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.debug import sensitive_variables
from django.views.decorators.http import require_POST, require_safe
from django.views.i18n import JSONCatalog

from surveys.actions.submissions import OutcomeUnknown, SubmissionError, submission_create
from surveys.actions.surveys import close_if_due
from surveys.helpers.contacts import contact_link
from surveys.helpers.privacy_words import (
    describe_protection,
    describe_survey_protection,
    survey_odds,
)
from surveys.helpers.ratelimit import is_limited
from surveys.helpers.times import respondent_time
from surveys.kinds.answers import NO_ANSWER, NOT_ASKED
from surveys.kinds.base import QuestionKind
from surveys.models import STUDY_TEXTS, Invitation, Survey, design_blocks, survey_epsilon
from surveys.queries import schedule
from surveys.queries.wording import wording
from surveys.views.access import get_survey, researcher_required

logger = logging.getLogger(__name__)

SUBMIT_MAX_BYTES = 64 * 1024
BODY_KEYS = {"idempotency_key", "invitation", "reports", "wording"}
QUESTION_ID = re.compile(r"[1-9][0-9]{0,17}")
PROGRESS_FROM = 3  # questions; shorter surveys need no progress bar
CROSS_SITE = gettext_lazy(
    "This request did not come from the survey's own page, so it was refused and nothing was "
    "stored. Please answer on the survey page itself."
)
OUTCOME_UNKNOWN = gettext_lazy(
    "The connection to our database was lost just as your answers were being stored, so they "
    "may or may not have been stored. Sending them again is safe and never counts them twice."
)
RETRY_AFTER_SECONDS = 30

# Why a survey cannot be answered: (heading, explanation, HTTP status).
UNAVAILABLE = {
    "draft": (
        gettext_lazy("This survey is not open yet"),
        gettext_lazy(
            "The researcher has not opened it for answers. Please try this link again later."
        ),
        404,
    ),
    "not-yet-open": (
        gettext_lazy("This survey is not open yet"),
        gettext_lazy("It opens on %(time)s (UTC). Please come back then."),
        404,
    ),
    "closed": (
        gettext_lazy("This survey is closed"),
        gettext_lazy("It no longer accepts answers. Thank you for your interest."),
        410,
    ),
    "invitation-needed": (
        gettext_lazy("You need an invitation link"),
        gettext_lazy(
            "This survey accepts answers only through personal, single-use invitation links. "
            "Please open the link you were sent."
        ),
        403,
    ),
    "invitation-unknown": (
        gettext_lazy("This invitation link is not valid"),
        gettext_lazy("Please check that you opened the whole link you were sent."),
        404,
    ),
    "invitation-used": (
        gettext_lazy("This invitation link has already been used"),
        gettext_lazy("Each invitation link can be used to answer once."),
        410,
    ),
}


def chosen_language(request: HttpRequest, url: str) -> str:
    """`url` keeping the language the respondent chose with the switcher (``?lang=``), if
    any: the language is carried by links, never stored in the browser."""
    if request.GET.get("lang") == request.LANGUAGE_CODE:
        return f"{url}?{urlencode({'lang': request.LANGUAGE_CODE})}"
    return url


def language_links(request: HttpRequest) -> list[dict[str, Any]]:
    """The language switcher: a link per language to this very page (``?lang=xx``)."""
    return [
        {
            "code": code,
            "name": name,
            "url": f"{request.path}?{urlencode({'lang': code})}",
            "current": code == request.LANGUAGE_CODE,
        }
        for code, name in settings.LANGUAGES
    ]


@require_safe
def respond_catalog(request: HttpRequest, language: str) -> HttpResponse:
    """The respondent scripts' messages in `language`: Django's JSON catalogue of the
    "djangojs" domain (static/surveys/i18n.js reads it). Public and cacheable; no cookie."""
    if language not in dict(settings.LANGUAGES):
        raise Http404
    with translation.override(language):
        response = JSONCatalog.as_view(domain="djangojs")(request)
    patch_cache_control(response, public=True, max_age=3600)
    return response


def completion_url(survey: Survey) -> str | None:
    """The survey's completion link if it is an http(s) URL with a host, else None: a page
    never navigates anywhere else (no javascript:, data: or ftp:)."""
    url = survey.completion_url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in {"http", "https"} or not parts.hostname:
        return None
    return url


def completion_host(survey: Survey) -> str | None:
    """The host respondents are told they will be taken to, or None without a link."""
    url = completion_url(survey)
    return urlsplit(url).hostname if url else None


def _browser_answer(kind: QuestionKind, index: int | None, k: int) -> Any:
    """An extra answer (``index``, None where the question has not that one) as the browser
    randomizes it (``QuestionKind.browser_answer``)."""
    return None if index is None else kind.browser_answer(index, k)


def respond_context(
    request: HttpRequest, survey: Survey, *, preview: bool = False, invitation: str | None = None
) -> dict[str, Any]:
    """Context for `surveys/respond.html` (and the thank-you page): the questions with their
    protection notes, the survey's odds (`survey_odds`), and `data`, everything the page's
    script needs (rendered with json_script), including the `invitation` token the
    submission must carry, if any, and the `completionUrl` to go to once the answers are
    stored (None: the thank-you page); what the page says about the study (who runs it, its
    contact as a link, its ethics approval) and whether respondents must agree to take part
    before answering (`consent_required`: only the page knows whether they did; nothing of it
    is sent). Works for drafts too (`preview=True` shows a banner and sends nothing). Nothing
    here sets a cookie."""
    ordered = list(survey.ordered_questions())
    words = wording(survey, ordered, request.LANGUAGE_CODE)
    questions, browser_questions = [], []
    for question in ordered:
        mechanism = question.mechanism()
        texts = words["questions"][question.pk]
        labels, label_langs = texts["labels"], texts["label_langs"]
        # Its extra answers, each one more answer of its mechanism (``Question.extra_answers``).
        declined, not_asked = question.extra_index(NO_ANSWER), question.extra_index(NOT_ASKED)
        kind = question.question_kind
        shared = {"id": question.pk, "text": texts["text"]}
        questions.append(
            shared
            | {
                "lang": texts["lang"],
                "help_text": texts["help_text"],
                "help_text_lang": texts["help_text_lang"],
                "options": list(zip(labels, label_langs, strict=True)),
                "refusal": declined if question.offers_refusal else None,
                "optional": question.optional,
                "asked_if": question.asked_if_id if question.conditional else None,
                "note": describe_protection(mechanism, not_asked=question.conditional),
                "answer_control": question.question_kind.answer_control,
                "answer_template": question.question_kind.answer_template,
                "mechanism": mechanism,
            }
        )
        browser_questions.append(
            shared | {
                "labels": labels + [str(answer) for answer in question.extra_answers()],
                "encoding": mechanism.encoding,
                "k": mechanism.k,
                "spec": mechanism.spec(),
                "optional": question.optional,
                "declined": _browser_answer(kind, declined, mechanism.k),
                "notAsked": _browser_answer(kind, not_asked, mechanism.k),
                "askedIf": (
                    {"question": question.asked_if_id, "answer": question.asked_if_answer}
                    if question.conditional else None
                ),
            }
        )
    return {
        "survey": survey,
        "title": words["title"],
        "title_lang": words["lang"],
        "introduction": words["introduction"],
        "introduction_lang": words["introduction_lang"],
        **{key: words[key] for name in STUDY_TEXTS for key in (name, f"{name}_lang")},
        "contact_link": contact_link(words["study_contact"]),
        "consent_required": survey.consent_required,
        "questions": questions,
        "protection": describe_survey_protection([q["mechanism"] for q in questions]),
        "odds": survey_odds(
            [question.epsilon for question in ordered], survey_epsilon(survey, ordered)
        ),
        "preview": preview,
        "show_progress": len(questions) >= PROGRESS_FROM,
        "languages": language_links(request),
        "completion_host": completion_host(survey),
        "completion_url": completion_url(survey),
        "data": {
            "publicId": survey.public_id,
            "preview": preview,
            "invitation": invitation,
            "submitUrl": chosen_language(
                request, reverse("respond-submit", args=[survey.public_id])
            ),
            "thanksUrl": chosen_language(
                request,
                reverse("survey-preview-thanks", args=[survey.pk]) if preview
                else reverse("respond-thanks", args=[survey.public_id]),
            ),
            "completionUrl": completion_url(survey),
            # The wording version of the texts shown, sent back with the reports: the same
            # for everyone who loads the page until the next correction.
            "wording": survey.wording_version,
            "questions": browser_questions,
            # A design that asks each respondent a random few: the blocks the browser draws
            # ``asked`` of (question ids), uniformly and whatever the answers.
            "design": None if survey.asked is None else {
                "asked": survey.asked,
                "blocks": [[q.pk for q in block] for block in design_blocks(ordered)[1]],
            },
        },
    }


@require_safe
@researcher_required
def survey_preview(request: HttpRequest, pk: int) -> HttpResponse:
    """The respondent's page of a survey as its researchers see it: it sends nothing, and
    its button leads to the preview of the page after sending (``survey_preview_thanks``)."""
    survey = get_survey(request, pk, "view")
    return render(request, "surveys/respond.html", respond_context(request, survey, preview=True))


@require_safe
@researcher_required
def survey_preview_thanks(request: HttpRequest, pk: int) -> HttpResponse:
    """What respondents see once their answers are stored, as its researchers preview it:
    the thank-you page, or where the completion link would take them."""
    survey = get_survey(request, pk, "view")
    return render(
        request, "surveys/respond_thanks.html", respond_context(request, survey, preview=True)
    )


def _unavailable(request: HttpRequest, reason: str, survey: Survey | None = None) -> HttpResponse:
    heading, message, status = UNAVAILABLE[reason]
    if reason == "not-yet-open":
        message = message % {"time": respondent_time(survey.opens_at)}
    words = wording(survey, [], request.LANGUAGE_CODE) if survey else None
    context = {
        "survey": survey,
        "title": words and words["title"],
        "title_lang": words and words["lang"],
        "heading": heading,
        "message": message,
        "languages": language_links(request),
    }
    return render(request, "surveys/respond_unavailable.html", context, status=status)


def _closed_reason(survey: Survey) -> str | None:
    """Why `survey` takes no answers now (a key of UNAVAILABLE), or None. Closes it first if
    its closing time has come or its target is reached."""
    if survey.is_draft:
        return "draft"
    close_if_due(survey)
    if not survey.is_open:
        return "closed"
    return "not-yet-open" if schedule.not_yet_open(survey) else None


@require_safe
def respond(request: HttpRequest, public_id: str) -> HttpResponse:
    survey = get_object_or_404(Survey, public_id=public_id)
    reason = _closed_reason(survey) or ("invitation-needed" if survey.invitation_only else None)
    if reason:
        return _unavailable(request, reason, survey)
    return render(request, "surveys/respond.html", respond_context(request, survey))


@require_safe
def respond_invitation(request: HttpRequest, token: str) -> HttpResponse:
    invitation = Invitation.objects.select_related("survey").filter(token=token).first()
    if invitation is None:
        return _unavailable(request, "invitation-unknown")
    survey = invitation.survey
    reason = _closed_reason(survey) or ("invitation-used" if invitation.used else None)
    if reason:
        return _unavailable(request, reason, survey)
    context = respond_context(request, survey, invitation=invitation.token)
    return render(request, "surveys/respond.html", context)


@require_safe
def respond_thanks(request: HttpRequest, public_id: str) -> HttpResponse:
    """What this browser sent (the page's script reads it from the browser's storage: the
    server keeps no link between a visitor and a submission) and why it is safe."""
    survey = get_object_or_404(Survey, public_id=public_id)
    if survey.is_draft:
        return _unavailable(request, "draft", survey)
    return render(request, "surveys/respond_thanks.html", respond_context(request, survey))


def _error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"ok": False, "error": message}, status=status)


def _from_this_site(request: HttpRequest) -> bool:
    """Whether a browser sent `request` from a page of this site: its `Origin` header is this
    site's origin (or one of CSRF_TRUSTED_ORIGINS, for a site behind a proxy), or, when a
    browser sends no Origin, `Sec-Fetch-Site` says same-origin. Browsers set both headers
    themselves; no page can change them. "Origin: null" (sandboxed or privacy-restricted
    contexts) is refused.

    Django's test client skips this check as it skips CsrfViewMiddleware's (unless made with
    enforce_csrf_checks=True): an attribute only the test client sets, never a request."""
    if getattr(request, "_dont_enforce_csrf_checks", False):
        return True
    origin = request.headers.get("Origin")
    if origin is None:
        return request.headers.get("Sec-Fetch-Site") == "same-origin"
    try:
        own = f"{request.scheme}://{request.get_host()}"
    except DisallowedHost:
        return False
    return origin.lower() == own.lower() or origin in settings.CSRF_TRUSTED_ORIGINS


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """json.loads hook: a repeated field or question id is an error, not "the last wins"."""
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise SubmissionError("Each field and each question id may appear only once.", 400)
    return dict(pairs)


@sensitive_variables()
def _parse_body(body: bytes) -> tuple[object, str | None, dict[int, object], object]:
    """(idempotency key, invitation token, question id -> report, wording version) from the
    JSON body, or a SubmissionError saying what is wrong with its shape. Reports and the
    wording version are checked later (``submission_create``); the version is None (not
    known) only in a body without it, from a page older than it."""
    try:
        payload = json.loads(body, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError):
        raise SubmissionError("The request body is not valid JSON.", 400) from None
    # A page opened before the site kept wording versions sends none: its respondent's
    # answers are still taken, with the version unknown (None).
    if not isinstance(payload, dict) or set(payload) not in (BODY_KEYS, BODY_KEYS - {"wording"}):
        raise SubmissionError(
            "The body must be a JSON object with exactly the fields “idempotency_key”, "
            "“invitation”, “reports” and “wording”.",
            400,
        )
    token, reports = payload["invitation"], payload["reports"]
    if token is not None and not isinstance(token, str):
        raise SubmissionError("“invitation” must be a string or null.", 400)
    if not isinstance(reports, dict):
        raise SubmissionError("“reports” must map each question id to its report.", 400)
    bad = [key for key in reports if not QUESTION_ID.fullmatch(key)]
    if bad:
        raise SubmissionError(f"{bad[0][:40]!r} is not a question id.", 400)
    reports = {int(key): value for key, value in reports.items()}
    if "wording" in payload and payload["wording"] is None:
        raise SubmissionError(
            _("“wording” must be the wording version the page showed: a whole number."), 400
        )
    return payload["idempotency_key"], token, reports, payload.get("wording")


@csrf_exempt  # no cookie to protect; `_from_this_site` refuses other sites' requests
@sensitive_variables()
@require_POST
def respond_submit(request: HttpRequest, public_id: str) -> JsonResponse:
    """POST {"idempotency_key", "invitation", "reports", "wording"} as JSON from this site's
    own page (``wording``: the wording version the page showed, ``respond_context``)
    -> 201 {"ok": true, "received": reports as stored}; a replay of the same key -> 200 with
    the same body; from another site (or no telling) -> 403; anything else wrong -> 4xx
    {"ok": false, "error": "..."}. Nothing is stored unless the answer is 201, except after a
    503 whose message says the answers may or may not have been stored (the database was lost
    as it committed them): the same body sent again then gets a definite answer (201 or 200),
    never counted twice. Sets no cookie.
    """
    if is_limited(request, "submit", settings.RATELIMIT_SUBMISSIONS):
        return _error(
            _(
                "Too many answers were sent from your connection in a short time. "
                "Please wait a minute, then press the button again: it sends exactly the same."
            ),
            429,
        )
    if not _from_this_site(request):
        return _error(CROSS_SITE, 403)
    survey = Survey.objects.filter(public_id=public_id).first()
    if survey is None:
        return _error(_("There is no survey at this address."), 404)
    if request.content_type != "application/json":
        return _error("Send the answers as JSON (Content-Type: application/json).", 415)
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if not declared.isdigit() or int(declared) > SUBMIT_MAX_BYTES:
        return _error(f"The request is larger than {SUBMIT_MAX_BYTES // 1024} KB.", 413)
    try:
        key, token, reports, shown = _parse_body(request.body)
        submission, created = submission_create(
            survey=survey, reports=reports, idempotency_key=key, invitation_token=token,
            wording=shown,
        )
    except SubmissionError as error:
        return _error(error.message, error.status)
    except OutcomeUnknown as error:
        logger.error("Database lost while committing a submission: %s", error.__cause__)
        response = _error(OUTCOME_UNKNOWN, 503)
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    status = 201 if created else 200
    return JsonResponse({"ok": True, "received": submission.reports}, status=status)
