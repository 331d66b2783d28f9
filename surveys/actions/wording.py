"""Corrections of an opened survey's wording, and the revisions that keep each wording
respondents saw (read by ``surveys.queries.revisions``).

Once a survey opens, its questions, choices, epsilons and mechanisms are frozen (reports were
randomized with them), but its texts may still be corrected: the title, the introduction,
the texts about the study (who runs it, its contact, its ethics approval), each question's
text and help text, and each answer's label (``correct``), and its translations. Every
wording is kept as a ``WordingRevision``, from the first, taken when the survey opens
(``on_open``); a survey opened before revisions were kept gets its first one, dated from its
opening, just before its wording first changes (``baseline``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from surveys.models import (
    QUESTION_TEXTS,
    STUDY_TEXTS,
    SURVEY_TEXTS,
    Choice,
    Question,
    Survey,
    SurveyTranslation,
    WordingRevision,
    max_length,
)
from surveys.queries.revisions import latest, snapshot

MECHANISM_MESSAGE = gettext_lazy(
    "The number and order of answers, the question type, epsilon and mechanism cannot change "
    "once respondents have answered: reports were randomized with them. Duplicate the survey "
    "as a new draft for that."
)
"""The refusal of a correction that would touch how reports were randomized."""

MECHANISM_KEYS = frozenset(
    {"kind", "epsilon", "mechanism", "mechanism_override", "spec", "order", "choices", "k"}
)
"""Keys of a correction that name what reports were randomized with: refused with
``MECHANISM_MESSAGE`` wherever they appear."""



def record(survey: Survey, author=None) -> WordingRevision | None:
    """A new revision of the opened ``survey``'s wording, by ``author``, when it differs from
    the latest one (or there is none); None otherwise, and always for a draft. A new revision
    is a new wording version: results cached with the old texts (and the old count of
    wordings) are not shown again."""
    if survey.is_draft:
        return None
    current = snapshot(survey)
    previous = latest(survey)
    if previous is not None and previous.texts == current:
        return None
    _new_version(survey)
    return WordingRevision.objects.create(
        survey=survey, author=author, texts=current, responses_before=survey.response_count,
        version=survey.wording_version,
    )


def _new_version(survey: Survey) -> None:
    """The next wording version, and the survey's response count read with it (its row is
    locked by the callers that keep revisions: no response comes in between)."""
    Survey.objects.filter(pk=survey.pk).update(wording_version=F("wording_version") + 1)
    survey.refresh_from_db(fields=["wording_version", "response_count"])


def baseline(survey: Survey) -> WordingRevision | None:
    """The first revision of an opened survey that has none (it opened before revisions were
    kept): its wording as it is now, dated from its opening. Call it before changing the
    wording. None when there is one already, and for a draft."""
    if survey.is_draft or survey.revisions.exists():
        return None
    return WordingRevision.objects.create(
        survey=survey, created_at=survey.opened_at or timezone.now(), texts=snapshot(survey),
        responses_before=0,
        version=Survey.objects.values_list("wording_version", flat=True).get(pk=survey.pk),
    )


def on_open(survey: Survey) -> WordingRevision | None:
    """``open_survey``'s hook: the wording respondents see from now on (on a first opening,
    dated exactly ``opened_at``)."""
    return baseline(survey) or record(survey)


@contextmanager
def recording(survey: Survey, author) -> Iterator[None]:
    """Around a change of ``survey``'s wording (a translation saved or removed): one
    transaction that keeps the wording before it (``baseline``), then the new one
    (``record``). The survey's row is locked, so that two changes never interleave."""
    with transaction.atomic():
        _lock(survey)
        baseline(survey)
        yield
        record(survey, author)


def save_translation(survey: Survey, language: str, texts: dict, author=None) -> None:
    """Store ``survey``'s texts in ``language`` (validated ``SurveyTranslation.texts``),
    new or replacing the ones it had, keeping the wording before and after (``recording``).
    Saved from the translation form, which shows every text that needs review beside its
    corrected main text: none needs review any more."""
    with recording(survey, author):
        SurveyTranslation.objects.update_or_create(
            survey=survey, language=language, defaults={"texts": texts, "needs_review": {}}
        )


def remove_translation(translation: SurveyTranslation, author=None) -> None:
    """Delete a survey's translation, keeping the wording before and after."""
    with recording(translation.survey, author):
        translation.delete()


