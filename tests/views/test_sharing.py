"""Sharing a survey with co-researchers: the sharing page (add, change a role, remove), its
refusals of bad input, what each role may do, the survey list, and the admin."""

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from surveys.models import Question, Survey, SurveyShare
from surveys.queries import access

pytestmark = pytest.mark.django_db

VIEWER, EDITOR = SurveyShare.Role.VIEWER, SurveyShare.Role.EDITOR


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


@pytest.fixture
def owner(client, researcher) -> Client:
    client.force_login(researcher)
    return client


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def sharing(survey: Survey) -> str:
    return reverse("survey-sharing", args=[survey.pk])


def shares(survey: Survey) -> dict[str, str]:
    return dict(survey.shares.values_list("user__username", "role"))


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_the_owner_shares_with_a_viewer_who_then_reads_but_does_not_author(
    owner, survey, other_researcher
):
    response = owner.post(sharing(survey), {"action": "add", "who": "mallory", "role": VIEWER},
                          follow=True)
    assert response.redirect_chain == [(sharing(survey), 302)]
    assert shares(survey) == {"mallory": VIEWER}
    assert "mallory now has access to this survey" in messages_of(response)[0]
    assert "mallory" in response.content.decode()
    mallory = signed_in(other_researcher)
    for name in ("survey-results", "export-reports-csv", "survey-detail", "survey-preview"):
        assert mallory.get(reverse(name, args=[survey.pk])).status_code == 200, name
    for name in ("survey-edit", "survey-close", "invitation-list", "survey-delete",
                 "survey-sharing", "survey-translations"):
        assert mallory.get(reverse(name, args=[survey.pk])).status_code == 404, name


def test_a_researcher_is_found_by_email_too_whatever_its_case(owner, survey, other_researcher):
    owner.post(sharing(survey), {"action": "add", "who": "MALLORY@example.org", "role": EDITOR})
    assert shares(survey) == {"mallory": EDITOR}


def test_an_email_several_accounts_share_asks_for_the_username(
    owner, survey, make_researcher
):
    make_researcher("bob")
    carol = make_researcher("carol")
    carol.email = "bob@example.org"
    carol.save()
    response = owner.post(sharing(survey), {"action": "add", "who": "bob@example.org",
                                            "role": VIEWER})
    assert response.status_code == 400
    assert "Several accounts use this email" in response.content.decode()
    assert shares(survey) == {}


@pytest.fixture
def student(db) -> User:
    return User.objects.create_user("student", "student@example.org", "pass-for-tests-1")


@pytest.mark.parametrize(
    "data,message",
    [
        ({"who": "student", "role": VIEWER}, "student is not a researcher"),
        ({"who": "alice", "role": VIEWER}, "You own this survey"),
        ({"who": "alice@example.org", "role": EDITOR}, "You own this survey"),
        ({"who": "nobody", "role": VIEWER}, "No account has the username or email “nobody”"),
        ({"who": "nobody@example.org", "role": VIEWER}, "No account has the username"),
        ({"who": "", "role": VIEWER}, "Enter a researcher&#x27;s username or email."),
        ({"who": "mallory", "role": "owner"}, "Choose a role: viewer or editor."),
        ({"who": "mallory", "role": ""}, "Choose a role: viewer or editor."),
        ({"who": "mallory"}, "Choose a role: viewer or editor."),
    ],
)
def test_it_refuses_bad_input_with_a_clear_message_and_changes_nothing(
    owner, survey, other_researcher, student, data, message
):
    SurveyShare.objects.create(survey=survey, user=other_researcher, role=VIEWER)
    response = owner.post(sharing(survey), {"action": "add", **data})
    assert response.status_code == 400
    page = response.content.decode()
    assert message in page
    assert 'aria-invalid="true"' in page  # the field in error says so, with its message
    assert "Nobody was given access" in messages_of(response)[0]
    assert shares(survey) == {"mallory": VIEWER}


