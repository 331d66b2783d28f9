"""Rate limits per client, without keeping anyone's address.

A client is identified by an HMAC of its IP address under the site's secret key (a script
with an API token, by the token's id). The
counter lives in the cache for one time window and is never written with a report. Every
worker and app server shares that cache (see CACHES in the settings) and increments the
counter atomically, so a limit holds exactly however many of them answer a client.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest


def client_id(request: HttpRequest) -> str:
    address = request.META.get("REMOTE_ADDR", "")
    if settings.RATELIMIT_TRUST_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        address = forwarded.split(",")[-1].strip() or address
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, address.encode(), hashlib.sha256).hexdigest()[:32]


def parse_rate(rate: str) -> tuple[int, int]:
    """ "30/60" -> (30 requests, per 60 seconds)."""
    count, seconds = rate.split("/")
    return int(count), int(seconds)


def is_limited(request: HttpRequest, scope: str, rate: str, client: str | None = None) -> bool:
    """Count this request; True once the client has made more than `rate` in this window.
    The client is `client` if given (an API token, say), else the request's address."""
    limit, window = parse_rate(rate)
    bucket = int(time.time() // window)
    key = f"ratelimit:{scope}:{client or client_id(request)}:{bucket}"
    try:
        count = cache.incr(key)
    except ValueError:  # no counter yet: the client's first request in this window
        # add is atomic: if another first request added the counter meanwhile, count on it.
        count = 1 if cache.add(key, 1, timeout=window + 1) else cache.incr(key)
    return count > limit


def seconds_left(rate: str) -> int:
    """Seconds until the current window of `rate` ends: when a limited client may try again."""
    _, window = parse_rate(rate)
    return window - int(time.time()) % window
