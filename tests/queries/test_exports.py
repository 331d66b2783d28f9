"""Exports: the randomized reports (CSV) with their metadata (JSON), and the estimates (CSV).

The round trip is the contract: re-estimating from the exported files alone, with
``ldp.from_spec``, gives the dashboard's numbers. Access control is in test_results.py.
"""

import csv
import io
import json
import subprocess

import numpy as np
import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from surveys import ldp
from surveys.actions.simulate import simulate_responses
from surveys.queries.results import ESTIMATE_COLUMNS, other_tools
from tests.helpers import SHAPES, submit, survey_of_every_encoding

pytestmark = pytest.mark.django_db

TRICKY_LABELS = ('Yes, often', 'He said "no"', "Two\nlines", "=SUM(A1)", "Ünïcödé ✓")


def download(client, name: str, survey) -> tuple[object, str]:
    response = client.get(reverse(name, args=[survey.pk]))
    assert response.status_code == 200
    if isinstance(response, StreamingHttpResponse):
        return response, b"".join(response.streaming_content).decode("utf-8")
    return response, response.content.decode("utf-8")


@pytest.mark.parametrize("shape", SHAPES)
def test_it_round_trips_the_reports_to_the_dashboards_numbers(
    client, researcher, make_survey, shape
):
    survey = make_survey(researcher, status="open", **SHAPES[shape])
    submit(survey, 120)
    client.force_login(researcher)
    _, text = download(client, "export-reports-csv", survey)
    _, metadata = download(client, "export-metadata", survey)
    rows = list(csv.DictReader(io.StringIO(text)))
    dashboard = client.get(reverse("survey-results-json", args=[survey.pk])).json()["questions"]
    assert len(rows) == 120
    for question, shown in zip(json.loads(metadata)["questions"], dashboard, strict=True):
        mechanism = ldp.from_spec(question["mechanism"])
        reports = np.array([[int(row[c]) for c in question["columns"]] for row in rows])
        if mechanism.encoding != "unary":
            reports = reports[:, 0]
        estimate = mechanism.estimate(mechanism.support_counts(reports), len(rows))
        assert question["labels"] == shown["labels"]
        assert [c["support_count"] for c in shown["categories"]] == estimate.counts.tolist()
        for key, numbers in [("estimate", estimate.headline), ("ci_low", estimate.ci_low),
                             ("ci_high", estimate.ci_high), ("consistent", estimate.consistent)]:
            assert [c[key] for c in shown["categories"]] == pytest.approx(
                numbers.tolist(), abs=1e-12)
        assert [c["small_sample"] for c in shown["categories"]] == estimate.small_sample.tolist()
        assert [c["unbiased"] for c in shown["categories"]] == pytest.approx(
            estimate.proportions.tolist(), abs=1e-12)
        assert [c["std_error"] for c in shown["categories"]] == pytest.approx(
            estimate.std_errors.tolist(), abs=1e-12)
        assert [c["mle"] for c in shown["categories"]] == pytest.approx(
            estimate.mle.tolist(), abs=1e-12)


def test_it_streams_one_row_per_submission_with_a_header(client, researcher, make_survey):
    survey = make_survey(researcher, status="open", **SHAPES["oue"])
    submit(survey, 7)
    client.force_login(researcher)
    response, text = download(client, "export-reports-csv", survey)
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="survey-{survey.pk}-reports.csv"'
    )
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert header == ["response", "q1", *(f"q2_{c}" for c in range(8)), "wording"]
    assert [row[0] for row in rows] == [str(i) for i in range(1, 8)]
    assert all(len(row) == len(header) and set(row[1:-1]) <= {"0", "1"} for row in rows)
    assert {row[-1] for row in rows} <= {"", "0"}


def test_it_exports_only_a_header_before_any_response(client, researcher, make_survey):
    survey = make_survey(researcher)
    client.force_login(researcher)
    _, text = download(client, "export-reports-csv", survey)
    assert text == "response,q1,q2,wording\r\n"
    _, estimates = download(client, "export-estimates-csv", survey)
    assert estimates == ",".join(ESTIMATE_COLUMNS) + "\r\n"


def test_it_describes_every_column_in_the_metadata(client, researcher, make_survey):
    survey = make_survey(researcher, status="open", labels=TRICKY_LABELS, epsilons=(1.0, 0.5))
    client.force_login(researcher)
    response, text = download(client, "export-metadata", survey)
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    metadata = json.loads(text)
    assert "reveals nothing" in metadata["privacy"]
    yes_no, categorical = metadata["questions"]
    assert yes_no["columns"] == ["q1"] and yes_no["labels"] == ["No", "Yes"]
    assert categorical["labels"] == list(TRICKY_LABELS)
    assert categorical["mechanism"] == survey.ordered_questions()[1].spec
    assert categorical["epsilon"] == 0.5
    assert (categorical["encoding"], categorical["columns"]) == ("index", ["q2"])
    assert ldp.from_spec(categorical["mechanism"]).k == len(TRICKY_LABELS)