def _lock(survey: Survey) -> None:
    list(Survey.objects.select_for_update().filter(pk=survey.pk).values_list("pk", flat=True))


def correct(survey: Survey, texts: object, author=None) -> WordingRevision | None:
    """Correct the opened ``survey``'s main-language texts (by ``author``, a user or None).

    ``texts``: ``{"title": str, "introduction": str, "study_by": str, "study_contact": str,
    "ethics_reference": str, "questions": {"<question id>": {"text": str, "help_text": str,
    "labels": [str, ...]}}}``, every key optional (a missing text stays as it is); ``labels``
    gives every label of a multiple-choice question, in order.

    In one transaction, with the survey's row locked: checks everything, then updates the
    texts with queryset updates (the frozen check of ``save`` is for questions and choices as
    a whole; only their texts change here), keeps the wording before (``baseline``) and the
    new one (``record``), whose revision it returns; None when nothing changed, and then
    stores nothing. Raises ValidationError, storing nothing, for anything but these texts:
    ``MECHANISM_MESSAGE`` (code "mechanism") for a change of the number or order of answers,
    of a yes/no question's labels, of a question's type, epsilon or mechanism; otherwise a
    dict of errors keyed like the wording form's fields ("title", "study_contact",
    "q<id>-text", "q<id>-label<i>").
    """
    if survey.is_draft:  # nobody saw its wording: its own pages change anything about it
        raise ValidationError(_("Only an opened survey's wording is corrected."), code="draft")
    with transaction.atomic():
        _lock(survey)
        questions = list(survey.ordered_questions())
        survey_changes, question_changes, label_changes = _plan(survey, questions, texts)
        if not (survey_changes or question_changes or label_changes):
            return None
        baseline(survey)
        _flag_translations(survey, [
            *survey_changes,
            *(f"q{pk}-{field}" for pk, fields in question_changes.items() for field in fields),
            *(field for field, _label in label_changes.values()),
        ])
        Survey.objects.filter(pk=survey.pk).update(**survey_changes)
        for field, value in survey_changes.items():
            setattr(survey, field, value)
        for pk, fields in question_changes.items():
            Question.objects.filter(pk=pk).update(**fields)
        for pk, (_field, label) in label_changes.items():
            Choice.objects.filter(pk=pk).update(label=label)
        # The revision kept is the new wording version, one more than before.
        revision = record(survey, author)
        if revision is None:
            # The texts went back exactly to the latest revision's (after a change no
            # revision was kept for): that revision is the wording now, but the texts
            # changed, so still one new version.
            _new_version(survey)
            return latest(survey)
        return revision


def _flag_translations(survey: Survey, changed: list[str]) -> None:
    """Mark, in every translation that gives its own text for one of the ``changed`` texts
    (named as the translation form's fields), that text as needing review since now
    (``SurveyTranslation.needs_review``; a text already marked keeps its first date). A
    text a translation leaves blank shows the corrected main text: nothing to review."""
    now = timezone.now().isoformat()
    for translation in survey.translations.all():
        given = translation.given_texts()
        marked = {name: translation.needs_review.get(name, now)
                  for name in changed if name in given}
        if marked:
            SurveyTranslation.objects.filter(pk=translation.pk).update(
                needs_review=translation.needs_review | marked)


def _refuse_mechanism() -> ValidationError:
    return ValidationError({NON_FIELD_ERRORS: [ValidationError(
        MECHANISM_MESSAGE, code="mechanism"
    )]})


def _unknown(keys: set[str]) -> ValidationError:
    if keys & MECHANISM_KEYS:
        return _refuse_mechanism()
    return ValidationError({NON_FIELD_ERRORS: [ValidationError(
        _("Only texts can be corrected: the title, the introduction, the texts about the study, "
          "and each question's text, help text and answer labels (not %(keys)s)."),
        code="unknown", params={"keys": ", ".join(sorted(keys))},
    )]})


