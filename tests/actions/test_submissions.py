"""The write service: validation, atomicity, idempotency, tallies and invitations."""

import numpy as np
import pytest
from django.db import OperationalError, connection
from django.utils import timezone

from surveys.actions import submissions
from surveys.actions.submissions import SubmissionError, submission_create
from surveys.actions.surveys import close_survey, open_survey
from surveys.models import Invitation, Submission, Survey, Tally
from tests.helpers import (
    KEY,
    MANY_LABELS,
    assert_nothing_stored,
    questions,
    stored_reports,
    tally_counts,
    valid_reports,
)


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


@pytest.fixture
def unary_survey(researcher, make_survey) -> Survey:
    survey = make_survey(researcher, status="open", labels=MANY_LABELS, epsilons=(1.0, 1.0))
    assert questions(survey)[1].mechanism().encoding == "unary"
    return survey


def test_it_stores_reports_as_json_numbers(survey):
    yes_no, categorical = questions(survey)
    submission, created = submission_create(
        survey=survey, reports={yes_no.pk: 1, categorical.pk: 2}, idempotency_key=KEY
    )
    assert created
    assert submission.reports == {str(yes_no.pk): 1, str(categorical.pk): 2}
    assert stored_reports(survey) == [submission.reports]
    assert submission.received_on == timezone.localdate()
    survey.refresh_from_db()
    assert survey.response_count == 1
    assert tally_counts(survey) == {yes_no.pk: [0, 1], categorical.pk: [0, 0, 1]}


def test_it_stores_unary_reports_as_lists_of_bits(unary_survey):
    yes_no, categorical = questions(unary_survey)
    bits = [0, 1, 1] + [0] * 9
    submission, _ = submission_create(
        survey=unary_survey, reports={yes_no.pk: 0, categorical.pk: bits}, idempotency_key=KEY
    )
    assert stored_reports(unary_survey) == [{str(yes_no.pk): 0, str(categorical.pk): bits}]
    assert tally_counts(unary_survey)[categorical.pk] == bits


def test_it_keeps_tallies_equal_to_a_recount(unary_survey, survey):
    rng = np.random.default_rng(7)
    for target in (survey, unary_survey):
        for i in range(40):
            submission_create(
                survey=target, reports=valid_reports(target, rng), idempotency_key=f"key-{i:08d}"
            )
        target.refresh_from_db()
        assert target.response_count == 40
        for question in questions(target):
            mechanism = question.mechanism()
            stored = [reports[str(question.pk)] for reports in stored_reports(target)]
            recount = mechanism.support_counts(np.array(stored)).tolist()
            assert tally_counts(target)[question.pk] == recount
            assert sum(recount) >= (40 if mechanism.encoding != "unary" else 0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r, yn, cat: r.pop(cat.pk), "has no report"),
        (lambda r, yn, cat: r.update({999999: 1}), "no question 999999"),
        (lambda r, yn, cat: r.update({yn.pk: 2}), "0 or 1"),
        (lambda r, yn, cat: r.update({yn.pk: True}), "0 or 1"),
        (lambda r, yn, cat: r.update({yn.pk: "1"}), "0 or 1"),
        (lambda r, yn, cat: r.update({cat.pk: 3}), "from 0 to 2"),
        (lambda r, yn, cat: r.update({cat.pk: -1}), "from 0 to 2"),
        (lambda r, yn, cat: r.update({cat.pk: 1.0}), "from 0 to 2"),
        (lambda r, yn, cat: r.update({cat.pk: [0, 1, 0]}), "from 0 to 2"),
        (lambda r, yn, cat: r.update({cat.pk: None}), "from 0 to 2"),
    ],
)
def test_it_refuses_bad_reports_naming_the_problem(survey, change, message):
    yes_no, categorical = questions(survey)
    reports = {yes_no.pk: 1, categorical.pk: 0}
    change(reports, yes_no, categorical)
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, reports=reports, idempotency_key=KEY)
    assert error.value.status == 400
    assert message in error.value.message
    assert_nothing_stored(survey)


@pytest.mark.parametrize(
    "bits", [[0, 1], [0] * 13, [0, 2] + [0] * 10, [False] * 12, "011000000000", 3]
)
def test_it_refuses_unary_reports_of_the_wrong_shape(unary_survey, bits):
    yes_no, categorical = questions(unary_survey)
    with pytest.raises(SubmissionError) as error:
        submission_create(
            survey=unary_survey, reports={yes_no.pk: 0, categorical.pk: bits}, idempotency_key=KEY
        )
    assert error.value.status == 400
    assert f"Question {categorical.pk}" in error.value.message
    assert_nothing_stored(unary_survey)


