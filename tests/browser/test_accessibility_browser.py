"""Accessible to all: axe-core finds no serious or critical violation on any page, at phone
width, at desktop width and at 200% zoom; no page is wider than a 360 px phone; a researcher
gets from sign-in to a breakdown by keyboard alone.

axe-core is a development dependency from npm (package.json; `make install` runs `npm ci`).
Run with `-s` to see what each page gave: violations by impact, with their rule ids, and the
page widths.
"""

import io
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from surveys.actions.demo import DEMO_TITLE
from surveys.actions.simulate import simulate_responses
from surveys.actions.surveys import open_survey
from surveys.actions.wording import correct
from surveys.models import (
    Choice,
    Invitation,
    Question,
    Survey,
    SurveyShare,
    SurveyTranslation,
)
from tests.helpers import AXE_CONTEXTS, Audit, survey_of_every_encoding

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

PASSWORD = "pass-for-tests-1"
PHONE = AXE_CONTEXTS["360px"]["viewport"]
DESKTOP = AXE_CONTEXTS["1280px"]["viewport"]
# A 1280 x 800 window at 200% browser zoom: CSS pixels are twice as large, so pages lay out
# for a 640 x 400 viewport (media queries included) at a device pixel ratio of 2. CSS `zoom`
# on <html> would not reproduce that: the viewport and the media queries would stay 1280 px.
ZOOM_200 = AXE_CONTEXTS["200%"]
# Researcher input with no place to break a line: it must wrap, not widen the page.
LONG_WORD = "https://example.org/questionnaires/" + "really-long-unbroken-path-segment" * 3
GROUPS = [0.5, 0.3, 0.2]
BY_GROUP = [[0.9, 0.1], [0.7, 0.3], [0.4, 0.6]]


@dataclass
class Site:
    """The pages under test: (label, path) for each user, and the respondent survey."""

    researcher: list[tuple[str, str]] = field(default_factory=list)
    empty: list[tuple[str, str]] = field(default_factory=list)  # a researcher with no survey
    anonymous: list[tuple[str, str]] = field(default_factory=list)
    respondent: list[tuple[str, str]] = field(default_factory=list)  # pages with no script
    survey: Survey | None = None
    invitation: str = ""

    def all_pages(self) -> list[tuple[str, str, str | None]]:
        """(label, path, username or None) of every page a visitor can simply open."""
        return (
            [(label, path, None) for label, path in self.anonymous + self.respondent]
            + [(label, path, "alice") for label, path in self.researcher]
            + [(label, path, "mallory") for label, path in self.empty]
        )


def add_long_question(survey: Survey) -> Question:
    question = Question.objects.create(
        survey=survey, order=3, kind="categorical", epsilon=1.0,
        text=f"Did you ever visit {LONG_WORD} while you were supposed to be working?",
        help_text=f"For example {LONG_WORD}",
    )
    for i, label in enumerate(["Never", LONG_WORD, "Often"]):
        Choice.objects.create(question=question, order=i, label=label)
    return question


