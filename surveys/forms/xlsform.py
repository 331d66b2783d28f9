"""Reading an XLSForm (https://xlsform.org, an ``.xlsx`` workbook) as a survey file's
definition (``surveys.queries.survey_files``), with what could not be imported and why.
docs/survey-files.md has the mapping.

The workbook is read with openpyxl in read-only mode: values only, no formula evaluated and
no macro run."""

from __future__ import annotations

import math
import re
from typing import IO, Any

import openpyxl
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import get_language_info, gettext, gettext_noop

from surveys import kinds
from surveys.helpers.numbers import epsilon as epsilon_text
from surveys.models import PrivacyPolicy, Question
from surveys.queries.survey_files import FORMAT, VERSION

GROUPS = {"begin group", "end group", "begin repeat", "end repeat",
          "begin_group", "end_group", "begin_repeat", "end_repeat"}
METADATA = {"start", "end", "today", "deviceid", "subscriberid", "simserial", "phonenumber",
            "username", "email", "audit", "imei", "start-geopoint", "background-audio"}
NOT_A_KIND = {
    "text": gettext_noop("free text could identify a respondent and cannot be randomized"),
    "date": gettext_noop("dates are not a kind of question this site has"),
    "time": gettext_noop("times are not a kind of question this site has"),
    "datetime": gettext_noop("dates and times are not a kind of question this site has"),
    "geopoint": gettext_noop("a location identifies a respondent and cannot be randomized here"),
    "geotrace": gettext_noop("a location identifies a respondent and cannot be randomized here"),
    "geoshape": gettext_noop("a location identifies a respondent and cannot be randomized here"),
    "calculate": gettext_noop("a calculation is not a question: it has no answer to randomize"),
    "hidden": gettext_noop("a hidden field is not a question: it has no answer to randomize"),
    "image": gettext_noop("pictures, sound, video and files cannot be randomized"),
    "audio": gettext_noop("pictures, sound, video and files cannot be randomized"),
    "video": gettext_noop("pictures, sound, video and files cannot be randomized"),
    "file": gettext_noop("pictures, sound, video and files cannot be randomized"),
    "barcode": gettext_noop("a scanned code is free text, which cannot be randomized"),
    "select_one_from_file": gettext_noop("choices read from another file are not imported"),
    "select_multiple_from_file": gettext_noop("choices read from another file are not imported"),
}
"""Why each XLSForm type this site has no kind for is not imported (translated when listed)."""

MAX_ROWS = 2000
MAX_COLUMNS = 200
"""The most rows a sheet and columns a row may have: a form fitting the site's limits of
questions and answers has far fewer."""

NUMBER = r"(-?\d+(?:\.\d+)?)"
RANGE = re.compile(
    rf"^\.\s*(>=|>)\s*{NUMBER}\s+and\s+\.\s*(<=|<)\s*{NUMBER}$", re.IGNORECASE
)
RANGE_REVERSED = re.compile(
    rf"^\.\s*(<=|<)\s*{NUMBER}\s+and\s+\.\s*(>=|>)\s*{NUMBER}$", re.IGNORECASE
)
EQUALS = re.compile(r"""^\$\{(\w+)\}\s*=\s*['"]([^'"]*)['"]$""")
SELECTED = re.compile(r"""^selected\(\s*\$\{(\w+)\}\s*,\s*['"]([^'"]*)['"]\s*\)$""")
LANGUAGE = re.compile(r"\(([A-Za-z-]+)\)\s*$")


def read_xlsform(file: IO[bytes], title: str) -> tuple[dict[str, Any], list[str]]:
    """The definition of a new survey from the XLSForm ``file`` (``title`` when its settings
    give none), and what of it was not imported, in sentences. Raises ValidationError for a
    file that is not a workbook with a "survey" sheet."""
    sheets = _sheets(file)
    if "survey" not in sheets:
        raise ValidationError(gettext("An XLSForm needs a sheet named “survey”."))
    form_settings = (sheets.get("settings") or [{}])[0]
    lists: dict[str, list[dict]] = {}
    for row in sheets.get("choices", []):
        lists.setdefault(row.get("list_name") or row.get("list name") or "", []).append(row)
    reader = _Reader(sheets["survey"], lists, form_settings)
    reader.read()
    definition = {
        "format": FORMAT,
        "version": VERSION,
        "survey": {
            "title": (form_settings.get("form_title") or title)[:200],
            "introduction": "\n\n".join(reader.notes_text),
            "language": reader.language,
            **reader.design,
        },
        "questions": reader.questions,
        "translations": reader.translations(),
    }
    return definition, reader.skipped


