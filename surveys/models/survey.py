"""Surveys, their questions, and the randomized reports respondents send.

The server only ever sees randomized reports. Per-category support counts (tallies) are kept
up to date inside each submission's transaction, so the dashboard costs O(k) per question
whatever the number of responses.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, URLValidator
from django.db import models, transaction
from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from surveys import ldp
from surveys.templatetags.numbers import epsilon as epsilon_text

EPSILON_TOO_SMALL_MESSAGE = gettext_noop(
    "Epsilon must be at least %(min)s: below that, even millions of responses would not give "
    "usable estimates."
)
EPSILON_TOO_SMALL = EPSILON_TOO_SMALL_MESSAGE % {"min": epsilon_text(ldp.MIN_EPSILON)}
"""The refusal of an epsilon below ``ldp.MIN_EPSILON``, wherever one is entered (in English;
``epsilon_too_small`` gives it in the active language)."""


def epsilon_too_small() -> str:
    """``EPSILON_TOO_SMALL`` in the active language."""
    return gettext(EPSILON_TOO_SMALL_MESSAGE) % {"min": epsilon_text(ldp.MIN_EPSILON)}


def validate_epsilon_value(value: float) -> None:
    """A privacy parameter must be a finite number from ``ldp.MIN_EPSILON`` to
    ``ldp.MAX_EPSILON``: no question or policy may use an epsilon the mechanisms refuse."""
    if value is None or not math.isfinite(value):
        raise ValidationError(gettext("Epsilon must be a finite number."))
    if value < ldp.MIN_EPSILON:
        raise ValidationError(epsilon_too_small())
    if value > ldp.MAX_EPSILON:
        raise ValidationError(
            gettext("Epsilon can be at most %(max)s.") % {"max": epsilon_text(ldp.MAX_EPSILON)}
        )


def total_epsilon(questions: Iterable[Question]) -> float:
    """A survey's privacy cost per respondent, from its questions: by sequential composition,
    the sum of their epsilons (0 for none)."""
    return sum((question.epsilon for question in questions), 0.0)


TOTAL_EPSILON = Sum("questions__epsilon", default=0.0)
"""``total_epsilon`` summed by the database, to annotate (and sort) a list of surveys without
loading their questions."""


class PrivacyPolicy(models.Model):
    """The site-wide epsilon rules. A single record (pk=1), edited in the Django admin."""

    default_epsilon = models.FloatField(
        default=1.0,
        validators=[validate_epsilon_value],
        help_text=_("Epsilon given to a new question."),
    )
    max_question_epsilon = models.FloatField(
        default=4.0,
        validators=[validate_epsilon_value],
        help_text=_("The largest epsilon a researcher may choose for one question."),
    )
    max_survey_epsilon = models.FloatField(
        default=10.0,
        validators=[validate_epsilon_value],
        help_text=_("The largest total epsilon (sum over its questions) a survey may spend."),
    )
    allow_mechanism_override = models.BooleanField(
        default=False,
        help_text=_(
            "Let researchers choose a categorical question's mechanism themselves "
            "instead of the automatic, lowest-variance choice."
        ),
    )

    class Meta:
        verbose_name = _("privacy policy")
        verbose_name_plural = _("privacy policy")
        constraints = [
            models.CheckConstraint(condition=models.Q(pk=1), name="privacy_policy_single_record"),
            models.CheckConstraint(
                condition=models.Q(default_epsilon__gte=ldp.MIN_EPSILON)
                & models.Q(max_question_epsilon__gte=ldp.MIN_EPSILON)
                & models.Q(max_survey_epsilon__gte=ldp.MIN_EPSILON)
                & models.Q(max_question_epsilon__lte=ldp.MAX_EPSILON)
                & models.Q(default_epsilon__lte=models.F("max_question_epsilon")),
                name="privacy_policy_epsilons_valid",
            ),
        ]

    def __str__(self) -> str:
        return "Privacy policy"

    def save(self, *args, **kwargs) -> None:
        self.pk = 1
        super().save(*args, **kwargs)

    def clean(self) -> None:
        errors = {}
        if self.default_epsilon and self.max_question_epsilon:
            if self.default_epsilon > self.max_question_epsilon:
                errors["default_epsilon"] = gettext(
                    "The default cannot exceed the per-question maximum."
                )
        if self.max_question_epsilon and self.max_survey_epsilon:
            if self.max_question_epsilon > self.max_survey_epsilon:
                errors["max_question_epsilon"] = _(
                    "The per-question limit cannot be above the per-survey limit (%(limit)s): "
                    "no survey could use it."
                ) % {"limit": epsilon_text(self.max_survey_epsilon)}
        if errors:
            raise ValidationError(errors)

    @classmethod
    def current(cls) -> PrivacyPolicy:
        policy, _ = cls.objects.get_or_create(pk=1)
        return policy


PUBLIC_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The alphabet of secrets.token_urlsafe, which makes survey ids and invitation tokens: anything
else cannot name a survey or an invitation, and is refused before it reaches the database."""


