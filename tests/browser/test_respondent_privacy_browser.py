"""The respondent's privacy promises, checked in headless Chromium, printing what was seen.

- Nothing true outlives the page: the browser keeps only the key and the reports it sent.
- A question's report, once drawn, is the only one that ever leaves the browser.
- No cookie at all, and no post from another site is accepted.
- A respondent who returns sees what was sent, read-only.

Run with `-s` to see what each test printed. No sleeps: every wait is for a request, a
response, a navigation or an element.
"""

import contextlib
import http.server
import json
import threading
from collections.abc import Iterator

import pytest
from django.urls import reverse

from surveys.models import Invitation, Submission, Survey
from surveys.views.respond import CROSS_SITE
from tests.helpers import (
    assert_nothing_stored,
    choose,
    is_submit,
    open_survey,
    questions,
    send,
    show,
    stored_reports,
    survey_of_every_encoding,
    valid_reports,
)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

KEPT = """async () => {
    const items = (storage) => {
        const found = {};
        for (let i = 0; i < storage.length; i++) {
            found[storage.key(i)] = storage.getItem(storage.key(i));
        }
        return found;
    };
    return {
        localStorage: items(localStorage),
        sessionStorage: items(sessionStorage),
        indexedDB: (await indexedDB.databases()).map((database) => database.name),
        caches: await caches.keys(),
        documentCookie: document.cookie,
    };
}"""
"""Everything a page of the site can keep in this browser, besides cookies."""


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return survey_of_every_encoding(make_survey, researcher)


def record_name(survey: Survey) -> str:
    return f"private-surveys:{survey.public_id}"


def kept(page) -> dict:
    """What the browser keeps for the site: its storage (read by a page of the site) and its
    cookies (for any site)."""
    found = page.evaluate(KEPT)
    found["cookies"] = page.context.cookies()
    return found


def submit_bodies(page) -> list[dict]:
    """Every body the page posts to a submission endpoint from now on (a live list)."""
    bodies: list[dict] = []
    page.on("request", lambda request: bodies.append(request.post_data_json)
            if is_submit(request) else None)
    return bodies


def flush_requests(page, script: str = "() => {}") -> None:
    """Run `script` in the page, then fetch a marker address and wait for that request: any
    request the script started reaches the listeners before the marker's."""
    page.route("**/__marker__/", lambda route: route.fulfill(status=204))
    with page.expect_request("**/__marker__/"):
        page.evaluate(f"async () => {{ await ({script})(); fetch('/__marker__/'); }}")


def force_change(page, survey: Survey, answers: list[int]) -> None:
    """Change the answers by force, as a determined person could: enable and unhide the form,
    check other radio buttons and fire their change events, and enable the send button."""
    ids = [f"answer-{q.pk}-{a}" for q, a in zip(questions(survey), answers, strict=True)]
    page.evaluate(
        """(ids) => {
            document.getElementById("answering").hidden = false;
            for (const fieldset of document.querySelectorAll("fieldset")) fieldset.disabled = false;
            for (const id of ids) {
                const input = document.getElementById(id);
                input.checked = true;
                input.dispatchEvent(new Event("change", { bubbles: true }));
            }
            document.getElementById("send-answers").disabled = false;
        }""",
        ids,
    )


# Nothing true outlives the page ------------------------------------------------------------


def test_the_browser_keeps_only_the_key_and_the_reports_it_sent(page, live_server, survey):
    open_survey(page, live_server, survey)
    show("privacy box", page.inner_text("#odds"))
    choose(page, survey, [1, 4, 2])
    before = kept(page)
    show("kept after answering, before sending", before)
    assert before["localStorage"] == {} and before["sessionStorage"] == {}
    body = send(page)
    page.wait_for_url("**/thanks/")
    after = kept(page)
    show("kept after sending (on the thank-you page)", after)
    assert list(after["localStorage"]) == [record_name(survey)]
    record = json.loads(after["localStorage"][record_name(survey)])
    assert record == {"key": body["idempotency_key"], "reports": body["reports"], "confirmed": True,
                      "wording": body["wording"]}
    stored = Submission.objects.get()
    show("stored by the server", {"key": stored.idempotency_key, "reports": stored.reports})
    assert record["reports"] == stored.reports and record["key"] == stored.idempotency_key
    assert after["sessionStorage"] == {} and after["indexedDB"] == [] and after["caches"] == []
    assert after["cookies"] == [] and after["documentCookie"] == ""
    # The page itself is gone too: going back shows what was sent, no answer checked.
    page.go_back()
    page.wait_for_selector("#already-answered", state="visible")
    checked = page.evaluate("document.querySelectorAll('input:checked').length")
    show("radio buttons checked after going back", checked)
    assert checked == 0
    assert kept(page)["localStorage"] == after["localStorage"]


