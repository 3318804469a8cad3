"""PostgreSQL backend that finds (and if need be starts) the embedded server.

Django's own backend, with two differences:

* When the configuration uses the embedded PostgreSQL, the socket directory
  is read from the running server at connect time, starting it first if
  nothing runs. Commands that never touch the database (``doctor``,
  ``help``) therefore start nothing.
* Transaction-local settings (``set_config(..., true)``: the tenant, the key
  prefix — ``accounts.tenancy``) travel with the next statement instead of
  on their own: ``defer_local_settings`` keeps them, and whatever runs next
  on this connection sends them first — a Django cursor as it is created, a
  prepared read (``config.db.prepared``) in the same pipeline as itself,
  together with the transaction's ``BEGIN`` (``DatabaseWrapper.pipeline``:
  psycopg on its own sends that ``BEGIN`` with a sync of its own and waits
  for it). One round trip instead of three for a tenant transaction's first
  prepared read; two for a first ORM read (the ``BEGIN`` and the settings,
  then the query). Settings still pending when
  the transaction (or a savepoint made before them) is rolled back or ends
  are dropped: ``SET LOCAL`` would have died with it. A connection closed
  inside a transaction takes no more.
* Reads without a transaction (``read_scope``): outside ``atomic``, each
  round trip — a prepared read's pipeline, an ORM query — carries the
  scope's settings and ``transaction_read_only`` in front of its
  statements, so they run in the implicit transaction the protocol's sync
  ends, and the settings die with it. No ``BEGIN``, no ``COMMIT``: a small
  tenant's search in one round trip, as a bare statement takes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import psycopg
from django.db.backends.postgresql import base
from django.db.transaction import TransactionManagementError
from pgvector.psycopg.halfvec import register_halfvec_info
from psycopg import pq
from psycopg.types import TypeInfo

# The psycopg releases whose transaction start ``DatabaseWrapper.pipeline``
# was read against (``_start_query``, ``_get_tx_start_command``, the
# ``_autocommit`` flag: private API). Another release gets psycopg's own
# start, one round trip more, until someone reads it again — the protocol
# trace test in tests/accounts/test_rls.py fails to say so.
_KNOWN_PSYCOPG = psycopg.__version__.startswith(("3.2.", "3.3."))


_READ_ONLY = "transaction_read_only"


def settings_statement(values: dict[str, str]) -> tuple[str, list[str]]:
    """One ``SELECT set_config(name, value, true), …`` for all of ``values``."""
    return (
        "SELECT " + ", ".join(["set_config(%s, %s, true)"] * len(values)),
        [part for pair in values.items() for part in pair],
    )


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending_settings: dict[str, str] = {}
        self._read_settings: dict[str, str] | None = None

    def defer_local_settings(self, values: dict[str, str], *, writable: bool = False) -> None:
        """Set ``values`` for the rest of the current transaction, sent with
        the next statement. ``writable``: a transaction a read scope opened
        (read-only, see ``read_scope``) may write after all — when nothing
        has run in it yet. Precondition: inside ``transaction.atomic``."""
        if self.closed_in_transaction:
            # Nothing could send them in this transaction, and they must not
            # wait for the next one on this thread.
            raise TransactionManagementError(
                "the connection was closed inside this transaction; nothing can be set in it"
            )
        if writable:
            self._pending_settings.pop(_READ_ONLY, None)
        self._pending_settings.update(values)

    def discard_local_settings(self) -> None:
        """Drop what is pending (for a transaction whose first statement
        must come before any query: ``SET TRANSACTION``)."""
        self._pending_settings.clear()

    def take_local_settings(self) -> tuple[str, list[str]] | None:
        """The pending settings' statement, for the caller to run before its
        own (in the same transaction, or the same round trip in a
        ``read_scope``); None when nothing is pending."""
        if self._read_settings is not None and not self.in_atomic_block:
            return settings_statement(self._read_settings)
        if not self._pending_settings:
            return None
        values, self._pending_settings = self._pending_settings, {}
        return settings_statement(values)

    @contextmanager
    def read_scope(self, values: dict[str, str]) -> Iterator[None]:
        """Until the block ends, every round trip made outside ``atomic``
        runs with ``values`` set (and writes refused): its own implicit,
        read-only transaction, ended by the sync that ends the round trip.
        Each statement sees committed data as of its start, as in a
        READ COMMITTED transaction. A transaction opened inside it
        (``atomic``: Django's own for a delete or a ``get_or_create``
        included) is ``BEGIN`` … ``COMMIT`` with the same settings, read-only
        too, unless it is a ``tenant_context`` or an apply transaction,
        which say they write (``defer_local_settings(writable=True)``).
        Precondition: outside ``atomic``, in autocommit."""
        if self.in_atomic_block or not self.get_autocommit():
            raise TransactionManagementError("a read scope is for work outside a transaction")
        previous = self._read_settings
        self._read_settings = {**values, _READ_ONLY: "on"}
        try:
            yield
        finally:
            self._read_settings = previous

    def beginning(self) -> bool:
        """Inside a transaction that has not sent its BEGIN yet (psycopg sends
        it with the first statement)."""
        raw = self.connection
        return (
            raw is not None
            and not raw.autocommit
            and raw.info.transaction_status == pq.TransactionStatus.IDLE
        )

    @contextmanager
    def pipeline(self) -> Iterator[None]:
        """A pipeline on the raw connection that also carries the
        transaction's ``BEGIN`` when the transaction has not sent it yet.
        Left to itself psycopg sends that ``BEGIN`` with a sync of its own
        and waits for the answer before the rest (``_start_query`` in
        pipeline mode): a round trip more for every transaction whose first
        statement is pipelined. Here the ``BEGIN`` psycopg would have sent
        (its isolation level and access mode included) is queued first, and
        psycopg is told the transaction is taken care of."""
        raw = self.connection
        begin = getattr(raw, "_get_tx_start_command", None)
        if not (self.beginning() and begin is not None and _KNOWN_PSYCOPG):
            with raw.pipeline():
                yield
            return
        statement = begin()
        raw._autocommit = True  # psycopg: send no BEGIN of your own
        try:
            with raw.pipeline():
                raw.execute(statement)
                yield
        finally:
            raw._autocommit = False

    def _configure_connection(self, connection: Any) -> bool:
        commit = bool(super()._configure_connection(connection))  # type: ignore[misc]
        # pgvector's halfvec as a binary parameter: the query vector is sent
        # as 770 bytes instead of formatted into (and parsed out of) text.
        info = TypeInfo.fetch(connection, "halfvec")
        if connection.info.transaction_status == pq.TransactionStatus.INTRANS:
            connection.commit()
        if info is not None:
            register_halfvec_info(connection, info)
        return commit

    def _set_autocommit(self, autocommit: bool) -> None:
        super()._set_autocommit(autocommit)  # type: ignore[misc]
        if not autocommit and self._read_settings is not None:
            # A transaction opened inside a read scope is the scope's
            # tenant's, and read-only like the scope (see read_scope).
            self._pending_settings.update(self._read_settings)

    def create_cursor(self, name: str | None = None) -> Any:
        if self._read_settings is not None and not self.in_atomic_block:
            if name is not None:
                # A server-side cursor's fetches are round trips of their own.
                raise TransactionManagementError("a read scope has no server-side cursors")
            return _ReadScopedCursor(super().create_cursor(name), self)
        statement = self.take_local_settings()
        if statement is not None:
            # With the transaction's BEGIN when it is the first statement.
            with self.wrap_database_errors, self.pipeline():
                self.connection.execute(*statement)
        return super().create_cursor(name)

    def connect(self) -> None:
        self._pending_settings.clear()  # a new connection starts with none
        super().connect()

    def _savepoint_rollback(self, sid: str) -> None:
        # Whatever is still pending was set after the savepoint was made
        # (making it sent the rest): the rollback undoes it, so it is not
        # sent — in an aborted transaction it could not be.
        self._pending_settings.clear()
        super()._savepoint_rollback(sid)  # type: ignore[misc]

    def _commit(self) -> None:
        self._pending_settings.clear()
        super()._commit()  # type: ignore[misc]

    def _rollback(self) -> None:
        self._pending_settings.clear()
        super()._rollback()  # type: ignore[misc]

    def _close(self) -> None:
        self._pending_settings.clear()
        # A read scope ends with its connection: one left open by mistake (a
        # generator suspended inside it) never reaches the thread's next
        # call — the MCP server and Django close connections after each —
        # and a read after a close inside a scope sees nothing.
        self._read_settings = None
        super()._close()  # type: ignore[misc]

    def get_connection_params(self) -> dict[str, Any]:
        pools: dict[str, Any] = getattr(self, "_connection_pools", {})  # Django's, per alias
        pool = pools.get(self.alias)
        if pool is not None and isinstance(pool.kwargs, dict):
            # Pooled: the pool connects with what it was made with. Django
            # asks again at every checkout (each request), which cost ~0.1 ms
            # — most of it reading the embedded server's postmaster.pid.
            return dict(pool.kwargs)
        params = super().get_connection_params()
        # Django turns psycopg's prepared statements off (for poolers); ours
        # are explicit only (config.db.prepared): its client-side binding
        # cursors never prepare, so no threshold is ever reached.
        from django.conf import settings

        if settings.TRIBUTARY_PREPARED_STATEMENTS and params.get("prepare_threshold") is None:
            params["prepare_threshold"] = 2**31 - 1
        embedded = self.settings_dict.get("TRIBUTARY_EMBEDDED")
        if embedded:
            from pathlib import Path

            from config.embedded import ensure_postgres

            server = ensure_postgres(Path(embedded))
            params["host"] = str(server.socket_dir())
            params["port"] = server.port()
        return params


class _ReadScopedCursor:
    """A cursor that sends the read scope's settings in the same round trip
    as each of its statements (``DatabaseWrapper.read_scope``)."""

    def __init__(self, cursor: Any, wrapper: DatabaseWrapper) -> None:
        self._cursor = cursor
        self._wrapper = wrapper

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
        return self._with_settings(self._cursor.execute, query, params, **kwargs)

    def executemany(self, query: Any, params_seq: Any, **kwargs: Any) -> Any:
        return self._with_settings(self._cursor.executemany, query, params_seq, **kwargs)

    def _with_settings(self, run: Any, *args: Any, **kwargs: Any) -> Any:
        statement = self._wrapper.take_local_settings()
        raw = self._cursor.connection  # the statement's own, whatever happened since
        if raw is not self._wrapper.connection:
            raise TransactionManagementError("the cursor outlived its connection")
        with raw.pipeline():
            if statement is not None:
                raw.execute(*statement)
            run(*args, **kwargs)
        return self

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


def ours(connection: Any) -> DatabaseWrapper:
    """A connection of this backend (every alias is one: ``config.dburl``),
    typed as such."""
    return cast(DatabaseWrapper, connection)