def new_public_id() -> str:
    return secrets.token_urlsafe(16)


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
    # Kept up to date in the submission's transaction, so lists and dashboards never count.
    response_count = models.PositiveIntegerField(default=0, editable=False)
    # Raised by each correction of an opened survey's wording (surveys.revisions), so that
    # results cached with the old texts are never shown (surveys.results.snapshot).
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

    def open(self) -> None:
        """Freeze every question's mechanism and start accepting answers."""
        from surveys import revisions  # which imports this module

        problems = self.opening_problems()
        if problems:
            raise ValidationError(problems)
        with transaction.atomic():
            for question in self.ordered_questions():
                if question.spec is None:
                    question.freeze()
                Tally.objects.bulk_create(
                    [Tally(question=question, index=i) for i in range(question.mechanism().k)],
                    ignore_conflicts=True,
                )
            self.status = self.Status.OPEN
            self.opened_at = self.opened_at or timezone.now()
            self.closed_at = None
            self.save(update_fields=["status", "opened_at", "closed_at"])
            revisions.on_open(self)  # the wording respondents see from now on

    def correct_wording(self, texts: dict, author=None) -> WordingRevision | None:
        """Correct the texts of this opened survey (title, introduction, questions' texts and
        help texts, answers' labels) and keep the new wording as a revision, which it returns
        (None when nothing changed). Never the number or order of answers, a question's type,
        epsilon or mechanism: those raise ValidationError and nothing is stored. See
        ``surveys.revisions.correct``."""
        from surveys import revisions

        return revisions.correct(self, texts, author)

    def close(self) -> None:
        self.status = self.Status.CLOSED
        self.closed_at = timezone.now()
        self.save(update_fields=["status", "closed_at"])

    def duplicate(self) -> Survey:
        """A new draft with the same text, translations, questions, choices and epsilons, and
        no answers."""
        with transaction.atomic():
            copy = Survey.objects.create(
                owner=self.owner,
                title=f"{self.title} (copy)"[:200],
                introduction=self.introduction,
                invitation_only=self.invitation_only,
                language=self.language,
            )
            new_ids = {}  # question id -> its copy's id, as text (the keys of translations)
            for question in self.ordered_questions():
                new = Question.objects.create(
                    survey=copy,
                    order=question.order,
                    text=question.text,
                    help_text=question.help_text,
                    kind=question.kind,
                    epsilon=question.epsilon,
                    mechanism_override=question.mechanism_override,
                    used_for_breakdowns=question.used_for_breakdowns,
                )
                Choice.objects.bulk_create(
                    [
                        Choice(question=new, order=c.order, label=c.label)
                        for c in question.choices.all()
                    ]
                )
                new_ids[str(question.pk)] = str(new.pk)
            SurveyTranslation.objects.bulk_create(
                [
                    SurveyTranslation(
                        survey=copy,
                        language=translation.language,
                        texts=translation.texts_for(new_ids),
                    )
                    for translation in self.translations.all()
                ]
            )
        return copy

    def opening_problems(self) -> list[str]:
        """What stops this survey from being opened or reopened: a draft's readiness, and a
        schedule that would close it again at once."""
        from surveys import schedule  # which imports this module

        problems = self.readiness_problems() if self.is_draft else []
        return problems + schedule.opening_problems(self)

    def readiness_problems(self) -> list[str]:
        """What stops this draft from being opened, in words a researcher can act on."""
        problems = []
        questions = list(self.ordered_questions())
        if not questions:
            problems.append(gettext("Add at least one question."))
        for question in questions:
            if question.kind == Question.Kind.CATEGORICAL and len(question.labels()) < 2:
                problems.append(
                    gettext("“%(text)s” needs at least two choices.") % {"text": question.text}
                )
        policy = PrivacyPolicy.current()
        total = total_epsilon(questions)
        if total > policy.max_survey_epsilon + 1e-9:
            problems.append(
                gettext(
                    "The total epsilon %(total)s is above the site's limit of %(limit)s. Lower "
                    "some questions' epsilon."
                ) % {"total": epsilon_text(total), "limit": epsilon_text(policy.max_survey_epsilon)}
            )
        for question in questions:
            if question.epsilon > policy.max_question_epsilon + 1e-9:
                problems.append(
                    gettext(
                        "“%(text)s” has epsilon %(epsilon)s, above the site's per-question limit "
                        "of %(limit)s."
                    ) % {
                        "text": question.text,
                        "epsilon": epsilon_text(question.epsilon),
                        "limit": epsilon_text(policy.max_question_epsilon),
                    }
                )
        return problems


