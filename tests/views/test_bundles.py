"""The results page's zipped downloads: each holds README.txt, which explains every file and
every column; "everything" runs as it is unzipped."""

import csv
import io
import os
import subprocess
import sys
import zipfile

import pytest
from django.urls import reverse

from surveys.queries.codebook import ESTIMATE_MEANINGS
from surveys.queries.results import ESTIMATE_COLUMNS
from surveys.views.figures import BUNDLES
from tests.helpers import survey_of_every_kind

pytestmark = pytest.mark.django_db


def test_the_estimates_columns_each_have_a_meaning():
    assert list(ESTIMATE_MEANINGS) == ESTIMATE_COLUMNS


def test_every_download_explains_each_column_and_everything_runs_unzipped(
    client, researcher, other_researcher, tmp_path
):
    survey = survey_of_every_kind(researcher, 50)
    client.force_login(researcher)
    prefix = f"survey-{survey.pk}"
    for name, files in BUNDLES.items():
        response = client.get(reverse("export-bundle", args=[survey.pk, name]))
        assert response.status_code == 200
        assert response["Content-Disposition"] == f'attachment; filename="{prefix}-{name}.zip"'
        archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
        names = set(archive.namelist())
        assert "README.txt" in names
        assert {f"{prefix}-{file}" for file in files if file != "ldp"} <= names
        readme = archive.read("README.txt").decode()
        assert all(f"{prefix}-{file}" in readme for file in files if file != "ldp")
        explained = {line for line in readme.splitlines() if line and not line[0].isspace()}
        if f"{prefix}-reports.csv" in names:
            header = next(csv.reader(io.StringIO(archive.read(f"{prefix}-reports.csv")
                                                 .decode())))
            assert {"q5_low", "q4_0", "wording"} <= set(header) <= explained
            assert "q5_low\n    Lowest number the reported cell stands for: Days?" in readme
        if f"{prefix}-estimates.csv" in names:
            assert set(ESTIMATE_COLUMNS) <= explained
    archive.extractall(tmp_path)  # the last: everything
    run = subprocess.run([sys.executable, f"{prefix}-estimates.py"], cwd=tmp_path,
                         capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    assert run.returncode == 0, run.stderr
    assert (tmp_path / f"{prefix}-estimates-redone.csv").exists()
    assert client.get(reverse("export-bundle", args=[survey.pk, "nothing"])).status_code == 404
    client.force_login(other_researcher)
    assert client.get(reverse("export-bundle", args=[survey.pk, "everything"])).status_code == 404