@pytest.fixture
def site(researcher, other_researcher, make_researcher, make_survey, epsilon_limits) -> Site:
    epsilon_limits(question=3.0, survey=5.0)  # "Cheating" spends 5: two questions at 2, one at 1
    draft = make_survey(researcher, title=f"Draft with a long address {LONG_WORD}")
    add_long_question(draft)
    opened = make_survey(researcher, epsilons=(2.0, 2.0), title="Cheating")
    yes_no, groups = opened.ordered_questions()
    long_question = add_long_question(opened)
    open_survey(opened)
    simulate_responses(
        opened, 3000, {groups.pk: GROUPS, long_question.pk: [0.6, 0.3, 0.1]}, seed=5,
        given={yes_no.pk: {"question": groups.pk, "shares": BY_GROUP}},
    )
    closed = make_survey(researcher, status="closed", title="Closed")
    private = make_survey(researcher, title="By invitation")
    private.invitation_only = True
    private.save()
    open_survey(private)
    used = Invitation.objects.create(survey=private, used=True)
    unused = Invitation.objects.create(survey=private)
    Invitation.objects.bulk_create(Invitation(survey=private) for _ in range(3))
    # The demo survey (`make run`): long answer labels, true shares beside the estimates.
    call_command("demo", force=True, respondents=1000, stdout=io.StringIO())
    demo = Survey.objects.get(title=DEMO_TITLE)
    demo.owner = researcher
    demo.save()
    year, cannabis, *_ = demo.ordered_questions()
    other_researcher.is_staff = True  # the widest navigation bar: with "Admin"
    other_researcher.save()
    respond = survey_of_every_encoding(make_survey, researcher)
    respond.title = "Every encoding"
    respond.save()
    # Running a study: a co-researcher, a translation, a corrected wording, a schedule.
    SurveyShare.objects.create(survey=opened, user=make_researcher("bob"), role="editor")
    SurveyTranslation.objects.create(survey=opened, language="es", texts={"title": "Copiar"})
    correct(opened, {"introduction": "Please answer honestly."}, author=researcher)
    later = make_survey(researcher, title="Opens next week")
    later.opens_at = timezone.now() + timedelta(days=7)
    later.save()
    open_survey(later)

    site = Site(survey=respond, invitation=unused.token)
    site.anonymous = [("sign-in", reverse("login")), ("home", reverse("home"))]
    draft_question = draft.ordered_questions()[0]
    site.researcher = [
        ("survey list", reverse("survey-list")),
        ("new survey", reverse("survey-create")),
        ("survey detail (draft)", reverse("survey-detail", args=[draft.pk])),
        ("survey detail (open)", reverse("survey-detail", args=[opened.pk])),
        ("new question", reverse("question-create", args=[draft.pk])),
        ("edit question", reverse("question-edit", args=[draft_question.pk])),
        ("results (estimates)", reverse("survey-results", args=[opened.pk])),
        ("results (draft)", reverse("survey-results", args=[draft.pk])),
        (
            "breakdown",
            reverse("question-breakdown", args=[opened.pk, yes_no.pk]) + f"?by={groups.pk}",
        ),
        ("results (demo)", reverse("survey-results", args=[demo.pk])),
        (
            "breakdown (demo)",
            reverse("question-breakdown", args=[demo.pk, cannabis.pk]) + f"?by={year.pk}",
        ),
        ("invitations", reverse("invitation-list", args=[private.pk])),
        ("edit survey", reverse("survey-edit", args=[draft.pk])),
        ("delete question?", reverse("question-delete", args=[draft_question.pk])),
        ("frozen (edit an open question)", reverse("question-edit", args=[yes_no.pk])),
        ("open survey?", reverse("survey-open", args=[draft.pk])),
        ("close survey?", reverse("survey-close", args=[opened.pk])),
        ("delete survey?", reverse("survey-delete", args=[opened.pk])),
        ("password change", reverse("password_change")),
        ("preview (respondent page)", reverse("survey-preview", args=[draft.pk])),
        ("preview (after sending)", reverse("survey-preview-thanks", args=[draft.pk])),
        ("sharing", reverse("survey-sharing", args=[opened.pk])),
        ("translations", reverse("survey-translations", args=[opened.pk])),
        ("translation form", reverse("survey-translation", args=[opened.pk, "es"])),
        ("correct wording", reverse("survey-wording", args=[opened.pk])),
        ("wording history", reverse("survey-wording-history", args=[opened.pk])),
        ("survey detail (scheduled)", reverse("survey-detail", args=[later.pk])),
    ]
    site.empty = [("survey list (empty)", reverse("survey-list"))]
    site.respondent = [
        ("closed", reverse("respond", args=[closed.public_id])),
        ("not open yet", reverse("respond", args=[later.public_id])),
        ("invitation needed", reverse("respond", args=[private.public_id])),
        ("invitation used", reverse("respond-invitation", args=[used.token])),
        ("invitation invalid", reverse("respond-invitation", args=["x" * 22])),
    ]
    return site


# --- browsing ----------------------------------------------------------------------------


def new_page(browser, live_server, username: str | None, **context):
    """A page in a fresh browser context, signed in as `username` unless None."""
    page = browser.new_context(**context).new_page()
    if username:
        page.goto(live_server.url + reverse("login"))
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url("**/surveys/")
    return page


# Pages whose scripts ask the server for something once loaded, and what shows they have
# their answer: a page is audited and measured as its reader sees it, not half drawn.
DRAWN = {
    "new question": "#respondents-read",  # the explanation panel
    "edit question": "#respondents-read",
    "preview (respondent page)": "#send-answers:enabled",  # the catalogue, in a translation
}


def open_drawn(page, live_server, label: str, path: str) -> None:
    page.goto(live_server.url + path)
    if label in DRAWN:
        page.wait_for_selector(DRAWN[label])


def audit_simple_pages(browser, live_server, site: Site, axe: Audit, tag: str, **context):
    pages = {}
    for label, path, username in site.all_pages():
        if username not in pages:
            pages[username] = new_page(browser, live_server, username, **context)
        page = pages[username]
        open_drawn(page, live_server, label, path)
        axe(page, f"{label} [{tag}]")
    for page in pages.values():
        page.context.close()


