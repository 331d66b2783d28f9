"""No cut labels: every dropdown of the breakdown, sharing, results, question and settings
pages is wide enough for its longest option, from a 360 px phone to a desktop, in every
language, in headless Chromium."""

import pytest
from django.conf import settings
from django.urls import reverse

from surveys.actions.simulate import simulate_responses
from surveys.models import SurveyShare
from tests.helpers import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

WIDTHS = (360, 600, 800, 1280)

# For each visible select: the width its longest option needs (text in the select's font,
# plus its padding, which holds the arrow, and borders) and the width it has.
MEASURE = """() => {
  const context = document.createElement("canvas").getContext("2d");
  return [...document.querySelectorAll("select")].filter((s) => s.offsetParent).map((s) => {
    const style = getComputedStyle(s);
    context.font = style.font;
    const text = Math.max(...[...s.options].map((o) => context.measureText(o.text).width));
    const extra = ["paddingLeft", "paddingRight", "borderLeftWidth", "borderRightWidth"]
      .reduce((sum, name) => sum + parseFloat(style[name]), 0);
    return { id: s.id, needed: Math.ceil(text + extra), has: s.getBoundingClientRect().width };
  });
}"""


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_no_dropdown_cuts_its_labels_at_any_width(
    browser, live_server, researcher, other_researcher, make_survey, language
):
    survey = make_survey(researcher, status="open",
                         labels=("First year", "Second year", "Third year or later"))
    yes_no, years = survey.ordered_questions()
    simulate_responses(survey, 200, {yes_no.pk: [0.6, 0.4], years.pk: [0.4, 0.35, 0.25]}, seed=4)
    SurveyShare.objects.create(survey=survey, user=other_researcher, role="viewer")
    draft = make_survey(researcher, labels=("Arts and Humanities", "Natural Sciences"))
    context = browser.new_context(locale=language)
    page = context.new_page()
    sign_in(page, live_server)
    pages = {
        "settings": reverse("account-settings"),
        "breakdown": reverse("question-breakdown", args=[survey.pk, yes_no.pk])
        + f"?by={years.pk}",
        "breakdown's choice": reverse("question-breakdown", args=[survey.pk, years.pk]),
        "sharing": reverse("survey-sharing", args=[survey.pk]),
        "question form": reverse("question-create", args=[draft.pk]),
    }
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        for name, path in pages.items():
            page.goto(live_server.url + path)
            selects = page.evaluate(MEASURE)
            assert selects, name
            for select in selects:
                assert select["needed"] <= select["has"] + 1, (name, width, select)
    context.close()
