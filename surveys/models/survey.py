"""Surveys, their questions and their answers (choices).

Once a survey is opened, its questions' mechanisms are frozen: reports were randomized
with them. The writes that open, close or correct a survey are in ``surveys.actions``.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, URLValidator
from django.db import models
from django.db.models import Case, F, Sum, When
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys import kinds, ldp
from surveys.helpers.contacts import contact_link
from surveys.helpers.numbers import epsilon as epsilon_text
from surveys.kinds.answers import NO_ANSWER, NOT_ASKED
from surveys.models.policy import PrivacyPolicy, validate_epsilon_value


def total_epsilon(questions: Iterable[Question]) -> float:
    """The sum of the questions' epsilons (0 for none): a survey's privacy cost per
    respondent when every question is asked (``survey_epsilon`` for any design)."""
    return sum((question.epsilon for question in questions), 0.0)


def survey_epsilon(survey: Survey, questions: Sequence[Question]) -> float:
    """The epsilon of everything one respondent of ``survey`` sends, for its ``questions``
    (ordered) as they stand: the sum of their epsilons when every question is asked (by
    sequential composition), else the design's exact accounting (``ldp.body_epsilon``: the
    always-asked questions and the ``asked`` largest sampled blocks)."""
    if survey.asked is None:
        return total_epsilon(questions)
    always, sampled = design_blocks(questions)
    try:
        return ldp.body_epsilon(
            [q.epsilon for block in always for q in block],
            [[q.epsilon for q in block] for block in sampled],
            min(survey.asked, len(sampled)) if sampled else None,
        )
    except ValueError:  # no sampled block: every question is asked
        return total_epsilon(questions)


TOTAL_EPSILON = Case(
    When(asked__isnull=False, then=F("budget")),
    default=Sum("questions__epsilon", default=0.0),
    output_field=models.FloatField(),
)
"""``survey_epsilon`` by the database, to annotate (and sort) a list of surveys without
loading their questions: a survey with a design spends its budget (``apply_design`` gives its
sampled questions the epsilon that makes it so)."""


def design_problem(
    survey: Survey, questions: Sequence[Question], partial: bool = False
) -> str | None:
    """Why ``survey``'s design cannot be with these ``questions`` (ordered), in words, or None
    (also when every question is asked): its budget above the site's limit per survey, or
    what ``design_epsilon`` refuses, or a sampled question's epsilon above the site's limit
    per question. ``partial``: the questions so far, to which more may be added, so a number
    asked above their blocks' is taken as all of them."""
    if survey.asked is None:
        return None
    policy = PrivacyPolicy.current()
    if survey.budget is not None and survey.budget > policy.max_survey_epsilon + 1e-9:
        return gettext(
            "The survey's budget, %(budget)s, is above the site's limit of %(limit)s per "
            "survey."
        ) % {
            "budget": epsilon_text(survey.budget),
            "limit": epsilon_text(policy.max_survey_epsilon),
        }
    try:
        epsilon = design_epsilon(survey, questions, partial)
    except ValueError as error:
        return gettext("This design cannot be: %(reason)s.") % {"reason": error}
    if epsilon is not None and epsilon > policy.max_question_epsilon + 1e-9:
        return gettext(
            "This design gives each question drawn at random epsilon %(epsilon)s, above the "
            "site's limit of %(limit)s per question: ask more questions of each respondent, "
            "or lower the budget."
        ) % {"epsilon": epsilon_text(epsilon), "limit": epsilon_text(policy.max_question_epsilon)}
    return None


def blocks_of(questions: Sequence[Question]) -> list[list[Question]]:
    """The blocks of ``questions`` (ordered): each question asked of everyone, with the
    questions asked only after one of its answers (which come after it). A design draws and
    always asks whole blocks: a follow-up travels with its condition."""
    blocks: dict[int, list[Question]] = {}
    for question in questions:
        head = question.asked_if_id if question.conditional else question.pk
        blocks.setdefault(head if head in blocks else question.pk, []).append(question)
    return list(blocks.values())


def design_blocks(
    questions: Sequence[Question],
) -> tuple[list[list[Question]], list[list[Question]]]:
    """The blocks always asked (their first question is ``always_asked``) and those drawn at
    random, in order."""
    blocks = blocks_of(questions)
    return ([b for b in blocks if b[0].always_asked], [b for b in blocks if not b[0].always_asked])


