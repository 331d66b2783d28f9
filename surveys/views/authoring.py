"""The researcher's pages: list, create, edit, preview, open and close surveys."""

from __future__ import annotations

import math
import re

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from surveys import ldp
from surveys.actions.questions import delete_question, move_question
from surveys.actions.surveys import (
    close_due,
    close_if_due,
    close_survey,
    duplicate_survey,
    open_survey,
)
from surveys.actions.wording import recording
from surveys.forms import ConfirmDeleteForm, QuestionForm, SurveyForm
from surveys.helpers.languages import language_name
from surveys.helpers.numbers import epsilon as epsilon_text
from surveys.helpers.privacy_words import survey_odds
from surveys.kinds import KINDS, YES_NO, QuestionKind
from surveys.ldp import joint
from surveys.models import (
    FROZEN_MESSAGE,
    TOTAL_EPSILON,
    PrivacyPolicy,
    Question,
    Survey,
    build_mechanism,
    survey_epsilon,
    total_epsilon,
    validate_epsilon_value,
)
from surveys.queries import revisions, schedule
from surveys.queries.access import surveys_for
from surveys.queries.designs import design_of, wide_margins
from surveys.queries.results import (
    TARGET_MARGIN,
    mean_score_plan,
    number_plan,
    respondents_needed,
)
from surveys.views.access import get_survey, researcher_required
from surveys.views.common import survey_link

PLANNING_SIZES = (200, 1000, 5000)
ID = re.compile(r"[0-9]{1,18}")


def _get_question(request: HttpRequest, pk: int) -> Question:
    return get_object_or_404(
        Question.objects.select_related("survey"),
        pk=pk,
        survey__in=surveys_for(request.user, "edit").values("pk"),
    )


def _frozen(request: HttpRequest, survey: Survey) -> HttpResponse:
    """The refusal shown when someone tries to change an opened survey's questions."""
    return render(
        request, "surveys/frozen.html", {"survey": survey, "reason": FROZEN_MESSAGE}, status=409
    )


@require_safe
@researcher_required
def survey_list(request: HttpRequest) -> HttpResponse:
    surveys = (
        surveys_for(request.user, "view")  # their own, and those shared with them
        .select_related("owner")
        .annotate(epsilon_total=TOTAL_EPSILON)
        .order_by("-created_at", "-pk")
    )
    close_due(surveys_for(request.user, "view"))  # statuses shown are current
    page = Paginator(surveys, 20).get_page(request.GET.get("page"))
    return render(request, "surveys/survey_list.html", {"page": page})


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def survey_create(request: HttpRequest) -> HttpResponse:
    form = SurveyForm(request.POST or None, instance=Survey(owner=request.user))
    if request.method == "POST" and form.is_valid():
        survey = form.save()
        messages.success(request, _("Survey created. Now add its questions."))
        return redirect(survey)
    return render(request, "surveys/survey_form.html", {"form": form})


