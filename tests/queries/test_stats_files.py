"""The reports as labelled SPSS and Stata files: the same numbers as the CSV, with the
questions, answers and randomization inside; read back by pyreadstat and by R's haven."""

import csv
import io
import subprocess

import pyreadstat
import pytest
from django.urls import reverse

from surveys.queries.stats_files import STATA_LABEL_LENGTH
from tests.helpers import questions, submit, survey_of_every_encoding, survey_of_every_kind

pytestmark = pytest.mark.django_db

EXTENSIONS = ("sav", "dta")


def download(client, survey, extension: str, path) -> object:
    """The file saved at ``path``, and the response."""
    response = client.get(reverse("export-reports-file", args=[survey.pk, extension]))
    assert response.status_code == 200
    path.write_bytes(b"".join(response.streaming_content))
    return response


def csv_rows(client, survey) -> list[list[str]]:
    response = client.get(reverse("export-reports-csv", args=[survey.pk]))
    text = b"".join(response.streaming_content).decode("utf-8")
    return list(csv.reader(io.StringIO(text)))


@pytest.fixture
def answered(make_survey, researcher):
    survey = survey_of_every_encoding(make_survey, researcher)
    submit(survey, 40)
    return survey


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_it_holds_the_csvs_numbers_with_labels(client, researcher, answered, extension, tmp_path):
    client.force_login(researcher)
    path = tmp_path / f"reports.{extension}"
    response = download(client, answered, extension, path)
    assert response["Content-Disposition"] == (
        f'attachment; filename="survey-{answered.pk}-reports.{extension}"'
    )
    read = pyreadstat.read_sav if extension == "sav" else pyreadstat.read_dta
    frame, meta = read(str(path))
    header, *rows = csv_rows(client, answered)
    # The CSV's columns but its last, the wording version (blank where not recorded).
    assert header[-1] == "wording"
    header, rows = header[:-1], [row[:-1] for row in rows]
    assert list(frame.columns) == header
    assert frame.astype(int).astype(str).values.tolist() == rows
    labels = meta.column_names_to_labels
    yes_no, many, colours = questions(answered)
    assert yes_no.text in labels["q1"] and colours.text in labels["q3"]
    assert meta.variable_value_labels["q1"] == {0: "No", 1: "Yes"}
    assert meta.variable_value_labels["q3"] == {0: "Red", 1: "Green", 2: "Blue"}
    assert many.labels()[5] in labels["q2_5"]
    if extension == "dta":
        assert all(len(label) <= STATA_LABEL_LENGTH for label in labels.values())
        p = yes_no.mechanism().spec()["p"]
        assert f"p={p:.3f}" in labels["q1"]
    else:
        document = " ".join(meta.notes)  # lines of at most 80 bytes
        for question in (yes_no, many, colours):
            spec = question.mechanism().spec()
            assert f"{spec['p']:.6g}" in document and f"{spec['q']:.6g}" in document
            assert question.text in document


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_before_any_response_it_has_the_columns_and_no_rows(
    client, researcher, make_survey, extension, tmp_path
):
    survey = make_survey(researcher, status="open")
    client.force_login(researcher)
    path = tmp_path / f"reports.{extension}"
    download(client, survey, extension, path)
    read = pyreadstat.read_sav if extension == "sav" else pyreadstat.read_dta
    frame, meta = read(str(path))
    assert list(frame.columns) == ["response", "q1", "q2"] and len(frame) == 0
    assert meta.variable_value_labels["q2"] == {0: "Never", 1: "Once", 2: "Often"}


def test_another_researchers_survey_and_an_unknown_format_are_not_found(
    client, researcher, other_researcher, answered
):
    client.force_login(other_researcher)
    assert client.get(reverse("export-reports-file", args=[answered.pk, "sav"])).status_code == 404
    client.force_login(researcher)
    assert client.get(reverse("export-reports-file", args=[answered.pk, "xlsx"])).status_code == 404