class Question(models.Model):
    class Kind(models.TextChoices):
        YES_NO = "yesno", _("Yes / no")
        CATEGORICAL = "categorical", _("Multiple choice (one answer)")

    class Override(models.TextChoices):
        AUTOMATIC = "", _("Automatic (lowest error)")
        GRR = "grr", _("k-ary randomized response (GRR)")
        SUE = "sue", _("Symmetric unary encoding (SUE, RAPPOR)")
        OUE = "oue", _("Optimized unary encoding (OUE)")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="questions")
    order = models.PositiveIntegerField(default=0)
    text = models.CharField(max_length=500)
    help_text = models.CharField(max_length=500, blank=True)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.YES_NO)
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
        total = total_epsilon(self.survey.questions.exclude(pk=self.pk)) + self.epsilon
        if total > policy.max_survey_epsilon + 1e-9:
            raise ValidationError(
                {
                    "epsilon": gettext(
                        "With this question the survey would spend %(total)s in total, above "
                        "the site's limit of %(limit)s per survey. Choose at most %(most)s."
                    ) % {
                        "total": epsilon_text(total),
                        "limit": epsilon_text(policy.max_survey_epsilon),
                        "most": epsilon_text(
                            max(policy.max_survey_epsilon - total + self.epsilon, 0)
                        ),
                    }
                }
            )

    def labels(self) -> list[str]:
        if self.kind == self.Kind.YES_NO:
            return ["No", "Yes"]
        return [c.label for c in self.choices.all()]

    def mechanism(self) -> ldp.Mechanism:
        """The frozen mechanism once the survey is open; the one it would get while a draft."""
        if self.spec is not None:
            return ldp.from_spec(self.spec)
        return build_mechanism(self.kind, self.epsilon, len(self.labels()), self.mechanism_override)

    def freeze(self) -> None:
        self.spec = self.mechanism().spec()
        Question.objects.filter(pk=self.pk).update(spec=self.spec)


FROZEN_MESSAGE = _(
    "This survey has been opened, so its questions, choices, epsilons and mechanisms are "
    "frozen: reports were randomized with exactly these settings. Duplicate it as a new "
    "draft to make changes."
)


