"""A survey's texts in other languages, and the wordings respondents saw."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from surveys.models.survey import STUDY_TEXTS, Choice, Question, Survey, max_length

SURVEY_TEXTS = frozenset({"title", "introduction", *STUDY_TEXTS, "questions"})
QUESTION_TEXTS = frozenset({"text", "help_text", "labels"})
"""The keys of a survey's texts, and of each question's under "questions": in translations
(``SurveyTranslation.texts``) and in corrections (``surveys.actions.wording.correct``)."""


def validate_translation_texts(texts: object) -> None:
    """What a translation's ``texts`` may hold (see ``SurveyTranslation``): those keys only,
    strings (labels: a list of strings), each no longer than the field it translates."""
    if not isinstance(texts, dict) or not texts.keys() <= SURVEY_TEXTS:
        raise ValidationError(_(
            'The texts must be an object with "title", "introduction", "study_by", '
            '"study_contact", "ethics_reference" and "questions", each optional.'
        ))
    _check_text(texts.get("title", ""), max_length(Survey, "title"), _("The title"))
    _check_text(texts.get("introduction", ""), None, _("The introduction"))
    for name in STUDY_TEXTS:
        field = Survey._meta.get_field(name)
        _check_text(texts.get(name, ""), field.max_length, capfirst(field.verbose_name))
        field.run_validators(texts.get(name, ""))  # a contact: an e-mail or web address
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

    ``texts``: ``{"title": str, "introduction": str, "study_by": str, "study_contact": str,
    "ethics_reference": str, "questions": {"<question id>": {"text": str, "help_text": str,
    "labels": [str, ...]}}}``, every key optional; ``labels`` has one
    label per answer of the question, in order (a yes/no question's: "No", "Yes"). A missing
    or blank text falls back to the main language's (``surveys.queries.wording``). Wording, not
    mechanism: it may change while the survey is open.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="translations")
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES)
    texts = models.JSONField(
        _("texts"), default=dict, validators=[validate_translation_texts]
    )
    needs_review = models.JSONField(_("texts to review"), default=dict, blank=True)
    """The texts of this translation whose main text a correction changed since it was last
    saved (``surveys.actions.wording.correct``): the translation form's field name ("title",
    "q<question id>-text", "q<question id>-label<i>", ...) -> the ISO time of the first such
    correction."""

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

    def given_texts(self) -> set[str]:
        """The names (as ``needs_review``'s) of the texts this translation gives, not blank."""
        given = {name for name, value in self.texts.items()
                 if isinstance(value, str) and value.strip()}
        for pk, question in self.texts.get("questions", {}).items():
            given |= {f"q{pk}-{name}" for name in ("text", "help_text")
                      if str(question.get(name) or "").strip()}
            given |= {f"q{pk}-label{i}" for i, label in enumerate(question.get("labels") or [])
                      if isinstance(label, str) and label.strip()}
        return given

    def texts_for(self, new_ids: dict[str, str]) -> dict:
        """The texts with question ids replaced by ``new_ids`` (a copy's), leaving out the
        questions ``new_ids`` does not have."""
        questions = self.texts.get("questions", {})
        return self.texts | {
            "questions": {new_ids[pk]: texts for pk, texts in questions.items() if pk in new_ids}
        }


class WordingRevision(models.Model):
    """The wording respondents saw from ``created_at`` on: every text of the survey, in its
    main language and every translation, as ``surveys.queries.revisions`` snapshots it. A new
    revision is kept each time the wording of an opened survey changes; the first is taken
    when it opens."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="revisions")
    created_at = models.DateTimeField(default=timezone.now)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    texts = models.JSONField()
    responses_before = models.PositiveIntegerField(null=True, blank=True)
    """The survey's responses when this wording began: those until the next one's came under
    it (``surveys.queries.revisions``). None for revisions kept before this was counted."""
    version = models.PositiveIntegerField(null=True, blank=True, editable=False)
    """The survey's ``wording_version`` while this wording was shown: what a submission's
    ``wording`` names (``surveys.queries.by_wording``). None for revisions kept before it was."""

    class Meta:
        ordering = ["survey", "created_at", "pk"]

    def __str__(self) -> str:
        return f"Wording of {self.survey} from {self.created_at:%Y-%m-%d %H:%M}"
