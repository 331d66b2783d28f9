"""A three-way breakdown in headless Chromium: a researcher chooses a second grouping question
on the breakdown page and reads one captioned table per group within each stratum; axe-core
checks the page at 360 px, 1,280 px and 200% zoom, where it is no wider than the window.
No sleeps: every wait is for a navigation or an element, each with its timeout."""

import pytest
from django.urls import reverse

from surveys.actions.simulate import simulate_responses
from surveys.actions.surveys import open_survey
from surveys.models import Question, Survey
from tests.helpers import AXE_CONTEXTS

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

WAIT = 15_000
"""Milliseconds any wait may take."""


@pytest.fixture
def survey(researcher, make_survey, epsilon_limits) -> Survey:
    """Open: cheating (yes/no), how often (3 answers), living on campus (yes/no); 2,000
    simulated respondents, cheating depending on how often."""
    epsilon_limits(question=2.0, survey=6.0)
    survey = make_survey(researcher, epsilons=(2.0, 2.0))
    Question.objects.create(
        survey=survey, order=3, text="Do you live on campus?", kind="yesno", epsilon=2.0
    )
    open_survey(survey)
    yes_no, groups, campus = survey.ordered_questions()
    simulate_responses(
        survey, 2000, {groups.pk: [0.5, 0.3, 0.2], campus.pk: [0.6, 0.4]}, seed=8,
        given={yes_no.pk: {"question": groups.pk, "shares": [[0.9, 0.1], [0.7, 0.3], [0.4, 0.6]]}},
    )
    return survey


def sign_in(page, live_server) -> None:
    page.goto(live_server.url + reverse("login"), timeout=WAIT)
    page.fill("#id_username", "alice", timeout=WAIT)
    page.fill("#id_password", "pass-for-tests-1", timeout=WAIT)
    page.click("button[type=submit]", timeout=WAIT)
    page.wait_for_url("**/surveys/", timeout=WAIT)


@pytest.mark.parametrize("tag", list(AXE_CONTEXTS))
def test_a_researcher_reads_a_breakdown_within_the_groups_of_a_second_question(
    browser, live_server, survey, axe, tag
):
    yes_no, groups, campus = survey.ordered_questions()
    page = browser.new_context(**AXE_CONTEXTS[tag]).new_page()
    try:
        sign_in(page, live_server)
        address = reverse("question-breakdown", args=[survey.pk, yes_no.pk])
        page.goto(live_server.url + address, timeout=WAIT)
        page.get_by_label("Break down by").select_option(str(groups.pk), timeout=WAIT)
        page.get_by_label("Within the groups of (optional)").select_option(
            str(campus.pk), timeout=WAIT
        )
        with page.expect_navigation(timeout=WAIT):
            page.get_by_role("button", name="Show", exact=True).click(timeout=WAIT)
        page.wait_for_selector("[data-stratum='1']", timeout=WAIT)
        assert "within the groups of “Do you live on campus?”" in page.inner_text("h1")
        sections = page.locator("section[data-stratum]")
        assert sections.count() == 2
        for label in campus.labels():
            section = page.get_by_role("region", name=f"Within “{label}”")
            assert section.get_by_role("table").count() == 3
            caption = section.locator("caption").first.inner_text()
            assert f"within “{label}”" in caption
        assert page.locator("[data-stratum-test]").count() == 2
        axe(page, f"three-way breakdown [{tag}]")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= AXE_CONTEXTS[tag]["viewport"]["width"], width  # no sideways scrolling
        # The CSV link keeps the choice.
        csv_link = page.get_by_role("link", name="CSV")
        assert f"within={campus.pk}" in csv_link.get_attribute("href", timeout=WAIT)
    finally:
        page.context.close()
    axe.check()
