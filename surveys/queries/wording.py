"""A survey's texts in one language: its translation's where given, its main language's else.

Every page and export that shows a survey's texts in a language takes them from here, so the
fallback is the same everywhere: per text (each label on its own), a missing or blank
translation gives the main language's text (``Survey.language``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from surveys.models import STUDY_TEXTS, Question, Survey


def wording(survey: Survey, questions: Iterable[Question], language: str) -> dict[str, Any]:
    """The texts of ``survey`` and of its already-fetched ``questions`` (with their choices,
    as ``Survey.ordered_questions`` gives them) in ``language``, as ``translate`` returns them.

    One query (the translation) at most; none when ``language`` is the main one.
    """
    texts = None
    if language != survey.language:
        found = survey.translations.filter(language=language).values_list("texts", flat=True)
        texts = found.first()
    return translate(survey, questions, language, texts)


def translate(
    survey: Survey, questions: Iterable[Question], language: str, texts: object
) -> dict[str, Any]:
    """``wording`` from a translation's ``texts`` already at hand (``SurveyTranslation``),
    without a query: ``{"lang", "title", "introduction", "introduction_lang", "study_by",
    "study_by_lang", "study_contact", "study_contact_lang", "ethics_reference",
    "ethics_reference_lang", "questions": {question.pk: {"lang", "text", "help_text",
    "help_text_lang", "labels", "label_langs"}}}``.

    Each text is the translation's when it is given and not blank, the main language's
    otherwise. A yes/no question's answers are the site's own words in ``language``
    ("No", "Yes" in its catalogue), as the page's buttons are: they are not translated per
    survey. ``lang`` is the language of the title (of a question: of its text), and the
    other ``..._lang`` keys that of the text they name (``label_langs``: one per label), so
    that pages can mark any text left in the main language with its own language.
    """

    def pick(translated: object, main: str) -> tuple[str, str]:
        if isinstance(translated, str) and translated.strip():
            return translated, language
        return main, survey.language

    texts = _object(texts)
    title, title_lang = pick(texts.get("title"), survey.title)
    introduction, introduction_lang = pick(texts.get("introduction"), survey.introduction)
    about = {}
    for name in STUDY_TEXTS:
        about[name], about[f"{name}_lang"] = pick(texts.get(name), getattr(survey, name))
    translated_questions = _object(texts.get("questions"))
    described = {}
    for question in questions:
        given = _object(translated_questions.get(str(question.pk)))
        text, text_lang = pick(given.get("text"), question.text)
        help_text, help_text_lang = pick(given.get("help_text"), question.help_text)
        given_labels = given.get("labels")
        given_labels = given_labels if isinstance(given_labels, list) else []
        if not question.question_kind.choices:  # the site's own answers, in its language
            labels = [(label, language) for label in question.question_kind.answers_in(language)]
        else:
            labels = [
                pick(given_labels[i] if i < len(given_labels) else None, main)
                for i, main in enumerate(question.labels())
            ]
        described[question.pk] = {
            "lang": text_lang,
            "text": text,
            "help_text": help_text,
            "help_text_lang": help_text_lang,
            "labels": [label for label, _ in labels],
            "label_langs": [lang for _, lang in labels],
        }
    return {
        "lang": title_lang,
        "title": title,
        "introduction": introduction,
        "introduction_lang": introduction_lang,
        **about,
        "questions": described,
    }


def _object(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: texts stored some other way than
    through ``validate_translation_texts`` never break a page."""
    return value if isinstance(value, dict) else {}
