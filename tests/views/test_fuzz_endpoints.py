"""Nothing let in: property-based fuzzing of the submission endpoint and the estimate JSON
endpoints. Never a 5xx; a refused request stores nothing, in any survey.

tests/views/test_respond_fuzz.py covers malformed bodies (raw bytes, missing or extra fields, bad
keys, wrong report values); the access matrix and CSRF are in tests/views/test_access.py. Here:
well-shaped bodies that name other surveys' questions, odd question ids and huge numbers;
other surveys, addresses and invitations; methods, content types, lengths and headers; and the
estimates for every kind of visitor, survey id, query string and method.
"""

import itertools
import json
from urllib.parse import quote

import pytest
from django.db.models import Sum
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from surveys import ldp
from surveys.actions.simulate import simulate_responses
from surveys.models import Invitation, Submission, Survey, Tally
from tests.helpers import questions, survey_of_every_encoding, valid_reports

pytestmark = pytest.mark.django_db

FUZZ = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
METHODS = st.sampled_from(["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]) | (
    st.from_regex(r"[A-Z]{1,12}", fullmatch=True)
)
HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=60)
TEXT = st.characters(codec="utf-8")  # what a URL can carry: no lone surrogates
ODD_TEXT = st.sampled_from(["\x00", "a\x00b", "\u202e", "%", " ", "."]) | st.text(
    TEXT, min_size=1, max_size=40
)
"""Addresses and tokens, with the characters a database may refuse (PostgreSQL: NUL)."""


@pytest.fixture(autouse=True)
def _no_rate_limit(settings):
    """The limit would answer 429 after a few requests, before anything fuzzed is read."""
    settings.RATELIMIT_SUBMISSIONS = "1000000/60"


@pytest.fixture
def world(researcher, other_researcher, admin_user, make_survey) -> dict:
    """The fuzzed survey (one question of each encoding), another researcher's open survey,
    a closed and a draft one, and invitations: a used one and another survey's."""
    target = survey_of_every_encoding(make_survey, researcher)
    other = make_survey(other_researcher, status="open", title="Theirs")
    Invitation.objects.create(survey=target, token="used-invitation-token", used=True)
    Invitation.objects.create(survey=other, token="their-invitation-token")
    return {
        "target": target,
        "other": other,
        "closed": make_survey(researcher, status="closed", title="Closed"),
        "draft": make_survey(researcher, title="Draft"),
        "users": {"owner": researcher, "other": other_researcher, "admin": admin_user},
    }


def state() -> tuple:
    """Everything a submission can change, over all surveys."""
    return (
        Submission.objects.count(),
        Tally.objects.aggregate(total=Sum("count"))["total"],
        Survey.objects.aggregate(total=Sum("response_count"))["total"],
        Invitation.objects.filter(used=True).count(),
    )


def reports_of(survey: Survey) -> st.SearchStrategy[dict[str, object]]:
    """Valid reports (question id as text -> report) for every question of `survey`."""
    def report(question) -> st.SearchStrategy:
        mechanism = question.mechanism()
        if mechanism.encoding == "unary":
            return st.lists(st.integers(0, 1), min_size=mechanism.k, max_size=mechanism.k)
        return st.integers(0, mechanism.k - 1)

    return st.fixed_dictionaries({str(q.pk): report(q) for q in questions(survey)})


keys = st.from_regex(r"[A-Za-z0-9_-]{8,64}", fullmatch=True)


def body(key: str, reports: dict, invitation: str | None = None) -> dict:
    return {"idempotency_key": key, "invitation": invitation, "wording": 0, "reports": reports}


def submit_url(survey: Survey) -> str:
    return reverse("respond-submit", args=[survey.public_id])