def test_an_inactive_account_is_unknown(owner, survey, other_researcher):
    other_researcher.is_active = False
    other_researcher.save()
    response = owner.post(sharing(survey), {"action": "add", "who": "mallory", "role": VIEWER})
    assert response.status_code == 400
    assert shares(survey) == {}


def test_sharing_again_with_the_same_role_says_so_and_with_another_updates_it(
    owner, survey, other_researcher
):
    data = {"action": "add", "who": "mallory", "role": VIEWER}
    owner.post(sharing(survey), data, follow=True)
    response = owner.post(sharing(survey), data, follow=True)
    assert "mallory already has access to this survey" in messages_of(response)[0]
    assert shares(survey) == {"mallory": VIEWER}
    response = owner.post(sharing(survey), {**data, "role": EDITOR}, follow=True)
    assert "their role is now" in messages_of(response)[0]
    assert shares(survey) == {"mallory": EDITOR}
    assert survey.shares.count() == 1


def test_the_owner_changes_a_role(owner, survey, other_researcher):
    share = SurveyShare.objects.create(survey=survey, user=other_researcher, role=VIEWER)
    response = owner.post(
        sharing(survey), {"action": "change", "share": share.pk, "role": EDITOR}, follow=True
    )
    assert "mallory&#x27;s role is now" in response.content.decode()
    assert shares(survey) == {"mallory": EDITOR}
    assert signed_in(other_researcher).get(
        reverse("survey-edit", args=[survey.pk])
    ).status_code == 200


@pytest.mark.parametrize("action", ["change", "remove"])
def test_it_refuses_to_change_or_remove_a_share_of_another_survey_or_a_bad_role(
    owner, survey, researcher, other_researcher, make_survey, action
):
    share = SurveyShare.objects.create(survey=survey, user=other_researcher, role=VIEWER)
    mine_too = make_survey(researcher, title="Another of mine")
    response = owner.post(sharing(mine_too), {"action": action, "share": share.pk,
                                              "role": EDITOR})
    assert response.status_code == 400
    assert "no longer has access" in messages_of(response)[0]
    for bad in ("", "999999", "x"):
        response = owner.post(sharing(survey), {"action": action, "share": bad, "role": EDITOR})
        assert response.status_code == 400
    if action == "change":
        response = owner.post(sharing(survey), {"action": action, "share": share.pk,
                                                "role": "owner"})
        assert response.status_code == 400
        assert "Choose a role" in messages_of(response)[0]
    response = owner.post(sharing(survey), {"action": "delete-everything"})
    assert response.status_code == 400
    assert "Unknown action" in messages_of(response)[0]
    assert shares(survey) == {"mallory": VIEWER}


def test_removing_access_works_at_once(owner, survey, other_researcher):
    share = SurveyShare.objects.create(survey=survey, user=other_researcher, role=EDITOR)
    mallory = signed_in(other_researcher)
    results = reverse("survey-results", args=[survey.pk])
    assert mallory.get(results).status_code == 200
    response = owner.post(sharing(survey), {"action": "remove", "share": share.pk}, follow=True)
    assert "mallory no longer has access" in messages_of(response)[0]
    assert shares(survey) == {}
    assert mallory.get(results).status_code == 404
    assert mallory.get(reverse("survey-edit", args=[survey.pk])).status_code == 404
    assert survey.title not in mallory.get(reverse("survey-list")).content.decode()


@pytest.mark.parametrize("role", [VIEWER, EDITOR])
def test_only_the_owner_shares(survey, other_researcher, make_researcher, role):
    SurveyShare.objects.create(survey=survey, user=other_researcher, role=role)
    make_researcher("bob")
    mallory = signed_in(other_researcher)
    assert mallory.get(sharing(survey)).status_code == 404
    for data in ({"action": "add", "who": "bob", "role": EDITOR},
                 {"action": "change", "share": survey.shares.get().pk, "role": EDITOR},
                 {"action": "remove", "share": survey.shares.get().pk}):
        assert mallory.post(sharing(survey), data).status_code == 404
    assert shares(survey) == {"mallory": role}


