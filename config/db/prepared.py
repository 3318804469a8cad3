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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections

from config.db.base import ours


def fetch_prepared(sql: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """Every row of ``sql`` (``%(name)s`` placeholders) on the default
    connection, in its current transaction."""
    if not settings.TRIBUTARY_PREPARED_STATEMENTS:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    [rows] = _fetch_all([(sql, params)])
    return rows


def run_bound(sql: str, params: Sequence[Any] | Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """Run one statement bound on the server (in binary where psycopg can),
    in the current transaction; its rows (none for a statement without
    any). Prepared unless ``TRIBUTARY_PREPARED_STATEMENTS`` is off: then an
    unnamed statement, which every pooler passes through."""
    [rows] = run_bound_all([(sql, params)])
    return rows


def run_bound_all(
    statements: Sequence[tuple[str, Sequence[Any] | Mapping[str, Any]]],
) -> list[list[tuple[Any, ...]]]:
    """``run_bound`` for several statements, in order, in one round trip."""
    return _fetch_all(statements, prepare=settings.TRIBUTARY_PREPARED_STATEMENTS)


def run_unprepared_all(
    statements: Sequence[tuple[str, Sequence[Any] | Mapping[str, Any]]],
) -> list[list[tuple[Any, ...]]]:
    """``run_bound_all`` as unnamed statements, never prepared: for SQL
    whose text changes from call to call (a tenant's id inlined so that the
    planner can prove its partial index), which a statement cache would
    only churn through."""
    return _fetch_all(statements, prepare=False)


def _fetch_all(
    statements: Sequence[tuple[str, Sequence[Any] | Mapping[str, Any]]],
    *,
    prepare: bool = True,
) -> list[list[tuple[Any, ...]]]:
    """Every row of each statement, bound on the server (prepared unless
    ``prepare`` is false), in the current transaction:
    one round trip — with the transaction's ``BEGIN`` and the pending tenant
    settings (``config.db.base``) when there are any, in one pipeline."""
    # Resolved once: each attribute of the ``connection`` proxy looks the
    # region's alias up again (~4 µs; regions.connections).
    db = ours(connections[DEFAULT_DB_ALIAS])
    db.ensure_connection()
    raw = db.connection
    settings_first = db.take_local_settings()
    # Django's error wrapper, as its own cursors have: a psycopg error
    # becomes django.db's (what run_apply_transaction retries on) and marks
    # the connection for the health check.
    with db.wrap_database_errors:
        cursors = [psycopg.Cursor(raw) for _ in statements]
        try:
            alone = len(statements) == 1 and getattr(raw, "_pipeline", None) is None
            if alone and settings_first is None and not db.beginning():
                cursors[0].execute(*statements[0], prepare=prepare)
            else:
                with db.pipeline():
                    if settings_first is not None:
                        raw.execute(*settings_first)
                    for cursor, (sql, params) in zip(cursors, statements, strict=True):
                        cursor.execute(sql, params, prepare=prepare)
            return [cursor.fetchall() if cursor.description else [] for cursor in cursors]
        finally:
            for cursor in cursors:
                cursor.close()


T = TypeVar("T")


@dataclass(frozen=True)
class PreparedRead(Generic[T]):
    """A read that can be sent with others (``fetch_together``): its SQL
    (None: nothing to read), its parameters, and what its rows become."""

    sql: str | None
    params: Mapping[str, Any]
    parse: Callable[[list[tuple[Any, ...]]], T]

    def fetch(self) -> T:
        return self.parse(fetch_prepared(self.sql, self.params) if self.sql else [])


def fetch_together(reads: Sequence[PreparedRead[Any]]) -> list[Any]:
    """Each read's result, the reads sent in one pipeline: one round trip
    for all of them, in the caller's transaction."""
    todo = [read for read in reads if read.sql]
    if not todo or not settings.TRIBUTARY_PREPARED_STATEMENTS:
        return [read.fetch() for read in reads]
    fetched = _fetch_all([(read.sql, read.params) for read in todo])  # type: ignore[misc]
    rows = {id(read): found for read, found in zip(todo, fetched, strict=True)}
    return [read.parse(rows.get(id(read), [])) for read in reads]
