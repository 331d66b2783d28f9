"""A survey's schedule, response target and distribution (surveys/schedule.py): it closes
itself at its closing time or its target, never stores more than the target, says when it
opens, sends respondents on to a completion link only through the page, and the researcher's
form refuses bad values, changing nothing."""

import datetime as dt
import json
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from surveys.actions import submissions
from surveys.actions.submissions import SubmissionError, SurveyChanged, submission_create
from surveys.actions.surveys import close_if_due
from surveys.helpers.times import relative, respondent_time
from surveys.models import Submission, Survey
from surveys.queries import schedule
from tests.helpers import assert_nothing_stored, questions, survey_form_data, valid_reports

pytestmark = pytest.mark.django_db

PANEL = "https://app.prolific.com/submissions/complete?cc=C1234ABC"
HOUR = dt.timedelta(hours=1)


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return make_survey(researcher, status="open")


def set_fields(survey: Survey, **fields) -> Survey:
    Survey.objects.filter(pk=survey.pk).update(**fields)
    survey.refresh_from_db()
    return survey


def key(n: int) -> str:
    return f"respondent-{n:04d}"


def body(survey: Survey, n: int = 0) -> str:
    yes_no, categorical = questions(survey)
    return json.dumps({
        "idempotency_key": key(n),
        "invitation": None, "wording": 0,
        "reports": {str(yes_no.pk): n % 2, str(categorical.pk): n % 3},
    })


def submit(client, survey: Survey, n: int = 0):
    return client.post(
        reverse("respond-submit", args=[survey.public_id]), body(survey, n),
        content_type="application/json",
    )


def page_data(response) -> dict:
    pattern = r'<script id="respond-data" type="application/json">(.*?)</script>'
    return json.loads(re.search(pattern, response.content.decode(), re.S).group(1))


def status_of(survey: Survey) -> str:
    return Survey.objects.values_list("status", flat=True).get(pk=survey.pk)


# Closing itself ----------------------------------------------------------------------------


def test_it_closes_at_its_closing_time_and_not_before(survey):
    closes = timezone.now() + HOUR
    set_fields(survey, closes_at=closes)
    assert not close_if_due(survey, now=closes - dt.timedelta(seconds=1))
    assert survey.is_open and status_of(survey) == "open"
    assert close_if_due(survey, now=closes)
    assert status_of(survey) == "closed" and not survey.is_open
    assert survey.closed_at == closes  # closed by its closing time: recorded as then
    assert not close_if_due(survey, now=closes + HOUR)  # already closed


def test_it_closes_at_its_target(survey):
    set_fields(survey, response_target=2, response_count=1)
    assert not close_if_due(survey)
    set_fields(survey, response_count=2)
    assert close_if_due(survey)
    assert status_of(survey) == "closed"


def test_it_leaves_drafts_and_surveys_without_schedule_alone(researcher, make_survey, survey):
    draft = make_survey(researcher)
    set_fields(draft, closes_at=timezone.now() - HOUR)
    assert not close_if_due(draft)
    assert status_of(draft) == "draft"
    assert not close_if_due(survey, now=timezone.now() + dt.timedelta(days=3650))
    assert status_of(survey) == "open"


def test_a_stale_copy_finds_it_still_open_when_the_schedule_changed_meanwhile(survey):
    """close_if_due decides on the database's values: a later closing time set meanwhile
    keeps the survey open."""
    set_fields(survey, closes_at=timezone.now() - HOUR)
    Survey.objects.filter(pk=survey.pk).update(closes_at=timezone.now() + HOUR)
    assert not close_if_due(survey)
    assert survey.is_open and status_of(survey) == "open"


def test_submissions_are_refused_with_410_once_the_closing_time_has_passed(client, survey):
    assert submit(client, survey, 1).status_code == 201
    set_fields(survey, closes_at=timezone.now() - dt.timedelta(seconds=1))
    response = submit(client, survey, 2)
    assert response.status_code == 410
    assert "closed" in response.json()["error"]
    assert Submission.objects.filter(survey=survey).count() == 1
    assert status_of(survey) == "closed"
    assert submit(client, survey, 1).status_code == 200  # a replay is answered as before


