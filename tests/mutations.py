"""Structure-aware mutations of the files a researcher uploads, for the importers' fuzz test
(tests/views/test_import_fuzz.py, a few cases) and benchmark (bench/bench_import_fuzz.py,
thousands): a valid survey file whose values, keys and list items are replaced, removed or
repeated, then sometimes cut short; and a valid XLSForm whose cells, rows, columns and
sheets are changed the same way. ``import_outcome`` sends one through the API and checks
that the answer is a new draft (201) or a refusal in words (400) that stored nothing."""

from __future__ import annotations

import io
import json
from typing import Any

import openpyxl
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import strategies as st

from surveys.queries.survey_files import QUESTION_FIELDS, SURVEY_FIELDS

SURVEY_FILE: dict[str, Any] = {
    "format": "private-surveys/survey", "version": 1,
    "survey": {"title": "Campus life", "language": "en", "opens_at": "2100-01-01T08:00:00Z",
               "closes_at": None, "response_target": 100, "completion_url": "",
               "consent_required": False},
    "questions": [
        {"kind": "categorical", "text": "Faculty?", "epsilon": 1, "answers": ["A", "S", "L"],
         "used_for_breakdowns": True},
        {"kind": "yesno", "text": "Ever?", "epsilon": 0.5, "offers_refusal": True,
         "asked_if": {"question": 1, "answer": 0}},
        {"kind": "number", "text": "Hours?", "epsilon": 0.5, "number_min": 0, "number_max": 12,
         "number_decimals": 0, "number_bins": "4, 8"},
        {"kind": "rating", "text": "Stress?", "epsilon": 0.5, "answers": ["Low", "2", "3", "4",
                                                                          "High"]},
        {"kind": "checkall", "text": "Which?", "epsilon": 0.5, "answers": ["X", "Y", "Z"]},
    ],
    "translations": {"es": {"title": "Vida", "questions": {
        "1": {"text": "¿Facultad?", "labels": ["Le", "Ci", "De"]}, "2": {"text": "¿Alguna?"}}}},
}
"""A valid survey file with every kind of question, a condition, a schedule and a
translation: the seed of every mutation."""

TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
"""Texts a workbook's cell can hold (openpyxl refuses control characters)."""

ODD_VALUES = st.sampled_from([
    None, True, False, 0, -1, 1, 2, 0.0, 0.005, 1e308, -1e308, float("nan"), float("inf"),
    2**63, -(2**64), "", "1", "yes", "2026-02-30T00:00:00Z", "2026-09-01T08:00:00",
    "not a time", [], {}, [[[[[[[[[[[[1]]]]]]]]]]]], "x" * 600, "é\u202e", 1767225600,
])
"""Values that have broken importers: types next to the expected one, limits, times."""

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT | ODD_VALUES,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=10,
)
FIELD_NAMES = st.sampled_from(
    [*SURVEY_FIELDS, *QUESTION_FIELDS, "answers", "asked_if", "question", "answer", "labels",
     "text", "questions", "format", "version", "survey", "translations"]
) | TEXT


