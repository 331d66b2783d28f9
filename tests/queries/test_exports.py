"""Exports: the randomized reports (CSV) with their metadata (JSON), and the estimates (CSV).

The round trip is the contract: re-estimating from the exported files alone, with
``ldp.from_spec``, gives the dashboard's numbers. Access control is in test_results.py.
"""

import csv
import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from surveys import ldp
from surveys.actions.simulate import simulate_responses
from surveys.actions.surveys import open_survey
from surveys.kinds import RATING
from surveys.models import Choice, Question, Survey
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


def test_the_downloaded_python_script_redoes_every_estimate(
    client, researcher, make_survey, tmp_path
):
    """The results page's script, with ldp.zip and the two exports in one folder, run there
    (the site's own code out of reach: only the unzipped library folder), gives every
    question's estimates and intervals and the mean score and mean count, exactly as the
    estimates file and the JSON."""
    survey = make_survey(researcher, labels=("Never", "Once", "Often"), epsilons=(1.0, 0.5))
    scale = Question.objects.create(survey=survey, order=3, text="Scale?", kind="rating",
                                    epsilon=0.5)
    boxes = Question.objects.create(survey=survey, order=4, text="Which?", kind="checkall",
                                    epsilon=0.5)
    for question, labels in ((scale, RATING.scale_labels(5, "Low", "High")),
                             (boxes, ["Tea", "Coffee", "Water"])):
        for i, label in enumerate(labels):
            Choice.objects.create(question=question, order=i, label=label)
    open_survey(survey)
    answers = {q.pk: [0.2, 0.8] if q.kind == "yesno" else [0.6, 0.3, 0.1] if q.kind ==
               "categorical" else [0.1, 0.2, 0.4, 0.2, 0.1] if q.kind == "rating" else
               [0.5, 0.9, 0.1] for q in survey.ordered_questions()}
    simulate_responses(survey, 300, answers, seed=4)
    client.force_login(researcher)
    prefix = f"survey-{survey.pk}"
    for name, route, args in (
        (f"{prefix}-estimates.py", "export-redo-script", [survey.pk]),
        ("ldp.zip", "export-library", []),
        (f"{prefix}-reports.csv", "export-reports-csv", [survey.pk]),
        (f"{prefix}-metadata.json", "export-metadata", [survey.pk]),
    ):
        response = client.get(reverse(route, args=args))
        assert response.status_code == 200
        body = b"".join(response.streaming_content) if response.streaming else response.content
        (tmp_path / name).write_bytes(body)
    with zipfile.ZipFile(tmp_path / "ldp.zip") as archive:
        archive.extractall(tmp_path)
    subprocess.run([sys.executable, f"{prefix}-estimates.py"], cwd=tmp_path, check=True,
                   capture_output=True, env={"PATH": os.environ["PATH"]})  # not the site's path
    with open(tmp_path / f"{prefix}-estimates-redone.csv", encoding="utf-8") as file:
        redone = list(csv.DictReader(file))
    _, text = download(client, "export-estimates-csv", survey)
    site = list(csv.DictReader(io.StringIO(text)))
    assert len(redone) == len(site) == 2 + 3 + 5 + 3
    for mine, theirs in zip(redone, site, strict=True):
        assert (mine["question"], mine["answer_index"]) == (theirs["question"],
                                                             theirs["answer_index"])
        for key in ("estimate", "ci_low", "ci_high", "unbiased", "std_error"):
            assert float(mine[key]) == pytest.approx(float(theirs[key]), abs=1e-12)
    questions = client.get(reverse("survey-results-json", args=[survey.pk])).json()["questions"]
    for position, key in ((3, "mean_score"), (4, "mean_count")):
        row = next(r for r in redone if r["question"] == str(position))
        shown = questions[position - 1][key]
        assert [float(row[k]) for k in ("mean", "mean_ci_low", "mean_ci_high")] == (
            pytest.approx([shown["estimate"], shown["ci_low"], shown["ci_high"]], abs=1e-12))