def test_the_write_path_refuses_after_the_closing_time_even_when_read_before(survey):
    """A submission read before the closing time but written after it is not stored."""
    reports = valid_reports(survey)
    Survey.objects.filter(pk=survey.pk).update(closes_at=timezone.now() - dt.timedelta(seconds=1))
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=survey, reports=reports, idempotency_key=key(1))
    assert error.value.status == 410
    assert_nothing_stored(survey)


def test_the_write_path_checks_the_opening_time_as_it_writes(survey):
    """A survey read without an opening time, given a future one before the write: refused
    as not open yet (404), nothing stored."""
    stale = Survey.objects.get(pk=survey.pk)
    set_fields(survey, opens_at=timezone.now() + HOUR)
    with pytest.raises(SubmissionError) as error:
        submission_create(survey=stale, reports=valid_reports(stale), idempotency_key=key(1))
    assert error.value.status == 404 and "opens on" in error.value.message
    assert_nothing_stored(survey)


def test_the_target_is_reached_exactly_and_the_survey_closes_with_the_last_one(client, survey):
    set_fields(survey, response_target=3)
    codes = [submit(client, survey, n).status_code for n in range(6)]
    assert codes == [201, 201, 201, 410, 410, 410]
    survey.refresh_from_db()
    assert survey.status == "closed" and survey.response_count == 3
    assert Submission.objects.filter(survey=survey).count() == 3
    assert submit(client, survey, 2).status_code == 200  # a replay of a stored one


def test_submissions_read_before_the_target_was_reached_are_not_stored(researcher, make_survey):
    """As concurrent requests: each read the survey while it was open with room left, and
    they write one after another. Exactly `target` are stored; the others get 410."""
    survey = make_survey(researcher, status="open")
    set_fields(survey, response_target=2)
    copies = [Survey.objects.get(pk=survey.pk) for _ in range(4)]  # read before any write
    outcomes = []
    for n, copy in enumerate(copies):
        try:
            submission_create(survey=copy, reports=valid_reports(copy), idempotency_key=key(n))
            outcomes.append(201)
        except SubmissionError as error:
            outcomes.append(error.status)
    assert outcomes == [201, 201, 410, 410]
    survey.refresh_from_db()
    assert (survey.status, survey.response_count) == ("closed", 2)
    assert Submission.objects.filter(survey=survey).count() == 2


def test_the_locked_write_refuses_a_submission_beyond_the_target(survey):
    """The check is in the statement that locks the survey row: whatever the copy in memory
    says, nothing is written beyond the target."""
    stale = Survey.objects.get(pk=survey.pk)
    set_fields(survey, response_target=1, response_count=1)
    submission = Submission(survey=stale, idempotency_key=key(1), reports={})
    with pytest.raises(SurveyChanged):
        submissions.store(stale, [submission], {})
    assert Submission.objects.filter(survey=survey).count() == 0
    assert Survey.objects.get(pk=survey.pk).response_count == 1


def test_the_submission_reaching_the_target_closes_the_survey_in_its_transaction(survey):
    set_fields(survey, response_target=1)
    _, created = submission_create(
        survey=survey, reports=valid_reports(survey), idempotency_key=key(1)
    )
    assert created
    survey.refresh_from_db()
    assert (survey.status, survey.response_count) == ("closed", 1)
    assert survey.closed_at is not None


def test_it_can_be_reopened_only_once_the_schedule_allows(client, researcher, survey):
    client.force_login(researcher)
    set_fields(survey, response_target=1)
    assert submit(client, survey, 1).status_code == 201
    assert status_of(survey) == "closed"
    page = client.get(reverse("survey-open", args=[survey.pk])).content.decode()
    assert "reached its response target" in page
    client.post(reverse("survey-open", args=[survey.pk]))
    assert status_of(survey) == "closed"
    set_fields(survey, response_target=None, closes_at=timezone.now() - HOUR)
    page = client.get(reverse("survey-open", args=[survey.pk])).content.decode()
    assert "closing time" in page and "has passed" in page
    client.post(reverse("survey-open", args=[survey.pk]))
    assert status_of(survey) == "closed"
    set_fields(survey, closes_at=timezone.now() + HOUR)
    client.post(reverse("survey-open", args=[survey.pk]))
    assert status_of(survey) == "open"