def refuse_if_frozen(survey: Survey) -> None:
    if survey.is_frozen:
        raise ValidationError(FROZEN_MESSAGE, code="frozen")


def build_mechanism(kind: str, epsilon: float, k: int, override: str = "") -> ldp.Mechanism:
    """The mechanism a question gets: Warner's randomized response for yes/no, and for
    categorical questions the lower-variance one for its k and epsilon unless overridden."""
    if kind == Question.Kind.YES_NO:
        return ldp.randomized_response(epsilon)
    return ldp.choose_categorical(epsilon, max(k, 2), override or None)


class Choice(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    order = models.PositiveIntegerField(default=0)
    label = models.CharField(max_length=200)

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


SURVEY_TEXTS = frozenset({"title", "introduction", "questions"})
QUESTION_TEXTS = frozenset({"text", "help_text", "labels"})
"""The keys of a survey's texts, and of each question's under "questions": in translations
(``SurveyTranslation.texts``) and in corrections (``surveys.revisions.correct``)."""


def validate_translation_texts(texts: object) -> None:
    """What a translation's ``texts`` may hold (see ``SurveyTranslation``): those keys only,
    strings (labels: a list of strings), each no longer than the field it translates."""
    if not isinstance(texts, dict) or not texts.keys() <= SURVEY_TEXTS:
        raise ValidationError(_(
            'The texts must be an object with "title", "introduction" and "questions", '
            "each optional."
        ))
    _check_text(texts.get("title", ""), max_length(Survey, "title"), _("The title"))
    _check_text(texts.get("introduction", ""), None, _("The introduction"))
    questions = texts.get("questions", {})
    if not isinstance(questions, dict):
        raise ValidationError(_('"questions" must be an object: question id -> its texts.'))
    for pk, question in questions.items():
        valid = pk.isdigit() and isinstance(question, dict) and question.keys() <= QUESTION_TEXTS
        if not valid:
            raise ValidationError(_(
                'Each question\'s texts go under its id, in an object with "text", '
                '"help_text" and "labels", each optional.'
            ))
        where = _("Question %(id)s") % {"id": pk}
        _check_text(question.get("text", ""), max_length(Question, "text"), where)
        _check_text(question.get("help_text", ""), max_length(Question, "help_text"), where)
        labels = question.get("labels", [])
        if not isinstance(labels, list):
            raise ValidationError(_("%(what)s: the labels must be a list."), params={"what": where})
        for label in labels:
            _check_text(label, max_length(Choice, "label"), where)


def _check_text(value: object, limit: int | None, what: str) -> None:
    if not isinstance(value, str):
        raise ValidationError(_("%(what)s: every text must be a string."), params={"what": what})
    if limit is not None and len(value) > limit:
        raise ValidationError(
            _("%(what)s: a text can be at most %(limit)d characters long (one has %(length)d)."),
            params={"what": what, "limit": limit, "length": len(value)},
        )


class SurveyTranslation(models.Model):
    """A survey's texts in another language than its main one (``Survey.language``).

    ``texts``: ``{"title": str, "introduction": str, "questions": {"<question id>": {"text":
    str, "help_text": str, "labels": [str, ...]}}}``, every key optional; ``labels`` has one
    label per answer of the question, in order (a yes/no question's: "No", "Yes"). A missing
    or blank text falls back to the main language's (``surveys.wording``). Wording, not
    mechanism: it may change while the survey is open.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="translations")
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES)
    texts = models.JSONField(
        _("texts"), default=dict, validators=[validate_translation_texts]
    )

    class Meta:
        ordering = ["language"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "language"], name="survey_translation_unique"
            ),
        ]

    def __str__(self) -> str:
        return str(self.get_language_display())

    def clean(self) -> None:
        try:
            main = self.survey.language
        except Survey.DoesNotExist:  # a new translation of a survey still being made
            return
        if self.language == main:
            raise ValidationError({"language": _(
                "This is the survey's main language: its texts are the survey's own. Choose "
                "another language."
            )})

    def texts_for(self, new_ids: dict[str, str]) -> dict:
        """The texts with question ids replaced by ``new_ids`` (a copy's), leaving out the
        questions ``new_ids`` does not have."""
        questions = self.texts.get("questions", {})
        return self.texts | {
            "questions": {new_ids[pk]: texts for pk, texts in questions.items() if pk in new_ids}
        }


class SurveyShare(models.Model):
    """A survey shared by its owner with another researcher: a viewer reads its results and
    exports; an editor also authors it. Only the owner deletes or shares it."""

    class Role(models.TextChoices):
        VIEWER = "viewer", _("Viewer (results and exports)")
        EDITOR = "editor", _("Editor (also authoring)")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="shares")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="survey_shares"
    )
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.VIEWER)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["survey", "user"], name="survey_share_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.survey} shared with {self.user} ({self.get_role_display()})"


class WordingRevision(models.Model):
    """The wording respondents saw from ``created_at`` on: every text of the survey, in its
    main language and every translation, as ``surveys.revisions`` snapshots it. A new revision
    is kept each time the wording of an opened survey changes; the first is taken when it
    opens."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="revisions")
    created_at = models.DateTimeField(default=timezone.now)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    texts = models.JSONField()

    class Meta:
        ordering = ["survey", "created_at", "pk"]

    def __str__(self) -> str:
        return f"Wording of {self.survey} from {self.created_at:%Y-%m-%d %H:%M}"


class Submission(models.Model):
    """One respondent's randomized reports, all in one row (each submission is written whole
    or not at all, and one row is the cheapest thing to write). Holds no IP, user agent or
    time of day: only the date."""

    # No index of its own: the unique constraint below starts with survey and serves lookups.
    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="submissions", db_index=False
    )
    received_on = models.DateField(default=timezone.localdate)
    # Random key chosen by the respondent's browser so a retried request stores nothing new.
    idempotency_key = models.CharField(max_length=64)
    reports = models.JSONField(
        default=dict,
        editable=False,
        help_text="Question id -> its randomized report, as the browser sent it: 0 or 1 "
        "(yes/no), a category number, or a list of 0s and 1s, one per category.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "idempotency_key"], name="submission_idempotency_unique"
            ),
        ]
        # Breakdowns read a survey's submissions after a given id (surveys.breakdowns).
        indexes = [models.Index(fields=["survey", "id"], name="submission_survey_id")]

    def __str__(self) -> str:
        return f"Submission {self.pk}"