def odd_question_ids(survey: Survey) -> st.SearchStrategy[str]:
    """Texts that a lax parser could read as one of the survey's question ids, and ids far
    beyond any row: unicode digits, signs, spaces, exponents, 19 to 400 digits."""
    ids = [str(q.pk) for q in questions(survey)]
    lookalike = st.sampled_from(ids).flatmap(lambda pk: st.sampled_from([
        pk.translate({ord(d): chr(0xFF10 + int(d)) for d in "0123456789"}),  # fullwidth
        pk.translate({ord(d): chr(0x0660 + int(d)) for d in "0123456789"}),  # Arabic-Indic
        f"+{pk}", f"-{pk}", f" {pk}", f"{pk}\n", f"{pk}.0", f"{pk}e0", f"0{pk}", f"{pk}\x00",
        hex(int(pk)), f"{pk}_",
    ]))
    return st.one_of(
        lookalike,
        st.integers(10**18, 10**400).map(str),
        st.text(st.characters(categories=["Nd"]), min_size=1, max_size=20),
    ).filter(lambda text: text not in ids)


def huge_number_text() -> st.SearchStrategy[str]:
    """JSON numbers no report can be: thousands of digits, exponents out of float range."""
    return st.one_of(
        st.integers(1, 6000).map(lambda n: "9" * n),
        st.integers(1, 6000).map(lambda n: "-1" + "0" * n),
        st.sampled_from(["1e400", "-1e400", "1E+99999", "0.5e-99999", "1.0", "-0.0", "1E0"]),
    )


def test_it_refuses_well_shaped_bodies_with_wrong_questions_or_numbers(client, world):
    target, other = world["target"], world["other"]
    ids = [str(q.pk) for q in questions(target)]
    url = submit_url(target)

    def swapped(reports: dict, pk: str, new: str) -> dict:
        return {new if key == pk else key: value for key, value in reports.items()}

    wrong_ids = st.one_of(
        # Another survey's questions, instead of, besides, or for all of this one's.
        st.builds(lambda r, o: r | o, reports_of(target), reports_of(other)),
        reports_of(other),
        st.builds(lambda r, o, pk: swapped(r, pk, next(iter(o))), reports_of(target),
                  reports_of(other), st.sampled_from(ids)),
        st.builds(swapped, reports_of(target), st.sampled_from(ids), odd_question_ids(target)),
        st.builds(lambda r, odd, v: r | {odd: v}, reports_of(target), odd_question_ids(target),
                  st.integers(0, 1)),
    ).map(lambda reports: json.dumps(body("fuzz-key-0001", reports)))
    # A valid body with one report replaced by a huge number, spliced in as raw JSON text.
    huge = st.builds(
        lambda r, pk, number: json.dumps(body("fuzz-key-0002", r | {pk: "@"})).replace(
            '"@"', number),
        reports_of(target), st.sampled_from(ids), huge_number_text(),
    )
    before = state()

    @FUZZ
    @given(raw=wrong_ids | huge)
    def check(raw: str) -> None:
        response = client.post(url, raw, content_type="application/json")
        assert response.status_code == 400, (raw[:300], response.content)
        assert response.json()["ok"] is False and response.json()["error"]
        assert state() == before

    check()