# Respondents' pages ------------------------------------------------------------------------


def test_respondents_see_the_closed_page_once_it_closed_itself(client, survey):
    set_fields(survey, closes_at=timezone.now() - dt.timedelta(seconds=1))
    response = client.get(reverse("respond", args=[survey.public_id]))
    assert response.status_code == 410
    assert "This survey is closed" in response.content.decode()
    assert status_of(survey) == "closed"


def test_invitation_links_see_the_closed_page_at_the_target(client, survey):
    invitation = survey.invitations.create()
    set_fields(survey, response_target=5, response_count=5)
    response = client.get(reverse("respond-invitation", args=[invitation.token]))
    assert response.status_code == 410
    assert "This survey is closed" in response.content.decode()


def test_before_its_opening_time_it_says_when_it_opens_and_refuses_answers(client, survey):
    opens = timezone.now().replace(microsecond=0) + dt.timedelta(days=3)
    set_fields(survey, opens_at=opens)
    response = client.get(reverse("respond", args=[survey.public_id]))
    html = response.content.decode()
    assert response.status_code == 404  # as for a draft
    assert "This survey is not open yet" in html
    when = respondent_time(opens)
    assert f"It opens on {when} (UTC)" in html
    assert 'id="send-answers"' not in html
    refused = submit(client, survey, 1)
    assert refused.status_code == 404
    assert refused.json()["error"] == f"This survey is not open yet: it opens on {when} (UTC)."
    assert_nothing_stored(survey)
    assert status_of(survey) == "open"
    set_fields(survey, opens_at=timezone.now() - dt.timedelta(seconds=1))
    assert client.get(reverse("respond", args=[survey.public_id])).status_code == 200
    assert submit(client, survey, 1).status_code == 201


def test_the_not_yet_open_page_is_in_the_respondents_language(client, survey):
    set_fields(survey, opens_at=timezone.now() + dt.timedelta(days=3))
    html = client.get(
        reverse("respond", args=[survey.public_id]), HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert "Diese Umfrage ist noch nicht geöffnet" in html
    assert "Sie können ab dem" in html
    refused = client.post(
        reverse("respond-submit", args=[survey.public_id]) + "?lang=fr", body(survey),
        content_type="application/json",
    )
    assert refused.status_code == 404
    assert "pas encore ouvert" in refused.json()["error"]


def test_the_page_says_where_respondents_will_be_taken_and_gives_the_link(client, survey):
    set_fields(survey, completion_url=PANEL)
    response = client.get(reverse("respond", args=[survey.public_id]))
    html = response.content.decode()
    assert "After sending, you will be taken to app.prolific.com." in html
    assert page_data(response)["completionUrl"] == PANEL
    assert response.headers["Referrer-Policy"] == "no-referrer"
    plain = page_data(client.get(reverse("respond", args=[set_fields(
        survey, completion_url="")
        .public_id])))
    assert plain["completionUrl"] is None


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "data:text/html,<b>x</b>", "ftp://files.example.org/x"]
)
def test_a_stored_link_that_is_not_http_is_never_given_to_the_page(client, survey, url):
    set_fields(survey, completion_url=url)
    response = client.get(reverse("respond", args=[survey.public_id]))
    assert page_data(response)["completionUrl"] is None
    assert "you will be taken to" not in response.content.decode()