class Tally(models.Model):
    """How many reports of a question support category `index` (its support count)."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="tallies")
    index = models.PositiveIntegerField()
    count = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["question", "index"]
        constraints = [
            models.UniqueConstraint(fields=["question", "index"], name="tally_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.count} reports support category {self.index}"


class PairTally(models.Model):
    """The pair counts of two questions of a survey (``joint.PairCounts``, as JSON), folded in
    from the submissions up to ``through`` (a submission id) by ``surveys.breakdowns``.

    Stored once per pair, ``question_a`` being the one with the smaller id. Correct because
    one survey's submissions get their ids in the order they commit: ``submissions.store``
    takes the survey row's lock (its counter update) before inserting, and holds it to the
    commit, so a submission is never committed after one with a larger id of the same survey.
    """

    question_a = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    question_b = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    counts = models.JSONField()
    through = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question_a", "question_b"], name="pair_tally_unique"),
            models.CheckConstraint(
                condition=models.Q(question_a__lt=models.F("question_b")),
                name="pair_tally_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"Pair counts of questions {self.question_a_id} and {self.question_b_id}"


class Invitation(models.Model):
    """A single-use link. Records only that it was used: never when, nor which submission."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=32, unique=True, default=new_public_id, editable=False)
    used = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"Invitation {'(used)' if self.used else '(unused)'}"