@pytest.mark.parametrize(
    "key", ["short", "x" * 65, "has space ok", "ключ-ключ-ключ", 12345678, None]
)
def test_it_refuses_a_bad_idempotency_key(survey, key):
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, reports=valid_reports(survey), idempotency_key=key)
    assert error.value.status == 400
    assert_nothing_stored(survey)


def test_it_refuses_a_key_with_a_trailing_newline(survey):
    with pytest.raises(SubmissionError):
        submission_create(survey=survey, reports=valid_reports(survey), idempotency_key=KEY + "\n")


def test_it_refuses_draft_and_closed_surveys(researcher, make_survey):
    for status, code in (("draft", 404), ("closed", 410)):
        survey = make_survey(researcher, status=status)
        reports = {q.pk: 0 for q in questions(survey)}
        with pytest.raises(SubmissionError) as error:
            submission_create(survey=survey, reports=reports, idempotency_key=KEY)
        assert error.value.status == code
        assert_nothing_stored(survey)


def test_it_rolls_everything_back_when_the_last_write_fails(survey):
    """The tally update, written last, fails as when the connection is lost just then: the
    response count, the invitation and the submission written before it are rolled back."""
    invitation = Invitation.objects.create(survey=survey)
    written = []

    def lose_connection_at_the_tallies(execute, sql, params, many, context):
        if sql.startswith('UPDATE "surveys_tally"'):
            raise OperationalError("server closed the connection unexpectedly")
        written.append(sql.split(" ", 2)[:2])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(lose_connection_at_the_tallies):
        with pytest.raises(OperationalError):
            submission_create(survey=survey, reports=valid_reports(survey), idempotency_key=KEY,
                              invitation_token=invitation.token)
    assert [["UPDATE", '"surveys_survey"'], ["UPDATE", '"surveys_invitation"'],
            ["INSERT", 'INTO']] == [words for words in written if words[0] in ("UPDATE", "INSERT")]
    assert_nothing_stored(survey)


def test_it_refuses_and_rolls_back_when_a_tally_row_is_missing(survey):
    yes_no, categorical = questions(survey)
    Tally.objects.filter(question=categorical).delete()
    with pytest.raises(RuntimeError, match="lacks tally rows"):
        submission_create(survey=survey, reports={yes_no.pk: 1, categorical.pk: 0},
                          idempotency_key=KEY)
    assert_nothing_stored(survey)


def test_it_stores_nothing_new_for_a_replayed_key(survey):
    reports = valid_reports(survey)
    first, created = submission_create(survey=survey, reports=reports, idempotency_key=KEY)
    before = tally_counts(survey)
    again, created_again = submission_create(survey=survey, reports=reports, idempotency_key=KEY)
    assert created and not created_again
    assert again.pk == first.pk
    assert stored_reports(survey) == [first.reports]
    assert tally_counts(survey) == before
    survey.refresh_from_db()
    assert survey.response_count == 1


def test_it_replays_even_after_the_survey_closed(survey):
    reports = valid_reports(survey)
    first, _ = submission_create(survey=survey, reports=reports, idempotency_key=KEY)
    close_survey(survey)
    again, created = submission_create(survey=survey, reports=reports, idempotency_key=KEY)
    assert (again.pk, created) == (first.pk, False)


def test_it_refuses_a_replayed_key_with_other_reports(survey):
    yes_no, categorical = questions(survey)
    submission_create(survey=survey, reports={yes_no.pk: 1, categorical.pk: 0},
                      idempotency_key=KEY)
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, reports={yes_no.pk: 0, categorical.pk: 0},
                          idempotency_key=KEY)
    assert error.value.status == 422
    assert Submission.objects.count() == 1
    assert tally_counts(survey)[yes_no.pk] == [0, 1]


def test_it_scopes_keys_to_one_survey(researcher, make_survey, survey):
    other = make_survey(researcher, status="open", title="Other")
    submission_create(survey=survey, reports=valid_reports(survey), idempotency_key=KEY)
    _, created = submission_create(survey=other, reports=valid_reports(other), idempotency_key=KEY)
    assert created


def test_it_answers_a_lost_race_for_the_same_key_as_a_replay(survey, monkeypatch):
    """Another request with the same key commits between our replay check and our insert."""
    reports = valid_reports(survey)
    real_check = submissions._check_invitation

    def concurrent_request_commits(*args):
        monkeypatch.setattr(submissions, "_check_invitation", real_check)
        submission_create(survey=survey, reports=reports, idempotency_key=KEY)
        real_check(*args)

    monkeypatch.setattr(submissions, "_check_invitation", concurrent_request_commits)
    submission, created = submission_create(survey=survey, reports=reports, idempotency_key=KEY)
    assert not created
    assert Submission.objects.get().pk == submission.pk
    survey.refresh_from_db()
    assert survey.response_count == 1