def test_true_answers_an_older_version_kept_are_erased(page, live_server, survey, make_survey,
                                                      researcher):
    other = make_survey(researcher, status="open", title="Another")
    yes_no, unary, grr = (str(q.pk) for q in questions(survey))
    old_sent = {"12": 1}
    legacy = {
        record_name(survey): {"key": "old-key-0123456789", "memo": {f"{yes_no}:1": 0,
                                                                    f"{grr}:2": 1},
                              "sent": {"reports": {yes_no: 0, unary: [0] * 12, grr: 1}}},
        record_name(other): {"key": "old-key-9876543210", "memo": {"12:1": 1}, "sent": None},
        "private-surveys:elsewhere": {"key": "old-key-5555555555", "memo": {"7:0": 1},
                                      "sent": {"reports": old_sent}},
    }
    open_survey(page, live_server, other)  # any page of the site
    page.evaluate("(items) => { for (const [k, v] of Object.entries(items)) "
                  "localStorage.setItem(k, JSON.stringify(v)); }", legacy)
    show("kept by an older version", kept(page)["localStorage"])
    open_survey(page, live_server, survey)
    page.wait_for_selector("#already-answered", state="visible")
    now = {name: json.loads(text) for name, text in kept(page)["localStorage"].items()}
    show("kept after opening a survey page", now)
    # Rewritten in this version's form: an older version kept no wording version (None).
    assert now == {
        record_name(survey): {"key": "old-key-0123456789", "confirmed": True,
                              "reports": {yes_no: 0, unary: [0] * 12, grr: 1}, "wording": None},
        record_name(other): {"key": "old-key-9876543210", "reports": None, "confirmed": False,
                             "wording": None},
        "private-surveys:elsewhere": {"key": "old-key-5555555555", "reports": old_sent,
                                      "confirmed": True, "wording": None},
    }


# One report per question, ever --------------------------------------------------------------


def test_no_other_report_ever_leaves_the_browser_after_sending(page, live_server, survey):
    bodies = submit_bodies(page)
    open_survey(page, live_server, survey)
    choose(page, survey, [0, 7, 1])
    first = send(page)
    page.wait_for_url("**/thanks/")
    page.go_back()  # from the back-forward cache, or loaded again
    page.wait_for_selector("#already-answered", state="visible")
    page.reload()
    page.wait_for_selector("#already-answered", state="visible")
    open_survey(page, live_server, survey)  # returning
    page.wait_for_selector("#already-answered", state="visible")
    force_change(page, survey, [1, 3, 0])
    flush_requests(page, "() => document.getElementById('send-answers').click()")
    show("bodies posted (changed answers, back, reload, return, forced click)", bodies)
    assert bodies == [first]
    assert stored_reports(survey) == [first["reports"]]


def test_a_retry_after_a_lost_response_sends_the_identical_body(page, live_server, survey):
    submit_url = live_server.url + reverse("respond-submit", args=[survey.public_id])

    def lose_the_response(route) -> None:
        route.fetch()  # the server receives and stores the submission...
        route.abort()  # ...but its answer never reaches the page

    page.route(submit_url, lose_the_response, times=1)
    bodies = submit_bodies(page)
    open_survey(page, live_server, survey)
    choose(page, survey, [1, 0, 0])
    first = send(page)
    page.wait_for_selector("#respond-status:has-text('could not reach the server')")
    assert stored_reports(survey) == [first["reports"]]
    pending = kept(page)["localStorage"]
    show("kept after the lost response", pending)
    assert json.loads(pending[record_name(survey)]) == {
        "key": first["idempotency_key"], "reports": first["reports"], "confirmed": False,
        "wording": first["wording"]}
    assert page.is_disabled(f"#answer-{questions(survey)[0].pk}-0")  # locked
    force_change(page, survey, [0, 5, 2])
    with page.expect_response(lambda r: is_submit(r.request)) as response:
        again = send(page)
    page.wait_for_url("**/thanks/")
    show("bodies posted", bodies)
    show("status of the retry", response.value.status)
    assert again == first and bodies == [first, first]
    assert response.value.status == 200  # a replay: stored once
    assert stored_reports(survey) == [first["reports"]]
    assert json.loads(kept(page)["localStorage"][record_name(survey)])["confirmed"] is True


