"""The caches every worker and app server shares: the database's, and Redis with the
database's in its place while Redis cannot be reached; and, for computed results, a copy in
each process's memory in front of them."""

from __future__ import annotations

import logging
import time

from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from django.db import connections, router, transaction
from django.utils.timezone import now
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

REDIS_UNAVAILABLE = (RedisConnectionError, RedisTimeoutError)
"""What the Redis client raises when Redis cannot be reached or does not answer in time."""


class CountingDatabaseCache(DatabaseCache):
    """Django's database cache, with an ``incr`` that is exact under concurrency and that
    deletes expired entries.

    Django's ``incr`` reads the value, then writes value + delta: two workers can both read 5
    and both write 6, and a rate limit then lets extra requests through. Here the read and the
    write run in one transaction that holds the row's lock before reading it. On PostgreSQL
    that is ``SELECT ... FOR UPDATE``; SQLite has no row locks, but this project's settings
    open IMMEDIATE transactions, which take the database's write lock at BEGIN, so the
    transaction alone serialises concurrent increments.

    ``add`` is atomic as Django writes it: it inserts the row, and the cache key is the
    table's primary key, so of two concurrent adds of a missing key exactly one stores its
    value and the other returns False.
    """

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        """Add `delta` to the value stored under `key` and return the new value, as one
        atomic step; ValueError if the key is missing or expired.

        Every expired entry is deleted in the same transaction: rate-limit counters hold
        keyed hashes of addresses, which must not outlive their window, and Django deletes
        expired entries only once the table holds more than MAX_ENTRIES rows.
        """
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        quote = connection.ops.quote_name
        table = quote(self._table)
        with transaction.atomic(using=db), connection.cursor() as cursor:
            # Expired rows first, the counter's row after: a transaction that holds a
            # counter's lock waits for no expired row, so two never wait for each other.
            cursor.execute(
                f"DELETE FROM {table} WHERE {quote('expires')} < %s",
                [connection.ops.adapt_datetimefield_value(now().replace(microsecond=0))],
            )
            if connection.features.has_select_for_update:
                cursor.execute(
                    f"SELECT 1 FROM {table} WHERE {quote('cache_key')} = %s FOR UPDATE",
                    [self.make_and_validate_key(key, version=version)],
                )
            return super().incr(key, delta, version=version)


class RedisWithFallback(RedisCache):
    """Django's Redis cache that keeps working while Redis cannot be reached: every call the
    site makes goes to the cache named by the ``FALLBACK`` option (the database's) instead,
    and back to Redis as soon as it answers again, without a restart.

    A connection error or a timeout of the Redis client makes the cache use the fallback for
    ``RETRY_SECONDS``, so that a Redis that hangs costs one request per process its timeout
    (``socket_connect_timeout`` and ``socket_timeout``), not every request; then the next
    call tries Redis again. Each change (Redis lost, Redis back) is logged once per process.

    Rate-limit counters therefore keep counting, in the database, while Redis is away: a
    client's count starts again at 0 in the database when Redis is lost, and goes on from its
    Redis count when Redis is back, so a limit lets through at most twice its count in the
    window in which Redis is lost or comes back, and holds exactly in every other one. Cached
    results are computed anew and cached in the database meanwhile; they are keyed by what
    they count, so no copy is ever stale.
    """

    def __init__(self, server: str, params: dict) -> None:
        options = dict(params.get("OPTIONS") or {})
        self._fallback_alias = options.pop("FALLBACK")
        self._retry_seconds = float(options.pop("RETRY_SECONDS", 2))
        self._down_until: float | None = None
        super().__init__(server, params | {"OPTIONS": options})

    @property
    def fallback(self) -> BaseCache:
        return caches[self._fallback_alias]

    def _either(self, name: str, *args, **kwargs):
        """`name`(*args, **kwargs) on Redis, or on the fallback cache while Redis is away."""
        if self._down_until is not None and time.monotonic() < self._down_until:
            return getattr(self.fallback, name)(*args, **kwargs)
        try:
            result = getattr(super(), name)(*args, **kwargs)
        except REDIS_UNAVAILABLE as error:
            if self._down_until is None:
                logger.warning(
                    "Redis cannot be reached (%s): the cache uses the database until it can.",
                    type(error).__name__,
                )
            self._down_until = time.monotonic() + self._retry_seconds
            return getattr(self.fallback, name)(*args, **kwargs)
        if self._down_until is not None:
            logger.warning("Redis answers again: the cache uses it again.")
            self._down_until = None
        return result

    def add(self, *args, **kwargs):
        return self._either("add", *args, **kwargs)

    def get(self, *args, **kwargs):
        return self._either("get", *args, **kwargs)

    def set(self, *args, **kwargs):
        return self._either("set", *args, **kwargs)

    def touch(self, *args, **kwargs):
        return self._either("touch", *args, **kwargs)

    def delete(self, *args, **kwargs):
        return self._either("delete", *args, **kwargs)

    def get_many(self, *args, **kwargs):
        return self._either("get_many", *args, **kwargs)

    def has_key(self, *args, **kwargs):
        return self._either("has_key", *args, **kwargs)

    def incr(self, *args, **kwargs):
        return self._either("incr", *args, **kwargs)

    def set_many(self, *args, **kwargs):
        return self._either("set_many", *args, **kwargs)

    def delete_many(self, *args, **kwargs):
        return self._either("delete_many", *args, **kwargs)

    def clear(self):
        return self._either("clear")


class KeptInProcess(BaseCache):
    """For values that never change once stored under their key: computed results, whose
    keys say what they count (``surveys.queries.results.snapshot``). Each is kept in this
    process's memory as well as in the cache named by the ``SHARED`` option, and read from
    memory when it is there: a page of cached results then makes no round trip to the shared
    cache (two fewer queries on a regression's page, with the database's cache). No copy can
    be stale, since a key's value never changes; a value another process stored is read from
    the shared cache once, then kept here too. At most ``MAX_ENTRIES`` values are kept in
    memory (Django's local-memory cache, which drops the least recently used).
    """

    def __init__(self, location: str, params: dict) -> None:
        options = dict(params.get("OPTIONS") or {})
        self._shared_alias = options.pop("SHARED")
        super().__init__(params | {"OPTIONS": options})
        self.memory = LocMemCache(location, {"TIMEOUT": params.get("TIMEOUT", 300),
                                             "OPTIONS": options})

    @property
    def shared(self) -> BaseCache:
        return caches[self._shared_alias]

    def get(self, key: str, default=None, version: int | None = None):
        value = self.memory.get(key, _MISSING, version=version)
        if value is _MISSING:
            value = self.shared.get(key, _MISSING, version=version)
            if value is _MISSING:
                return default
            self.memory.set(key, value, version=version)
        return value

    def set(self, key: str, value, timeout=DEFAULT_TIMEOUT, version: int | None = None) -> None:
        self.shared.set(key, value, timeout, version=version)
        self.memory.set(key, value, timeout, version=version)

    def add(self, key: str, value, timeout=DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        added = self.shared.add(key, value, timeout, version=version)
        if added:
            self.memory.set(key, value, timeout, version=version)
        return added

    def touch(self, key: str, timeout=DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        self.memory.touch(key, timeout, version=version)
        return self.shared.touch(key, timeout, version=version)

    def delete(self, key: str, version: int | None = None) -> bool:
        self.memory.delete(key, version=version)
        return self.shared.delete(key, version=version)

    def clear(self) -> None:
        self.memory.clear()
        self.shared.clear()


_MISSING = object()
"""What a cache returns for a key it does not hold (None may be a value)."""
