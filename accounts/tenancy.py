"""The tenant context: how every query learns whose rows it may see.

PostgreSQL row-level security does the isolation (``accounts.rls``); this
module only tells the database who is asking, with ``SET LOCAL`` (through
``set_config(..., is_local => true)``) so the setting dies with the
transaction and a pooled connection never carries it into the next request.

Four ways in for ordinary work, and no others:

* ``activate_tenant(tenant_id)`` — for the rest of the *current*
  transaction. The API's authentication calls it inside the request's
  transaction (``ATOMIC_REQUESTS``).
* ``tenant_context(tenant_id)`` — a transaction (or savepoint) scoped to one
  tenant; tasks, commands and non-atomic views use it. The previous value is
  restored on exit.
* ``tenant_reads(tenant_id)`` — reads scoped to one tenant without a
  transaction: each round trip carries the tenant's settings and runs in a
  read-only implicit transaction of its own (``config.db.base``), so a
  search costs the one round trip a bare statement does. The MCP server's
  read tools use it. Inside a transaction it is ``tenant_context``.
* ``cross_tenant(reason=…)`` — the one cross-tenant mechanism, for the
  superuser admin, the gardener's tenant walk and operator commands. It is
  refused while a tenant is active on the connection, so code running for an
  agent's request cannot widen its own view by accident, and every use is
  logged with its reason.

Two narrow helpers build on them: ``key_lookup(prefix)`` makes the one API
key row with that prefix readable so authentication can find it before it
knows the tenant, and ``apply_transaction`` / ``run_apply_transaction`` open
a snapshot-isolated tenant transaction (retried on 40001/40P01) for writes
that a concurrent learn may have judged against.

With none of them, the policies see no tenant: no rows are visible and every
insert is refused (fail closed).
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from django.db import DatabaseError, connections, transaction

from accounts.quotas import QUOTA_SETTING, default_quota_bytes
from config.db.base import ours
from config.metrics import TXN_RETRIES

log = logging.getLogger(__name__)

TENANT_SETTING = "app.tenant_id"
CROSS_TENANT_SETTING = "app.cross_tenant"
KEY_PREFIX_SETTING = "app.auth_key_prefix"


class TenancyError(RuntimeError):
    pass


def _set_local(name: str, value: str, using: str) -> None:
    _set_locals({name: value}, using)


def _set_locals(values: dict[str, str], using: str, *, writable: bool = False) -> None:
    """``SET LOCAL`` of each setting, sent with the transaction's next
    statement (``config.db.base``): nothing can run before they apply."""
    connection = connections[using]
    if not connection.in_atomic_block:
        raise TenancyError(f"{', '.join(values)} can only be set inside a transaction (SET LOCAL)")
    ours(connection).defer_local_settings(values, writable=writable)


def _get(name: str, using: str) -> str:
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT coalesce(current_setting(%s, true), '')", [name])
        row = cursor.fetchone()
    return str(row[0]) if row else ""


def current_tenant_id(using: str = "default") -> uuid.UUID | None:
    value = _get(TENANT_SETTING, using)
    return uuid.UUID(value) if value else None


def _tenant_settings(tenant_id: uuid.UUID | str) -> dict[str, str]:
    # The storage quota's default travels with the tenant (accounts/quotas.py).
    return {
        TENANT_SETTING: str(uuid.UUID(str(tenant_id))),
        QUOTA_SETTING: str(default_quota_bytes()),
    }


def activate_tenant(tenant_id: uuid.UUID | str, *, using: str = "default") -> None:
    """Scope the rest of the current transaction to ``tenant_id``.

    Precondition: inside ``transaction.atomic`` (raises otherwise). A
    transaction a ``tenant_reads`` block opened is read-only until this
    says otherwise, before its first statement.
    """
    _set_locals(_tenant_settings(tenant_id), using, writable=True)


@contextmanager
def tenant_context(tenant_id: uuid.UUID | str, *, using: str = "default") -> Iterator[None]:
    """Run the block in a transaction scoped to one tenant."""
    nested = connections[using].in_atomic_block
    with transaction.atomic(using=using):
        previous = _get(TENANT_SETTING, using) if nested else ""
        # Inside cross_tenant() (the superuser admin acting on one tenant's
        # row) the block still sees only that tenant.
        cross = _get(CROSS_TENANT_SETTING, using) if nested else ""
        activate_tenant(tenant_id, using=using)
        if cross:
            _set_local(CROSS_TENANT_SETTING, "", using)
        yield
        if nested:
            # A savepoint's release keeps SET LOCAL until the outer
            # transaction ends; put the outer scope back explicitly. (An
            # outermost transaction takes the setting with it.)
            _set_local(TENANT_SETTING, previous, using)
            if cross:
                _set_local(CROSS_TENANT_SETTING, cross, using)


@contextmanager
def tenant_reads(tenant_id: uuid.UUID | str, *, using: str = "default") -> Iterator[None]:
    """Run the block's reads scoped to one tenant, each round trip in a
    read-only transaction of its own (no ``BEGIN``/``COMMIT``: see
    ``DatabaseWrapper.read_scope``); a write in it is refused by the
    database — in a transaction opened inside it too, except a
    ``tenant_context``'s or an apply transaction's, which are for writing.
    Each statement sees what was committed when it started, as in a READ
    COMMITTED transaction. Inside a transaction, ``tenant_context``."""
    connection = connections[using]
    if connection.in_atomic_block:
        with tenant_context(tenant_id, using=using):
            yield
        return
    with ours(connection).read_scope(_tenant_settings(tenant_id)):
        yield


@contextmanager
def tenant_transaction(tenant_id: uuid.UUID | str, *, using: str = "default") -> Iterator[None]:
    """For a service that writes in the caller's transaction when there is
    one — an API request's, which authentication scoped to the key's tenant
    — and in a ``tenant_context`` of its own when there is none (an MCP
    tool, a task): the service, not the entry point, says what it needs."""
    if connections[using].in_atomic_block:
        yield
    else:
        with tenant_context(tenant_id, using=using):
            yield


@contextmanager
def cross_tenant(*, reason: str, using: str = "default") -> Iterator[None]:
    """Run the block in a transaction that sees every tenant's rows.

    Refused inside a tenant-scoped transaction. ``reason`` is logged.
    """
    with transaction.atomic(using=using):
        if _get(TENANT_SETTING, using):
            raise TenancyError("cross_tenant() is refused inside a tenant-scoped transaction")
        previous = _get(CROSS_TENANT_SETTING, using)
        log.info("cross-tenant access: %s", reason)
        _set_local(CROSS_TENANT_SETTING, "on", using)
        yield
        _set_local(CROSS_TENANT_SETTING, previous, using)


@contextmanager
def key_lookup(prefix: str, *, using: str = "default") -> Iterator[None]:
    """Make the one API key row with ``prefix`` readable, and nothing else:
    authentication must find a key before it knows the tenant."""
    # No savepoint of its own (two round trips on every request): on an
    # error the enclosing transaction is rolled back, which undoes the
    # setting; clearing it in a `finally` would fail in the aborted
    # transaction and hide the original error.
    with transaction.atomic(using=using, savepoint=False):
        _set_local(KEY_PREFIX_SETTING, prefix, using)
        yield
        _set_local(KEY_PREFIX_SETTING, "", using)


SERIALIZATION_SQLSTATES = frozenset({"40001", "40P01"})  # serialization failure, deadlock


def is_serialization_failure(exc: BaseException) -> bool:
    """True for PostgreSQL's 40001 / 40P01, however Django wrapped it."""
    seen: BaseException | None = exc
    while seen is not None:
        if getattr(seen, "sqlstate", None) in SERIALIZATION_SQLSTATES:
            return True
        seen = seen.__cause__
    return False


