"""Both importers fuzzed through the API, a few cases each with a fixed seed: survey files
and XLSForms mutated from valid ones (tests/mutations.py) are imported as a draft (201) or
refused in words (400) having stored nothing, never a server error. The thousands of cases
are bench/bench_import_fuzz.py's."""

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, seed, settings

from surveys.models import ApiToken
from tests.mutations import import_outcome, survey_files, xlsforms

pytestmark = pytest.mark.django_db

CASES = settings(max_examples=15, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                        HealthCheck.data_too_large])


@pytest.fixture
def api(researcher) -> Client:
    _token, secret = ApiToken.issue(researcher, "fuzz", 30, ApiToken.Scope.WRITE)
    return Client(HTTP_AUTHORIZATION=f"Bearer {secret}")


@seed(43)
@CASES
@given(content=survey_files())
def test_a_mutated_survey_file_is_imported_or_refused_in_words(api, content):
    assert import_outcome(api, content, "survey.json") in (201, 400)


@seed(43)
@CASES
@given(content=xlsforms())
def test_a_mutated_xlsform_is_imported_or_refused_in_words(api, content):
    assert import_outcome(api, content, "form.xlsx") in (201, 400)
