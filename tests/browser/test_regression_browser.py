"""A regression in headless Chromium: from the results page a researcher follows the link
under a yes/no question, ticks two questions by keyboard, fits the regression and reads the
odds ratios (a table and a chart with a text alternative) and one test per question; axe-core
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
def test_a_researcher_fits_a_regression_by_keyboard(browser, live_server, survey, axe, tag):
    yes_no, groups, campus = survey.ordered_questions()
    page = browser.new_context(**AXE_CONTEXTS[tag]).new_page()
    try:
        sign_in(page, live_server)
        page.goto(live_server.url + reverse("survey-results", args=[survey.pk]), timeout=WAIT)
        links = page.get_by_role("link", name="Explain this question by up to three others")
        assert links.count() == 2  # under each yes/no question: cheating, then campus
        with page.expect_navigation(timeout=WAIT):
            links.first.click(timeout=WAIT)
        assert page.url.endswith(reverse("question-regression", args=[survey.pk, yes_no.pk]))
        axe(page, f"regression form [{tag}]")
        for question in (groups, campus):  # ticked with the space bar
            box = page.get_by_label(f"{question.order}. {question.text}")
            box.focus(timeout=WAIT)
            page.keyboard.press("Space")
            assert box.is_checked(timeout=WAIT)
        page.get_by_role("button", name="Fit the regression").focus(timeout=WAIT)
        with page.expect_navigation(timeout=WAIT):
            page.keyboard.press("Enter")
        page.wait_for_selector("#coefficients-caption", timeout=WAIT)
        table = page.get_by_role("table", name="Odds ratio of answering Yes")
        assert table.locator("tbody tr").count() == 3  # two answers against "Never", campus
        chart = page.get_by_role("img", name="Odds ratios of answering Yes")
        assert "odds ratio" in chart.locator("desc").text_content(timeout=WAIT)
        for question in (groups, campus):
            section = page.get_by_role("region", name=f"{question.order}. {question.text}")
            assert "likelihood-ratio test" in section.inner_text(timeout=WAIT)
            assert section.get_by_role("table").count() == 1
        axe(page, f"regression [{tag}]")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= AXE_CONTEXTS[tag]["viewport"]["width"], width  # no sideways scrolling
        csv_link = page.get_by_role("link", name="CSV")
        assert f"by={campus.pk}" in csv_link.get_attribute("href", timeout=WAIT)
    finally:
        page.context.close()
    axe.check()
