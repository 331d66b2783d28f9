"""The wordings respondents saw: every text of an opened survey, kept as a revision each time
it changes, and the corrections an opened survey's texts may receive.

Once a survey opens, its questions, choices, epsilons and mechanisms are frozen (reports were
randomized with them), but its texts may still be corrected: the title, the introduction,
each question's text and help text, and each answer's label (``correct``), and its
translations. Every wording is kept as a ``WordingRevision``, from the first, taken when the
survey opens (``on_open``); a survey opened before revisions were kept gets its first one,
dated from its opening, just before its wording first changes (``baseline``). Drafts have
none: no respondent has seen their wording yet.

A snapshot (``snapshot``, a revision's ``texts``)::

    {"language": "en", "title": str, "introduction": str,
     "study_by": str, "study_contact": str, "ethics_reference": str,
     "questions": [{"id": int, "text": str, "help_text": str, "labels": [str, ...]}, ...],
     "translations": {"es": SurveyTranslation.texts, ...}}

with the questions in their order (the n-th is the one at position n in the exports). The
texts about the study are there only when given (wordings kept before surveys had them have
none).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from surveys.helpers.languages import language_name
from surveys.models import (
    STUDY_TEXTS,
    Survey,
    WordingRevision,
)


def snapshot(survey: Survey) -> dict[str, Any]:
    """Every text of ``survey`` as respondents may see it: the main language's, and each
    translation's ``texts`` as stored (see the module's docstring)."""
    return {
        "language": survey.language,
        "title": survey.title,
        "introduction": survey.introduction,
        **{name: getattr(survey, name) for name in STUDY_TEXTS if getattr(survey, name)},
        "questions": [
            {
                "id": question.pk,
                "text": question.text,
                "help_text": question.help_text,
                "labels": question.labels(),
            }
            for question in survey.ordered_questions()
        ],
        "translations": {
            language: texts
            for language, texts in survey.translations.order_by("language").values_list(
                "language", "texts"
            )
        },
    }


def latest(survey: Survey) -> WordingRevision | None:
    return survey.revisions.order_by("-created_at", "-pk").first()


def responses(survey: Survey, revisions: list[WordingRevision]) -> list[int | None]:
    """How many responses came under each of ``revisions`` (the survey's, oldest first):
    those stored from when it began until the next one did (a respondent who opened the page
    before a correction and sent after it counts under the new wording). None where it is
    not known (revisions kept before their responses were counted)."""
    befores = [revision.responses_before for revision in revisions] + [survey.response_count]
    return [
        None if start is None or end is None else end - start
        for start, end in zip(befores[:-1], befores[1:], strict=True)
    ]


def summary(survey: Survey) -> dict[str, Any]:
    """``count``: the wordings respondents saw, those under which responses came (or may
    have: not known) and the current one; a correction or translation saved before anyone
    answered does not count. ``latest``: when the current one began (None without any);
    ``responses``: how many came under it (None if not known, or without any). One query;
    none for a draft, which has none."""
    if survey.is_draft:
        return {"count": 0, "latest": None, "responses": None}
    revisions = list(survey.revisions.order_by("created_at", "pk").only(
        "created_at", "responses_before"
    ))
    if not revisions:
        return {"count": 0, "latest": None, "responses": None}
    counts = responses(survey, revisions)
    seen = sum(1 for count in counts[:-1] if count != 0) + 1
    return {"count": seen, "latest": revisions[-1].created_at, "responses": counts[-1]}


def wordings(survey: Survey) -> list[dict[str, Any]]:
    """The wordings respondents saw, oldest first, for the metadata export: ``from`` and
    ``until`` (ISO 8601 date-times; ``until`` is None for the current one), ``responses``
    (``responses``), ``version`` (the wording version a submission's ``wording`` names, the
    reports CSV's ``wording`` column; None for revisions kept before it was recorded) and
    ``texts`` (a snapshot). An opened survey without revisions (opened before they were
    kept, and never corrected since) has one: its wording now, from its opening. A draft has
    none."""
    revisions = list(survey.revisions.order_by("created_at", "pk"))
    if not revisions:
        if survey.is_draft:
            return []
        opened = survey.opened_at.isoformat() if survey.opened_at else None
        return [{"from": opened, "until": None, "responses": survey.response_count,
                 "version": survey.wording_version, "texts": snapshot(survey)}]
    ends = [revision.created_at.isoformat() for revision in revisions[1:]] + [None]
    return [
        {"from": revision.created_at.isoformat(), "until": until, "responses": count,
         "version": revision.version, "texts": revision.texts}
        for revision, until, count in zip(
            revisions, ends, responses(survey, revisions), strict=True
        )
    ]


def recorded_responses(survey: Survey) -> dict[int | None, int]:
    """Wording version -> how many submissions recorded it (``Submission.wording``; None:
    stored before it was recorded), in one grouped query."""
    rows = survey.submissions.order_by().values_list("wording").annotate(n=Count("pk"))
    return dict(rows)


def history(survey: Survey) -> list[dict[str, Any]]:
    """The revisions, newest first, each with ``revision``, ``until`` (when the next one
    began; None for the current one), ``current``, ``responses`` (``responses``),
    ``recorded`` (how many submissions recorded this wording's version: its respondents'
    pages showed it; None for revisions kept before versions were), ``first``
    and ``changes`` (``changes`` from the previous one; empty for the first)."""
    revisions = list(survey.revisions.order_by("created_at", "pk").select_related("author"))
    counts = responses(survey, revisions)
    recorded = recorded_responses(survey)
    entries = []
    for i, revision in enumerate(revisions):
        following = revisions[i + 1] if i + 1 < len(revisions) else None
        entries.append({
            "revision": revision,
            "until": following.created_at if following else None,
            "current": following is None,
            "responses": counts[i],
            "recorded": None if revision.version is None else recorded.get(revision.version, 0),
            "first": i == 0,
            "changes": changes(revisions[i - 1].texts, revision.texts) if i else [],
        })
    return entries[::-1]


def changes(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, str]]:
    """What differs between two snapshots, text by text: ``what`` (in words: "Question 2,
    answer 3", "Español: Title"), ``old`` and ``new`` ("" where there was none)."""
    before, after = _flatten(old), _flatten(new)
    found = []
    for key in list(after) + [key for key in before if key not in after]:
        what, was = before.get(key, ("", ""))
        label, now = after.get(key, (what, ""))
        if was != now:
            found.append({"what": label, "old": was, "new": now})
    return found


def _flatten(texts: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """key -> (what it is, in words; its text), for every text of a snapshot."""
    flat: dict[str, tuple[str, str]] = {
        "language": (_("Main language"), str(texts.get("language", ""))),
    }
    positions = {}

    def add(prefix: str, where: str, values: dict[str, Any], ids) -> None:
        flat[f"{prefix}title"] = (where + _("Title"), _text(values.get("title")))
        flat[f"{prefix}introduction"] = (
            where + _("Introduction"), _text(values.get("introduction"))
        )
        for text in STUDY_TEXTS:
            flat[f"{prefix}{text}"] = (
                where + capfirst(Survey._meta.get_field(text).verbose_name),
                _text(values.get(text)),
            )
        for pk, question in ids:
            n = positions.setdefault(str(pk), len(positions) + 1)
            name = _("Question %(n)d") % {"n": n}
            question = question if isinstance(question, dict) else {}
            flat[f"{prefix}q{pk}-text"] = (where + name, _text(question.get("text")))
            flat[f"{prefix}q{pk}-help_text"] = (
                where + _("%(question)s, help text") % {"question": name},
                _text(question.get("help_text")),
            )
            labels = question.get("labels")
            for i, label in enumerate(labels if isinstance(labels, list) else []):
                flat[f"{prefix}q{pk}-label{i}"] = (
                    where + _("%(question)s, answer %(n)d") % {"question": name, "n": i + 1},
                    _text(label),
                )

    add("", "", texts, [(q.get("id"), q) for q in texts.get("questions", [])])
    for language, translated in sorted((texts.get("translations") or {}).items()):
        translated = translated if isinstance(translated, dict) else {}
        questions = translated.get("questions")
        questions = questions if isinstance(questions, dict) else {}
        ordered = sorted(questions.items(), key=lambda item: positions.get(str(item[0]), 10**9))
        add(f"{language}:", f"{language_name(language)}: ", translated, ordered)
    return flat


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