def _places(value: Any, path: tuple = ()) -> list[tuple]:
    """The path of every value inside ``value`` (itself first)."""
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _places(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _places(child, (*path, index))
    return found


@st.composite
def survey_files(draw) -> bytes:
    """The seed survey file with one to four mutations, as bytes (sometimes cut short)."""
    document = json.loads(json.dumps(SURVEY_FILE))
    for _ in range(draw(st.integers(1, 4))):
        places = _places(document)
        path = draw(st.sampled_from(places))
        action = draw(st.sampled_from(["replace", "remove", "add", "repeat"]))
        if not path:  # the whole file
            document = draw(JSON_VALUES) if action == "replace" else document
            continue
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        if action == "replace":
            parent[last] = draw(JSON_VALUES)
        elif action == "remove":
            del parent[last]
        elif action == "add" and isinstance(parent[last], dict):
            parent[last][draw(FIELD_NAMES)] = draw(JSON_VALUES)
        elif action == "repeat" and isinstance(parent, list):
            parent.insert(last, json.loads(json.dumps(parent[last])))
    content = json.dumps(document, ensure_ascii=draw(st.booleans())).encode()
    if draw(st.integers(0, 9)) == 0:  # cut short, or a byte changed
        cut = draw(st.integers(0, len(content)))
        content = content[:cut] + draw(st.binary(max_size=2))
    return content


XLSFORM: dict[str, list[list[Any]]] = {
    "survey": [
        ["type", "name", "label::English (en)", "label::Español (es)", "hint::English (en)",
         "required", "relevant", "constraint", "appearance"],
        ["select_one yn", "smoked", "Have you smoked?", "¿Ha fumado?", "Be honest.", "yes",
         "", "", ""],
        ["select_one freq", "often", "How often?", "¿Con qué frecuencia?", "", "yes",
         "${smoked} = 'yes'", "", ""],
        ["select_one agree", "stress", "I feel stressed.", "Estresado.", "", "", "", "",
         "likert"],
        ["select_multiple freq", "when", "When?", "", "", "", "", "", ""],
        ["integer", "age", "Your age?", "¿Edad?", "", "yes", "", ". >= 16 and . <= 99", ""],
        ["decimal", "hours", "Hours of sleep?", "", "", "", "", ".>=0 and .<=24", ""],
        ["note", "welcome", "Welcome.", "", "", "", "", "", ""],
        ["begin group", "g", "Group", "", "", "", "", "", ""],
        ["end group", "", "", "", "", "", "", "", ""],
        ["text", "name", "Your name?", "", "", "", "", "", ""],
    ],
    "choices": [
        ["list_name", "name", "label::English (en)", "label::Español (es)"],
        ["yn", "yes", "Yes", "Sí"], ["yn", "no", "No", "No"],
        ["freq", "daily", "Daily", "A diario"], ["freq", "weekly", "Weekly", "Cada semana"],
        *[["agree", f"a{i}", f"Point {i}", f"Punto {i}"] for i in range(5)],
    ],
    "settings": [["form_title", "default_language"], ["Habits", "English (en)"]],
}
"""A valid XLSForm: the seed of every workbook mutation."""

CELLS = TEXT | st.integers(-(10**12), 10**12) | st.floats(allow_nan=False) | st.booleans() | \
    st.none() | st.sampled_from(["select_one", "select_one yn", "select_one nowhere",
                                 "select_multiple yn", "integer", "decimal", ". >= 5 and . <= 1",
                                 ". >= 0 and . <= 1e400", "label::Deutsch (de)", "label",
                                 "label::", "${smoked} = 'maybe'", "begin repeat", "likert"])


@st.composite
def xlsforms(draw) -> bytes:
    """The seed XLSForm with one to four mutations, as an .xlsx workbook's bytes."""
    sheets = {name: [list(row) for row in rows] for name, rows in XLSFORM.items()}
    for _ in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from(sorted(sheets)))
        rows = sheets[name]
        action = draw(st.sampled_from(["cell", "cell", "remove row", "repeat row", "swap columns",
                                       "rename sheet", "remove sheet"]))
        if action == "cell" and rows:
            row = draw(st.sampled_from(rows))
            row[draw(st.integers(0, len(row) - 1))] = draw(CELLS)
        elif action == "remove row" and rows:
            rows.pop(draw(st.integers(0, len(rows) - 1)))
        elif action == "repeat row" and rows:
            index = draw(st.integers(0, len(rows) - 1))
            rows.insert(index, list(rows[index]))
        elif action == "swap columns" and rows and len(rows[0]) > 1:
            first, second = draw(st.lists(st.integers(0, len(rows[0]) - 1), min_size=2,
                                          max_size=2, unique=True))
            for row in rows:
                if len(row) > max(first, second):
                    row[first], row[second] = row[second], row[first]
        elif action == "rename sheet":
            sheets[draw(TEXT.filter(lambda t: t.strip() and not set(t) & set("[]:*?/\\")))
                   [:31]] = sheets.pop(name)
        elif action == "remove sheet" and len(sheets) > 1:  # a workbook has a sheet
            del sheets[name]
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(row)
    stream = io.BytesIO()
    workbook.save(stream)
    return stream.getvalue()


def row_counts() -> dict[str, int]:
    """Every model's rows of the app."""
    return {model.__name__: model.objects.count()
            for model in apps.get_app_config("surveys").get_models()}


def import_outcome(api, content: bytes, name: str) -> int:
    """The status of importing ``content`` as the file ``name`` through the API with the
    client ``api`` (which sends a token of the write scope), once checked: 201 made one
    draft, 400 said why and stored nothing (any other status is returned unchecked)."""
    before = row_counts()
    response = api.post("/api/v1/surveys", {"file": SimpleUploadedFile(name, content)})
    after = row_counts()
    if response.status_code == 400:
        assert response["Content-Type"] == "application/json", "a refusal is JSON"
        assert response.json()["code"] in {"invalid_file", "invalid_request"}
        assert response.json()["error"], "a refusal says why"
        assert after == before, f"a refused file stored rows: {before} -> {after}"
    elif response.status_code == 201:
        assert after["Survey"] == before["Survey"] + 1
    return response.status_code
