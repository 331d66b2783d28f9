"""Each submission records the wording version its respondent's page showed."""

import pytest

from surveys.actions.submissions import SubmissionError, submission_create
from surveys.actions.wording import correct
from surveys.models import Submission, Survey
from tests.helpers import KEY, assert_nothing_stored, questions


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


def reports(survey: Survey) -> dict[int, int]:
    yes_no, categorical = questions(survey)
    return {yes_no.pk: 1, categorical.pk: 2}


def test_it_stores_the_wording_version_shown(survey):
    submission, created = submission_create(
        survey=survey, reports=reports(survey), idempotency_key=KEY, wording=0
    )
    assert created
    assert Submission.objects.get(pk=submission.pk).wording == 0


def test_it_accepts_every_version_up_to_the_current_one(survey):
    correct(survey, {"title": "Habits, corrected"})
    survey.refresh_from_db()
    assert survey.wording_version == 1  # each correction raises it by one
    versions = list(survey.revisions.order_by("created_at", "pk").values_list("version", flat=True))
    assert versions == [0, 1], "each revision knows the version its wording was shown under"
    for version in (0, 1):
        submission_create(survey=survey, reports=reports(survey),
                          idempotency_key=f"{KEY}-{version}", wording=version)
    stored = sorted(Submission.objects.values_list("wording", flat=True))
    assert stored == [0, 1]


@pytest.mark.parametrize("wording", [-1, 1, 10**20, 1.0, "0", True, False, [0], {"v": 0}])
def test_it_refuses_a_wording_that_is_not_a_version_and_stores_nothing(survey, wording):
    with pytest.raises(SubmissionError) as refused:
        submission_create(
            survey=survey, reports=reports(survey), idempotency_key=KEY, wording=wording
        )
    assert refused.value.status == 400
    assert "wording" in refused.value.message
    assert_nothing_stored(survey)


def test_without_a_wording_it_stores_none(survey):
    submission, _ = submission_create(survey=survey, reports=reports(survey), idempotency_key=KEY)
    assert Submission.objects.get(pk=submission.pk).wording is None