def asked_together(
    survey: Survey, questions: Sequence[Question], together: Sequence[Question]
) -> bool:
    """Whether a respondent of ``survey`` (whose ``questions`` these are) can be asked every
    one of ``together``: always, unless its design draws fewer blocks per respondent than
    they fall in among those drawn at random (then no respondent answers them all, and no
    breakdown or regression can use them together)."""
    if survey.asked is None:
        return True
    blocks = design_blocks(sorted(questions, key=lambda q: (q.order, q.pk)))[1]
    drawn = {i for i, block in enumerate(blocks) if any(q in together for q in block)}
    return len(drawn) <= survey.asked


def drawn_at_random(survey: Survey, questions: Sequence[Question]) -> set[int]:
    """The ids of ``survey``'s questions drawn at random: those of the blocks not always
    asked in its design; none when every question is asked."""
    if survey.asked is None:
        return set()
    return {q.pk for block in design_blocks(questions)[1] for q in block}


def design_epsilon(
    survey: Survey, questions: Sequence[Question], partial: bool = False
) -> float | None:
    """The epsilon each sampled question of ``survey``'s design gets (``ldp.sampled_epsilon``:
    what the always-asked questions leave of the budget, over the questions a respondent
    can be asked), or None when every question is asked. ValueError saying why when the
    design cannot be (a budget spent by the always-asked questions, more blocks asked than
    there are, nothing to draw; with ``partial``, as ``design_problem``'s, only the first,
    and None while nothing is drawn)."""
    if survey.asked is None:
        return None
    if survey.budget is None:
        raise ValueError(gettext("Set the survey's privacy budget."))
    always, sampled = design_blocks(questions)
    if partial and not sampled:
        return None  # nothing drawn yet
    asked = min(survey.asked, len(sampled)) if partial else survey.asked
    return ldp.sampled_epsilon(
        survey.budget, [q.epsilon for block in always for q in block],
        [len(block) for block in sampled], asked,
    )


