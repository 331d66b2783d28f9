"""The Django admin: the privacy policy, and frozen questions once a survey is open."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from surveys import ldp
from surveys.models import EPSILON_TOO_SMALL, PrivacyPolicy, Question, Survey

pytestmark = pytest.mark.django_db


def test_it_edits_the_privacy_policy_as_a_single_record(admin_client):
    response = admin_client.get(reverse("admin:surveys_privacypolicy_changelist"))
    assert response.status_code == 302
    assert response.url == reverse("admin:surveys_privacypolicy_change", args=[1])
    data = {
        "default_epsilon": "0.5",
        "max_question_epsilon": "2",
        "max_survey_epsilon": "5",
        "allow_mechanism_override": "on",
    }
    admin_client.post(reverse("admin:surveys_privacypolicy_change", args=[1]), data)
    policy = PrivacyPolicy.current()
    assert (
        policy.default_epsilon,
        policy.max_question_epsilon,
        policy.allow_mechanism_override,
    ) == (0.5, 2, True)
    assert PrivacyPolicy.objects.count() == 1
    assert admin_client.get(reverse("admin:surveys_privacypolicy_add")).status_code == 403


def test_the_policys_limits_say_what_they_mean_for_the_people_answering(admin_client):
    policy = PrivacyPolicy.current()
    policy.max_question_epsilon, policy.max_survey_epsilon = 1.0, 3.0
    policy.save()
    page = admin_client.get(reverse("admin:surveys_privacypolicy_change", args=[1]))
    text = page.content.decode().replace("&#x27;", "'")
    # e^1 = 2.7 per answer; e^3 = 20 for everything, which takes 10% to 69.1%, said as 70%.
    assert "At 1, one answer can make anyone at most 2.7 times more sure" in text
    assert "At 3, everything a respondent sends can make anyone at most 20 times" in text
    assert "could rise to at most 70%" in text


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "abc", "25"])
def test_it_rejects_an_invalid_policy_epsilon(admin_client, value):
    PrivacyPolicy.current()
    data = {"default_epsilon": "1", "max_question_epsilon": value, "max_survey_epsilon": "5"}
    response = admin_client.post(reverse("admin:surveys_privacypolicy_change", args=[1]), data)
    assert response.status_code == 200
    assert PrivacyPolicy.current().max_question_epsilon == 3.0


@pytest.mark.parametrize("field", ["default_epsilon", "max_question_epsilon", "max_survey_epsilon"])
def test_it_refuses_a_policy_epsilon_below_the_minimum(admin_client, field):
    PrivacyPolicy.current()
    data = {"default_epsilon": "1", "max_question_epsilon": "3", "max_survey_epsilon": "3",
            field: "0.001"}
    response = admin_client.post(reverse("admin:surveys_privacypolicy_change", args=[1]), data)
    assert response.status_code == 200
    assert escape(EPSILON_TOO_SMALL) in response.content.decode()
    policy = PrivacyPolicy.current()
    assert (policy.default_epsilon, policy.max_question_epsilon, policy.max_survey_epsilon) == (
        1.0, 3.0, 3.0)


def test_it_refuses_a_question_epsilon_below_the_minimum_in_the_admin(
    admin_client, researcher
):
    survey = Survey.objects.create(owner=researcher, title="T")
    data = {"survey": survey.pk, "order": "1", "text": "Q?", "kind": "yesno", "epsilon": "0.001",
            "choices-TOTAL_FORMS": "0", "choices-INITIAL_FORMS": "0"}
    response = admin_client.post(reverse("admin:surveys_question_add"), data)
    assert response.status_code == 200
    assert escape(EPSILON_TOO_SMALL) in response.content.decode()
    assert not Question.objects.exists()


def test_the_model_refuses_an_epsilon_below_the_minimum(researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    with pytest.raises(ValidationError) as refused:
        Question(survey=survey, text="Q?", kind="yesno", epsilon=0.001).full_clean()
    assert refused.value.message_dict["epsilon"] == [EPSILON_TOO_SMALL]
    Question(survey=survey, text="Q?", kind="yesno", epsilon=ldp.MIN_EPSILON).full_clean()


def test_it_lists_surveys_with_status_responses_and_total_epsilon(
    admin_client, researcher, make_survey
):
    make_survey(researcher, title="Drugs", epsilons=(1.0, 0.5), status="open")
    html = admin_client.get(reverse("admin:surveys_survey_changelist")).content.decode()
    assert "Drugs" in html and "1.5" in html and "Open" in html


def test_it_refuses_to_edit_a_frozen_question_in_the_admin(admin_client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    question = survey.questions.get(kind="yesno")
    url = reverse("admin:surveys_question_change", args=[question.pk])
    html = admin_client.get(url).content.decode()
    assert 'name="epsilon"' not in html
    admin_client.post(
        url, {"text": "Changed", "kind": "yesno", "epsilon": "3", "order": "1", "survey": survey.pk}
    )
    question.refresh_from_db()
    assert question.text == "Have you ever cheated?" and question.epsilon == 1.0


def test_it_shows_a_frozen_surveys_questions_read_only(admin_client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    html = admin_client.get(
        reverse("admin:surveys_survey_change", args=[survey.pk])
    ).content.decode()
    assert "Have you ever cheated?" in html
    assert 'name="questions-0-epsilon"' not in html


def test_it_edits_a_draft_surveys_questions_inline(admin_client, researcher, make_survey):
    survey = make_survey(researcher)
    html = admin_client.get(
        reverse("admin:surveys_survey_change", args=[survey.pk])
    ).content.decode()
    assert 'name="questions-0-epsilon"' in html


def test_the_model_refuses_to_change_a_frozen_question(researcher, make_survey):
    survey = make_survey(researcher, status="open")
    question = survey.questions.first()
    question.epsilon = 3
    with pytest.raises(ValidationError, match="frozen"):
        question.save()
    with pytest.raises(ValidationError, match="frozen"):
        Question.objects.get(pk=question.pk).delete()
    with pytest.raises(ValidationError, match="frozen"):
        survey.questions.get(kind="categorical").choices.first().delete()


@pytest.mark.parametrize("value", [0.001, 0.0, -1.0, float("inf"), 21.0])
def test_the_database_refuses_an_invalid_epsilon(researcher, value):
    survey = Survey.objects.create(owner=researcher, title="T")
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.bulk_create([Question(survey=survey, text="Q", epsilon=value)])


@pytest.mark.parametrize("field", ["default_epsilon", "max_question_epsilon", "max_survey_epsilon"])
def test_the_database_refuses_a_policy_epsilon_below_the_minimum(field):
    PrivacyPolicy.current()
    with pytest.raises(IntegrityError), transaction.atomic():
        PrivacyPolicy.objects.filter(pk=1).update(**{field: 0.001})
    PrivacyPolicy.objects.filter(pk=1).update(  # the minimum itself is allowed
        **{"default_epsilon": ldp.MIN_EPSILON, field: ldp.MIN_EPSILON})


def test_the_database_refuses_a_nan_epsilon(researcher):
    survey = Survey.objects.create(owner=researcher, title="T")
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.bulk_create([Question(survey=survey, text="Q", epsilon=float("nan"))])


def test_it_creates_researcher_accounts_that_can_author(admin_client, client):
    from django.contrib.auth.models import Group, User

    group = Group.objects.get(name="Researchers")
    admin_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "carol",
            "password1": "a-long-pass-9871",
            "password2": "a-long-pass-9871",
            "usable_password": "true",
        },
    )
    carol = User.objects.get(username="carol")
    client.force_login(carol)
    assert client.get(reverse("survey-list")).status_code == 403
    carol.groups.add(group)
    assert client.get(reverse("survey-list")).status_code == 200


def test_it_refuses_a_per_question_limit_above_the_per_survey_limit(admin_client):
    PrivacyPolicy.current()
    data = {"default_epsilon": "1", "max_question_epsilon": "6", "max_survey_epsilon": "5"}
    response = admin_client.post(reverse("admin:surveys_privacypolicy_change", args=[1]), data)
    assert response.status_code == 200
    assert escape(
        "The per-question limit cannot be above the per-survey limit (5): no survey could use it."
    ) in response.content.decode()
    policy = PrivacyPolicy.current()
    assert (policy.default_epsilon, policy.max_question_epsilon, policy.max_survey_epsilon) == (
        1.0, 3.0, 3.0)


def test_it_edits_an_open_surveys_translations_inline(admin_client, researcher, make_survey):
    survey = make_survey(researcher, status="open")
    url = reverse("admin:surveys_survey_change", args=[survey.pk])
    html = admin_client.get(url).content.decode()
    assert 'name="translations-TOTAL_FORMS"' in html and 'name="language"' in html
    data = {
        "owner": researcher.pk, "title": "Habits", "introduction": "Please answer.",
        "language": "en",
        "questions-TOTAL_FORMS": "2", "questions-INITIAL_FORMS": "2",
        **{f"questions-{i}-id": q.pk for i, q in enumerate(survey.ordered_questions())},
        **{f"questions-{i}-survey": survey.pk for i in range(2)},
        "translations-TOTAL_FORMS": "1", "translations-INITIAL_FORMS": "0",
        "translations-0-language": "es", "translations-0-texts": '{"title": "Hábitos"}',
        "shares-TOTAL_FORMS": "0", "shares-INITIAL_FORMS": "0",
    }
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[-3000:]
    assert survey.translations.get().texts == {"title": "Hábitos"}
    data |= {"translations-TOTAL_FORMS": "1", "translations-INITIAL_FORMS": "0",
             "translations-0-language": "en"}
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "main language" in response.content.decode()
    assert survey.translations.count() == 1


def admin_form(survey: Survey, **changes) -> dict:
    """What the admin's change page of an opened ``survey`` posts: its fields as they are,
    its read-only questions, no translation and no share, but ``changes``."""
    return {
        "owner": survey.owner_id, "title": survey.title, "introduction": survey.introduction,
        "language": survey.language,
        "questions-TOTAL_FORMS": "2", "questions-INITIAL_FORMS": "2",
        **{f"questions-{i}-id": q.pk for i, q in enumerate(survey.ordered_questions())},
        **{f"questions-{i}-survey": survey.pk for i in range(2)},
        "translations-TOTAL_FORMS": "0", "translations-INITIAL_FORMS": "0",
        "shares-TOTAL_FORMS": "0", "shares-INITIAL_FORMS": "0",
    } | changes


def test_an_open_surveys_texts_edited_in_the_admin_are_kept_as_revisions(
    admin_client, researcher, make_survey
):
    survey = make_survey(researcher, status="open")
    survey.revisions.all().delete()  # opened before revisions were kept
    version = survey.wording_version
    url = reverse("admin:surveys_survey_change", args=[survey.pk])
    response = admin_client.post(url, admin_form(survey, title="Habits at work"))
    assert response.status_code == 302, response.content.decode()[-3000:]
    before, after = survey.revisions.order_by("created_at", "pk")
    assert before.texts["title"] == "Habits" and before.created_at == survey.opened_at
    assert after.texts["title"] == "Habits at work" and after.author.is_superuser
    survey.refresh_from_db()
    assert survey.wording_version == version + 1  # results cached with the old title go
    admin_client.post(url, admin_form(survey, title="Habits at work"))  # nothing changed
    assert survey.revisions.count() == 2


@pytest.mark.parametrize("who", ["owner", "not a researcher"])
def test_the_admin_shares_only_with_other_researchers(admin_client, researcher, make_survey, who):
    survey = make_survey(researcher, status="open")
    user = researcher
    if who == "not a researcher":
        user = User.objects.create_user("student", "student@example.org", "pass-for-tests-1")
    data = admin_form(survey, **{
        "shares-TOTAL_FORMS": "1", "shares-0-user": user.pk, "shares-0-role": "viewer",
    })
    response = admin_client.post(reverse("admin:surveys_survey_change", args=[survey.pk]), data)
    assert response.status_code == 200
    page = response.content.decode()
    assert ("full access already" if who == "owner" else "is not a researcher") in page
    assert not survey.shares.exists()


def test_the_admin_does_not_reopen_a_survey_past_its_closing_time(
    admin_client, researcher, make_survey
):
    survey = make_survey(researcher, status="closed")
    Survey.objects.filter(pk=survey.pk).update(closes_at=timezone.now() - timedelta(hours=1))
    response = admin_client.post(
        reverse("admin:surveys_survey_changelist"),
        {"action": "open_surveys", "_selected_action": [survey.pk]},
        follow=True,
    )
    assert "closing time" in response.content.decode()
    survey.refresh_from_db()
    assert survey.status == Survey.Status.CLOSED