# The isolation of every transaction that changes what a concurrent learn
# may have judged against (see docs/architecture.md, "Why not SERIALIZABLE").
# Each such transaction writes its scope's version row, so two of them in
# the same (tenant, kind) can never both commit having read the same version:
# the second gets 40001 and retries from a fresh snapshot. Snapshot isolation
# takes no predicate locks, so transactions of different scopes — different
# tenants above all — never conflict.
APPLY_ISOLATION = "REPEATABLE READ"


@contextmanager
def apply_transaction(tenant_id: uuid.UUID | str, *, using: str = "default") -> Iterator[None]:
    """A snapshot-isolated (REPEATABLE READ) transaction scoped to one tenant.

    Precondition: not inside another transaction (the isolation level must
    be the transaction's first statement).
    """
    connection = connections[using]
    if connection.in_atomic_block:
        raise TenancyError("an apply transaction must be the outermost one")
    with transaction.atomic(using=using):
        # Nothing before SET TRANSACTION (a read scope's settings, which the
        # tenant's below replace, would take the snapshot first).
        ours(connection).discard_local_settings()
        with connection.cursor() as cursor:
            cursor.execute(f"SET TRANSACTION ISOLATION LEVEL {APPLY_ISOLATION}")
        activate_tenant(tenant_id, using=using)
        yield


T = TypeVar("T")


def run_apply_transaction(
    tenant_id: uuid.UUID | str,
    operation: Callable[[], T],
    *,
    attempts: int = 12,
    on_retry: Callable[[], None] | None = None,
    joinable: bool = False,
) -> T:
    """Run ``operation`` in an ``apply_transaction``; on 40001/40P01 roll
    back and run it again (it must re-read what it decides on), after a
    jittered exponential backoff so contenders spread out instead of
    colliding again in lockstep.

    ``joinable``: the service's change is safe inside a caller's
    transaction (each write is conditional on what it re-reads under row
    locks: a curator's retire, erase, resolution, invalidation), so when
    called inside one — the admin's and the dashboard's requests run in
    one — it runs there, in a savepoint scoped to the tenant: its writes
    still bump the scope versions, so a concurrent learn that read before
    them re-reads; it waits on row locks instead of retrying. Entry points
    need not know which. A learn's apply is not joinable: its version check
    needs a snapshot of its own."""
    if joinable and connections["default"].in_atomic_block:
        with tenant_context(tenant_id):
            return operation()
    for attempt in range(1, attempts + 1):
        try:
            with apply_transaction(tenant_id):
                return operation()
        except DatabaseError as exc:
            if not is_serialization_failure(exc) or attempt == attempts:
                raise
            TXN_RETRIES.inc()
            if on_retry is not None:
                on_retry()
        time.sleep(random.uniform(0, min(0.25, 0.004 * 2**attempt)))  # noqa: S311
    raise AssertionError("unreachable")
