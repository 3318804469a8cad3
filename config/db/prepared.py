"""Hot reads as server-side prepared statements.

Django's cursors bind parameters on the client (literals inlined), which
lets the planner match partial indexes but plans every statement anew. For
a few fixed-shape reads on the recall path, planning costs more than
running (the provenance summary: ~1.7 ms to plan, ~0.3 ms to run), so they
go through ``fetch_prepared``: server-side binding, prepared once per
connection, after which PostgreSQL may settle on a cached generic plan
(after five executions, when its estimated cost is no worse).

Row-level security is unaffected: the tenant policies compare with
``(SELECT app_current_tenant())``, evaluated at execution, and the
statement runs inside the caller's transaction like any other query.
``TRIBUTARY_PREPARED_STATEMENTS=false`` (for a transaction-pooling
PgBouncer without prepared-statement support: older than 1.21, or
``max_prepared_statements = 0``) runs the same SQL through Django's cursor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import psycopg
from django.conf import settings
from django.db import connection

from config.db.base import ours


def fetch_prepared(sql: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """Every row of ``sql`` (``%(name)s`` placeholders) on the default
    connection, in its current transaction."""
    if not settings.TRIBUTARY_PREPARED_STATEMENTS:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    connection.ensure_connection()
    # Django's error wrapper, as its own cursors have: a psycopg error
    # becomes django.db's (what run_apply_transaction retries on) and marks
    # the connection for the health check.
    raw = connection.connection
    settings_first = ours(connection).take_local_settings()
    with connection.wrap_database_errors, psycopg.Cursor(raw) as cursor:
        if settings_first is None and not ours(connection).beginning():
            cursor.execute(sql, params, prepare=True)
        else:
            # BEGIN, the pending tenant settings and the read: one round trip.
            with raw.pipeline():
                if settings_first is not None:
                    raw.execute(*settings_first)
                cursor.execute(sql, params, prepare=True)
        return cursor.fetchall()
