"""The cache that every worker and app server shares when there is no Redis: the database."""

from __future__ import annotations

from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router, transaction
from django.utils.timezone import now


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
