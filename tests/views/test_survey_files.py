"""Survey files: a survey's whole definition downloaded as JSON (every authored field, no ids,
owner, sharing or responses; with the same access as its pages, and API tokens), imported as
a new draft of the importer's (export, import, export: the same bytes), every bad file refused
with its reason and nothing stored; and an XLSForm imported as docs/survey-files.md says."""

import html
import io
import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import openpyxl
import pytest
from django.apps import apps
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from surveys.models import (
    ApiToken,
    Choice,
    PrivacyPolicy,
    Question,
    Survey,
    SurveyTranslation,
    survey_epsilon,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def full_survey(researcher) -> Survey:
    """A draft with every kind, every extra, a validation anchor, a number's range and bins,
    rating ends, three translations, a schedule, study information and consent."""
    PrivacyPolicy.objects.update_or_create(pk=1, defaults={"allow_mechanism_override": True})
    now = timezone.now().replace(microsecond=0)
    survey = Survey.objects.create(
        owner=researcher, title="Campus life", introduction="Thank you for taking part.",
        study_by="Department of Psychology", study_contact="study@example.org",
        ethics_reference="ERC-2026-17", consent_required=True, invitation_only=False,
        opens_at=now + timedelta(days=2), closes_at=now + timedelta(days=30),
        response_target=500, completion_url="https://example.org/done?cc=ABC",
        thank_you_message="Thanks!", language="en",
    )
    ask = {"survey": survey, "epsilon": 0.5}
    anchor = Question.objects.create(**ask, order=1, kind="yesno", text="Ever been to Mars?",
                                     known_share=0.0)
    faculty = Question.objects.create(
        **ask, order=2, kind="categorical", text="Your faculty?", help_text="Where you study.",
        mechanism_override="oue", used_for_breakdowns=True, offers_refusal=True,
    )
    rating = Question.objects.create(**ask, order=3, kind="rating", text="How stressed?",
                                     optional=True)
    checkall = Question.objects.create(**ask, order=4, kind="checkall", text="Which apply?",
                                       offers_refusal=True)
    Question.objects.create(
        **ask, order=5, kind="number", text="Hours of sleep?", number_min=0, number_max=12,
        number_decimals=1, number_bins="4, 6, 8", optional=True,
        asked_if=faculty, asked_if_answer=1,
    )
    for question, labels in [
        (faculty, ["Arts", "Science", "Law"]),
        (rating, ["Never", "2", "3", "4", "Always"]),
        (checkall, ["Drink", "Smoke", "Gamble"]),
    ]:
        Choice.objects.bulk_create(
            [Choice(question=question, order=i, label=label) for i, label in enumerate(labels)]
        )
    for language, title in [("es", "Vida"), ("fr", "Vie"), ("de", "Leben")]:
        SurveyTranslation.objects.create(survey=survey, language=language, texts={
            "title": title, "study_by": f"{title} dept.",
            "questions": {str(anchor.pk): {"text": f"{title}: Mars?"},
                          str(faculty.pk): {"labels": [f"{title} A", f"{title} S", f"{title} L"]}},
        })
    return survey


def export(client, survey: Survey, **headers) -> bytes:
    response = client.get(reverse("survey-file", args=[survey.pk]), **headers)
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="survey-{survey.pk}.json"'
    return response.content


def upload(client, content: bytes, name: str = "survey.json"):
    return client.post(reverse("survey-import"), {"file": SimpleUploadedFile(name, content)})


def row_counts() -> dict[str, int]:
    """Every model's rows (the app's and the accounts')."""
    configs = [apps.get_app_config("surveys"), apps.get_app_config("auth")]
    return {model.__name__: model.objects.count()
            for config in configs for model in config.get_models()}


def page_text(response) -> str:
    return html.unescape(response.content.decode())


# --- export -----------------------------------------------------------------------------------


def test_the_file_holds_every_authored_field_and_no_ids(client, researcher, full_survey):
    client.force_login(researcher)
    content = export(client, full_survey)
    data = json.loads(content)
    assert (data["format"], data["version"]) == ("private-surveys/survey", 1)
    assert data["survey"] == {
        "title": "Campus life", "introduction": "Thank you for taking part.", "language": "en",
        "study_by": "Department of Psychology", "study_contact": "study@example.org",
        "ethics_reference": "ERC-2026-17", "consent_required": True, "invitation_only": False,
        "opens_at": full_survey.opens_at.isoformat(),
        "closes_at": full_survey.closes_at.isoformat(),
        "response_target": 500, "completion_url": "https://example.org/done?cc=ABC",
        "thank_you_message": "Thanks!", "budget": None, "asked": None,
    }
    anchor, faculty, rating, checkall, number = data["questions"]
    assert [q["position"] for q in data["questions"]] == [1, 2, 3, 4, 5]
    assert [q["kind"] for q in data["questions"]] == [
        "yesno", "categorical", "rating", "checkall", "number"]
    assert anchor["known_share"] == 0.0 and anchor["answers"] == []
    assert faculty.items() >= {"mechanism_override": "oue", "used_for_breakdowns": True,
                             "offers_refusal": True, "answers": ["Arts", "Science", "Law"],
                             "help_text": "Where you study.", "epsilon": 0.5}.items()
    assert rating["answers"] == ["Never", "2", "3", "4", "Always"] and rating["optional"]
    assert checkall["answers"] == ["Drink", "Smoke", "Gamble"]
    assert number.items() >= {"number_min": 0, "number_max": 12, "number_decimals": 1,
                            "number_bins": "4, 6, 8", "optional": True,
                            "asked_if": {"question": 2, "answer": 1}}.items()
    assert all(q["frozen_mechanism"] is None for q in data["questions"])
    assert set(data["translations"]) == {"es", "fr", "de"}
    assert data["translations"]["fr"] == {
        "title": "Vie", "study_by": "Vie dept.",
        "questions": {"1": {"text": "Vie: Mars?"}, "2": {"labels": ["Vie A", "Vie S", "Vie L"]}},
    }
    text = content.decode()
    for private in ('"id"', '"pk"', '"owner"', '"public_id"', '"response_count"', "alice"):
        assert private not in text


def test_export_import_export_gives_the_same_bytes(client, researcher, full_survey):
    client.force_login(researcher)
    first = export(client, full_survey)
    response = upload(client, first)
    copy = Survey.objects.exclude(pk=full_survey.pk).get()
    assert response.status_code == 302 and response["Location"] == copy.get_absolute_url()
    assert copy.is_draft and copy.owner == researcher
    assert export(client, copy) == first
    assert copy.ordered_questions()[4].asked_if == copy.ordered_questions()[1]


def test_an_opened_survey_gives_its_frozen_mechanisms_for_information_only(
    client, researcher, make_survey
):
    survey = make_survey(researcher, status="open")
    client.force_login(researcher)
    data = json.loads(export(client, survey))
    assert data["questions"][0]["frozen_mechanism"] == survey.ordered_questions()[0].spec
    assert upload(client, json.dumps(data).encode()).status_code == 302
    copy = Survey.objects.exclude(pk=survey.pk).get()
    assert copy.is_draft and all(q.spec is None for q in copy.ordered_questions())


def test_another_researchers_survey_is_hidden_and_an_import_is_the_importers(
    client, researcher, other_researcher, full_survey
):
    client.force_login(other_researcher)
    assert client.get(reverse("survey-file", args=[full_survey.pk])).status_code == 404
    client.force_login(researcher)
    content = export(client, full_survey)
    client.force_login(other_researcher)
    assert upload(client, content).status_code == 302
    assert Survey.objects.get(owner=other_researcher).title == "Campus life"
    assert Survey.objects.filter(owner=researcher).count() == 1


def test_an_api_token_may_download_the_file(client, researcher, other_researcher, full_survey):
    _token, secret = ApiToken.issue(researcher, "script", 30)
    content = export(client, full_survey, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert json.loads(content)["survey"]["title"] == "Campus life"
    _token, other = ApiToken.issue(other_researcher, "script", 30)
    url = reverse("survey-file", args=[full_survey.pk])
    assert client.get(url, HTTP_AUTHORIZATION=f"Bearer {other}").status_code == 404
    assert client.get(url, HTTP_AUTHORIZATION="Bearer nope").status_code == 401


def test_the_import_page_needs_a_researcher(client, researcher):
    assert client.get(reverse("survey-import")).status_code == 302  # to sign in
    client.force_login(researcher)
    response = client.get(reverse("survey-import"))
    assert response.status_code == 200 and "Import a survey" in page_text(response)
    assert reverse("survey-import") in page_text(client.get(reverse("survey-list")))


# --- bad files --------------------------------------------------------------------------------


def good() -> dict:
    return {
        "format": "private-surveys/survey", "version": 1,
        "survey": {"title": "Tiny"},
        "questions": [
            {"kind": "categorical", "text": "Which?", "epsilon": 1, "answers": ["A", "B"]},
            {"kind": "yesno", "text": "Ever?", "epsilon": 1,
             "asked_if": {"question": 1, "answer": 0}},
        ],
        "translations": {},
    }


def changed(**parts) -> bytes:
    return json.dumps(good() | parts).encode()


def question(**fields) -> bytes:
    data = good()
    data["questions"][0] |= fields
    return json.dumps(data).encode()


def corrupt_xlsx() -> bytes:
    return b"PK\x03\x04 this is not really a workbook"


def workbook_bytes(workbook: openpyxl.Workbook) -> bytes:
    stream = io.BytesIO()
    workbook.save(stream)
    return stream.getvalue()


def long_xlsx() -> bytes:
    workbook = openpyxl.Workbook()
    workbook.active.title = "survey"
    workbook.active.append(("type", "name", "label"))
    for i in range(2001):
        workbook.active.append(("integer", f"q{i}", "How many?"))
    return workbook_bytes(workbook)


BAD_FILES = {
    "malformed JSON": (b'{"format": ', "json", "This file is not valid JSON"),
    "not UTF-8": (b"\xff\xfe{}", "json", "This file is not valid JSON"),
    "wrong format": (changed(format="something/else"), "json", "This is not a survey file"),
    "a list": (b"[1, 2]", "json", "This is not a survey file"),
    "wrong version": (changed(version=2), "json",
                      'A survey file\'s "version" must be the number 1, the version this site '
                      "reads; this file has 2."),
    "the version as text": (changed(version="1"), "json", 'this file has "1".'),
    "a time as a number": (changed(survey={"title": "T", "opens_at": 1767225600}), "json",
                           "The survey: “opens_at” must be a time written as text"),
    "a time of no day": (changed(survey={"title": "T", "opens_at": "2026-02-30T00:00:00Z"}),
                         "json", "it is \"2026-02-30T00:00:00Z\""),
    "nested 50,000 deep": (b"[" * 50_000 + b"]" * 50_000, "json", "nests lists and objects"),
    "nested past a survey file": (changed(survey={"title": "T", "x": [[[[[[[[[[1]]]]]]]]]]}),
                                  "json", "nests lists and objects 11 deep or more"),
    "a kind that is a list": (question(kind=["yesno"]), "json", "is not a kind of question"),
    "a number without a range, said": (question(kind="number", answers=[]), "json",
                                       "Question 1: A number question needs its smallest number."),
    "a bad completion link": (changed(survey={"title": "T", "completion_url": "nope"}), "json",
                              "The survey: Enter a valid URL."),
    "no questions list": (changed(questions={}), "json", 'needs "survey" (an object)'),
    "unknown kind": (question(kind="essay"), "json",
                     "Question 1: “essay” is not a kind of question this site has"),
    "epsilon above the cap": (question(epsilon=3.5), "json",
                              "Question 1: This site allows at most 3 per question."),
    "total above the cap": (
        changed(questions=[{"kind": "yesno", "text": f"Q{i}?", "epsilon": 1} for i in range(4)]),
        "json", "Question 4: With this question the survey would spend 4 in total, above the "
        "site's limit of 3 per survey, which its other questions already spend"),
    "epsilon not a number": (question(epsilon="lots"), "json", "Question 1: "),
    "too many questions": (
        changed(questions=[{"kind": "yesno", "text": "Q?", "epsilon": 0.01}] * 201),
        "json", "A survey can have at most 200 questions; this file has 201."),
    "too many answers": (question(answers=[f"A{i}" for i in range(101)]), "json",
                         "Question 1: a question can have at most 100 answers."),
    "one answer only": (question(answers=["A"]), "json",
                        "Question 1: A multiple-choice question needs at least two choices."),
    "answers not texts": (question(answers=[1, 2]), "json", '"answers" must be a list of texts'),
    "a condition on a later question": (
        question(asked_if={"question": 2, "answer": 0}), "json",
        'Question 1: "asked_if" must name an earlier question by its position (1 to 0)'),
    "an anchor that is optional": (
        changed(questions=[{"kind": "yesno", "text": "Mars?", "epsilon": 1, "known_share": 0,
                            "optional": True}]),
        "json", "Question 1: A validation anchor is asked of everyone"),
    "a number without a range": (
        question(kind="number", answers=[]), "json", "Question 1: "),
    "a bad contact": (changed(survey={"title": "T", "study_contact": "call me"}), "json",
                      "The survey: Enter an e-mail address"),
    "a bad language": (changed(translations={"it": {"title": "Ciao"}}), "json",
                       "Translation into “it”: "),
    "a translation of a missing question": (
        changed(translations={"es": {"questions": {"7": {"text": "¿?"}}}}), "json",
        "Translation into “es”: there is no question 7."),
    "closing before opening": (
        changed(survey={"title": "T", "opens_at": "2100-01-02T00:00:00+00:00",
                        "closes_at": "2100-01-01T00:00:00+00:00"}),
        "json", "The closing time must be after the opening time."),
    "a time that is not one": (changed(survey={"title": "T", "opens_at": "soon"}), "json",
                               "“opens_at” must be a time written as text, such as "
                               '"2026-09-01T08:00:00Z", or null; it is "soon".'),
    "too large": (b" " * (2 * 1024 * 1024 + 1), "json", "This file is larger than 2 MB"),
    "corrupt xlsx": (corrupt_xlsx(), "xlsx", "could not be read as an Excel workbook"),
    "an xlsx without a survey sheet": (workbook_bytes(openpyxl.Workbook()), "xlsx",
                                       "An XLSForm needs a sheet named “survey”."),
    "an xlsx too long": (long_xlsx(), "xlsx", "The sheet “survey” has more than 2000 rows"),
    "another kind of file": (b"hello", "txt", "Choose a survey file (.json) or an XLSForm"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_is_refused_with_its_reason_and_nothing_is_stored(client, researcher, case):
    content, extension, message = BAD_FILES[case]
    client.force_login(researcher)
    PrivacyPolicy.current()
    before = row_counts()
    response = upload(client, content, f"survey.{extension}")
    assert response.status_code == 400
    assert "Nothing was imported:" in page_text(response)
    assert message in page_text(response)
    reasons = response.context["form"].errors["file"]
    assert len(set(reasons)) == len(reasons)  # each said once
    assert row_counts() == before


def test_the_good_file_of_those_cases_imports(client, researcher):
    client.force_login(researcher)
    assert upload(client, json.dumps(good()).encode()).status_code == 302


def test_a_method_the_site_does_not_let_researchers_choose_is_left_out_and_said(
    client, researcher
):
    client.force_login(researcher)
    response = upload(client, question(mechanism_override="grr"), "survey.json")
    assert response.status_code == 302
    assert Question.objects.get(kind="categorical").mechanism_override == ""
    shown = page_text(client.get(response["Location"]))
    assert "Question 1: this site does not let researchers choose the randomization method" in shown


# --- XLSForm ----------------------------------------------------------------------------------


def xlsform() -> bytes:
    """An XLSForm with every kind this site has, a Spanish and an Italian column, a relevance
    condition, bounded numbers and types it does not have."""
    workbook = openpyxl.Workbook()
    survey = workbook.active
    survey.title = "survey"
    rows = [
        ("type", "name", "label::English (en)", "label::Español (es)", "label::Italiano (it)",
         "hint::English (en)", "required", "relevant", "constraint", "appearance"),
        ("start", "start", "", "", "", "", "", "", "", ""),
        ("deviceid", "deviceid", "", "", "", "", "", "", "", ""),
        ("note", "welcome", "Welcome to the study.", "", "", "", "", "", "", ""),
        ("begin group", "habits", "Habits", "", "", "", "", "", "", ""),
        ("select_one yn", "smoked", "Have you smoked?", "¿Ha fumado?", "Ha fumato?",
         "Be honest.", "yes", "", "", ""),
        ("select_one freq", "often", "How often?", "¿Con qué frecuencia?", "", "", "yes",
         "${smoked} = 'yes'", "", ""),
        ("select_one agree", "stress", "I feel stressed.", "Me siento estresado.", "", "", "",
         "", "", "likert"),
        ("end group", "", "", "", "", "", "", "", "", ""),
        ("select_multiple drugs", "drugs", "Which have you tried?", "", "", "", "", "", "", ""),
        ("integer", "age", "Your age?", "", "", "", "yes", "", ". >= 16 and . <= 99", ""),
        ("decimal", "hours", "Hours of sleep?", "", "", "", "", "", ".>=0 and .<=24", ""),
        ("integer", "children", "How many children?", "", "", "", "", "", "", ""),
        ("select_one freq", "complex", "Complex?", "", "", "", "",
         "${smoked} = 'yes' and ${age} > 18", "", ""),
        ("text", "name", "Your name?", "", "", "", "", "", "", ""),
        ("date", "born", "Date of birth?", "", "", "", "", "", "", ""),
        ("geopoint", "where", "Where are you?", "", "", "", "", "", "", ""),
        ("calculate", "double", "", "", "", "", "", "", "", ""),
    ]
    for row in rows:
        survey.append(row)
    choices = workbook.create_sheet("choices")
    choices.append(("list_name", "name", "label::English (en)", "label::Español (es)"))
    for row in [
        ("yn", "yes", "Yes", "Sí"), ("yn", "no", "No", "No"),
        ("freq", "daily", "Daily", "A diario"), ("freq", "weekly", "Weekly", "Cada semana"),
        ("freq", "rarely", "Rarely", "Raramente"),
        *[("agree", f"a{i}", label, f"es {label}") for i, label in enumerate(
            ["Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree"])],
        ("drugs", "cannabis", "Cannabis", ""), ("drugs", "mdma", "MDMA", ""),
        ("drugs", "lsd", "LSD", ""),
    ]:
        choices.append(row)
    form_settings = workbook.create_sheet("settings")
    form_settings.append(("form_title", "default_language"))
    form_settings.append(("Student habits", "English (en)"))
    return workbook_bytes(workbook)


def test_an_xlsform_imports_as_documented(client, researcher):
    client.force_login(researcher)
    response = upload(client, xlsform(), "habits.xlsx")
    assert response.status_code == 302
    survey = Survey.objects.get()
    assert (survey.title, survey.owner, survey.language) == ("Student habits", researcher, "en")
    assert survey.introduction == "Welcome to the study."
    questions = list(survey.ordered_questions())
    assert [(q.text, q.kind) for q in questions] == [
        ("Have you smoked?", "yesno"), ("How often?", "categorical"),
        ("I feel stressed.", "rating"), ("Which have you tried?", "checkall"),
        ("Your age?", "number"), ("Hours of sleep?", "number"), ("Complex?", "categorical"),
    ]
    smoked, often, stress, drugs, age, hours, complex_ = questions
    assert smoked.help_text == "Be honest." and not smoked.optional
    assert often.asked_if == smoked and often.asked_if_answer == 1  # "Yes"
    assert often.labels() == ["Daily", "Weekly", "Rarely"] and not often.optional
    assert stress.labels() == ["Strongly disagree", "2", "3", "4", "Strongly agree"]
    assert stress.optional and not drugs.optional
    assert (age.number_min, age.number_max, age.number_decimals) == (16, 99, 0)
    assert (hours.number_min, hours.number_max, hours.number_decimals) == (0, 24, 2)
    assert complex_.asked_if is None
    assert {q.epsilon for q in questions} == {0.42}  # the site's total of 3, shared by 7
    spanish = SurveyTranslation.objects.get(survey=survey).texts["questions"]
    assert SurveyTranslation.objects.get().language == "es"
    assert spanish[str(smoked.pk)]["text"] == "¿Ha fumado?"
    assert spanish[str(often.pk)]["labels"] == ["A diario", "Cada semana", "Raramente"]
    assert spanish[str(stress.pk)]["labels"] == [
        "es Strongly disagree", "2", "3", "4", "es Strongly agree"]
    shown = page_text(client.get(response["Location"]))
    for listed in [
        "The labels in Italiano (it) were not imported",
        "“start” (start): collects identifying or timing data, which this site never stores",
        "“deviceid” (deviceid): collects identifying or timing data",
        "“welcome” (note): a note: added to the survey's introduction",
        "“habits” (begin group): groups and repeats are not kept",
        "“children” (integer): a number question needs a range: add a constraint such as "
        ". >= 0 and . <= 30",
        "“complex” (select_one freq): its condition “${smoked} = 'yes' and ${age} > 18” was "
        "not kept",
        "“name” (text): free text could identify a respondent",
        "“born” (date): dates are not a kind of question this site has",
        "“where” (geopoint): a location identifies a respondent",
        "“double” (calculate): a calculation is not a question",
        "Each question got a privacy level (epsilon) of 0.42",
    ]:
        assert listed in shown


def test_the_example_of_the_documentation_imports(client, researcher):
    docs = Path(settings.BASE_DIR, "docs", "survey-files.md").read_text()
    example = docs.split("```json\n", 1)[1].split("```", 1)[0]
    client.force_login(researcher)
    assert upload(client, example.encode()).status_code == 302
    faculty, sleep = Survey.objects.get(title="Campus life").ordered_questions()
    assert faculty.labels() == ["Arts", "Science", "Law"] and faculty.used_for_breakdowns
    assert (sleep.asked_if, sleep.asked_if_answer, sleep.number_bins) == (faculty, 1, "4, 6, 8")
    assert SurveyTranslation.objects.get().texts["questions"][str(faculty.pk)]["labels"] == [
        "Letras", "Ciencias", "Derecho"]


def test_an_xlsforms_yes_no_and_languages_are_read_by_name_too(client, researcher):
    workbook = openpyxl.Workbook()
    workbook.active.title = "survey"
    for row in [
        ("type", "name", "label::Spanish", "label::English", "relevant"),
        ("select_one yn", "q1", "¿Ha fumado?", "Have you smoked?", ""),
        ("select_one yn", "q2", "¿Hoy?", "Today?", "selected(${q1}, '0')"),
    ]:
        workbook.active.append(row)
    choices = workbook.create_sheet("choices")
    for row in [("list_name", "name", "label::Spanish", "label::English"),
                ("yn", "1", "Sí", "Yes"), ("yn", "0", "No", "No")]:
        choices.append(row)
    workbook.create_sheet("settings").append(("default_language",))
    workbook["settings"].append(("English",))
    client.force_login(researcher)
    assert upload(client, workbook_bytes(workbook), "smoking.xlsx").status_code == 302
    survey = Survey.objects.get(title="smoking")
    smoked, today = survey.ordered_questions()
    assert (survey.language, smoked.text, smoked.kind) == ("en", "Have you smoked?", "yesno")
    assert (today.asked_if, today.asked_if_answer) == (smoked, 0)  # "0" is "No"
    spanish = SurveyTranslation.objects.get(survey=survey, language="es")
    assert spanish.texts["questions"][str(smoked.pk)] == {"text": "¿Ha fumado?", "help_text": ""}


LANGUAGES_OF = """
import sys
from unittest import mock
import django
django.setup()
from surveys.forms.xlsform import read_xlsform
from surveys.models import PrivacyPolicy
with mock.patch.object(PrivacyPolicy, "current", return_value=PrivacyPolicy()):
    for path in sys.argv[1:]:
        with open(path, "rb") as file:
            print(read_xlsform(file, "t")[0]["survey"]["language"])
"""
"""Reads the XLSForms named in its arguments and prints each one's main language (the policy
is the default one, without a database)."""


def test_an_xlsforms_main_language_is_its_first_label_column_under_any_hash_seed(tmp_path):
    paths = []
    for first, second in [("English (en)", "Español (es)"), ("Español (es)", "English (en)")]:
        workbook = openpyxl.Workbook()
        workbook.active.title = "survey"
        workbook.active.append(("type", "name", f"label::{first}", f"label::{second}"))
        workbook.active.append(("integer", "age", "Age?", "¿Edad?"))
        paths.append(tmp_path / f"{first[:2]}.xlsx")
        workbook.save(paths[-1])
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "surveysite.settings"}
    runs = [  # a set once chose the language: under some of these seeds, the wrong one
        subprocess.Popen([sys.executable, "-c", LANGUAGES_OF, *paths], stdout=subprocess.PIPE,
                         env=environment | {"PYTHONHASHSEED": str(seed)}, cwd=settings.BASE_DIR)
        for seed in range(4)
    ]
    languages = [run.communicate(timeout=120)[0].decode().split() for run in runs]
    assert languages == [["en", "es"]] * 4


def design_xlsform(budget: str, asked: str) -> bytes:
    """Four yes/no questions, the first always asked, with a design in the settings sheet."""
    workbook = openpyxl.Workbook()
    workbook.active.title = "survey"
    workbook.active.append(("type", "name", "label", "always_asked"))
    for number in range(1, 5):
        workbook.active.append(("select_one yn", f"q{number}", f"Q{number}?",
                                "yes" if number == 1 else ""))
    choices = workbook.create_sheet("choices")
    for row in [("list_name", "name", "label"), ("yn", "yes", "Yes"), ("yn", "no", "No")]:
        choices.append(row)
    form_settings = workbook.create_sheet("settings")
    form_settings.append(("form_title", "budget", "asked"))
    form_settings.append(("Designed", budget, asked))
    return workbook_bytes(workbook)


def test_an_xlsform_carries_a_design_in_its_settings_and_a_bad_one_stores_nothing(
    client, researcher
):
    client.force_login(researcher)
    assert upload(client, design_xlsform("3", "1"), "designed.xlsx").status_code == 302
    survey = Survey.objects.get()
    first, *drawn = survey.ordered_questions()
    assert (survey.budget, survey.asked, first.always_asked) == (3.0, 1, True)
    assert not any(q.always_asked for q in drawn)
    assert [q.epsilon for q in drawn] == pytest.approx([3.0 - first.epsilon] * 3)
    assert survey_epsilon(survey, [first, *drawn]) == pytest.approx(3.0)
    before = row_counts()
    for budget, asked, said in [("lots", "1", "needs both “budget”"), ("3", "", "needs both"),
                                ("3", "7", "from 1 to 3")]:
        refused = upload(client, design_xlsform(budget, asked), "designed.xlsx")
        assert refused.status_code == 400 and said in page_text(refused), (budget, asked)
    assert row_counts() == before