def test_a_stranger_gets_404_on_the_sharing_page(survey, other_researcher):
    assert signed_in(other_researcher).get(sharing(survey)).status_code == 404


def test_the_sharing_page_lists_who_has_access_with_labelled_controls(
    owner, survey, other_researcher
):
    share = SurveyShare.objects.create(survey=survey, user=other_researcher, role=EDITOR)
    page = owner.get(sharing(survey)).content.decode()
    assert "Owner (you)" in page
    assert f'<label class="visually-hidden" for="role-{share.pk}">Role of mallory</label>' in page
    assert f'id="role-{share.pk}"' in page
    assert '<option value="editor" selected>' in page
    assert '<label class="form-label" for="id_who">Username or email</label>' in page
    assert '<label class="form-label" for="id_role">Role</label>' in page
    assert "Remove access<span class=\"visually-hidden\"> of mallory</span>" in page


def test_a_share_counts_only_while_its_user_is_a_researcher(survey, other_researcher):
    SurveyShare.objects.create(survey=survey, user=other_researcher, role=EDITOR)
    other_researcher.groups.remove(Group.objects.get(name="Researchers"))
    mallory = signed_in(other_researcher)
    assert mallory.get(reverse("survey-results", args=[survey.pk])).status_code == 404
    assert access.role(other_researcher, survey) is None


def test_an_editor_authors_a_draft_but_does_not_delete_it(
    researcher, other_researcher, make_survey
):
    draft = make_survey(researcher)
    SurveyShare.objects.create(survey=draft, user=other_researcher, role=EDITOR)
    mallory = signed_in(other_researcher)
    question = draft.ordered_questions()[0]
    response = mallory.post(
        reverse("question-edit", args=[question.pk]),
        {"text": "Changed by the editor", "kind": "yesno", "epsilon": "1", "help_text": "",
         "mechanism_override": "", "choices_text": ""},
    )
    assert response.status_code == 302, response.content[:500]
    assert Question.objects.get(pk=question.pk).text == "Changed by the editor"
    response = mallory.post(reverse("question-move", args=[question.pk]), {"direction": "down"})
    assert response.status_code == 302
    response = mallory.post(reverse("survey-delete", args=[draft.pk]))
    assert response.status_code == 404
    assert Survey.objects.filter(pk=draft.pk).exists()


def test_a_viewer_cannot_touch_questions(researcher, other_researcher, make_survey):
    draft = make_survey(researcher)
    SurveyShare.objects.create(survey=draft, user=other_researcher, role=VIEWER)
    mallory = signed_in(other_researcher)
    question = draft.ordered_questions()[0]
    for name in ("question-edit", "question-delete", "question-move"):
        assert mallory.post(reverse(name, args=[question.pk])).status_code == 404
    assert mallory.post(reverse("question-create", args=[draft.pk])).status_code == 404
    assert mallory.post(reverse("survey-duplicate", args=[draft.pk])).status_code == 404
    assert draft.questions.count() == 2


def test_an_editors_duplicate_is_the_editors_own(survey, researcher, other_researcher):
    SurveyShare.objects.create(survey=survey, user=other_researcher, role=EDITOR)
    response = signed_in(other_researcher).post(reverse("survey-duplicate", args=[survey.pk]))
    copy = Survey.objects.exclude(pk=survey.pk).get()
    assert response.url == copy.get_absolute_url()
    assert copy.owner == other_researcher
    assert copy.is_draft and copy.questions.count() == 2
    assert not copy.shares.exists()
    assert survey.owner == researcher