def test_the_downloaded_r_script_redoes_every_estimate(
    client, researcher, make_survey, tmp_path, rscript
):
    """The results page's R script, with the reports and the metadata in one folder, run
    there with base R and jsonlite (nothing of the site's), gives every question's estimates
    and intervals, the mean score, the mean count and a number's mean, as the estimates file
    and the JSON show them, to 4 decimals: yes/no, GRR, OUE, a rating scale, a check-all
    question and a number question."""
    survey = make_survey(researcher, labels=("Never", "Once", "Often"), epsilons=(0.5, 0.5))
    many = Question.objects.create(survey=survey, order=3, text="Which city?",
                                   kind="categorical", epsilon=0.5)
    scale = Question.objects.create(survey=survey, order=4, text="Scale?", kind="rating",
                                    epsilon=0.5)
    boxes = Question.objects.create(survey=survey, order=5, text="Which?", kind="checkall",
                                    epsilon=0.5)
    for question, labels in ((many, [f"City {i}" for i in range(8)]),
                             (scale, RATING.scale_labels(5, "Low", "High")),
                             (boxes, ["Tea", "Coffee", "Water"])):
        for i, label in enumerate(labels):
            Choice.objects.create(question=question, order=i, label=label)
    Question.objects.create(survey=survey, order=6, text="Age?", kind="number",
                            epsilon=0.5, number_min=18, number_max=99, number_bins="30, 45, 65")
    open_survey(survey)
    encodings = [q.mechanism().encoding for q in survey.ordered_questions()]
    assert encodings == ["bit", "index", "unary", "index", "sampled", "number"]
    truth = {"yesno": [0.2, 0.8], "categorical": [0.6, 0.3, 0.1], "rating":
             [0.1, 0.2, 0.4, 0.2, 0.1], "checkall": [0.5, 0.9, 0.1],
             "number": [0.1, 0.4, 0.3, 0.2]}
    answers = {q.pk: truth[q.kind] for q in survey.ordered_questions()}
    answers[many.pk] = [0.3, 0.2, 0.15, 0.1, 0.1, 0.1, 0.05, 0.0]
    simulate_responses(survey, 300, answers, seed=4)
    client.force_login(researcher)
    prefix = f"survey-{survey.pk}"
    for name, route in ((f"{prefix}-estimates.R", "export-redo-r-script"),
                        (f"{prefix}-reports.csv", "export-reports-csv"),
                        (f"{prefix}-metadata.json", "export-metadata")):
        _, body = download(client, route, survey)
        (tmp_path / name).write_text(body, encoding="utf-8")
    script = (tmp_path / f"{prefix}-estimates.R").read_text(encoding="utf-8")
    assert f'PREFIX <- "{prefix}"' in script and f"Rscript {prefix}-estimates.R" in script
    run = subprocess.run([rscript("jsonlite"), f"{prefix}-estimates.R"], cwd=tmp_path,
                         capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    assert run.returncode == 0, run.stderr
    with open(tmp_path / f"{prefix}-estimates-redone-R.csv", encoding="utf-8") as file:
        redone = list(csv.DictReader(file))
    _, text = download(client, "export-estimates-csv", survey)
    site = list(csv.DictReader(io.StringIO(text)))
    assert len(redone) == len(site) == 2 + 3 + 8 + 5 + 3 + 4
    for mine, theirs in zip(redone, site, strict=True):
        assert [mine[key] for key in ("question", "answer_index", "answer")] == [
            theirs[key] for key in ("question", "answer_index", "answer")]
        for key in ("estimate", "ci_low", "ci_high", "unbiased", "std_error"):
            if theirs[key] == "":  # a number's bins have no interval
                assert mine[key] == ""
            else:
                assert float(mine[key]) == pytest.approx(float(theirs[key]), abs=5e-5), key
    questions = client.get(reverse("survey-results-json", args=[survey.pk])).json()["questions"]
    for position, shown in ((4, questions[3]["mean_score"]), (5, questions[4]["mean_count"]),
                            (6, questions[5]["number"]["mean"])):
        for row in (r for r in redone if r["question"] == str(position)):
            assert [float(row[k]) for k in ("mean", "mean_ci_low", "mean_ci_high")] == (
                pytest.approx([shown["estimate"], shown["ci_low"], shown["ci_high"]], abs=5e-5))
    assert all(row["mean"] == "" for row in redone if row["question"] in ("1", "2", "3"))


def test_the_r_script_redoes_the_shares_and_means_among_those_who_answered(
    client, researcher, tmp_path, rscript
):
    """With extra answers ("No answer", "Not asked"), the R script's means are those among
    the respondents who answered, and its second file their answers' shares with intervals,
    as the results page shows them, to 4 decimals: a yes/no question offering a refusal (GRR),
    an optional conditional rating scale (OUE), multiple choice, check-all and a number."""
    survey = Survey.objects.create(owner=researcher, title="Use")
    use = Question.objects.create(survey=survey, order=1, text="Used?", kind="yesno",
                                  epsilon=0.5, offers_refusal=True)
    often = Question.objects.create(survey=survey, order=2, text="How often?", kind="rating",
                                    epsilon=0.5, optional=True, asked_if=use,
                                    asked_if_answer=1)
    where = Question.objects.create(survey=survey, order=3, text="Where?",
                                    kind="categorical", epsilon=0.5, offers_refusal=True)
    which = Question.objects.create(survey=survey, order=4, text="Which?", kind="checkall",
                                    epsilon=0.5, offers_refusal=True)
    for question, labels in ((often, RATING.scale_labels(5, "Rarely", "Daily")),
                             (where, ["Home", "Party", "Street"]),
                             (which, ["Tea", "Coffee", "Water"])):
        for i, label in enumerate(labels):
            Choice.objects.create(question=question, order=i, label=label)
    age = Question.objects.create(survey=survey, order=5, text="Age?", kind="number",
                                  epsilon=0.5, number_min=18, number_max=99,
                                  number_bins="30, 45, 65", offers_refusal=True)
    open_survey(survey)
    assert [q.mechanism().encoding for q in survey.ordered_questions()] == [
        "index", "unary", "index", "sampled", "number"]
    simulate_responses(survey, 400, {
        use.pk: [0.5, 0.4, 0.1], often.pk: [0.1, 0.2, 0.2, 0.1, 0.1, 0.1, 0.2],
        where.pk: [0.4, 0.3, 0.2, 0.1], which.pk: [0.5, 0.8, 0.2, 0.1],
        age.pk: [0.2, 0.3, 0.2, 0.2, 0.1]}, seed=7)
    client.force_login(researcher)
    prefix = f"survey-{survey.pk}"
    for name, route in ((f"{prefix}-estimates.R", "export-redo-r-script"),
                        (f"{prefix}-reports.csv", "export-reports-csv"),
                        (f"{prefix}-metadata.json", "export-metadata")):
        (tmp_path / name).write_text(download(client, route, survey)[1], encoding="utf-8")
    run = subprocess.run([rscript("jsonlite"), f"{prefix}-estimates.R"], cwd=tmp_path,
                         capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    assert run.returncode == 0, run.stderr
    with open(tmp_path / f"{prefix}-estimates-redone-R.csv", encoding="utf-8") as file:
        redone = list(csv.DictReader(file))
    with open(tmp_path / f"{prefix}-among-answered-redone-R.csv", encoding="utf-8") as file:
        among = list(csv.DictReader(file))
    site = list(csv.DictReader(io.StringIO(download(client, "export-estimates-csv", survey)[1])))
    assert len(redone) == len(site) == 3 + 7 + 4 + 4 + 5
    for mine, theirs in zip(redone, site, strict=True):
        assert [mine[key] for key in ("question", "answer_index", "answer")] == [
            theirs[key] for key in ("question", "answer_index", "answer")]
        for key in ("estimate", "ci_low", "ci_high", "unbiased", "std_error"):
            if theirs[key] == "":
                assert mine[key] == ""
            else:
                assert float(mine[key]) == pytest.approx(float(theirs[key]), abs=5e-5), key
    questions = client.get(reverse("survey-results-json", args=[survey.pk])).json()["questions"]
    shown_among = [
        (q["position"], c["index"], q["among"]["answered"], c["estimate"], c["ci_low"],
         c["ci_high"]) for q in questions if q["among"] for c in q["among"]["categories"]]
    assert len(among) == len(shown_among) == 2 + 5 + 3 + 3
    for mine, theirs in zip(among, shown_among, strict=True):
        assert (int(mine["question"]), int(mine["answer_index"])) == theirs[:2]
        assert [float(mine[k]) for k in ("answered", "estimate", "ci_low", "ci_high")] == (
            pytest.approx(theirs[2:], abs=5e-5))
    for position, shown in ((2, questions[1]["mean_score"]), (4, questions[3]["mean_count"]),
                            (5, questions[4]["number"]["mean"])):
        for row in (r for r in redone if r["question"] == str(position)):
            assert [float(row[k]) for k in ("mean", "mean_ci_low", "mean_ci_high")] == (
                pytest.approx([shown["estimate"], shown["ci_low"], shown["ci_high"]], abs=5e-5))