def _design(form_settings: dict[str, str]) -> dict[str, Any]:
    """The survey's design from the settings sheet's ``budget`` (the whole-survey epsilon)
    and ``asked`` (questions drawn at random per respondent) columns, as a survey file gives
    it; none (every question asked) when both are blank. ValidationError for one without
    the other or for text that is not a number."""
    budget, asked = (form_settings.get(name, "").strip() for name in ("budget", "asked"))
    if not budget and not asked:
        return {}
    try:
        found = {"budget": float(budget), "asked": int(asked)}
    except ValueError:
        found = None
    if found is None or not math.isfinite(found["budget"]):
        raise ValidationError(gettext(
            "The settings sheet's design needs both “budget” (the whole-survey epsilon, a "
            "number such as 3) and “asked” (how many questions each respondent answers, a "
            "whole number such as 2); it has “%(budget)s” and “%(asked)s”."
        ) % {"budget": budget[:20], "asked": asked[:20]})
    return found


def _sheets(file: IO[bytes]) -> dict[str, list[dict[str, str]]]:
    """Every sheet of the workbook as its rows, each a dict of its header's columns to the
    cells' text (empty rows left out)."""
    unreadable = ValidationError(gettext(
        "This file could not be read as an Excel workbook (.xlsx): it may be damaged, or "
        "saved in another format."
    ))
    try:
        workbook = openpyxl.load_workbook(file, read_only=True, data_only=True)
    except Exception:  # a corrupt workbook fails in many ways inside openpyxl and zipfile
        raise unreadable from None
    sheets = {}
    try:
        for sheet in workbook.worksheets:
            sheet.reset_dimensions()  # read the cells there are, whatever size the file claims
            rows = sheet.iter_rows(values_only=True, max_col=MAX_COLUMNS)
            header = [str(cell or "").strip() for cell in next(rows, ())]
            sheets[sheet.title.strip().lower()] = found = []
            for number, row in enumerate(rows, start=2):
                if any(_text(cell) for cell in row):
                    found.append(
                        {name: _text(cell) for name, cell in zip(header, row, strict=False) if name}
                    )
                if number > MAX_ROWS:
                    raise ValidationError(gettext(
                        "The sheet “%(sheet)s” has more than %(limit)d rows: no survey is that "
                        "large."
                    ) % {"sheet": sheet.title, "limit": MAX_ROWS})
    except ValidationError:
        raise
    except Exception:  # read-only mode parses each sheet as it is read: damage shows here
        raise unreadable from None
    finally:
        workbook.close()
    return sheets


def _text(cell: object) -> str:
    if isinstance(cell, float) and cell.is_integer():
        cell = int(cell)
    return "" if cell is None else str(cell).strip()