def audit_answering(browser, live_server, site: Site, axe: Audit, tag: str, **context):
    """Every state of the respondent page that the current page can reach: empty, missing
    answers, sending, error (with retry), sent but unconfirmed (send again), thank-you,
    already answered; and by invitation."""
    survey = site.survey
    questions = list(survey.ordered_questions())
    page = new_page(browser, live_server, None, **context)
    page.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    page.wait_for_selector("#send-answers:enabled")
    axe(page, f"respond: empty [{tag}]")

    page.click("#send-answers")
    page.wait_for_selector(f"#question-{questions[0].pk} [data-missing]:visible")
    axe(page, f"respond: missing answers [{tag}]")

    for question, answer in zip(questions, [1, 4, 2], strict=True):
        page.check(f"#answer-{question.pk}-{answer}")
    held = []

    def audit_while_sending(route) -> None:
        """The request is held here, so the page is in its sending state: audit it, then
        answer 503."""
        held.append(page.is_disabled("#send-answers"))  # sending: the button waits
        axe(page, f"respond: sending [{tag}]")
        route.fulfill(
            status=503, content_type="application/json", body='{"ok": false, "error": "Busy"}'
        )

    page.route("**/submit/", audit_while_sending)
    with page.expect_response("**/submit/"):
        page.click("#send-answers")
    assert held == [True], "the page sent nothing, more than once, or while answerable"
    page.wait_for_selector("#send-answers:enabled")
    axe(page, f"respond: error, retry [{tag}]")

    # Back later: what this browser sent, not yet confirmed, with a button to send it again.
    page.reload()
    page.wait_for_selector("#already-answered:visible")
    page.wait_for_selector("#resend-answers:enabled")
    axe(page, f"respond: sent, unconfirmed (resend) [{tag}]")

    page.unroute("**/submit/")
    page.click("#resend-answers")
    page.wait_for_url("**/thanks/")
    page.wait_for_selector("#sent:visible")
    axe(page, f"respond: thank-you [{tag}]")

    page.goto(live_server.url + reverse("respond", args=[survey.public_id]))
    page.wait_for_selector("#already-answered:visible")
    axe(page, f"respond: already answered [{tag}]")

    page.goto(live_server.url + reverse("respond-invitation", args=[site.invitation]))
    page.wait_for_selector("#send-answers:enabled")
    axe(page, f"respond: by invitation [{tag}]")
    page.context.close()


# Every page in English at each width, and in each other language at one (German, the
# longest, on the phone).
@pytest.mark.parametrize(
    ("viewport", "language"),
    [(PHONE, "en"), (DESKTOP, "en"), (PHONE, "de"), (DESKTOP, "fr")],
    ids=["360px", "1280px", "360px-de", "1280px-fr"],
)
def test_axe_finds_nothing_serious_on_any_page(browser, live_server, site, axe, viewport,
                                               language):
    tag = f"{viewport['width']}px {language}"
    print(f"\naxe-core on every page at {tag}")
    context = {"viewport": viewport, "locale": language}
    audit_simple_pages(browser, live_server, site, axe, tag, **context)
    audit_answering(browser, live_server, site, axe, tag, **context)
    axe.check()


@pytest.mark.parametrize("language", ["en", "es"])
def test_axe_finds_nothing_serious_at_200_percent_zoom(browser, live_server, site, axe,
                                                       language):
    print(f"\naxe-core on every page at 200% zoom (a 1280 px window: 640 CSS px), {language}")
    tag = f"200% {language}"
    audit_simple_pages(browser, live_server, site, axe, tag, **ZOOM_200, locale=language)
    audit_answering(browser, live_server, site, axe, tag, **ZOOM_200, locale=language)
    axe.check()


# --- widths ------------------------------------------------------------------------------

OVERFLOWING = """(width) => [...document.querySelectorAll("body *")]
  .filter((e) => !e.closest(".table-responsive, input, select, textarea"))
  .filter((e) => e.getBoundingClientRect().right > width + 0.5 || e.scrollWidth > e.clientWidth + 1
    && getComputedStyle(e).overflowX === "visible" && e.clientWidth > 1)
  .slice(0, 6)
  .map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")
    + (typeof e.className === "string" && e.className ? "." + e.className.split(" ").join(".") : "")
    + " right=" + Math.round(e.getBoundingClientRect().right))"""


def measure(page, label: str, widths: dict, limit: int) -> None:
    page.wait_for_load_state("load")
    width = page.evaluate("document.documentElement.scrollWidth")
    widths[label] = width
    culprits = page.evaluate(OVERFLOWING, limit) if width > limit else []
    print(f"  {label:<36} {width:>5} px{'  TOO WIDE: ' + '; '.join(culprits) if culprits else ''}")