PUBLIC_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The alphabet of secrets.token_urlsafe, which makes survey ids and invitation tokens: anything
else cannot name a survey or an invitation, and is refused before it reaches the database."""


def new_public_id() -> str:
    return secrets.token_urlsafe(16)


def validate_contact(value: str) -> None:
    """A study's contact is an e-mail address or an http(s) web address: respondents get a
    link to it."""
    if value.strip() and contact_link(value) is None:
        raise ValidationError(
            _(
                "Enter an e-mail address (name@example.org) or a full web address starting "
                "with https:// (or http://)."
            ),
            code="contact",
        )


STUDY_TEXTS = ("study_by", "study_contact", "ethics_reference")
"""The texts that tell respondents about the study (``Survey``'s fields of these names), in
the order the pages show them: translatable and correctable like the title."""


class Survey(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="surveys"
    )
    title = models.CharField(max_length=200)
    introduction = models.TextField(
        blank=True, help_text=_("Shown to respondents above the questions.")
    )
    # About the study: who runs it, how to reach them, its ethics approval (STUDY_TEXTS).
    study_by = models.CharField(
        _("who runs the study"),
        max_length=200,
        blank=True,
        help_text=_(
            "Optional. For example: Department of Psychology, University of Example (Dr Jane "
            "Doe)."
        ),
    )
    study_contact = models.CharField(
        _("contact"),
        max_length=254,
        blank=True,
        validators=[validate_contact],
        help_text=_(
            "Optional. An e-mail address or a web address where respondents can ask about the "
            "study; they see it as a link."
        ),
    )
    ethics_reference = models.CharField(
        _("ethics approval reference"),
        max_length=100,
        blank=True,
        help_text=_("Optional. For example: the ethics committee's approval number."),
    )
    consent_required = models.BooleanField(
        _("ask for consent"),
        default=False,
        help_text=_(
            "Respondents must tick “I have read the above and agree to take part” before they "
            "can answer. Whether they ticked it is not stored: only answers that follow it are "
            "sent."
        ),
    )
    public_id = models.CharField(max_length=32, unique=True, default=new_public_id, editable=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    created_at = models.DateTimeField(auto_now_add=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    invitation_only = models.BooleanField(
        default=False,
        help_text=_("Accept answers only through single-use invitation links."),
    )
    language = models.CharField(
        _("language"),
        max_length=8,
        choices=settings.LANGUAGES,
        default=settings.LANGUAGE_CODE,
        help_text=_(
            "The language you write the survey in. Respondents whose browser asks for another "
            "language see your translation when there is one, this language otherwise."
        ),
    )
    # Schedule and target: the survey closes itself when either is reached (checked where
    # submissions and pages are handled; no background worker).
    opens_at = models.DateTimeField(
        _("opens at"),
        null=True,
        blank=True,
        help_text=_("Optional. Before this time, respondents are told the survey is not open yet."),
    )
    closes_at = models.DateTimeField(
        _("closes at"),
        null=True,
        blank=True,
        help_text=_("Optional. From this time on, the survey is closed."),
    )
    response_target = models.PositiveIntegerField(
        _("response target"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1, _("A response target must be at least 1."))],
        help_text=_("Optional. The survey closes itself once it has this many responses."),
    )
    # Distribution
    completion_url = models.URLField(
        _("completion link"),
        max_length=500,
        blank=True,
        validators=[URLValidator(schemes=["http", "https"])],  # never javascript: or data:
        help_text=_(
            "Optional. Where respondents are sent once their answers are stored, for example "
            "a recruitment panel's completion link (Prolific, MTurk, a school's system)."
        ),
    )
    thank_you_message = models.TextField(
        _("thank-you message"),
        blank=True,
        help_text=_("Optional. Shown to respondents after they answer, above the explanations."),
    )
    # The design (docs/ldp.md, "Long questionnaires"): with ``asked`` set, each respondent's
    # browser draws that many of the blocks not always asked, at random, and the whole body
    # spends ``budget``; without, every question is asked and the survey spends the sum of
    # its questions' epsilons. Frozen with the mechanisms once the survey opens.
    budget = models.FloatField(
        _("privacy budget of the whole survey"),
        null=True,
        blank=True,
        validators=[validate_epsilon_value],
        help_text=_(
            "The epsilon of everything one respondent sends. The questions' epsilons are "
            "worked out from it."
        ),
    )
    asked = models.PositiveSmallIntegerField(
        _("questions asked of each respondent"),
        null=True,
        blank=True,
        help_text=_(
            "Each respondent answers this many of the questions not always asked, drawn at "
            "random by their browser (a question and its follow-ups count as one). Empty: "
            "every respondent answers every question."
        ),
    )
    # Kept up to date in the submission's transaction, so lists and dashboards never count.
    response_count = models.PositiveIntegerField(default=0, editable=False)
    # Raised by each correction of an opened survey's wording (surveys.actions.wording), so that
    # results cached with the old texts are never shown (surveys.queries.results.snapshot).
    wording_version = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("survey-detail", args=[self.pk])

    def clean(self) -> None:
        if self.pk and self.translations.filter(language=self.language).exists():
            raise ValidationError({"language": _(
                "This survey has a translation into this language: remove it first (on its "
                "Translations page), or choose another language."
            )})

    def get_public_url(self) -> str:
        return reverse("respond", args=[self.public_id])

    @property
    def is_draft(self) -> bool:
        return self.status == self.Status.DRAFT

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def link_works_for_anyone(self) -> bool:
        """Open, and not by invitation only: its link is what to hand out (copied, or as a QR
        code)."""
        return self.is_open and not self.invitation_only

    @property
    def is_frozen(self) -> bool:
        """Once opened, questions, choices, epsilons and mechanisms never change again."""
        return not self.is_draft

    def ordered_questions(self) -> models.QuerySet[Question]:
        return self.questions.order_by("order", "pk").prefetch_related("choices")


class Question(models.Model):
    class Override(models.TextChoices):
        AUTOMATIC = "", _("Automatic (lowest error)")
        GRR = "grr", _("k-ary randomized response (GRR)")
        SUE = "sue", _("Symmetric unary encoding (SUE, RAPPOR)")
        OUE = "oue", _("Optimized unary encoding (OUE)")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="questions")
    order = models.PositiveIntegerField(default=0)
    text = models.CharField(max_length=500)
    help_text = models.CharField(max_length=500, blank=True)
    kind = models.CharField(max_length=12, choices=kinds.CHOICES, default=kinds.YES_NO.value)
    epsilon = models.FloatField(validators=[validate_epsilon_value])
    mechanism_override = models.CharField(
        max_length=8, choices=Override.choices, blank=True, default=""
    )
    used_for_breakdowns = models.BooleanField(
        _("used for breakdowns"),
        default=False,
        help_text=_(
            "A question that sorts respondents into groups (faculty, year of study, age "
            "band), so that other questions can be broken down by it. It usually deserves a "
            "larger epsilon: it is less sensitive, and every group's figures rest on it."
        ),
    )
    number_min = models.FloatField(_("smallest number"), null=True, blank=True)
    number_max = models.FloatField(_("largest number"), null=True, blank=True)
    number_decimals = models.PositiveSmallIntegerField(
        _("decimal places"), null=True, blank=True,
        help_text=_("0 for whole numbers; at most 3."),
    )
    number_bins = models.CharField(
        _("bins (optional)"), max_length=500, blank=True, default="",
        help_text=_(
            "The numbers where one bin of the distribution ends and the next begins, "
            "separated by commas, for example 25, 45, 65. Left blank: five equal bins."
        ),
    )
    known_share = models.FloatField(
        _("known true share"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text=_(
            "A validation anchor: the true share of “Yes” when it is known from elsewhere "
            "(0 for “Have you ever been to Mars?”). The results test the answers against it."
        ),
    )
    offers_refusal = models.BooleanField(
        _("offer “Prefer not to say”"),
        default=False,
        help_text=_(
            "Respondents see one more option, “Prefer not to say”. It is randomized like any "
            "answer, so no report shows who refused; the results give the share who did and "
            "the shares among those who answered."
        ),
    )
    optional = models.BooleanField(
        _("optional"),
        default=False,
        help_text=_(
            "Respondents may leave it unanswered. A skipped question is randomized as “No "
            "answer”, so no report shows who skipped it."
        ),
    )
    asked_if = models.ForeignKey(
        "self",
        verbose_name=_("asked only if"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="follow_ups",
    )
    asked_if_answer = models.PositiveSmallIntegerField(null=True, blank=True)
    """With ``asked_if``: the index of the answer to that question under which this one is
    shown; everyone else reports it as "Not asked" (randomized like any answer)."""
    always_asked = models.BooleanField(
        _("always asked"),
        default=False,
        help_text=_(
            "When each respondent answers only some of the questions, ask this one (and its "
            "follow-ups) of everyone: a grouping question, a validation anchor, a key outcome."
        ),
    )
    # In a survey whose respondents answer a random few of the questions: how many
    # submissions drew this one (its reports' number), kept in the submission's transaction.
    drawn_count = models.PositiveIntegerField(default=0, editable=False)
    # The mechanism's full specification, frozen when the survey opens. Reports were
    # randomized with exactly these parameters, so they can never change afterwards.
    spec = models.JSONField(null=True, blank=True, editable=False)
    simulated_truth = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="The true share of each answer (k numbers adding up to 1) that simulated "
        "responses are drawn from. Only the demo survey has it; its results show it beside "
        "the estimates.",
    )
    simulated_given = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="For the demo only: {\"question\": id, \"shares\": one list of k true "
        "shares per answer of that question}: simulated answers to this question are drawn "
        "given the respondent's simulated answer to that one, which builds a real difference "
        "between its groups into the demo.",
    )

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            # The upper bound also makes the database reject infinity and (on PostgreSQL) NaN.
            models.CheckConstraint(
                condition=models.Q(epsilon__gte=ldp.MIN_EPSILON)
                & models.Q(epsilon__lte=ldp.MAX_EPSILON),
                name="question_epsilon_in_range",
            ),
        ]

    def __str__(self) -> str:
        return self.text

    def save(self, *args, **kwargs) -> None:
        refuse_if_frozen(self.survey)
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        refuse_if_frozen(self.survey)
        return super().delete(*args, **kwargs)

    def clean(self) -> None:
        refuse_if_frozen(self.survey)
        if self.epsilon is None or not math.isfinite(self.epsilon):
            return
        policy = PrivacyPolicy.current()
        if self.epsilon > policy.max_question_epsilon + 1e-9:
            limit = policy.max_question_epsilon
            raise ValidationError(
                {
                    "epsilon": gettext("This site allows at most %(limit)s per question.")
                    % {"limit": epsilon_text(limit)}
                }
            )
        problems = self.condition_problems()
        if problems:
            raise ValidationError(problems)
        if self.survey.asked is not None:
            # More blocks may come (a survey file's next questions): the number asked is
            # checked against them when the design is set and before the survey opens.
            problem = design_problem(self.survey, self.survey_questions_with_it(), partial=True)
            if problem:
                raise ValidationError({"always_asked" if self.always_asked else "epsilon": problem})
            return
        total = total_epsilon(self.survey.questions.exclude(pk=self.pk)) + self.epsilon
        if total > policy.max_survey_epsilon + 1e-9:
            most = policy.max_survey_epsilon - total + self.epsilon
            words = {"total": epsilon_text(total), "most": epsilon_text(most),
                     "limit": epsilon_text(policy.max_survey_epsilon)}
            if most < ldp.MIN_EPSILON:
                raise ValidationError({"epsilon": gettext(
                    "With this question the survey would spend %(total)s in total, above the "
                    "site's limit of %(limit)s per survey, which its other questions already "
                    "spend: lower their epsilons first."
                ) % words})
            raise ValidationError({"epsilon": gettext(
                "With this question the survey would spend %(total)s in total, above the "
                "site's limit of %(limit)s per survey. Choose at most %(most)s."
            ) % words})

    def survey_questions_with_it(self) -> list[Question]:
        """Its survey's questions in order, with this one as it stands (saved or not)."""
        others = [q for q in self.survey.ordered_questions() if q.pk != self.pk or not self.pk]
        return sorted([*others, self], key=lambda q: (q.order, q.pk or math.inf))

    @property
    def question_kind(self) -> kinds.QuestionKind:
        """What this question's kind answers for the rest of the code (``surveys.kinds``)."""
        return kinds.KINDS[self.kind]

    def labels(self) -> list[str]:
        """Its answers in order: the researcher's choices, or the kind's own (in English)."""
        if self.question_kind.choices:
            return [c.label for c in self.choices.all()]
        return self.question_kind.answers_in("en")

    @property
    def declinable(self) -> bool:
        """Whether a respondent may give no answer: "Prefer not to say", or skipping it."""
        return self.offers_refusal or self.optional

    @property
    def conditional(self) -> bool:
        """Whether it is shown only to respondents who gave one answer to an earlier question."""
        return self.asked_if_id is not None and self.asked_if_answer is not None

    @property
    def asked_if_label(self) -> str | None:
        """The answer to ``asked_if`` under which it is asked (None if not conditional)."""
        if not self.conditional:
            return None
        labels = self.asked_if.labels()
        return labels[self.asked_if_answer] if self.asked_if_answer < len(labels) else None

    def extra_answers(self) -> list[Promise]:
        """The answers it has besides its own, after them: "No answer" (a refusal or a skip)
        if respondents may decline it, then "Not asked" if it is conditional. Each is
        randomized like any answer, so no report tells them apart from one."""
        return [NO_ANSWER] * self.declinable + [NOT_ASKED] * self.conditional

    def extra_index(self, answer: Promise) -> int | None:
        """The index among ``all_labels`` of the extra answer ``answer`` (``NO_ANSWER`` or
        ``NOT_ASKED``), or None where it has not that one."""
        extras = self.extra_answers()
        return len(self.labels()) + extras.index(answer) if answer in extras else None

    def all_labels(self) -> list[str]:
        """Every answer its reports randomize over, in English: its own (``labels``), then
        its extra ones. Results, breakdowns and exports are over these."""
        with translation.override("en"):
            return self.labels() + [str(label) for label in self.extra_answers()]

    def kind_problems(self, labels: list[str]) -> dict[str, list[str]]:
        """What its kind finds wrong with it as a researcher wrote it, by field: a validation
        anchor (``known_share``) it cannot be, a grouping it cannot do, the fields it takes
        besides its answers (``QuestionKind.field_problems``), and under "labels" its answers
        (``labels``, ``QuestionKind.answer_problems``). The question form and the import of a
        survey file both ask it, so both make questions exactly as valid."""
        kind = self.question_kind
        problems = {field: list(found) for field, found in kind.field_problems(self).items()}
        anchored = self.known_share is not None
        if anchored and (self.declinable or self.asked_if_id is not None):
            problems.setdefault("known_share", []).append(gettext(
                "A validation anchor is asked of everyone and answered by everyone: it cannot "
                "be optional, offer “Prefer not to say” or be conditional."
            ))
        if anchored and kind.anchor_answer is None:
            problems.setdefault("known_share", []).append(
                gettext("Only yes/no questions can be validation anchors.")
            )
        if self.used_for_breakdowns and not kind.groups:
            problems["used_for_breakdowns"] = [str(kind.cannot_group)]
        answer_problems = kind.answer_problems(labels)
        if answer_problems:
            problems["labels"] = answer_problems
        return problems

    def condition_problems(self) -> dict[str, str]:
        """What is wrong with its extra answers, by field (none when it has none)."""
        if not self.question_kind.extras and (self.declinable or self.asked_if_id):
            return {"offers_refusal": gettext(
                "%(kind)s questions cannot offer “Prefer not to say”, be optional or be "
                "conditional."
            ) % {"kind": self.question_kind.label}}
        if self.optional and not self.question_kind.skippable:
            return {"optional": str(self.question_kind.cannot_skip)}
        if self.asked_if_id is None:
            return {}
        condition = self.asked_if
        problem = condition_problem(condition, self)
        if problem:
            return {"asked_if": problem}
        if self.asked_if_answer is None or self.asked_if_answer >= len(condition.labels()):
            return {"asked_if": gettext("Choose the answer under which it is asked.")}
        return {}

    def mechanism(self) -> ldp.Mechanism:
        """The frozen mechanism once the survey is open; the one it would get while a draft."""
        if self.spec is not None:
            return ldp.from_spec(self.spec)
        return build_mechanism(
            self.kind, self.epsilon, len(self.all_labels()), self.mechanism_override,
            **self.question_kind.settings(self),
        )


def condition_problem(condition: Question, question: Question) -> str | None:
    """Why ``question`` cannot be asked only after an answer to ``condition``, or None: the
    condition must be an earlier question of the same survey with one answer per
    respondent, itself asked of everyone."""
    if condition.survey_id != question.survey_id or condition.pk == question.pk:
        return gettext("A question can depend only on another question of its survey.")
    if not condition.question_kind.groups:
        return gettext("A question can depend only on a question with one answer per respondent.")
    if condition.conditional:
        return gettext(
            "“%(text)s” is itself conditional: a question can depend only on one asked of "
            "everyone."
        ) % {"text": condition.text}
    if (condition.order, condition.pk) >= (question.order, question.pk or math.inf):
        return gettext(
            "“%(text)s” must come after “%(condition)s”, the question it depends on."
        ) % {"text": question.text, "condition": condition.text}
    return None


FROZEN_MESSAGE = _(
    "This survey has been opened, so its questions, choices, epsilons and mechanisms are "
    "frozen: reports were randomized with exactly these settings. Duplicate it as a new "
    "draft to make changes."
)


def refuse_if_frozen(survey: Survey) -> None:
    if survey.is_frozen:
        raise ValidationError(FROZEN_MESSAGE, code="frozen")


def build_mechanism(
    kind: str, epsilon: float, k: int, override: str = "", **settings: Any
) -> ldp.Mechanism:
    """The mechanism a question of ``kind`` (a value of ``Question.kind``) with ``k`` answers
    gets at ``epsilon``: its kind's (``surveys.kinds``; ``settings``: a number question's
    range and bins)."""
    return kinds.KINDS[kind].mechanism(epsilon, k, override, **settings)


class Choice(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    order = models.PositiveIntegerField(default=0)
    label = models.CharField(max_length=kinds.MAX_CHOICE_LENGTH)

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["question", "label"], name="choice_label_unique"),
        ]

    def __str__(self) -> str:
        return self.label

    def save(self, *args, **kwargs) -> None:
        refuse_if_frozen(self.question.survey)
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        refuse_if_frozen(self.question.survey)
        return super().delete(*args, **kwargs)

    def clean(self) -> None:
        refuse_if_frozen(self.question.survey)


def max_length(model: type[models.Model], field: str) -> int:
    """The longest text ``field`` of ``model`` holds: its translation may be as long."""
    return model._meta.get_field(field).max_length