def test_it_refuses_other_surveys_addresses_and_invitations(client, world):
    target, other, closed, draft = (world[name] for name in ("target", "other", "closed", "draft"))

    def address(public_id: str) -> str:
        return submit_url(target).replace(target.public_id, quote(public_id, safe=""))

    cases = st.one_of(
        st.tuples(st.just(submit_url(other)), reports_of(target), st.none(), st.just(400)),
        st.tuples(st.just(submit_url(closed)), reports_of(closed), st.none(), st.just(410)),
        st.tuples(st.just(submit_url(draft)), reports_of(draft), st.none(), st.just(404)),
        st.tuples((ODD_TEXT.filter(lambda s: "/" not in s)).map(address), reports_of(target),
                  st.none(), st.just(404)),
        st.tuples(st.just(submit_url(target)), reports_of(target),
                  st.sampled_from(["used-invitation-token", "their-invitation-token"])
                  | ODD_TEXT, st.just(403)),
    )
    reports = {str(pk): report for pk, report in valid_reports(target).items()}
    before = state()

    @FUZZ
    @example(case=(address("a\x00b"), reports, None, 404), key="nul-in-address")
    @example(case=(submit_url(target), reports, "a\x00b", 403), key="nul-in-invitation")
    @given(case=cases, key=keys)
    def check(case: tuple, key: str) -> None:
        url, reports, invitation, expected = case
        response = client.post(url, body(key, reports, invitation), content_type="application/json")
        assert response.status_code == expected, (url, response.content)
        # An address outside the token alphabet never reaches the endpoint: Django's 404 page.
        if response["Content-Type"] == "application/json":
            assert response.json()["ok"] is False
        assert state() == before

    check()


def test_it_stores_a_valid_body_only_from_a_json_post_whatever_the_headers(client, world):
    """All or nothing: 201 with exactly that submission stored, or 4xx and nothing stored."""
    target = world["target"]
    url = submit_url(target)
    content_types = st.one_of(
        st.just("application/json"),
        st.builds(lambda t, p: f"{t}; {p}",
                  st.sampled_from(["application/json", "APPLICATION/JSON", "text/json"]),
                  HEADER_TEXT),
        HEADER_TEXT,
    )
    headers = st.dictionaries(
        st.sampled_from(["HTTP_ACCEPT", "HTTP_COOKIE", "HTTP_X_FORWARDED_FOR", "HTTP_ORIGIN",
                         "HTTP_REFERER", "HTTP_ACCEPT_ENCODING", "HTTP_TRANSFER_ENCODING",
                         "HTTP_X_CSRFTOKEN"]),
        HEADER_TEXT,
    )
    seen = {"stored": 0, "refused": 0}
    fresh_keys = (f"headers-{i:06d}" for i in itertools.count())

    @FUZZ
    @given(method=st.just("POST") | METHODS, content_type=content_types, extra=headers,
           length=st.none() | st.sampled_from(["", "0", "-1", "abc", "9" * 30, "65537", "1"]),
           reports=reports_of(target))
    def check(method, content_type, extra, length, reports) -> None:
        key = next(fresh_keys)
        if length is not None:
            extra = extra | {"CONTENT_LENGTH": length}
        before = state()
        raw = json.dumps(body(key, reports)).encode()
        response = client.generic(method, url, raw, content_type=content_type, **extra)
        assert response.status_code < 500, response.content
        if method != "POST":
            assert response.status_code == 405
        if response.status_code == 201:
            seen["stored"] += 1
            stored = Submission.objects.get(survey=target, idempotency_key=key)
            assert stored.reports == response.json()["received"]
            assert set(stored.reports) == set(reports)
            assert state()[0] == before[0] + 1
        else:
            seen["refused"] += 1
            assert 400 <= response.status_code < 500
            assert state() == before

    check()
    assert seen["stored"] and seen["refused"], seen


@pytest.mark.parametrize("who", ["anonymous", "owner", "other", "admin"])
def test_it_serves_estimates_only_to_the_owner_and_administrators(world, who):
    """Whatever the survey id, query string and method: 405 for anything but GET and HEAD,
    sign-in for visitors, the estimates for the owner (and administrators), else 404."""
    client = Client()
    if who != "anonymous":
        client.force_login(world["users"][who])
    mine = {world[name].pk for name in ("target", "closed", "draft")}
    visible = {"anonymous": set(), "owner": mine, "other": {world["other"].pk},
               "admin": mine | {world["other"].pk}}[who]
    pks = st.sampled_from(sorted(mine | {world["other"].pk})) | st.integers(0, 10**30)
    queries = st.dictionaries(st.text(TEXT, max_size=10), st.text(TEXT, max_size=20), max_size=4)
    before = state()

    @FUZZ
    @given(pk=pks, query=queries, method=st.sampled_from(["GET", "HEAD"]) | METHODS)
    def check(pk: int, query: dict, method: str) -> None:
        url = reverse("survey-results-json", args=[pk])
        response = client.generic(method, url, QUERY_STRING="&".join(
            f"{quote(k)}={quote(v)}" for k, v in query.items()))
        if method not in {"GET", "HEAD"}:
            assert response.status_code == 405
        elif who == "anonymous":
            assert response.status_code == 302 and "login" in response.url
        elif pk in visible:
            assert response.status_code == 200
            if method == "GET":
                assert strict_json(response.content)["survey"]["id"] == pk
        else:
            assert response.status_code == 404
        assert state() == before

    check()


