"""A rating scale in headless Chromium: authored, answered with the keyboard on a phone, and
its mean score read on the results page."""

import pytest
from django.urls import reverse

from surveys.actions.surveys import open_survey
from surveys.models import Survey
from tests.helpers import PHONE_CONTEXT, is_submit, questions, send, sign_in, stored_reports

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]


def test_a_rating_scale_is_authored_answered_by_keyboard_and_its_mean_shown(
    browser, page, live_server, live_requests, researcher, axe
):
    survey = Survey.objects.create(owner=researcher, title="Classes", introduction="Hello.")
    sign_in(page, live_server)
    page.goto(live_server.url + reverse("question-create", args=[survey.pk]))
    page.fill("#id_text", "How often do you skip class?")
    assert page.is_hidden("#id_scale_low")  # the default kind is yes/no
    page.select_option("#id_kind", "rating")
    assert page.is_hidden("#id_choices") and page.is_visible("#id_scale_low")
    page.get_by_label("Points on the scale").select_option("7")
    page.get_by_label("Label of point 1 (the lowest)").fill("Never")
    page.get_by_label("Label of the highest point").fill("Daily")
    page.get_by_role("button", name="Save question").click()
    page.wait_for_url(f"**{survey.get_absolute_url()}")
    (scale,) = questions(survey)
    assert scale.labels() == ["Never", "2", "3", "4", "5", "6", "Daily"]
    live_requests.settle()
    open_survey(survey)

    phone = browser.new_context(**PHONE_CONTEXT)
    respondent = phone.new_page()
    requests = []
    respondent.on("request", lambda request: requests.append(request))
    respondent.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    legend = respondent.locator(f"#question-{scale.pk} legend")
    assert "How often do you skip class?" in legend.inner_text()
    assert respondent.get_by_role("radio", name="1 Never").count() == 1
    assert respondent.get_by_role("radio", name="7 Daily").count() == 1
    assert respondent.locator(".rating-ends").inner_text().split() == ["Never", "Daily"]
    assert respondent.evaluate("document.documentElement.scrollWidth") <= 360
    axe(respondent, "respond: a rating scale [360px]")
    respondent.focus(f"#answer-{scale.pk}-0")
    respondent.keyboard.press("Space")
    for _ in range(3):
        respondent.keyboard.press("ArrowRight")
    assert respondent.is_checked(f"#answer-{scale.pk}-3")
    point = respondent.locator(f"label[for=answer-{scale.pk}-3]").bounding_box()
    assert point["height"] >= 44 and point["width"] >= 40  # WCAG 2.5.8 asks for 24 px
    body = send(respondent)
    respondent.wait_for_url("**/thanks/")
    phone.close()

    assert set(body) == {"idempotency_key", "invitation", "reports", "wording"}
    assert list(body["reports"]) == [str(scale.pk)]
    scale.mechanism().validate_report(body["reports"][str(scale.pk)])
    assert [r.post_data_json for r in requests if is_submit(r)] == [body]
    assert stored_reports(survey) == [body["reports"]]

    page.goto(live_server.url + reverse("survey-results", args=[survey.pk]))
    data = page.request.get(live_server.url + reverse("survey-results-json", args=[survey.pk]))
    mean = data.json()["questions"][0]["mean_score"]
    assert 1 <= mean["ci_low"] <= mean["estimate"] <= mean["ci_high"] <= 7
    assert page.locator("[data-mean-score]").inner_text() == f"{mean['estimate']:.2f}"
    assert f"95% interval {mean['ci_low']:.2f} to {mean['ci_high']:.2f}" in page.inner_text("main")
    axe(page, "results: a rating scale")
    axe.check()