def test_the_survey_page_shows_each_role_only_what_it_may_do(
    owner, survey, other_researcher, make_researcher
):
    SurveyShare.objects.create(survey=survey, user=other_researcher, role=VIEWER)
    edith = make_researcher("edith")
    SurveyShare.objects.create(survey=survey, user=edith, role=EDITOR)
    detail = reverse("survey-detail", args=[survey.pk])
    links = {
        "edit": reverse("survey-edit", args=[survey.pk]),
        "close": reverse("survey-close", args=[survey.pk]),
        "duplicate": reverse("survey-duplicate", args=[survey.pk]),
        "invitations": reverse("invitation-list", args=[survey.pk]),
        "delete": reverse("survey-delete", args=[survey.pk]),
        "sharing": sharing(survey),
    }
    expected = {
        "owner": set(links),
        "editor": {"edit", "close", "duplicate", "invitations"},
        "viewer": set(),
    }
    for role, client in (("owner", owner), ("editor", signed_in(edith)),
                         ("viewer", signed_in(other_researcher))):
        page = client.get(detail).content.decode()
        shown = {name for name, link in links.items() if f'"{link}' in page}
        assert shown == expected[role], role
        assert reverse("survey-results", args=[survey.pk]) in page


def test_the_list_shows_own_and_shared_surveys_with_who_shared_them(
    researcher, other_researcher, make_researcher, make_survey
):
    mine = make_survey(other_researcher, title="Mallory's own")
    viewed = make_survey(researcher, title="Alice's, viewed")
    edited = make_survey(researcher, title="Alice's, edited", status="open")
    hidden = make_survey(researcher, title="Alice's, not shared")
    SurveyShare.objects.create(survey=viewed, user=other_researcher, role=VIEWER)
    SurveyShare.objects.create(survey=edited, user=other_researcher, role=EDITOR)
    # Other shares of the same surveys must not repeat them in the list.
    for name in ("bob", "carol"):
        SurveyShare.objects.create(survey=viewed, user=make_researcher(name), role=EDITOR)
        SurveyShare.objects.create(survey=mine, user=User.objects.get(username=name))
    response = signed_in(other_researcher).get(reverse("survey-list"))
    listed = list(response.context["page"].object_list)
    assert listed == [edited, viewed, mine]  # newest first, as before
    assert [s.access_role for s in listed] == [EDITOR, VIEWER, "owner"]
    page = response.content.decode()
    assert "Shared by alice · editor" in page
    assert "Shared by alice · viewer" in page
    assert page.count("Shared by") == 2
    assert hidden.title not in page
    assert listed[0].epsilon_total == pytest.approx(3.0)


def test_the_list_paginates_own_and_shared_surveys_together(
    researcher, other_researcher, make_survey
):
    for i in range(12):
        make_survey(researcher, title=f"Own {i}")
        shared = make_survey(other_researcher, title=f"Shared {i}")
        SurveyShare.objects.create(survey=shared, user=researcher, role=VIEWER)
    alice = signed_in(researcher)
    first = alice.get(reverse("survey-list")).context["page"]
    second = alice.get(reverse("survey-list") + "?page=2").context["page"]
    assert first.paginator.count == 24 and first.paginator.num_pages == 2
    titles = [s.title for s in first.object_list] + [s.title for s in second.object_list]
    assert len(titles) == len(set(titles)) == 24
    assert titles[0] == "Shared 11"


def test_the_role_helper(survey, researcher, other_researcher, make_researcher, student):
    assert access.role(researcher, survey) == "owner"
    assert access.role(other_researcher, survey) is None
    SurveyShare.objects.create(survey=survey, user=other_researcher, role=EDITOR)
    assert access.role(other_researcher, survey) == "editor"
    SurveyShare.objects.create(survey=survey, user=student, role=VIEWER)
    assert access.role(student, survey) is None  # not a researcher
    assert access.may("editor", "edit") and not access.may("editor", "own")
    assert access.may("viewer", "view") and not access.may("viewer", "edit")
    assert not access.may(None, "view")


def test_the_admin_shows_who_a_survey_is_shared_with(admin_client, survey, other_researcher):
    SurveyShare.objects.create(survey=survey, user=other_researcher, role=EDITOR)
    page = admin_client.get(
        reverse("admin:surveys_survey_change", args=[survey.pk])
    ).content.decode()
    assert "Shared with (co-researchers)" in page
    assert 'name="shares-0-role"' in page
    assert '<option value="editor" selected>' in page