@require_safe
@researcher_required
def survey_detail(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "view")
    close_if_due(survey)  # its closing time or response target may have come
    policy = PrivacyPolicy.current()
    questions = list(survey.ordered_questions())
    context = {
        "schedule": schedule.summary(survey),
        "survey": survey,
        "questions": questions,
        "policy": policy,
        "total_epsilon": survey_epsilon(survey, questions),
        "design": design_of(survey, questions),
        "respondents_read": survey_odds(
            [question.epsilon for question in questions], survey_epsilon(survey, questions)
        ),
        "problems": schedule.readiness_problems(survey) if survey.is_draft else [],
        "public_url": survey_link(request, survey),
        "distribute": survey.link_works_for_anyone,  # offer to copy it, and its QR code
        "wordings": revisions.summary(survey),
        # Translations a correction of the main wording left to review (their languages).
        "to_review": ", ".join(
            str(language_name(t.language)) for t in survey.translations.all() if t.needs_review
        ),
    }
    return render(request, "surveys/survey_detail.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def survey_edit(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "edit")
    # Schedule, target and distribution stay editable once open (they are no mechanism
    # settings); the form checks them against the survey's current status.
    close_if_due(survey)
    form = SurveyForm(request.POST or None, instance=survey)
    if request.method == "POST" and form.is_valid():
        with recording(survey, request.user):  # the title or introduction may change
            form.save()
        messages.success(request, _("Survey saved."))
        return redirect(survey)
    return render(request, "surveys/survey_form.html", {"form": form, "survey": survey})


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def survey_delete(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "own")
    needs_confirmation = survey.response_count > 0
    form = ConfirmDeleteForm(request.POST or None) if needs_confirmation else None
    if request.method == "POST" and (form is None or form.is_valid()):
        survey.delete()
        messages.success(request, _("“%(title)s” was deleted.") % {"title": survey.title})
        return redirect("survey-list")
    return render(request, "surveys/survey_delete.html", {"survey": survey, "form": form})


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def survey_open(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "edit")
    if survey.is_open:
        messages.info(request, _("This survey is already open."))
        return redirect(survey)
    problems = schedule.opening_problems(survey)
    if request.method == "POST" and not problems:
        open_survey(survey)
        messages.success(request, _("The survey is open. Share its link with respondents."))
        return redirect(survey)
    respondents, wide = wide_margins(survey) if survey.is_draft and not problems else (0, [])
    context = {"survey": survey, "problems": problems, "respondents": respondents, "wide": wide}
    return render(request, "surveys/survey_open.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def survey_close(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "edit")
    if not survey.is_open:
        messages.info(request, _("Only an open survey can be closed."))
        return redirect(survey)
    if request.method == "POST":
        close_survey(survey)
        messages.success(request, _("The survey is closed: it accepts no more answers."))
        return redirect(survey)
    return render(request, "surveys/survey_close.html", {"survey": survey})


@require_POST
@researcher_required
def survey_duplicate(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "edit")
    with transaction.atomic():
        copy = duplicate_survey(survey)
        if copy.owner_id != request.user.pk:  # an editor's copy is the editor's own
            copy.owner = request.user
            copy.save(update_fields=["owner"])
    messages.success(request, _("This is a new draft copy: you can change anything in it."))
    return redirect(copy)


def _question_page(
    request: HttpRequest, survey: Survey, question: Question, title: str
) -> HttpResponse:
    policy = PrivacyPolicy.current()
    form = QuestionForm(request.POST or None, instance=question, policy=policy)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Question saved."))
        return redirect(survey)
    others = total_epsilon(survey.questions.exclude(pk=question.pk))
    budget = {"others": others, "limit": policy.max_survey_epsilon, "survey": survey.pk,
              "question": question.pk,
              "kinds": {kind.value: kind.form_facts() for kind in KINDS.values()}}
    context = {"form": form, "survey": survey, "title": title, "budget": budget}
    return render(request, "surveys/question_form.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def question_create(request: HttpRequest, pk: int) -> HttpResponse:
    survey = get_survey(request, pk, "edit")
    if survey.is_frozen:
        return _frozen(request, survey)
    order = (survey.questions.order_by("-order").values_list("order", flat=True).first() or 0) + 1
    question = Question(survey=survey, order=order)
    return _question_page(request, survey, question, _("Add a question"))


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def question_edit(request: HttpRequest, pk: int) -> HttpResponse:
    question = _get_question(request, pk)
    if question.survey.is_frozen:
        return _frozen(request, question.survey)
    return _question_page(request, question.survey, question, _("Edit question"))


@require_http_methods(["GET", "HEAD", "POST"])
@researcher_required
def question_delete(request: HttpRequest, pk: int) -> HttpResponse:
    question = _get_question(request, pk)
    survey = question.survey
    if survey.is_frozen:
        return _frozen(request, survey)
    if request.method == "POST":
        delete_question(question)
        messages.success(request, _("Question deleted."))
        return redirect(survey)
    return render(request, "surveys/question_delete.html", {"question": question})


@require_POST
@researcher_required
def question_move(request: HttpRequest, pk: int) -> HttpResponse:
    """Swap a question with its neighbour above ("up") or below ("down")."""
    question = _get_question(request, pk)
    survey = question.survey
    if survey.is_frozen:
        return _frozen(request, survey)
    move_question(question, up=request.POST.get("direction") == "up")
    return redirect(f"{survey.get_absolute_url()}#question-{question.pk}")


def _explain(
    epsilon: float,
    kind: str,
    k: int,
    override: str,
    share: float | None,
    grouping: dict | None = None,
    settings: dict | None = None,
    declinable: bool = False,
) -> dict:
    """What an epsilon means for one question, in numbers the authoring page puts in words:
    margins of error for ``PLANNING_SIZES`` and respondents needed for ``TARGET_MARGIN``, in
    the worst case and, if the researcher expects one, at the expected ``share`` (in [0, 1]).
    Respondents needed are None beyond the planner's limit (``planner_limit``).

    ``grouping`` is None for an ordinary question; for a grouping question ("used for
    breakdowns") it is ``_grouping``'s advice and planner within a group. ``mean_score``:
    for a rating scale, the planner of its mean score (``mean_score_plan``); None otherwise.
    ``number``: for a number question (its range, places and bins in ``settings``), the
    planner of its mean in its own unit (``number_plan``); None otherwise.
    ``no_answer_cost``: ``_no_answer_cost``, with ``declinable`` saying whether ``k`` counts
    "No answer"."""
    mechanism = build_mechanism(kind, epsilon, k, override, **(settings or {}))
    reason = KINDS[kind].mechanism_reason(epsilon, k, override)
    at_share = share is not None
    return {
        "epsilon": epsilon,
        "odds": math.exp(epsilon),
        "truth_probability": mechanism.p,
        "encoding": mechanism.encoding,
        "mechanism": gettext(mechanism.label),
        "reason": reason,
        "share": share,
        "margins": [
            {
                "n": n,
                "margin": mechanism.margin_of_error(n),
                "margin_at_share": mechanism.margin_of_error(n, share=share) if at_share else None,
            }
            for n in PLANNING_SIZES
        ],
        "target_margin": TARGET_MARGIN,
        "n_for_5_points": respondents_needed(mechanism, TARGET_MARGIN),
        "n_for_5_points_at_share": (
            respondents_needed(mechanism, TARGET_MARGIN, share) if at_share else None
        ),
        "planner_limit": ldp.MAX_PLANNED_RESPONDENTS,
        "grouping": grouping,
        "mean_score": mean_score_plan(mechanism, PLANNING_SIZES) if KINDS[kind].scored else None,
        "number": (
            number_plan(mechanism, PLANNING_SIZES)
            if isinstance(mechanism, ldp.NumberWindow) else None
        ),
        "no_answer_cost": _no_answer_cost(
            kind, epsilon, k - declinable, override, settings or {}
        ),
    }


def _no_answer_cost(
    kind: str, epsilon: float, k: int, override: str, settings: dict
) -> float | None:
    """How many times the respondents it needs for ``TARGET_MARGIN`` (worst case) a question
    with ``k`` answers needs once respondents may decline it ("Prefer not to say", or
    skipping it): one more answer, "No answer", randomized like the others, which spreads the
    same epsilon over more answers. None for a kind whose questions cannot be declined, with
    already as many answers as the core takes, or beyond the planner's limit."""
    if not KINDS[kind].extras:
        return None
    try:
        mechanisms = [build_mechanism(kind, epsilon, n, override, **settings) for n in (k, k + 1)]
    except ValueError:  # one answer more than the core takes
        return None
    needed = [respondents_needed(mechanism, TARGET_MARGIN) for mechanism in mechanisms]
    if None in needed:
        return None
    return needed[1] / needed[0]


def suggested_grouping_epsilon(policy: PrivacyPolicy, budget: float) -> float:
    """The epsilon the authoring panel suggests for a grouping question: twice the site's
    default, but never above the site's per-question maximum, nor above a quarter of the
    survey's ``budget`` (its design's, else the site's limit per survey), so that two
    grouping questions still leave half of it to the questions they break down."""
    return min(2 * policy.default_epsilon, policy.max_question_epsilon, budget / 4)


def _grouping_advice(policy: PrivacyPolicy, suggested: float, budget: float) -> str:
    if suggested == budget / 4:
        why = _("a quarter of the survey's budget of %(budget)s") % {
            "budget": epsilon_text(budget)
        }
    elif suggested < 2 * policy.default_epsilon:
        why = _("this site's largest epsilon for one question")
    else:
        why = _("twice this site's default of %(default)s") % {
            "default": epsilon_text(policy.default_epsilon)
        }
    return _(
        "A grouping question (faculty, year of study, age band) sorts respondents into groups "
        "so that other questions can be broken down by it. Its answers are usually less "
        "sensitive than the questions it splits, and every group's figures rest on it: the "
        "random noise that protects respondents puts some of them in the wrong group, which "
        "widens the margin of error of every breakdown. A larger epsilon here (less noise) "
        "buys sharper breakdowns at a modest privacy cost. "
        "We suggest %(suggested)s (%(why)s). "
        "It still adds to the survey's total epsilon like any other question."
    ) % {"suggested": epsilon_text(suggested), "why": why}


def _within_group_needed(
    mechanism: ldp.Mechanism, other: ldp.Mechanism, group_share: float
) -> int | None:
    """Respondents for ``TARGET_MARGIN`` on an answer's share within a group, worst case;
    None when the core refuses the target (out of reach)."""
    try:
        return joint.n_for_margin_within_group(mechanism, other, TARGET_MARGIN, group_share)
    except ValueError:
        return None


def _within_group_margin(
    mechanism: ldp.Mechanism, other: ldp.Mechanism, n: int, group_share: float
) -> float | None:
    """The 95% margin of error of an answer's share within a group of ``n`` respondents'
    ``group_share``, worst case; None when the core refuses or it is not a finite number."""
    try:
        margin = joint.margin_within_group(mechanism, other, n, group_share)
    except ValueError:
        return None
    return margin if math.isfinite(margin) else None


def _grouping(
    epsilon: float,
    kind: str,
    k: int,
    override: str,
    group_share: float | None,
    policy: PrivacyPolicy,
    budget: float,
) -> dict:
    """A grouping question's advice and planner within a group.

    ``suggested_epsilon`` (``suggested_grouping_epsilon``), ``advice`` (why, in words),
    ``hint`` (a sentence when ``epsilon`` is below the suggestion, otherwise None: advice,
    not an error). Within a group whose expected size is ``group_share`` of all respondents
    (None: not given, and the numbers are None), for the share of an answer of another
    question broken down by this one, assumed to be a yes/no question at the site's default
    epsilon (``other_kind``, ``other_epsilon``, ``other_mechanism``), in the worst case:
    ``margins`` for ``PLANNING_SIZES`` (None: refused by the core), ``n_for_5_points`` at this
    epsilon and, when it is below the suggestion, ``n_for_5_points_at_suggestion`` at the
    suggested one (None: out of reach, or not below the suggestion)."""
    suggested = suggested_grouping_epsilon(policy, budget)
    below = epsilon < suggested * (1 - 1e-9)
    hint = (
        _(
            "This epsilon (%(epsilon)s) is below the %(suggested)s we suggest for a grouping "
            "question, so its breakdowns will be less sharp. That is allowed: keep it if the "
            "answers are sensitive."
        ) % {"epsilon": epsilon_text(epsilon), "suggested": epsilon_text(suggested)}
        if below
        else None
    )
    mechanism = build_mechanism(kind, epsilon, k, override)
    other = build_mechanism(YES_NO.value, policy.default_epsilon, 2)
    known = group_share is not None
    return {
        "suggested_epsilon": suggested,
        "below_suggestion": below,
        "advice": _grouping_advice(policy, suggested, budget),
        "hint": hint,
        "default_epsilon": policy.default_epsilon,
        "max_question_epsilon": policy.max_question_epsilon,
        "other_kind": YES_NO.value,
        "other_epsilon": policy.default_epsilon,
        "other_mechanism": gettext(other.label),
        "group_share": group_share,
        "margins": [
            {"n": n, "margin": _within_group_margin(mechanism, other, n, group_share)}
            for n in PLANNING_SIZES
        ]
        if known
        else [],
        "n_for_5_points": _within_group_needed(mechanism, other, group_share) if known else None,
        "n_for_5_points_at_suggestion": (
            _within_group_needed(build_mechanism(kind, suggested, k, override), other, group_share)
            if known and below
            else None
        ),
    }


def _expected_share(percent: str) -> float | None:
    """The expected share typed in percent, as a proportion; None if left blank. Raises
    ValueError unless it is a number from 0 to 100."""
    if not percent.strip():
        return None
    share = float(percent) / 100
    if not 0 <= share <= 1:  # also refuses NaN and infinities
        raise ValueError(f"not a percentage: {percent!r}")
    return share


def _group_share(percent: str) -> float | None:
    """The expected size of a group typed in percent of all respondents, as a proportion;
    None if left blank. Raises ValueError unless it is a number above 0 and at most 100."""
    if not percent.strip():
        return None
    share = float(percent) / 100
    if not 0 < share <= 1:  # also refuses NaN and infinities
        raise ValueError(f"not a group size: {percent!r}")
    return share


def above_question_limit(epsilon: float, policy: PrivacyPolicy) -> str | None:
    """Why a question cannot be saved with ``epsilon`` under the site's per-question limit;
    None within it (or for NaN, which validation refuses anyway)."""
    if not epsilon > policy.max_question_epsilon + 1e-9:
        return None
    return gettext(
        "Above this site's limit of %(limit)s per question: the question cannot be saved "
        "with this value."
    ) % {"limit": epsilon_text(policy.max_question_epsilon)}


def _refuse(message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=400)


@require_safe
@researcher_required
def epsilon_explain(request: HttpRequest) -> JsonResponse:
    """JSON for the live explanation next to the epsilon field (see ``_explain``). Query:
    ``epsilon``, ``kind``, ``k``, ``override``, ``declinable=1`` when ``k`` counts "No answer"
    (the question offers "Prefer not to say" or is optional) and, optionally, ``share``: the
    expected share
    of the answer the researcher cares about, in percent (blank: the worst case only);
    ``grouping=1`` for a question used for breakdowns, with ``group_share``: the expected size
    of a group, in percent of all respondents (blank: no planner within a group). Bad input
    gets status 400 with a message in ``error``, never a server error. ``above_limit`` says
    why a value above the site's per-question limit cannot be saved (None within it).

    With ``survey`` (and ``question``, the one being edited, if saved), ``respondents_read``
    holds the sentences respondents will read about what anyone could learn from them, with
    this epsilon among the survey's other questions' (without: as if it were the only one)."""
    try:
        epsilon = float(request.GET.get("epsilon", ""))
        k = int(request.GET.get("k") or 2)
    except ValueError:
        return _refuse(_("Enter a number, for example 1 or 0.5."))
    policy = PrivacyPolicy.current()
    above_limit = above_question_limit(epsilon, policy)
    try:
        validate_epsilon_value(epsilon)
    except ValidationError as error:
        return _refuse(above_limit or error.messages[0])
    kind = request.GET.get("kind", YES_NO.value)
    override = request.GET.get("override", "")
    if kind not in KINDS or override not in Question.Override.values:
        return _refuse(_("Unknown answer type or method."))
    declinable = request.GET.get("declinable", "")
    if declinable not in {"", "0", "1"}:
        return _refuse("declinable must be 1 (k counts “No answer”) or 0.")
    if not KINDS[kind].min_answers + (declinable == "1") <= k <= ldp.MAX_CATEGORIES:
        return _refuse(
            _("A question needs between 2 and %(max)d choices.") % {"max": ldp.MAX_CATEGORIES}
        )
    try:
        share = _expected_share(request.GET.get("share", ""))
    except ValueError:
        return _refuse(
            _("The expected share must be a percentage from 0 to 100, for example 5.")
        )
    is_grouping = request.GET.get("grouping", "")
    if is_grouping not in {"", "0", "1"}:
        return _refuse("grouping must be 1 (a question used for breakdowns) or 0.")
    if is_grouping == "1" and not KINDS[kind].groups:
        return _refuse(
            _("A question of this kind cannot group respondents: each gives a set, not one "
              "answer.")
        )
    try:
        group_share = (
            _group_share(request.GET.get("group_share", "")) if is_grouping == "1" else None
        )
    except ValueError:
        return _refuse(
            _("The expected group size must be a percentage above 0 and at most 100, for example "
              "20.")
        )
    try:
        settings = _kind_settings(request, KINDS[kind])
    except ValueError as error:
        return _refuse(str(error))
    try:
        others, total = _other_epsilons(request)
    except ValueError:
        return _refuse("survey and question must be whole numbers.")
    try:
        grouping = (
            _grouping(epsilon, kind, k, override, group_share, policy,
                      policy.max_survey_epsilon if total is None else total)
            if is_grouping == "1"
            else None
        )
        explanation = _explain(
            epsilon, kind, k, override, share, grouping, settings, declinable == "1"
        )
    except ValueError as error:  # the core's own refusals, should they ever be stricter
        return _refuse(str(error))
    respondents_read = [sentence for _name, sentence in survey_odds([*others, epsilon], total)]
    return JsonResponse(
        {**explanation, "above_limit": above_limit, "respondents_read": respondents_read}
    )


def _kind_settings(request: HttpRequest, kind: QuestionKind) -> dict | None:
    """The settings of a kind that takes fields besides its answers (a number question's
    range, places and bins), from the query, where they go by the ``Question`` fields'
    names; {} (the kind's defaults) while one it needs is blank; None for other kinds.
    ValueError, saying why, for values the kind refuses (``QuestionKind.field_problems``)."""
    if not kind.fields:
        return None
    given = {name: request.GET.get(name, "").strip() for name in kind.fields}
    try:
        values = Question(**{  # read as the question form reads them
            name: Question._meta.get_field(name).formfield().clean(value)
            for name, value in given.items()
        })
    except ValidationError as error:
        raise ValueError(error.messages[0]) from error
    problems = kind.field_problems(values)
    refused = [problem for name in problems if given[name] for problem in problems[name]]
    if refused:
        raise ValueError(refused[0])
    return {} if problems else kind.settings(values)


def _other_epsilons(request: HttpRequest) -> tuple[list[float], float | None]:
    """The epsilons of the other questions of the survey named by the query (``survey``,
    ``question``: the one being edited, if any), which the user must be allowed to edit, and
    the survey's total when a design fixes it (its budget; None: the sum); none without a
    survey. ValueError for ids that are not whole numbers (of at most 18 digits, as the
    database stores)."""
    survey_pk, question_pk = request.GET.get("survey", ""), request.GET.get("question", "")
    if not survey_pk:
        return [], None
    if not all(ID.fullmatch(pk) for pk in filter(None, (survey_pk, question_pk))):
        raise ValueError("not an id")
    survey = get_survey(request, int(survey_pk), "edit")
    others = survey.questions.exclude(pk=int(question_pk)) if question_pk else survey.questions
    return list(others.values_list("epsilon", flat=True)), (
        survey.budget if survey.asked is not None else None
    )