def test_it_requires_an_unused_invitation_for_invitation_only_surveys(survey):
    survey.invitation_only = True
    survey.save()
    invitation = Invitation.objects.create(survey=survey)
    reports = valid_reports(survey)
    for token, message in ((None, "only through"), ("nope", "not valid")):
        with pytest.raises(SubmissionError) as error:
            submission_create(survey=survey, reports=reports, idempotency_key=KEY,
                              invitation_token=token)
        assert (error.value.status, message in error.value.message) == (403, True)
    assert_nothing_stored(survey)
    submission_create(survey=survey, reports=reports, idempotency_key=KEY,
                      invitation_token=invitation.token)
    invitation.refresh_from_db()
    assert invitation.used


def test_it_accepts_each_invitation_once(survey):
    invitation = Invitation.objects.create(survey=survey)
    submission_create(survey=survey, reports=valid_reports(survey), idempotency_key="first-key",
                      invitation_token=invitation.token)
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, reports=valid_reports(survey),
                          idempotency_key="second-key", invitation_token=invitation.token)
    assert error.value.status == 403
    assert "already been used" in error.value.message
    assert Submission.objects.count() == 1


def test_it_refuses_an_invitation_of_another_survey(researcher, make_survey, survey):
    other = make_survey(researcher, status="open", title="Other")
    invitation = Invitation.objects.create(survey=other)
    with pytest.raises(SubmissionError):
        submission_create(survey=survey, reports=valid_reports(survey), idempotency_key=KEY,
                          invitation_token=invitation.token)
    assert not Invitation.objects.get().used


def test_it_lets_only_one_of_two_concurrent_uses_of_an_invitation_win(survey, monkeypatch):
    """The other use commits after our early check: the conditional update catches it."""
    invitation = Invitation.objects.create(survey=survey)
    real_check = submissions._check_invitation

    def other_use_commits(*args):
        real_check(*args)
        Invitation.objects.filter(pk=invitation.pk).update(used=True)

    monkeypatch.setattr(submissions, "_check_invitation", other_use_commits)
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, reports=valid_reports(survey), idempotency_key=KEY,
                          invitation_token=invitation.token)
    assert error.value.status == 403
    Invitation.objects.filter(pk=invitation.pk).update(used=False)
    assert_nothing_stored(survey)


def test_it_records_invitations_so_they_cannot_be_joined_to_reports():
    invitation_fields = {field.name for field in Invitation._meta.get_fields()}
    assert invitation_fields == {"id", "survey", "token", "used"}
    related = {field.related_model for field in Submission._meta.get_fields()}
    assert Invitation not in related


def test_it_keeps_no_identifying_or_timing_data_with_reports():
    assert {f.name for f in Submission._meta.get_fields()} == {
        "id", "survey", "received_on", "idempotency_key", "reports", "wording"
    }
    assert Submission._meta.get_field("received_on").get_internal_type() == "DateField"
    # The wording version shown, a whole number the same for everyone who loaded the page
    # between two corrections: never a time.
    assert Submission._meta.get_field("wording").get_internal_type() == "PositiveIntegerField"


def test_it_sees_the_tally_rows_of_a_survey_opened_after_it_was_refused(researcher, make_survey):
    """A survey closed before it ever opened has no tally rows, and gets them when it opens."""
    survey = make_survey(researcher)
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    survey.refresh_from_db()
    reports = {q.pk: 1 for q in questions(survey)}
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, reports=reports, idempotency_key=KEY)
    assert error.value.status == 410
    open_survey(survey)
    _, created = submission_create(survey=survey, reports=reports, idempotency_key=KEY)
    assert created
    assert tally_counts(survey) == {q.pk: [0, 1] + [0] * (q.mechanism().k - 2)
                                    for q in questions(survey)}


@pytest.mark.parametrize(
    ("change", "code"),
    [({"status": Survey.Status.CLOSED}, 410), ({"invitation_only": True}, 403)],
)
def test_it_checks_the_survey_again_as_it_writes(survey, change, code):
    """A survey that changed after it was read (by the endpoint, in another request) is read
    again when the write finds it changed, and the submission decided anew."""
    Survey.objects.filter(pk=survey.pk).update(**change)
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, reports=valid_reports(survey), idempotency_key=KEY)
    assert error.value.status == code
    assert all(getattr(survey, field) == value for field, value in change.items())
    assert_nothing_stored(survey)


def test_it_asks_to_send_again_when_the_survey_keeps_changing(survey, monkeypatch):
    def always_changed(*args):
        raise submissions.SurveyChanged

    monkeypatch.setattr(submissions, "store", always_changed)
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, reports=valid_reports(survey), idempotency_key=KEY)
    assert error.value.status == 409 and "send them again" in error.value.message