class _Reader:
    """One pass over the survey sheet, making questions in the survey file's shape."""

    def __init__(self, rows: list[dict], lists: dict[str, list[dict]], form_settings: dict):
        self.rows, self.lists = rows, lists
        self.questions: list[dict] = []
        self.skipped: list[str] = []
        self.notes_text: list[str] = []
        # A question's name: its position, itself, and its answers' names (to read conditions).
        self.by_name: dict[str, tuple[int, dict, list[str]]] = {}
        self.texts: dict[str, dict[str, dict]] = {}  # language code: position: texts
        self.design = _design(form_settings)
        # In the sheet's order: the main language is the first label column, on any server.
        columns = dict.fromkeys(name for row in rows for name in row)
        labels = [name.partition("::")[2] for name in columns if name.startswith("label::")]
        default = form_settings.get("default_language", "")
        main = default if default in labels else (labels[0] if labels and "label" not in columns
                                                   else "")
        self.main_column = f"label::{main}" if main else "label"
        self.language = _code(main) or settings.LANGUAGE_CODE
        if main and _code(main) not in dict(settings.LANGUAGES):
            self.skip(gettext(
                "The form's language, %(language)s, is not one of this site's: the survey is "
                "marked as English; change its language on its page."
            ) % {"language": main})
            self.language = settings.LANGUAGE_CODE
        self.other_languages = {}
        for name in sorted(set(labels) - {main}):
            code = _code(name)
            if code in dict(settings.LANGUAGES) and code != self.language:
                self.other_languages[name] = code
            else:
                self.skip(gettext(
                    "The labels in %(language)s were not imported: this site's languages are "
                    "%(languages)s."
                ) % {"language": name, "languages": ", ".join(n for _c, n in settings.LANGUAGES)})

    def skip(self, reason: str, row: dict | None = None) -> None:
        if row is not None:
            reason = gettext("“%(name)s” (%(type)s): %(reason)s") % {
                "name": row.get("name") or row.get(self.main_column) or "?",
                "type": row.get("type", ""),
                "reason": reason,
            }
        self.skipped.append(reason)

    def read(self) -> None:
        for row in self.rows:
            self.read_row(row)
        policy = PrivacyPolicy.current()
        epsilon = policy.default_epsilon
        if self.questions:
            share = math.floor(100 * policy.max_survey_epsilon / len(self.questions)) / 100
            epsilon = max(min(epsilon, share), 0.01)
        for question in self.questions:
            question["epsilon"] = epsilon
        if self.questions and self.design:
            self.skip(gettext(
                "Each question asked of every respondent got a privacy level (epsilon) of "
                "%(epsilon)s; the questions drawn at random share what is left of the budget "
                "of %(budget)s (the survey's “Budget and design” page shows how). Change them "
                "on each question's page."
            ) % {"epsilon": epsilon_text(epsilon), "budget": epsilon_text(self.design["budget"])})
        elif self.questions:
            self.skip(gettext(
                "Each question got a privacy level (epsilon) of %(epsilon)s: the site's default "
                "for a question, or less, so that the survey stays within the site's total of "
                "%(total)s. Change them on each question's page."
            ) % {"epsilon": epsilon_text(epsilon),
                 "total": epsilon_text(policy.max_survey_epsilon)})

    def read_row(self, row: dict) -> None:
        kind_name, _space, list_name = " ".join(row.get("type", "").split()).partition(" ")
        kind_name = kind_name.lower()
        if " ".join(row.get("type", "").lower().split()) in GROUPS or kind_name in GROUPS:
            if kind_name.startswith("begin"):
                self.skip(gettext(
                    "groups and repeats are not kept: their questions were imported one after "
                    "another, each asked once"
                ), row)
            return
        if kind_name == "note":
            self.notes_text.append(row.get(self.main_column, ""))
            self.skip(gettext("a note: added to the survey's introduction"), row)
            return
        if kind_name in METADATA:
            self.skip(gettext(
                "collects identifying or timing data, which this site never stores"
            ), row)
            return
        if kind_name in ("select_one", "select_multiple"):
            self.add_select(row, kind_name, list_name)
        elif kind_name in ("integer", "decimal"):
            self.add_number(row, kind_name)
        elif kind_name in NOT_A_KIND:
            self.skip(gettext(NOT_A_KIND[kind_name]), row)
        else:
            self.skip(gettext("not a kind of question this site has"), row)

    def add_select(self, row: dict, kind_name: str, list_name: str) -> None:
        list_name, _space, other = list_name.partition(" ")
        choices = self.lists.get(list_name)
        if not choices:
            self.skip(gettext("its list “%(list)s” is not in the choices sheet")
                      % {"list": list_name}, row)
            return
        if other:
            self.skip(gettext("its “other” answer with a text is not imported"), row)
        names = [choice.get("name", "") for choice in choices]
        labels = {column: [c.get(column) or c.get(self.main_column, "") for c in choices]
                  for column in [self.main_column, *self.other_languages_columns()]}
        values: dict[str, Any] = {"answers": labels[self.main_column]}
        yes_no = _yes_no(choices, self.main_column)
        if kind_name == "select_multiple":
            values["kind"] = kinds.CHECK_ALL.value
        elif yes_no:
            values |= {"kind": kinds.YES_NO.value, "answers": []}
            names = yes_no  # the site's answers, in its order
        elif "likert" in row.get("appearance", "") and len(choices) in kinds.SCALE_POINTS:
            values["kind"] = kinds.RATING.value
            for column, texts in labels.items():
                labels[column] = kinds.RATING.scale_labels(len(texts), texts[0], texts[-1])
            values["answers"] = labels[self.main_column]
        else:
            values["kind"] = kinds.CATEGORICAL.value
        if yes_no:
            labels = {}
        self.add(row, values, [n.casefold() for n in names], labels)

    def add_number(self, row: dict, kind_name: str) -> None:
        bounds = _bounds(row.get("constraint", ""), whole=kind_name == "integer")
        if bounds is None:
            self.skip(gettext(
                "a number question needs a range: add a constraint such as . >= 0 and . <= 30"
            ), row)
            return
        values = {
            "kind": kinds.NUMBER.value, "answers": [],
            "number_min": bounds[0], "number_max": bounds[1],
            "number_decimals": 0 if kind_name == "integer" else 2,
        }
        self.add(row, values, [], {}, constraint_used=True)

    def other_languages_columns(self) -> list[str]:
        return [f"label::{name}" for name in self.other_languages]

    def add(self, row: dict, values: dict, answer_names: list[str], labels: dict,
            constraint_used: bool = False) -> None:
        """Question from ``row`` with ``values`` (its kind and answers), if its kind finds
        nothing wrong with it; its condition if it has a simple one."""
        kind = kinds.KINDS[values["kind"]]
        required = _true(row.get("required", ""))
        question = {
            "text": row.get(self.main_column, "")[:500] or row.get("name", ""),
            "help_text": row.get(self.hint_column(), "")[:500],
            "optional": kind.extras and kind.skippable and not required,
            "always_asked": _true(row.get("always_asked", "")),
            **values,
        }
        fields = {name: question.get(name) for name in ("kind", "optional", "number_min",
                                                         "number_max", "number_decimals")}
        problems = Question(**fields, epsilon=1).kind_problems(values["answers"])
        if problems:
            self.skip(" ".join(p for found in problems.values() for p in found), row)
            return
        if row.get("constraint") and not constraint_used:
            self.skip(gettext("its constraint was not kept (imported without it)"), row)
        question["asked_if"] = self.condition(row, kind)
        self.questions.append(question)
        position = len(self.questions)
        question["position"] = position
        if row.get("name"):
            self.by_name[row["name"]] = (position, question, answer_names)
        for name, code in self.other_languages.items():
            texts = {"text": row.get(f"label::{name}", ""),
                     "help_text": row.get(f"hint::{name}", "")}
            if labels.get(f"label::{name}") and kind.choices:
                texts["labels"] = labels[f"label::{name}"]
            self.texts.setdefault(code, {})[str(position)] = texts

    def hint_column(self) -> str:
        return self.main_column.replace("label", "hint", 1)

    def condition(self, row: dict, kind: kinds.QuestionKind) -> dict | None:
        """The question's condition from its "relevant" column, if it is a simple one."""
        relevant = row.get("relevant", "")
        if not relevant:
            return None
        match = EQUALS.match(relevant) or SELECTED.match(relevant)
        earlier = match and self.by_name.get(match.group(1))
        answer = match.group(2).casefold() if match else ""
        if not (kind.extras and earlier and kinds.KINDS[earlier[1]["kind"]].groups
                and earlier[1]["asked_if"] is None and answer in earlier[2]):
            self.skip(gettext(
                "its condition “%(relevant)s” was not kept: only “${question} = 'answer'” on an "
                "earlier question asked of everyone with one answer is; it is asked of everyone"
            ) % {"relevant": relevant}, row)
            return None
        return {"question": earlier[0], "answer": earlier[2].index(answer)}

    def translations(self) -> dict[str, dict]:
        return {code: {"questions": texts} for code, texts in self.texts.items()}


