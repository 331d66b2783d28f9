"""Sharing a survey in headless Chromium: the owner gives a co-researcher viewer access
through the sharing page, by keyboard; the viewer then reads the results and is offered no
way to change the survey. axe-core checks the pages on the way. No
sleeps: every wait is for a navigation or an element."""

import re

import pytest
from django.urls import reverse

from surveys.actions.submissions import submission_create
from surveys.models import Survey, SurveyShare

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

AUTHORING = re.compile(r"^(Edit details|Close…|Correct wording|Sharing|Translations|Delete)")
"""The links of a survey's page that change it, which a viewer must not be offered."""


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    survey = make_survey(researcher, status="open")
    yes_no, categorical = survey.ordered_questions()
    submission_create(
        survey=survey, reports={yes_no.pk: 1, categorical.pk: 0}, idempotency_key="s" * 16
    )
    return survey


def sign_in(page, live_server, username: str) -> None:
    page.goto(live_server.url + reverse("login"))
    page.fill("#id_username", username)
    page.fill("#id_password", "pass-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url("**/surveys/")


def test_the_owner_shares_with_a_viewer_who_reads_the_results_but_cannot_edit(
    browser, page, live_server, survey, other_researcher, axe
):
    audit = axe
    sign_in(page, live_server, "alice")
    page.goto(live_server.url + reverse("survey-detail", args=[survey.pk]))
    assert page.get_by_role("link", name=AUTHORING).count() == 6  # what the viewer won't see
    page.get_by_role("link", name="Sharing").click()
    page.wait_for_url(f"**{reverse('survey-sharing', args=[survey.pk])}")
    page.get_by_label("Username or email").fill("mallory")
    page.get_by_label("Role", exact=True).select_option("viewer")
    page.get_by_label("Username or email").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")  # the form submits from the keyboard
    assert "mallory now has access" in page.locator(".messages").inner_text()
    assert page.get_by_label("Role of mallory").input_value() == "viewer"
    assert SurveyShare.objects.get(survey=survey).user == other_researcher
    audit(page, "sharing page")
    page.get_by_label("Username or email").fill("nobody")
    with page.expect_navigation():
        page.get_by_role("button", name="Give access").click()
    assert "No account has the username or email" in page.locator("#id_who_error").inner_text()
    assert page.get_by_label("Username or email").get_attribute("aria-invalid") == "true"
    audit(page, "sharing page, refused")
    assert SurveyShare.objects.filter(survey=survey).count() == 1

    viewer = browser.new_context().new_page()
    try:
        sign_in(viewer, live_server, "mallory")
        row = viewer.locator("tr", has_text=survey.title)
        assert "Shared by alice · viewer" in row.inner_text()
        audit(viewer, "survey list with a shared survey")
        row.get_by_role("link", name="Results").click()
        viewer.wait_for_url(f"**{reverse('survey-results', args=[survey.pk])}")
        assert "1 response" in viewer.inner_text("#results-summary")
        assert viewer.get_by_role("link", name="Randomized reports (CSV, zip)").is_visible()
        for name in ("Edit", "Close", "Delete", "Sharing"):
            assert viewer.get_by_role("link", name=name).count() == 0, name
        viewer.get_by_role("link", name=survey.title).click()  # the breadcrumb
        viewer.wait_for_url(f"**{reverse('survey-detail', args=[survey.pk])}")
        assert viewer.get_by_role("link", name=AUTHORING).count() == 0
        assert viewer.get_by_role("button", name="Duplicate as a new draft").count() == 0
        response = viewer.goto(live_server.url + reverse("survey-edit", args=[survey.pk]))
        assert response.status == 404
    finally:
        viewer.context.close()
    audit.check()