@pytest.mark.parametrize(
    "context",
    [{"viewport": PHONE}, ZOOM_200, {"viewport": PHONE, "locale": "de"}],
    ids=["360px", "200% zoom", "360px-de"],
)
def test_no_page_is_wider_than_the_window(browser, live_server, site, context):
    limit = context["viewport"]["width"]
    print(f"\ndocument width at a {limit} px viewport")
    widths: dict[str, int] = {}
    pages = {}
    for label, path, username in site.all_pages():
        if username not in pages:
            pages[username] = new_page(browser, live_server, username, **context)
        open_drawn(pages[username], live_server, label, path)
        measure(pages[username], label, widths, limit)
    page = pages[None]
    page.goto(live_server.url + reverse("respond", args=[site.survey.public_id]))
    page.wait_for_selector("#send-answers:enabled")
    measure(page, "respond: empty", widths, limit)
    page.click("#send-answers")
    measure(page, "respond: missing answers", widths, limit)
    assert {label: w for label, w in widths.items() if w > limit} == {}


# --- keyboard ----------------------------------------------------------------------------

FOCUSED = r"""() => {
  const e = document.activeElement;
  const style = getComputedStyle(e);
  return {
    tag: e.tagName.toLowerCase(), id: e.id,
    text: (e.value || e.textContent || "").replace(/\s+/g, " ").trim(),
    label: e.getAttribute("aria-label") || "",
    visible: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0
      || style.boxShadow !== "none",
  };
}"""


def tab_to(page, wanted, limit: int = 80) -> dict:
    """Press Tab until `wanted(focused element)` holds; every element on the way must show
    that it has focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused["tag"] != "body":
            assert focused["visible"], f"no visible focus on {focused}"
        if wanted(focused):
            return focused
    raise AssertionError(f"Tab never reached the element; last focused: {focused}")


def test_a_researcher_reaches_a_breakdown_by_keyboard_alone(browser, live_server, site):
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(live_server.url + reverse("login"))
    tab_to(page, lambda f: f["text"] == "Skip to main content")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    tab_to(page, lambda f: f["id"] == "id_username")
    page.keyboard.type("alice")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url("**/surveys/")
    print("\nkeyboard: signed in")

    # At phone width the navigation is behind the menu button.
    tab_to(page, lambda f: f["label"] == "Show navigation")
    page.keyboard.press("Enter")
    page.wait_for_selector("#nav-links.show")
    tab_to(page, lambda f: f["text"] == "Password")
    page.keyboard.press("Enter")
    page.wait_for_url("**/password_change/")
    tab_to(page, lambda f: f["label"] == "Show navigation")
    page.keyboard.press("Enter")
    page.wait_for_selector("#nav-links.show")
    tab_to(page, lambda f: f["text"] == "My surveys")
    page.keyboard.press("Enter")
    page.wait_for_url("**/surveys/")
    print("keyboard: used the menu")

    tab_to(page, lambda f: f["tag"] == "a" and f["text"] == "Results of “Cheating”")
    page.keyboard.press("Enter")
    page.wait_for_url("**/results/")
    print("keyboard: opened the results")

    tab_to(page, lambda f: f["text"] == "Break this question down by another")
    page.keyboard.press("Enter")
    page.wait_for_url("**/breakdown/")
    tab_to(page, lambda f: f["tag"] == "select")
    first = page.evaluate("document.activeElement.value")
    page.keyboard.press("ArrowDown")  # the next question to break down by
    chosen = page.evaluate("document.activeElement.value")
    assert chosen != first
    tab_to(page, lambda f: f["text"] == "Show")
    page.keyboard.press("Enter")
    page.wait_for_url("**/breakdown/?by=*")
    assert f"by={chosen}" in page.url
    print(f"keyboard: opened the breakdown {page.url.removeprefix(live_server.url)}")

    tab_to(page, lambda f: f["tag"] == "summary")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.parentElement.open")
    tab_to(page, lambda f: f["text"] == "CSV")
    page.context.close()


def test_a_respondent_answers_by_keyboard_alone(browser, live_server, site):
    questions = list(site.survey.ordered_questions())
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(live_server.url + reverse("respond", args=[site.survey.public_id]))
    page.wait_for_selector("#send-answers:enabled")
    for question in questions:  # Tab into each question, Space to choose, arrows to change
        tab_to(page, lambda f, q=question: f["id"].startswith(f"answer-{q.pk}-"))
        page.keyboard.press("Space")
        page.keyboard.press("ArrowDown")
    chosen = page.eval_on_selector_all("input[type=radio]:checked", "inputs => inputs.length")
    assert chosen == len(questions)
    tab_to(page, lambda f: f["id"] == "send-answers")
    page.keyboard.press("Enter")
    page.wait_for_url("**/thanks/")
    page.wait_for_selector("#sent:visible")
    print("\nkeyboard: a respondent answered every question and sent the answers")
    page.context.close()
