"""Migrations that move data: nothing stored is lost on the way, in either direction."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from surveys import ldp

BEFORE = [("surveys", "0002_researchers_group")]
AFTER = [("surveys", "0003_reports_in_submission")]


def migrate(targets: list[tuple[str, str]]):
    """Migrate to `targets`; the historical models (apps) of that state."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@pytest.fixture
def latest_afterwards(transactional_db):
    """Whatever the test migrated to, the database is back at the latest migrations after."""
    yield
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


@pytest.mark.usefixtures("latest_afterwards")
def test_reports_move_into_their_submissions_and_back():
    apps = migrate(BEFORE)
    user = apps.get_model("auth", "User").objects.create(username="owner")
    survey = apps.get_model("surveys", "Survey").objects.create(
        owner=user, title="Old", public_id="old-survey", status="open"
    )
    Question = apps.get_model("surveys", "Question")
    specs = [ldp.randomized_response(1.0), ldp.grr(2.0, 12), ldp.oue(1.0, 12)]
    questions = [
        Question.objects.create(survey=survey, order=i, text=f"Q{i}", epsilon=1.0,
                                spec=mechanism.spec())
        for i, mechanism in enumerate(specs)
    ]
    Submission = apps.get_model("surveys", "Submission")
    Report = apps.get_model("surveys", "Report")
    old = {  # idempotency key -> report text per question, as 0002 stored them
        "first-key": ["1", "11", "010000000001"],
        "second-key": ["0", "3", "000000000000"],
    }
    for key, texts in old.items():
        submission = Submission.objects.create(survey=survey, idempotency_key=key)
        for question, text in zip(questions, texts, strict=True):
            Report.objects.create(submission=submission, question=question, value=text)

    apps = migrate(AFTER)
    stored = dict(apps.get_model("surveys", "Submission").objects.values_list(
        "idempotency_key", "reports"))
    ids = [str(question.pk) for question in questions]
    assert stored == {
        "first-key": dict(zip(ids, [1, 11, [0, 1] + [0] * 9 + [1]], strict=True)),
        "second-key": dict(zip(ids, [0, 3, [0] * 12], strict=True)),
    }

    apps = migrate(BEFORE)
    Report = apps.get_model("surveys", "Report")
    back = {}
    for key, question, value in Report.objects.values_list(
        "submission__idempotency_key", "question_id", "value"
    ):
        back.setdefault(key, {})[question] = value
    assert back == {key: {q.pk: t for q, t in zip(questions, texts, strict=True)}
                    for key, texts in old.items()}


BEFORE_MINIMUM = [("surveys", "0004_question_simulated_truth")]
MINIMUM = [("surveys", "0005_epsilon_minimum")]


def old_survey(apps, status: str, epsilon: float):
    """A survey with one yes/no question, stored as 0004 allowed (any epsilon above 0)."""
    user, _ = apps.get_model("auth", "User").objects.get_or_create(username="owner")
    survey = apps.get_model("surveys", "Survey").objects.create(
        owner=user, title=f"{status} at {epsilon}", public_id=f"{status}-{epsilon}", status=status
    )
    apps.get_model("surveys", "Question").objects.create(
        survey=survey, text="Ever?", kind="yesno", epsilon=epsilon
    )
    return survey


@pytest.mark.usefixtures("latest_afterwards")
def test_it_raises_drafts_and_the_policy_to_the_minimum_epsilon():
    apps = migrate(BEFORE_MINIMUM)
    low, fine = old_survey(apps, "draft", 0.005), old_survey(apps, "draft", 0.5)
    # The row 0002 made, unless an earlier test's flush removed it (tests run in any order).
    apps.get_model("surveys", "PrivacyPolicy").objects.update_or_create(pk=1, defaults={
        "default_epsilon": 0.001, "max_question_epsilon": 0.004, "max_survey_epsilon": 0.002})

    apps = migrate(MINIMUM)
    Question = apps.get_model("surveys", "Question")
    assert Question.objects.get(survey_id=low.pk).epsilon == ldp.MIN_EPSILON
    assert Question.objects.get(survey_id=fine.pk).epsilon == 0.5
    policy = apps.get_model("surveys", "PrivacyPolicy").objects.get(pk=1)
    assert (policy.default_epsilon, policy.max_question_epsilon, policy.max_survey_epsilon) == (
        ldp.MIN_EPSILON,) * 3
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.filter(survey_id=fine.pk).update(epsilon=0.001)


@pytest.mark.usefixtures("latest_afterwards")
def test_it_stops_at_an_opened_question_below_the_minimum_and_changes_nothing():
    apps = migrate(BEFORE_MINIMUM)
    opened, draft = old_survey(apps, "closed", 0.005), old_survey(apps, "draft", 0.005)

    with pytest.raises(RuntimeError, match=rf"survey {opened.pk} \('closed at 0.005'\)"):
        migrate(MINIMUM)
    apps = migrate(BEFORE_MINIMUM)
    Question = apps.get_model("surveys", "Question")
    assert sorted(Question.objects.values_list("epsilon", flat=True)) == [0.005, 0.005]
    apps.get_model("surveys", "Survey").objects.filter(pk=opened.pk).delete()  # as advised
    apps = migrate(MINIMUM)
    assert apps.get_model("surveys", "Question").objects.get(
        survey_id=draft.pk).epsilon == ldp.MIN_EPSILON


@pytest.mark.usefixtures("latest_afterwards")
@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        ((4.0, 10.0), (3.0, 3.0)),  # the former defaults, as migration 0002 stored them
        ((4.0, 12.0), (4.0, 12.0)),  # an administrator's own choice
        ((2.0, 10.0), (2.0, 10.0)),
    ],
)
def test_the_default_limits_move_to_3_and_back_but_an_administrators_choice_stays(
    limits, expected
):
    before = [("surveys", "0009_wording_version")]
    after = [("surveys", "0010_survey_epsilon_cap_3")]
    apps = migrate(before)
    policy = {"max_question_epsilon": limits[0], "max_survey_epsilon": limits[1]}
    apps.get_model("surveys", "PrivacyPolicy").objects.update_or_create(pk=1, defaults=policy)

    def stored(apps) -> tuple[float, float]:
        return apps.get_model("surveys", "PrivacyPolicy").objects.values_list(
            "max_question_epsilon", "max_survey_epsilon").get(pk=1)

    assert stored(migrate(after)) == expected
    assert stored(migrate(before)) == limits