def test_it_answers_any_breakdown_query_with_figures_or_a_clear_error(client, world):
    """Any question ids and query: the breakdown (200, strict JSON) when both questions are
    the survey's and differ and the groups compared are two different ones, else 400 with a
    message (404 for a question outside the survey); never a server error."""
    target, other = world["target"], world["other"]
    simulate_responses(target, 40, {q.pk: [1 / q.mechanism().k] * q.mechanism().k
                                     for q in target.ordered_questions()}, seed=2)
    client.force_login(world["users"]["owner"])
    ids = [q.pk for q in target.ordered_questions()]
    question_ids = st.sampled_from(ids + [q.pk for q in other.ordered_questions()])
    values = st.sampled_from([str(pk) for pk in ids]) | st.integers(-2, 12).map(str) | st.text(
        TEXT, max_size=8)
    queries = st.dictionaries(st.sampled_from(["by", "first", "second", "x"]), values, max_size=3)

    @FUZZ
    @given(question=question_ids, query=queries)
    def check(question: int, query: dict) -> None:
        url = reverse("question-breakdown-json", args=[target.pk, question])
        response = client.get(url, query)
        if question not in ids:
            assert response.status_code == 404
        elif response.status_code == 400:
            assert response.json()["error"]
        else:
            assert response.status_code == 200, (query, response.content[:300])
            data = strict_json(response.content)
            assert data["question"]["id"] == question and data["by"]["id"] != question

    check()


def strict_json(raw: bytes) -> object:
    """JSON as browsers read it: NaN and Infinity are not JSON."""
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(raw, parse_constant=refuse)


def test_it_explains_any_epsilon_with_an_answer_or_a_clear_error(client, researcher):
    """The authoring page's estimate of what an epsilon buys (margins of error, sample size)."""
    client.force_login(researcher)
    url = reverse("epsilon-explain")
    numbers = st.one_of(
        st.floats().map(repr), st.integers(-(10**30), 10**30).map(str),
        st.text(TEXT, max_size=12),
        st.sampled_from(["1e-300", "5e-324", "1e-17", "20", "20.000000001", "nan", "inf", "-0",
                         "0x1p-1074", "1_000", " 1 ", "١"]),
    )
    params = st.fixed_dictionaries({}, optional={
        "epsilon": numbers, "k": numbers,
        "kind": st.sampled_from(["yesno", "categorical"]) | st.text(TEXT, max_size=12),
        "override": st.sampled_from(["", "grr", "sue", "oue"]) | st.text(TEXT, max_size=6),
    })
    before = state()

    @FUZZ
    @given(query=params)
    def check(query: dict) -> None:
        response = client.get(url, query)
        assert response.status_code in {200, 400}, (query, response.content)
        answer = strict_json(response.content)
        if response.status_code == 400:
            assert answer["error"]
        else:
            assert ldp.MIN_EPSILON <= answer["epsilon"] <= ldp.MAX_EPSILON
            # None: more respondents than the planner counts (tiny epsilon, many choices).
            assert answer["n_for_5_points"] is None or answer["n_for_5_points"] >= 1
        assert state() == before

    check()