def test_after_a_lost_response_and_a_reload_it_offers_only_the_same_again(
    page, live_server, survey
):
    submit_url = live_server.url + reverse("respond-submit", args=[survey.public_id])
    page.route(submit_url, lambda route: (route.fetch(), route.abort()), times=1)
    bodies = submit_bodies(page)
    open_survey(page, live_server, survey)
    choose(page, survey, [0, 11, 2])
    first = send(page)
    page.wait_for_selector("#respond-status:has-text('could not reach the server')")
    page.reload()
    page.wait_for_selector("#resend-answers", state="visible")
    assert page.is_hidden("#answering")
    show("read-only page after the reload", page.inner_text("#already-answered"))
    with page.expect_response(lambda r: is_submit(r.request)) as response:
        page.click("#resend-answers")
    page.wait_for_url("**/thanks/")
    show("bodies posted", bodies)
    assert bodies == [first, first] and response.value.status == 200
    assert Submission.objects.count() == 1


def test_another_tab_cannot_send_other_reports(browser, live_server, survey):
    context = browser.new_context()
    first_tab, second_tab = context.new_page(), context.new_page()
    bodies = submit_bodies(second_tab)
    open_survey(second_tab, live_server, survey)
    choose(second_tab, survey, [1, 1, 1])
    open_survey(first_tab, live_server, survey)
    choose(first_tab, survey, [0, 0, 0])
    sent = send(first_tab)
    first_tab.wait_for_url("**/thanks/")
    # Told by the storage event: answers were sent and the server confirmed them.
    second_tab.wait_for_selector('#already-answered [data-sent-state="confirmed"]', state="visible")
    flush_requests(second_tab, "() => document.getElementById('send-answers').click()")
    checked = second_tab.evaluate("document.querySelectorAll('input:checked').length")
    show("second tab: bodies posted, answers left checked", [bodies, checked])
    assert bodies == [] and checked == 0
    assert stored_reports(survey) == [sent["reports"]]
    context.close()


# No identifier, no cross-site post ----------------------------------------------------------


def test_the_cookie_jar_stays_empty(browser, live_server, survey, make_survey, researcher):
    invited = make_survey(researcher, status="open", title="Invited")
    invited.invitation_only = True
    invited.save()
    invitation = Invitation.objects.create(survey=invited)
    closed = make_survey(researcher, status="closed", title="Closed")
    context = browser.new_context()
    page = context.new_page()
    set_cookie = []
    page.on("response", lambda r: set_cookie.append(r.url) if r.header_value("set-cookie")
            else None)
    open_survey(page, live_server, survey)
    choose(page, survey, [1, 2, 0])
    send(page)
    page.wait_for_url("**/thanks/")
    page.goto(live_server.url + reverse("respond-invitation", args=[invitation.token]))
    choose(page, invited, [0, 1])
    body = send(page)
    page.wait_for_url("**/thanks/")
    assert body["invitation"] == invitation.token
    page.goto(live_server.url + reverse("respond-invitation", args=[invitation.token]))
    assert page.is_visible("text=already been used")
    open_survey(page, live_server, closed)
    assert page.is_visible("text=This survey is closed")
    show("cookies after answering two surveys (one by invitation) and visiting a closed one",
         context.cookies())
    show("responses that set a cookie", set_cookie)
    assert context.cookies() == [] and set_cookie == []
    context.close()


ATTACK_PAGE = """<!doctype html><title>Win a prize</title>
<form id="attack" method="post" action="{url}" enctype="text/plain">
  <input type="hidden" name='{prefix}' value='"}}'>
  <button id="go">Claim</button>
</form>"""