def test_it_escapes_labels_in_the_estimates_csv(client, researcher, make_survey):
    survey = make_survey(researcher, status="open", labels=TRICKY_LABELS)
    truth = {q.pk: [1 / q.mechanism().k] * q.mechanism().k for q in survey.ordered_questions()}
    simulate_responses(survey, 200, truth, seed=5)
    client.force_login(researcher)
    response, text = download(client, "export-estimates-csv", survey)
    assert response["Content-Disposition"] == (
        f'attachment; filename="survey-{survey.pk}-estimates.csv"'
    )
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert header == ESTIMATE_COLUMNS
    assert [row[3] for row in rows] == ["No", "Yes", *TRICKY_LABELS]
    dashboard = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    shown = [c for q in dashboard["questions"] for c in q["categories"]]
    for row, category in zip(rows, shown, strict=True):
        record = dict(zip(header, row, strict=True))
        assert float(record["estimate"]) == category["estimate"]
        assert (float(record["ci_low"]), float(record["ci_high"])) == (
            category["ci_low"], category["ci_high"])
        assert float(record["consistent"]) == category["consistent"]
        assert record["small_sample"] == str(category["small_sample"])
        assert int(record["support_count"]) == category["support_count"]
        assert record["n"] == "200"
        assert (record["estimate_method"], record["interval_method"]) == (
            ldp.HEADLINE_METHOD, ldp.INTERVAL_METHOD)


def test_it_keeps_the_estimates_csvs_columns_in_their_places():
    """Scripts that read the estimates CSV by position keep working: new columns go last."""
    assert ESTIMATE_COLUMNS[:16] == [
        "question", "question_text", "answer_index", "answer", "n", "estimate", "ci_low",
        "ci_high", "support_count", "unbiased", "std_error", "unbiased_ci_low",
        "unbiased_ci_high", "mle", "mechanism", "epsilon",
    ]


R_DESIGNS = """
RRuni <- function(response, model, p) solve(p, tabulate(response + 1, nrow(p)) / length(response))
reports <- read.csv(commandArgs(trailingOnly = TRUE)[1])
calls <- readLines(commandArgs(trailingOnly = TRUE)[2])
for (call in calls) cat(sprintf("%.15g", with(reports, eval(parse(text = call)))), "\\n")
"""


def test_the_designs_for_other_tools_reproduce_the_unbiased_shares_in_r(
    client, researcher, make_survey, tmp_path, rscript
):
    """R evaluates each question's ``rrreg`` call as given, with RRuni standing for the
    moment estimator that RRreg's custom model starts from (the matrix's inverse applied to
    the shares of the reports): it gives the dashboard's unbiased shares, so the matrix is
    the right way round. For the yes/no question, rrlogit's pyes and pno give its law."""
    r = rscript("haven")
    survey = survey_of_every_encoding(make_survey, researcher)
    submit(survey, 80)
    client.force_login(researcher)
    _, text = download(client, "export-reports-csv", survey)
    _, metadata = download(client, "export-metadata", survey)
    described = json.loads(metadata)["questions"]
    assert [q["rrreg"] is None for q in described] == [False, True, False]
    (tmp_path / "reports.csv").write_text(text)
    calls = [q["rrreg"] for q in described if q["rrreg"]]
    (tmp_path / "calls.txt").write_text("\n".join(calls) + "\n")
    (tmp_path / "designs.R").write_text(R_DESIGNS)
    shown = subprocess.run(
        [r, str(tmp_path / "designs.R"), str(tmp_path / "reports.csv"),
         str(tmp_path / "calls.txt")], capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    dashboard = client.get(reverse("survey-results-json", args=[survey.pk])).json()["questions"]
    for line, position in zip(shown, (0, 2), strict=True):
        unbiased = [c["unbiased"] for c in dashboard[position]["categories"]]
        assert [float(x) for x in line.split()] == pytest.approx(unbiased, abs=1e-9)
    yes_no = ldp.from_spec(described[0]["mechanism"])
    pyes, pno = (float(part.split("(")[1].rstrip(")"))
                 for part in described[0]["rrlogit"].split())
    for share in (0.0, 0.3, 1.0):
        assert pyes + (1 - pyes - pno) * share == pytest.approx(
            (yes_no.matrix() @ [1 - share, share])[1], abs=1e-12)


def test_an_asymmetric_design_is_given_to_other_tools_the_right_way_round():
    """Forced response with alpha 0.6 and beta 0.3 (a "yes" forced less often than a "no"):
    a true "yes" is reported "yes" with p = 0.72, a true "no" reported "yes" with 0.12,
    so rrlogit's pyes is 0.12 and pno 0.28, and R's matrix lists column "true no" first."""
    design = other_tools(ldp.forced_response(alpha=0.6, beta=0.3), "q1")
    assert np.allclose(design["randomization_matrix"], [[0.88, 0.28], [0.12, 0.72]])
    by_column = design["rrreg"].split("matrix(c(")[1].split(")")[0]
    assert [float(x) for x in by_column.split(",")] == pytest.approx([0.88, 0.12, 0.28, 0.72])
    assert design["rrreg"].endswith("nrow = 2))")
    pyes, pno = (float(part.split("(")[1].rstrip(")")) for part in design["rrlogit"].split())
    assert (pyes, pno) == pytest.approx((0.12, 0.28))