def test_the_thank_you_page_shows_the_message_escaped_with_its_line_breaks(client, survey):
    set_fields(survey, thank_you_message="Thanks a lot!\n<script>alert(1)</script>\n\nBye")
    html = client.get(reverse("respond-thanks", args=[survey.public_id])).content.decode()
    message = re.search(r'<div[^>]*id="thank-you-message"[^>]*>(.*?)</div>', html, re.S).group(1)
    assert "<p>Thanks a lot!<br>&lt;script&gt;alert(1)&lt;/script&gt;</p>" in message
    assert "<p>Bye</p>" in message
    assert html.index("thank-you-message") < html.index("How the results are worked out")


# The researcher's form ---------------------------------------------------------------------


def snapshot(survey: Survey) -> dict:
    return Survey.objects.filter(pk=survey.pk).values().get()


def test_the_schedule_and_distribution_are_saved_while_the_survey_is_open(
    client, researcher, survey
):
    client.force_login(researcher)
    form = client.get(reverse("survey-edit", args=[survey.pk])).content.decode()
    assert "Schedule and distribution" in form and "Closes at (UTC time)" in form
    response = client.post(reverse("survey-edit", args=[survey.pk]), survey_form_data(
        survey,
        opens_at="2030-01-01T09:00",
        closes_at="2030-11-30T18:00",
        response_target="500",
        completion_url=PANEL,
        thank_you_message="Thank you!",
    ))
    assert response.status_code == 302
    survey.refresh_from_db()
    assert survey.opens_at == dt.datetime(2030, 1, 1, 9, tzinfo=dt.UTC)
    assert survey.closes_at == dt.datetime(2030, 11, 30, 18, tzinfo=dt.UTC)
    assert (survey.response_target, survey.completion_url) == (500, PANEL)
    assert survey.thank_you_message == "Thank you!" and survey.is_open


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"closes_at": "2001-01-01T00:00"}, "closes_at", "This time has passed"),
        ({"opens_at": "2031-01-02T00:00", "closes_at": "2031-01-01T00:00"}, "closes_at",
         "The closing time must be after the opening time."),
        ({"opens_at": "2031-01-01T00:00", "closes_at": "2031-01-01T00:00"}, "closes_at",
         "The closing time must be after the opening time."),
        ({"response_target": "0"}, "response_target", "A response target must be at least 1."),
        ({"response_target": "-3"}, "response_target", "A response target must be at least 1."),
        ({"response_target": "4"}, "response_target", "already has 5 responses"),
        ({"response_target": "5"}, "response_target", "already has 5 responses"),
        ({"completion_url": "javascript:alert(1)"}, "completion_url", "starting with https://"),
        ({"completion_url": "data:text/html,hi"}, "completion_url", "starting with https://"),
        ({"completion_url": "ftp://files.example.org/done"}, "completion_url",
         "starting with https://"),
        ({"opens_at": "not a time"}, "opens_at", "Enter a valid date/time."),
    ],
)
def test_bad_values_are_refused_with_a_clear_error_and_nothing_changes(
    client, researcher, survey, changes, field, message
):
    set_fields(survey, response_count=5)
    client.force_login(researcher)
    before = snapshot(survey)
    response = client.post(
        reverse("survey-edit", args=[survey.pk]),
        survey_form_data(survey, title="Changed", **changes),
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert field in errors
    assert message in " ".join(errors[field])
    assert snapshot(survey) == before


def test_a_past_closing_time_is_refused_on_a_new_survey_but_kept_on_a_closed_one(
    client, researcher, survey
):
    client.force_login(researcher)
    response = client.post(reverse("survey-create"), {
        "title": "New", "closes_at": "2001-01-01T00:00",
    })
    assert "This time has passed" in " ".join(response.context["form"].errors["closes_at"])
    assert not Survey.objects.filter(title="New").exists()
    # Closed by its closing time: its other settings can still be edited.
    set_fields(survey, closes_at=(timezone.now() - HOUR).replace(second=0, microsecond=0))
    client.get(reverse("survey-detail", args=[survey.pk]))
    assert status_of(survey) == "closed"
    closes = timezone.localtime(survey.closes_at).strftime("%Y-%m-%dT%H:%M")
    response = client.post(reverse("survey-edit", args=[survey.pk]), survey_form_data(
        survey, closes_at=closes, thank_you_message="Merci"
    ))
    assert response.status_code == 302
    assert Survey.objects.get(pk=survey.pk).thank_you_message == "Merci"


# The researcher's pages --------------------------------------------------------------------


def test_the_survey_page_shows_the_schedule_and_progress(client, researcher, survey):
    closes = (timezone.now() + dt.timedelta(days=7, minutes=5)).replace(second=0, microsecond=0)
    set_fields(survey, closes_at=closes, response_target=500, response_count=134)
    client.force_login(researcher)
    html = client.get(reverse("survey-detail", args=[survey.pk])).content.decode()
    when = timezone.localtime(closes).strftime("%-d %b %Y %H:%M")
    assert f"Closes {when} UTC (in 7 days) · 134 of 500 responses (27%)" in html
    assert re.search(r'<progress[^>]*id="response-progress"[^>]*max="500" value="134"', html)


def test_the_survey_page_closes_a_survey_that_reached_its_target(client, researcher, survey):
    set_fields(survey, response_target=10, response_count=10)
    client.force_login(researcher)
    html = client.get(reverse("survey-detail", args=[survey.pk])).content.decode()
    assert status_of(survey) == "closed"
    assert "10 of 10 responses (100%): target reached" in html
    assert ">Closed<" in html


def test_a_survey_page_without_schedule_shows_no_schedule(client, researcher, survey):
    client.force_login(researcher)
    html = client.get(reverse("survey-detail", args=[survey.pk])).content.decode()
    assert 'id="schedule"' not in html and "<progress" not in html


def test_results_and_the_list_show_the_status_after_the_closing_time(
    client, researcher, survey
):
    client.force_login(researcher)
    set_fields(survey, closes_at=timezone.now() - HOUR)
    data = client.get(reverse("survey-results-json", args=[survey.pk])).json()
    assert data["survey"]["status"] == "closed"
    set_fields(survey, status="open", closed_at=None)
    client.get(reverse("survey-list"))
    assert status_of(survey) == "closed"
    set_fields(survey, status="open", closed_at=None)
    client.get(reverse("survey-results", args=[survey.pk]))
    assert status_of(survey) == "closed"


def test_the_summary_in_words():
    now = dt.datetime(2026, 11, 23, 18, tzinfo=dt.UTC)
    survey = Survey(
        status="open", opens_at=now + dt.timedelta(days=1),
        closes_at=dt.datetime(2026, 11, 30, 18, tzinfo=dt.UTC),
        response_target=500, response_count=499,
    )
    assert schedule.summary(survey, now)["text"] == (
        "Opens 24 Nov 2026 18:00 UTC (in 24 hours) · Closes 30 Nov 2026 18:00 UTC (in 7 days)"
        " · 499 of 500 responses (99%)"
    )
    assert schedule.summary(Survey(status="open"), now) is None
    closed = Survey(status="closed", closes_at=now - dt.timedelta(hours=3))
    assert schedule.summary(closed, now)["text"] == (
        "Closed at its closing time, 23 Nov 2026 15:00 UTC (3 hours ago)"
    )
    assert schedule.summary(closed, now)["progress"] is None


@pytest.mark.parametrize("delta,words", [
    (dt.timedelta(seconds=59), "in less than a minute"),
    (dt.timedelta(minutes=89, seconds=40), "in 90 minutes"),
    (dt.timedelta(minutes=95), "in 2 hours"),
    (dt.timedelta(hours=47), "in 47 hours"),
    (dt.timedelta(hours=47, minutes=59), "in 48 hours"),
    (dt.timedelta(hours=60), "in 3 days"),
    (dt.timedelta(days=6, hours=13), "in 7 days"),
    (-dt.timedelta(hours=3, minutes=20), "3 hours ago"),
])
def test_relative_times_are_rounded_to_the_nearest_unit(delta, words):
    now = dt.datetime(2026, 11, 23, 18, tzinfo=dt.UTC)
    assert relative(now + delta, now) == words
