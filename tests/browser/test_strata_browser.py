"""A three-way breakdown in headless Chromium: a researcher chooses a second grouping question
on the breakdown page and reads one captioned table per group within each stratum; axe-core
checks the page at 360 px, 1,280 px and 200% zoom, where it is no wider than the window.
No sleeps: every wait is for a navigation or an element, each with its timeout."""

import pytest
from django.urls import reverse

from surveys.models import Survey
from tests.helpers import AXE_CONTEXTS, cheating_on_campus, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

WAIT = 15_000
"""Milliseconds any wait may take."""


@pytest.fixture
def survey(researcher, make_survey, epsilon_limits) -> Survey:
    epsilon_limits(question=2.0, survey=6.0)
    return cheating_on_campus(make_survey, researcher)


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