def _true(cell: str) -> bool:
    """Whether a yes/no column's cell says yes, as XLSForm writes it."""
    return cell.strip().lower() in ("yes", "true", "true()", "1")


def _code(language: str) -> str:
    """A language's code from an XLSForm language name: “Español (es)”, “es-ES”, or a site
    language's name in English or in itself (“Spanish”, “Español”); "" for another."""
    match = LANGUAGE.search(language)
    if match:
        return match.group(1).lower().split("-")[0]
    name = language.strip().casefold()
    for code, native in settings.LANGUAGES:
        if name in (code, native.casefold(), get_language_info(code)["name"].casefold()):
            return code
    return name.split("-")[0] if name.split("-")[0] in dict(settings.LANGUAGES) else ""


def _yes_no(choices: list[dict], column: str) -> list[str] | None:
    """The names of a list's "no" and "yes" (in the site's order of a yes/no question's
    answers) when its choices are exactly yes and no, by name or by label; else None."""
    for key in ("name", column):
        values = [choice.get(key, "").casefold() for choice in choices]
        if sorted(values) == ["no", "yes"]:
            by_value = dict(zip(values, choices, strict=True))
            return [by_value[answer].get("name", "").casefold() for answer in ("no", "yes")]
    return None


def _bounds(constraint: str, *, whole: bool) -> tuple[float, float] | None:
    """The range ``. >= a and . <= b`` of a number question's constraint (either order; a
    strict bound of a whole number moved by 1), or None."""
    constraint = " ".join(constraint.split())
    match = RANGE.match(constraint)
    if match:
        low_op, low, high_op, high = match.groups()
    else:
        match = RANGE_REVERSED.match(constraint)
        if not match:
            return None
        high_op, high, low_op, low = match.groups()
    low_value, high_value = float(low), float(high)
    if whole:
        low_value += low_op == ">"
        high_value -= high_op == "<"
    return low_value, high_value
