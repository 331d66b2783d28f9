"""Property: every malformed submission body gets a 4xx JSON error and stores nothing."""

import json

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from surveys.models import Question, Survey
from surveys.views.respond import BODY_KEYS
from tests.helpers import assert_nothing_stored, survey_of_every_encoding

KEY = "fuzz-key-0123456789"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=14)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=16,
)


def is_valid_report(mechanism, value: object) -> bool:
    try:
        mechanism.validate_report(value)
    except ValueError:
        return False
    return True


@pytest.fixture
def survey(researcher, make_survey) -> Survey:
    return survey_of_every_encoding(make_survey, researcher)


def malformed_bodies(survey: Survey) -> st.SearchStrategy[bytes]:
    """Bodies that are wrong in at least one way, from raw bytes to a single bad report."""
    questions = list(survey.ordered_questions())
    valid = {str(q.pk): [0] * q.mechanism().k if q.mechanism().encoding == "unary" else 0
             for q in questions}

    def with_report(pk: str, report: object) -> dict:
        return {"idempotency_key": KEY, "invitation": None, "wording": 0,
                "reports": valid | {pk: report}}

    def bad_report(question: Question) -> st.SearchStrategy[dict]:
        mechanism = question.mechanism()
        roundtrip = json_values.map(lambda v: json.loads(json.dumps(v)))
        return roundtrip.filter(lambda v: not is_valid_report(mechanism, v)).map(
            lambda v: with_report(str(question.pk), v)
        )

    good_keys = st.from_regex(r"[A-Za-z0-9_-]{8,64}", fullmatch=True)
    bad_keys = json_values.filter(lambda v: not isinstance(v, str)) | st.text().filter(
        lambda s: not (8 <= len(s) <= 64 and all(c.isascii() and (c.isalnum() or c in "-_")
                                                 for c in s))
    )
    base = st.fixed_dictionaries({"idempotency_key": good_keys, "invitation": st.none(),
                                  "reports": st.just(valid), "wording": st.just(0)})
    structural = st.one_of(
        json_values.filter(lambda v: not (isinstance(v, dict) and BODY_KEYS - {"wording"}
                                          <= set(v) <= BODY_KEYS)),
        # Any field missing but "wording", which pages older than it do not send.
        base.flatmap(lambda b: st.sampled_from(sorted(BODY_KEYS - {"wording"})).map(
            lambda missing: {k: v for k, v in b.items() if k != missing})),
        st.builds(lambda b, extra, v: b | {extra: v}, base,
                  st.text(max_size=10).filter(lambda k: k not in BODY_KEYS), json_values),
        st.builds(lambda b, key: b | {"idempotency_key": key}, base, bad_keys),
        # Unknown tokens are refused too (403): the survey has no invitations.
        st.builds(lambda b, token: b | {"invitation": token}, base,
                  json_values.filter(lambda v: v is not None)),
        # The survey's wording version is 0: any other value is not one of its versions.
        st.builds(lambda b, w: b | {"wording": w}, base,
                  json_values.filter(lambda v: not (type(v) is int and v == 0))),
        st.builds(lambda b, r: b | {"reports": r}, base,
                  json_values.filter(lambda v: not isinstance(v, dict))),
        st.builds(lambda b, drop: b | {"reports": {k: v for k, v in valid.items() if k != drop}},
                  base, st.sampled_from(sorted(valid))),
        st.builds(lambda b, extra, v: b | {"reports": valid | {extra: v}}, base,
                  (st.text(max_size=8) | st.integers(1, 10**18).map(str)).filter(
                      lambda k: k not in valid), json_values),
        *[bad_report(question) for question in questions],
    )
    return st.one_of(
        st.binary(max_size=300),
        structural.map(lambda body: json.dumps(body).encode()),
    )


def test_it_refuses_a_thousand_malformed_bodies_and_stores_nothing(survey, settings):
    # Every body must reach the parser, not stop at the rate limit.
    settings.RATELIMIT_SUBMISSIONS = "1000000/60"
    # As a browser would send them, from the survey's own page (the endpoint's Origin rule).
    client = Client(enforce_csrf_checks=True, headers={"Origin": "http://testserver"})
    url = reverse("respond-submit", args=[survey.public_id])

    @hypothesis_settings(max_examples=1000, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(raw=malformed_bodies(survey))
    def check(raw: bytes) -> None:
        response = client.post(url, raw, content_type="application/json")
        assert 400 <= response.status_code < 500, (raw, response.content)
        assert response.status_code != 429
        assert response.json()["ok"] is False and response.json()["error"]
        assert_nothing_stored(survey)

    check()
