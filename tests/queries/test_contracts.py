"""The JSON contracts (surveys.queries.contracts): the results, breakdown and metadata JSON
have exactly the fields their TypedDicts declare, and the docs name every one."""

import re
from pathlib import Path
from typing import get_type_hints

import pytest
from typing_extensions import is_typeddict  # the contracts' TypedDict is typing_extensions'

from surveys.actions.simulate import simulate_responses
from surveys.queries import contracts
from surveys.queries.breakdowns import breakdown_results
from surveys.queries.results import export_metadata, survey_results
from tests.helpers import assert_shape

DOCS = Path(__file__).resolve().parents[2] / "docs"

DOCUMENTED_IN = {
    "results-api.md": [
        contracts.SurveyResults, contracts.SurveySummary, contracts.Wordings,
        contracts.Methods, contracts.Method, contracts.QuestionResults,
        contracts.CategoryResults, contracts.BreakdownResults, contracts.BreakdownSurvey,
        contracts.BreakdownQuestion, contracts.Group, contracts.GroupAnswer,
        contracts.Difference, contracts.DifferenceAnswer, contracts.Association,
        contracts.BreakdownMethods, contracts.MeanScore, contracts.QuestionMeanScore,
        contracts.Anchor, contracts.Among, contracts.AmongCategory, contracts.NumberResults,
        contracts.StratifiedResults, contracts.Stratum, contracts.StratifiedMethods,
        contracts.RegressionResults, contracts.RegressionOutcome, contracts.RegressionPredictor,
        contracts.RegressionCoefficient, contracts.RegressionPrediction,
    ],
    "exports.md": [contracts.Metadata, contracts.MetadataSurvey, contracts.QuestionMetadata],
}


def test_every_contract_is_in_a_doc():
    declared = {value for value in vars(contracts).values() if is_typeddict(value)}
    assert declared == {shape for shapes in DOCUMENTED_IN.values() for shape in shapes}


@pytest.mark.parametrize("doc,shape", [
    (doc, shape) for doc, shapes in DOCUMENTED_IN.items() for shape in shapes
], ids=lambda value: getattr(value, "__name__", value))
def test_the_docs_name_every_field(doc, shape):
    text = (DOCS / doc).read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z_]+)`", text)) | set(re.findall(r'"([a-z_]+)":', text))
    missing = set(get_type_hints(shape)) - named
    assert not missing, f"{doc} does not name {sorted(missing)} of {shape.__name__}"


def test_the_json_has_exactly_the_declared_fields(researcher, make_survey):
    survey = make_survey(researcher, status="open")
    yes_no, categorical = survey.ordered_questions()
    truth = {yes_no.pk: [0.7, 0.3], categorical.pk: [0.5, 0.3, 0.2]}
    simulate_responses(survey, 200, truth, seed=3)
    survey.refresh_from_db()
    results = survey_results(survey)
    assert all(question["categories"] for question in results["questions"])
    assert_shape(results, contracts.SurveyResults)
    assert_shape(breakdown_results(survey, categorical, yes_no), contracts.BreakdownResults)
    assert_shape(export_metadata(survey), contracts.Metadata)