def _plan(
    survey: Survey, questions: list[Question], texts: object
) -> tuple[dict[str, str], dict[int, dict[str, str]], dict[int, tuple[str, str]]]:
    """What ``correct`` changes: (survey fields, question id -> fields, choice id -> (its
    form field, its label)), only what differs. Raises ValidationError as ``correct`` says."""
    if not isinstance(texts, dict):
        raise ValidationError(_("The corrected texts must be an object."))
    if texts.keys() - SURVEY_TEXTS:
        raise _unknown(set(texts.keys() - SURVEY_TEXTS))
    given = texts.get("questions", {})
    if not isinstance(given, dict):
        raise ValidationError(_('"questions" must be an object: question id -> its texts.'))
    by_id = {str(question.pk): question for question in questions}
    if set(map(str, given)) - by_id.keys():
        unknown = ", ".join(sorted(set(map(str, given)) - by_id.keys()))
        raise ValidationError(_("This survey has no question %(id)s.") % {"id": unknown})
    given = {str(pk): value for pk, value in given.items()}
    errors: dict[str, list[str]] = {}

    def text(field: str, value: object, current: str, limit: int | None, required: bool) -> str:
        if value is None:
            return current
        if not isinstance(value, str):
            errors.setdefault(field, []).append(_("Every text must be a string."))
            return current
        if required and not value.strip():
            errors.setdefault(field, []).append(_("This text cannot be blank."))
        elif limit is not None and len(value) > limit:
            errors.setdefault(field, []).append(
                _("At most %(limit)d characters (this one has %(length)d).")
                % {"limit": limit, "length": len(value)}
            )
        return value

    survey_texts = {
        "title": text("title", texts.get("title"), survey.title, max_length(Survey, "title"),
                      True),
        "introduction": text("introduction", texts.get("introduction"), survey.introduction,
                             None, False),
    }
    for name in STUDY_TEXTS:
        value = text(name, texts.get(name), getattr(survey, name), max_length(Survey, name),
                     False)
        if name not in errors:
            try:  # a contact: an e-mail or web address
                Survey._meta.get_field(name).run_validators(value)
            except ValidationError as error:
                errors.setdefault(name, []).extend(error.messages)
        survey_texts[name] = value
    survey_changes = {
        field: value for field, value in survey_texts.items() if value != getattr(survey, field)
    }
    question_changes: dict[int, dict[str, str]] = {}
    label_changes: dict[int, tuple[str, str]] = {}
    for question in questions:
        corrected = given.get(str(question.pk))
        if corrected is None:
            continue
        if not isinstance(corrected, dict):
            raise ValidationError(_("Question %(id)s: its texts must be an object.")
                                  % {"id": question.pk})
        if corrected.keys() - QUESTION_TEXTS:
            raise _unknown(set(corrected.keys() - QUESTION_TEXTS))
        prefix = f"q{question.pk}-"
        fields = {
            "text": text(prefix + "text", corrected.get("text"), question.text,
                         max_length(Question, "text"), True),
            "help_text": text(prefix + "help_text", corrected.get("help_text"),
                              question.help_text, max_length(Question, "help_text"), False),
        }
        fields = {key: value for key, value in fields.items() if value != getattr(question, key)}
        if fields:
            question_changes[question.pk] = fields
        if "labels" in corrected:
            label_changes |= _label_changes(question, corrected["labels"], errors, text)
    if errors:
        raise ValidationError(errors)
    return survey_changes, question_changes, label_changes


def _label_changes(
    question: Question, labels: object, errors: dict, text
) -> dict[int, tuple[str, str]]:
    """choice id -> (its form field, its corrected label), for the labels that differ.
    Refuses (raises) any change of their number or order, and of a yes/no question's
    labels."""
    current = question.labels()
    if not isinstance(labels, list) or len(labels) != len(current):
        raise _refuse_mechanism()
    if not question.question_kind.choices:  # the site's own answers
        if labels != current:
            raise _refuse_mechanism()
        return {}
    folded = [label.strip().casefold() if isinstance(label, str) else None for label in labels]
    was = [label.casefold() for label in current]
    for i, new in enumerate(folded):
        # An answer's label given to another answer that does not keep it: a reordering,
        # which would put the reports counted for one answer under the other's name. (One
        # that keeps it makes two answers alike: refused below.)
        if any(new == old != folded[j] for j, old in enumerate(was) if j != i):
            raise _refuse_mechanism()
    changed = {}
    seen = set()
    for i, (choice, label) in enumerate(zip(question.choices.all(), labels, strict=True)):
        field = f"q{question.pk}-label{i}"
        label = text(field, label, choice.label, max_length(Choice, "label"), True)
        key = label.strip().casefold()
        if key in seen:
            errors.setdefault(field, []).append(_("Each answer must be different."))
        seen.add(key)
        if label != choice.label:
            changed[choice.pk] = (field, label)
    return changed