R_READ = """
library(haven)
for (path in commandArgs(trailingOnly = TRUE)) {
  data <- if (grepl("sav$", path)) read_sav(path) else read_dta(path)
  cat(path, nrow(data), sum(data$q3), attr(data$q1, "label"), "\\n", sep = "|")
  cat(paste(names(attr(data$q3, "labels")), attr(data$q3, "labels"), collapse = ","), "\\n")
}
"""


def test_r_reads_both_files_with_their_labels(client, researcher, answered, tmp_path, rscript):
    """R's haven (what R users open SPSS and Stata files with) reads the rows, the variable
    labels and the value labels."""
    r = rscript("haven")
    client.force_login(researcher)
    paths = [tmp_path / f"reports.{extension}" for extension in EXTENSIONS]
    for extension, path in zip(EXTENSIONS, paths, strict=True):
        download(client, answered, extension, path)
    script = tmp_path / "read.R"
    script.write_text(R_READ)
    shown = subprocess.run(
        [r, str(script), *map(str, paths)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    header, *rows = csv_rows(client, answered)
    total = sum(int(row[header.index("q3")]) for row in rows)
    yes_no = questions(answered)[0]
    for (summary, labels), path in zip(zip(shown[::2], shown[1::2], strict=True), paths,
                                       strict=True):
        name, n, q3_total, q1_label, _ = summary.split("|")
        assert (name, int(n), int(q3_total)) == (str(path), 40, total)
        assert yes_no.text in q1_label
        assert labels.strip() == "Red 0,Green 1,Blue 2"


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_every_kind_opens_in_pandas_labelled_with_numbers_as_ranges(
    client, researcher, extension, tmp_path
):
    """A survey with every kind and path of question: pyreadstat finds a label on every
    variable, value labels on every one whose values stand for answers (all but the response
    number and a number's range), a number's report as the range its cell stands for, and
    each check-all report as one box's tick."""
    survey = survey_of_every_kind(researcher, 60)
    client.force_login(researcher)
    path = tmp_path / f"reports.{extension}"
    download(client, survey, extension, path)
    read = pyreadstat.read_sav if extension == "sav" else pyreadstat.read_dta
    frame, meta = read(str(path))
    assert len(frame) == 60
    assert all(meta.column_names_to_labels[name] for name in frame.columns)
    values = {"response", "q5_low", "q5_high", "q6_low", "q6_high"}
    assert set(meta.variable_value_labels) == set(frame.columns) - values
    for name, labels in meta.variable_value_labels.items():  # every value is named
        assert set(frame[name].dropna().astype(int)) <= set(labels), name
    assert meta.variable_value_labels["q1"] == {0: "No", 1: "Yes", 2: "No answer"}
    assert meta.variable_value_labels["q3"][5] == "Not asked"
    days, age = (q.mechanism() for q in questions(survey)[4:])
    labelled = frame.copy()
    for name in ("q5", "q6"):
        labelled[name] = frame[name].map(meta.variable_value_labels[name])
    for number, mechanism in (("q5", days), ("q6", age)):
        grid = frame[number] < mechanism.cells
        assert grid.any() and (~grid).any() == (number == "q6")
        low, high = frame[f"{number}_low"][grid], frame[f"{number}_high"][grid]
        assert (mechanism.low <= low).all() and (low <= high).all()
        assert (high <= mechanism.high).all()
        assert labelled[number][grid].tolist() == [
            f"{a:.0f}" if a == b else f"{a:.0f} to {b:.0f}" for a, b in zip(low, high,
                                                                           strict=True)]
        assert frame.loc[~grid, [f"{number}_low", f"{number}_high"]].isna().all(axis=None)
    assert set(labelled["q6"][frame["q6"] >= age.cells]) == {"No answer"}
    boxes = frame[[f"q4_{c}" for c in range(4)]]
    assert (boxes.notna().sum(axis=1) == 1).all()
    reported = boxes.to_numpy()[range(60), frame["q4_option"].astype(int)]
    assert reported.tolist() == frame["q4_ticked"].tolist()
