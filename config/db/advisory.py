"""Session-level PostgreSQL advisory locks (held by the connection, not by
a transaction: a worker keeps one across the transactions of a long job)."""

from __future__ import annotations

from django.db import connection


def advisory_try_lock(key: int) -> bool:
    """Take the lock ``key`` if nobody holds it; True if taken."""
    return _call("pg_try_advisory_lock", key)


def advisory_lock(key: int) -> None:
    """Take the lock ``key``, waiting for whoever holds it."""
    _call("pg_advisory_lock", key)


def advisory_unlock(key: int) -> bool:
    return _call("pg_advisory_unlock", key)


def _call(function: str, key: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s::bigint)", [key])  # function: one of two names
        row = cursor.fetchone()
    return bool(row and row[0])