@contextlib.contextmanager
def other_site(page_html: str) -> Iterator[str]:
    """Another site on this machine (127.0.0.1, another port: another origin than the live
    server's http://localhost:port) serving `page_html`; yields its address. A real server:
    Chromium lets a page on the local network reach a local server, as an attacker's page on
    a respondent's own network could."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            content = page_html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_another_site_cannot_post_to_the_endpoint(page, live_server, survey):
    url = live_server.url + reverse("respond-submit", args=[survey.public_id])
    reports = {str(pk): report for pk, report in valid_reports(survey).items()}
    body = {"idempotency_key": "forged-key-0123", "invitation": None, "wording": 0,
            "reports": reports}
    # A text/plain form posts `name=value`: this name and value make the whole body JSON.
    prefix = json.dumps(body)[:-1] + ', "pad": "'
    attack = ATTACK_PAGE.format(url=url, prefix=prefix.replace("'", "&#39;"))
    with other_site(attack) as evil:
        assert evil.split(":")[1] != live_server.url.split(":")[1]  # another host: 127.0.0.1
        page.goto(f"{evil}/prize")
        with page.expect_response(lambda r: is_submit(r.request)) as form_post:
            page.click("#go")
        form = form_post.value
        seen = {"request headers": {k: v for k, v in form.request.all_headers().items()
                                    if k in {"origin", "content-type", "cookie"}},
                "status": form.status, "body": form.json()}
        show("form posted from another site", seen)
        assert form.status == 403 and form.json() == {"ok": False, "error": CROSS_SITE}
        assert json.loads(form.request.post_data) | {"pad": ""} == body | {"pad": ""}  # JSON
        assert_nothing_stored(survey)

        page.goto(f"{evil}/prize")
        with page.expect_response(lambda r: is_submit(r.request)) as no_cors:
            kind = page.evaluate(
                "([url, body]) => fetch(url, {method: 'POST', mode: 'no-cors', body, "
                "headers: {'Content-Type': 'text/plain'}}).then((r) => r.type)",
                [url, json.dumps(body)],
            )
        no_cors_status = no_cors.value.status
        json_fetch = page.evaluate(
            "([url, body]) => fetch(url, {method: 'POST', body, headers: {'Content-Type': "
            "'application/json'}}).then((r) => `answered ${r.status}`, (e) => `failed: ${e}`)",
            [url, json.dumps(body)],
        )
    show("fetches from another site", {
        # The browser keeps no body of an opaque answer; the status shows the refusal.
        "no-cors text/plain": {"seen by the page": kind, "status": no_cors_status},
        "cors application/json (needs a preflight, which the endpoint refuses)": json_fetch,
    })
    assert kind == "opaque" and no_cors_status == 403
    assert json_fetch.startswith("failed")
    assert_nothing_stored(survey)

    # The very same body from the survey's own page is accepted: only the origin differed.
    open_survey(page, live_server, survey)
    own = page.evaluate(
        "([url, body]) => fetch(url, {method: 'POST', body, headers: {'Content-Type': "
        "'application/json'}}).then((r) => r.status)",
        [url, json.dumps(body)],
    )
    show("the same body from the survey's own page", own)
    assert own == 201 and stored_reports(survey) == [reports]


# The already-answered page -------------------------------------------------------------------


def test_the_already_answered_page_is_read_only(page, live_server, survey):
    open_survey(page, live_server, survey)
    choose(page, survey, [1, 6, 2])
    sent = send(page)
    page.wait_for_url("**/thanks/")
    open_survey(page, live_server, survey)
    page.wait_for_selector("#already-answered", state="visible")
    show("the already-answered page", page.inner_text("#already-answered"))
    assert page.is_hidden("#answering") and page.is_hidden("#send-answers")
    assert page.is_hidden("#resend-answers")
    assert page.locator("input[type=radio]:visible").count() == 0
    assert page.locator("button:visible", has_text="Send").count() == 0
    yes_no, unary, grr = questions(survey)
    shown = page.text_content(f'#already-answered [data-sent-question="{grr.pk}"]')
    assert shown == ["Red", "Green", "Blue"][sent["reports"][str(grr.pk)]]
    # Keyboard: tabbing through the whole page never reaches an answer or a send button.
    focused = []
    for _ in range(60):
        page.keyboard.press("Tab")
        element = page.evaluate(
            "(e => e === document.body ? 'BODY' : `${e.tagName}#${e.id}:${e.textContent.trim()}`)"
            "(document.activeElement)"
        )
        if focused and element == focused[0]:
            break  # round the whole page
        focused.append(element)
    show("what the Tab key reaches", focused)
    assert len(focused) > 2
    assert not any(e.startswith(("INPUT", "BUTTON#send", "BUTTON#resend")) for e in focused)
