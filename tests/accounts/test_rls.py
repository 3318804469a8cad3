"""Tenant isolation is held by PostgreSQL row-level security."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.db.utils import ProgrammingError

from accounts.models import Agent, ApiKey, Role, Tenant
from accounts.rls import rls_audit
from accounts.tenancy import (
    CROSS_TENANT_SETTING,
    TenancyError,
    _get,
    activate_tenant,
    cross_tenant,
    current_tenant_id,
    tenant_context,
    tenant_reads,
)
from tests.conftest import make_caller

pytestmark = pytest.mark.django_db(transaction=True)


def test_catalog_audit_passes_for_the_app_role():
    with connection.cursor() as cursor:
        assert rls_audit(cursor) == []
        cursor.execute(
            "SELECT count(*) FROM pg_class WHERE relname IN "
            "('accounts_tenant', 'accounts_agent', 'accounts_apikey') "
            "AND relrowsecurity AND relforcerowsecurity"
        )
        assert cursor.fetchone()[0] == 3


def test_catalog_audit_fails_when_a_table_is_not_forced():
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("ALTER TABLE accounts_agent NO FORCE ROW LEVEL SECURITY")
        problems = rls_audit(cursor)
        transaction.set_rollback(True)
    assert problems == ["accounts_agent: row level security is not forced"]
    with connection.cursor() as cursor:
        assert rls_audit(cursor) == []  # rolled back


def test_catalog_audit_fails_when_a_tenant_table_has_no_rls():
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE TABLE leaky (id int, tenant_id uuid)")
        problems = rls_audit(cursor)
        transaction.set_rollback(True)
    assert "leaky: row level security is not enabled" in problems
    assert "leaky: has no policy" in problems


def test_catalog_audit_fails_for_a_superuser_or_bypassrls_role(superuser_sql):
    with superuser_sql.cursor() as cursor:
        problems = rls_audit(cursor)
    assert "role postgres is a superuser: row level security does not apply" in problems

    app_role = connection.settings_dict["USER"]
    superuser_sql.execute(f'ALTER ROLE "{app_role}" BYPASSRLS')
    try:
        connection.close()  # role attributes are read per session
        with connection.cursor() as cursor:
            problems = rls_audit(cursor)
    finally:
        superuser_sql.execute(f'ALTER ROLE "{app_role}" NOBYPASSRLS')
        connection.close()
    assert problems == [f"role {app_role} has BYPASSRLS: row level security does not apply"]


def test_app_role_is_not_superuser_and_cannot_bypass_rls():
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False, False)


def test_without_a_tenant_no_rows_are_visible_and_inserts_are_refused(superuser_sql):
    caller = make_caller("acme", "alice")
    # The rows exist: the superuser sees them.
    assert superuser_sql.execute("SELECT count(*) FROM accounts_agent").fetchone()[0] == 1
    with connection.cursor() as cursor:
        for table in ("accounts_tenant", "accounts_agent", "accounts_apikey"):
            cursor.execute(f"SELECT count(*) FROM {table}")  # noqa: S608
            assert cursor.fetchone()[0] == 0, table
    with pytest.raises(ProgrammingError, match="row-level security"), connection.cursor() as cur:
        cur.execute(
            "INSERT INTO accounts_agent (id, tenant_id, name, role, created_at) "
            "VALUES (%s, %s, 'mallory', 'writer', now())",
            [uuid.uuid4(), caller.agent.tenant_id],
        )


def test_a_tenant_sees_only_its_own_rows():
    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with tenant_context(a.agent.tenant_id):
        assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]
        assert list(Tenant.objects.values_list("slug", flat=True)) == ["tenant-a"]
        assert ApiKey.objects.count() == 1
        assert not Agent.objects.filter(id=b.agent.id).exists()
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM accounts_agent WHERE id = %s", [b.agent.id])
            assert cursor.fetchone()[0] == 0
    with tenant_context(b.agent.tenant_id):
        assert list(Agent.objects.values_list("name", flat=True)) == ["bob"]


def test_a_tenant_cannot_write_into_another_tenant():
    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with (
        pytest.raises(ProgrammingError, match="row-level security"),
        tenant_context(a.agent.tenant_id),
    ):
        Agent.objects.create(tenant_id=b.agent.tenant_id, name="sneaky", role=Role.CURATOR)
    with tenant_context(a.agent.tenant_id):
        # An update aimed at B's row matches nothing.
        assert Agent.objects.filter(id=b.agent.id).update(role=Role.READER) == 0
    with cross_tenant(reason="test check"):
        assert Agent.objects.get(id=b.agent.id).role == Role.WRITER


def test_a_key_must_belong_to_its_agents_tenant():
    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with (
        pytest.raises(IntegrityError, match="apikey_agent_same_tenant"),
        cross_tenant(reason="test"),
    ):
        ApiKey.objects.create(
            tenant_id=b.agent.tenant_id, agent=a.agent, prefix="0" * 12, secret_hash="0" * 64
        )


def _foreign_keys() -> set[tuple[str, tuple[str, ...], str]]:
    """(table, columns, referenced table) of every foreign key constraint."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.conrelid::regclass::text, c.confrelid::regclass::text,
                   array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
                         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n
                         ORDER BY k.i)
            FROM pg_constraint c WHERE c.contype = 'f'
            """
        )
        return {(table, tuple(columns), ref) for table, ref, columns in cursor.fetchall()}


def test_a_reference_without_its_own_constraint_is_held_by_a_same_tenant_key():
    from django.apps import apps

    keys = _foreign_keys()
    unchecked = [
        (model._meta.db_table, field.column, field.related_model._meta.db_table)
        for model in apps.get_models()
        for field in model._meta.concrete_fields
        if field.is_relation and not field.db_constraint  # type: ignore[attr-defined]
    ]
    assert len(unchecked) >= 28  # the hot tables' references, at least
    for table, column, ref in unchecked:
        assert (table, (column, "tenant_id"), ref) in keys, f"{table}.{column} is unchecked"
    # …and no reference is checked twice, once alone and once with its tenant.
    doubled = [
        (table, columns)
        for table, columns, ref in keys
        if len(columns) == 2 and columns[1] == "tenant_id"
        and (table, columns[:1], ref) in keys and table != "accounts_apikey"
    ]  # fmt: skip
    assert doubled == []


def test_a_same_tenant_key_still_refuses_a_missing_row_and_another_tenants():
    from memory.models import Lesson

    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with tenant_context(a.agent.tenant_id):
        mine = Lesson.objects.create(
            tenant_id=a.agent.tenant_id, author=a.agent, kind="lesson", content="x",
            status="retired",
        )  # fmt: skip
    with (
        pytest.raises(IntegrityError, match="superseded_by_id_same_tenant"),
        tenant_context(a.agent.tenant_id),
    ):
        Lesson.objects.filter(id=mine.id).update(superseded_by_id=uuid.uuid4())
    with (
        pytest.raises(IntegrityError, match="author_id_same_tenant"),
        tenant_context(a.agent.tenant_id),
    ):
        Lesson.objects.create(
            tenant_id=a.agent.tenant_id, author_id=b.agent.id, kind="lesson", content="y",
            status="retired",
        )  # fmt: skip


def test_tenant_context_restores_the_outer_scope():
    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with tenant_context(a.agent.tenant_id):
        with tenant_context(b.agent.tenant_id):
            assert current_tenant_id() == b.agent.tenant_id
        assert current_tenant_id() == a.agent.tenant_id
        assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]
    with transaction.atomic():
        assert current_tenant_id() is None


def test_the_tenant_setting_does_not_outlive_its_transaction():
    a = make_caller("tenant-a", "alice")
    with transaction.atomic():
        activate_tenant(a.agent.tenant_id)
        assert Agent.objects.count() == 1
    # Same pooled connection, next transaction: nothing is carried over.
    assert current_tenant_id() is None
    assert Agent.objects.count() == 0


def test_a_setting_never_sent_does_not_reach_the_next_transaction():
    """Settings travel with the transaction's next statement (config.db.base);
    a transaction that ends before one drops them."""
    a = make_caller("tenant-a", "alice")
    with transaction.atomic():
        activate_tenant(a.agent.tenant_id)  # nothing runs after it
    with transaction.atomic():
        assert current_tenant_id() is None
        assert Agent.objects.count() == 0


def test_a_setting_made_in_a_rolled_back_savepoint_is_undone():
    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with tenant_context(a.agent.tenant_id):
        with pytest.raises(RuntimeError), transaction.atomic():
            activate_tenant(b.agent.tenant_id)  # pending when the savepoint rolls back
            raise RuntimeError
        assert current_tenant_id() == a.agent.tenant_id
        assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]


def test_a_connection_closed_inside_a_transaction_takes_no_settings_for_the_next_one():
    """Nothing set after the connection is gone may wait for the next
    transaction on this thread (it would open with another's tenant — or
    with cross_tenant on)."""
    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with (
        pytest.raises(TransactionManagementError),
        cross_tenant(reason="test"),
        tenant_context(a.agent.tenant_id),
    ):
        connection.close()  # gone inside the atomic block
    with transaction.atomic():
        activate_tenant(b.agent.tenant_id)
        assert _get(CROSS_TENANT_SETTING, "default") == ""
        assert list(Agent.objects.values_list("name", flat=True)) == ["bob"]


def test_a_nested_scope_whose_body_caught_a_database_error_still_unwinds():
    """The savepoint's rollback drops what the nested scope still had to
    send; the outer scope carries on as it did when settings were sent at
    once."""
    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with tenant_context(a.agent.tenant_id):
        with tenant_context(b.agent.tenant_id), pytest.raises(DatabaseError):
            Agent.objects.create(tenant_id=a.agent.tenant_id, name="x")  # refused by RLS
        # the savepoint rolled back (the restore of tenant A it had pending
        # dropped with it): the outer scope is whole
        assert current_tenant_id() == a.agent.tenant_id
        assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]


@contextmanager
def _round_trips(tmp_path: Any) -> Iterator[list[str]]:
    """What the connection sends that waits for the server's answer (each
    ``Sync`` of the extended protocol, each simple ``Query``), from libpq's
    own trace of the protocol."""
    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    path = tmp_path / "trace"
    sent: list[str] = []
    with path.open("w") as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            yield sent
        finally:
            pgconn.untrace()
    for line in path.read_text().splitlines():
        direction, _, message, *rest = line.split("\t")
        if direction == "F" and message in ("Sync", "Query"):
            sent.append(message if message == "Sync" else rest[0].strip())


def test_a_tenant_transactions_first_prepared_read_sends_begin_and_settings_with_it(tmp_path):
    """BEGIN, the tenant's settings and the read go in one pipeline, one
    round trip: psycopg left to itself sends its BEGIN with a sync of its
    own and waits for it (config.db.base.DatabaseWrapper.pipeline)."""
    from config.db.prepared import fetch_prepared

    a = make_caller("tenant-a", "alice")
    statuses = []
    with _round_trips(tmp_path) as sent, tenant_context(a.agent.tenant_id):
        statuses.append(connection.connection.info.transaction_status)
        rows = fetch_prepared("SELECT name FROM accounts_agent", {})
        statuses.append(connection.connection.info.transaction_status)
    assert rows == [("alice",)]
    assert statuses == [psycopg.pq.TransactionStatus.IDLE, psycopg.pq.TransactionStatus.INTRANS]
    assert sent == ["Sync", '"COMMIT"']


def test_a_tenant_transactions_first_orm_read_sends_begin_and_settings_in_one_round_trip(
    tmp_path,
):
    a = make_caller("tenant-a", "alice")
    with _round_trips(tmp_path) as sent, tenant_context(a.agent.tenant_id):
        names = list(Agent.objects.values_list("name", flat=True))
    assert names == ["alice"]
    # BEGIN with the settings, the query, COMMIT.
    assert len(sent) == 3 and sent[0] == "Sync" and sent[-1] == '"COMMIT"'


def test_a_repeatable_read_transaction_begins_as_psycopg_would_have_begun_it():
    """The BEGIN queued in the pipeline is psycopg's own: the connection's
    isolation level is kept."""
    from config.db.prepared import fetch_prepared

    a = make_caller("tenant-a", "alice")
    connection.ensure_connection()
    raw = connection.connection
    raw.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
    try:
        with tenant_context(a.agent.tenant_id):
            [(level,)] = fetch_prepared("SELECT current_setting('transaction_isolation')", {})
    finally:
        raw.isolation_level = None
    assert level == "repeatable read"


def test_tenant_reads_sees_one_tenant_in_one_round_trip_a_read_and_no_transaction(tmp_path):
    """Outside a transaction, each read carries the tenant's settings in its
    own round trip (a prepared read's pipeline, an ORM query): no BEGIN, no
    COMMIT, and the settings end with the sync."""
    from config.db.prepared import PreparedRead, fetch_prepared, fetch_together

    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with _round_trips(tmp_path) as sent, tenant_reads(a.agent.tenant_id):
        prepared = fetch_prepared("SELECT name FROM accounts_agent", {})
        names = list(Agent.objects.values_list("name", flat=True))
        together = fetch_together(
            [
                PreparedRead("SELECT count(*) FROM accounts_tenant", {}, lambda rows: rows),
                PreparedRead("SELECT slug FROM accounts_tenant", {}, lambda rows: rows),
            ]
        )
        seen_from_b = Agent.objects.filter(id=b.agent.id).exists()
        status = connection.connection.info.transaction_status
    assert prepared == [("alice",)] and names == ["alice"]
    assert together == [[(1,)], [("tenant-a",)]] and not seen_from_b
    assert sent == ["Sync"] * 4  # one round trip a read, nothing else
    assert status == psycopg.pq.TransactionStatus.IDLE
    # The next statement on the same connection, outside the scope, sees nothing.
    assert current_tenant_id() is None
    assert Agent.objects.count() == 0
    with tenant_reads(b.agent.tenant_id):
        assert current_tenant_id() == b.agent.tenant_id
        assert list(Agent.objects.values_list("name", flat=True)) == ["bob"]


def test_tenant_reads_refuses_writes_and_leaves_nothing_written():
    from config.db.prepared import run_bound

    a = make_caller("tenant-a", "alice")
    with tenant_reads(a.agent.tenant_id):
        with pytest.raises(DatabaseError, match="read-only transaction"):
            Agent.objects.create(tenant_id=a.agent.tenant_id, name="carol", role=Role.WRITER)
        with pytest.raises(DatabaseError, match="read-only transaction"):
            run_bound("UPDATE accounts_agent SET name = 'mallory'", [])
        # The scope goes on serving reads after a refusal.
        assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]
    assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    assert current_tenant_id() is None
    with tenant_context(a.agent.tenant_id):
        assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]


def test_a_transaction_inside_tenant_reads_is_its_tenants_and_inside_one_it_is_tenant_context():
    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    with tenant_reads(a.agent.tenant_id):
        with transaction.atomic():
            # The scope's tenant, read-only like the scope.
            assert current_tenant_id() == a.agent.tenant_id
            assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]
        # Django's own transactions (a delete, a get_or_create) included.
        with pytest.raises(DatabaseError, match="read-only transaction"):
            Agent.objects.filter(id=a.agent.id).delete()
        with pytest.raises(DatabaseError, match="read-only transaction"):
            Agent.objects.get_or_create(tenant_id=a.agent.tenant_id, name="carol",
                                        defaults={"role": Role.WRITER})  # fmt: skip
        with transaction.atomic():
            activate_tenant(a.agent.tenant_id)  # says it writes, before anything ran
            Agent.objects.filter(id=a.agent.id).update(role=Role.READER)
        with transaction.atomic():
            activate_tenant(b.agent.tenant_id)  # the transaction's own word wins
            assert list(Agent.objects.values_list("name", flat=True)) == ["bob"]
        with tenant_reads(b.agent.tenant_id):  # a scope within a scope, then back
            assert list(Agent.objects.values_list("name", flat=True)) == ["bob"]
        assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]
        with pytest.raises(TransactionManagementError, match="server-side cursors"):
            list(Agent.objects.iterator())
        with tenant_context(b.agent.tenant_id):
            Agent.objects.filter(id=b.agent.id).update(role=Role.READER)  # a write of its own
        assert current_tenant_id() == a.agent.tenant_id
    with tenant_context(a.agent.tenant_id):
        with tenant_reads(b.agent.tenant_id):
            assert list(Agent.objects.values_list("name", flat=True)) == ["bob"]
        assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]
    with cross_tenant(reason="test check"):
        assert Agent.objects.get(id=a.agent.id).role == Role.READER
        assert Agent.objects.get(id=b.agent.id).role == Role.READER
    assert current_tenant_id() is None  # nothing left on the connection


def test_an_apply_transaction_inside_tenant_reads_writes_at_its_isolation():
    """SET TRANSACTION must be an apply transaction's first statement: the
    scope's pending settings give way to it (the tenant's come after)."""
    from accounts.tenancy import run_apply_transaction

    a = make_caller("tenant-a", "alice")

    def write() -> str:
        Agent.objects.filter(id=a.agent.id).update(role=Role.READER)
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('transaction_isolation')")
            return str(cursor.fetchone()[0])

    with tenant_reads(a.agent.tenant_id):
        assert run_apply_transaction(a.agent.tenant_id, write) == "repeatable read"
        assert Agent.objects.get(id=a.agent.id).role == Role.READER


def test_a_settings_statement_in_a_read_scopes_pipeline_lasts_for_that_round_trip_only():
    """What the HNSW search relies on: its scan settings, sent as set_config
    in its own pipeline, apply to its statement and end with the sync."""
    from config.db.base import settings_statement
    from config.db.prepared import run_unprepared_all

    a = make_caller("tenant-a", "alice")
    show = (
        "SELECT current_setting('hnsw.ef_search', true), current_setting('app.tenant_id', true), "
        "current_setting('transaction_read_only')",
        (),
    )
    with tenant_reads(a.agent.tenant_id):
        _, during = run_unprepared_all([settings_statement({"hnsw.ef_search": "123"}), show])
        [after] = run_unprepared_all([show])
    assert during == [("123", str(a.agent.tenant_id), "on")]
    assert after[0][0] != "123" and after[0][1:] == (str(a.agent.tenant_id), "on")


def test_a_read_scope_ends_with_its_connection():
    """A scope left open (never exited) does not outlive the connection's
    close, which the MCP server and Django do after each call or request;
    reads after a close inside a scope see nothing."""
    a = make_caller("tenant-a", "alice")
    scope = tenant_reads(a.agent.tenant_id)
    scope.__enter__()  # and never exited, as by a generator left suspended
    assert list(Agent.objects.values_list("name", flat=True)) == ["alice"]
    connection.close()
    assert Agent.objects.count() == 0 and current_tenant_id() is None
    with transaction.atomic():
        assert current_tenant_id() is None


def test_a_read_scope_needs_autocommit():
    a = make_caller("tenant-a", "alice")
    transaction.set_autocommit(False)
    try:
        with pytest.raises(TransactionManagementError), tenant_reads(a.agent.tenant_id):
            pass
    finally:
        transaction.rollback()
        transaction.set_autocommit(True)


def test_activate_tenant_outside_a_transaction_is_refused():
    with pytest.raises(TenancyError):
        activate_tenant(uuid.uuid4())


def test_cross_tenant_is_refused_inside_a_tenant_scope():
    a = make_caller("tenant-a", "alice")
    with (
        tenant_context(a.agent.tenant_id),
        pytest.raises(TenancyError),
        cross_tenant(reason="should not happen"),
    ):
        pass


def test_cross_tenant_sees_every_tenant_and_ends_with_its_block():
    make_caller("tenant-a", "alice")
    make_caller("tenant-b", "bob")
    with cross_tenant(reason="test"):
        assert Agent.objects.count() == 2
    assert Agent.objects.count() == 0


def test_a_forged_setting_from_a_plain_connection_sees_nothing_without_a_tenant(superuser_sql):
    """The key-lookup policy shows one key row by its exact prefix, nothing
    else: not agents, not other keys."""
    a = make_caller("tenant-a", "alice")
    make_caller("tenant-b", "bob")
    prefix = a.key.split("_")[1]
    dsn = superuser_sql.info.dsn.replace(
        "user=postgres", f"user={connection.settings_dict['USER']}"
    )
    with psycopg.connect(dsn) as conn:
        conn.execute("SELECT set_config('app.auth_key_prefix', %s, true)", [prefix])
        counts = {
            table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()  # noqa: S608
            for table in ("accounts_apikey", "accounts_agent", "accounts_tenant")
        }
    assert counts == {"accounts_apikey": (1,), "accounts_agent": (0,), "accounts_tenant": (0,)}


def test_a_prepared_statement_planned_in_one_tenant_sees_only_the_next_tenants_rows():
    """The recall path's prepared statements (config.db.prepared) keep a
    generic plan per connection, across tenants: the tenant policy is
    evaluated at execution, so a plan made for A never shows A to B."""
    from config.db.prepared import fetch_prepared

    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    sql = "SELECT name FROM accounts_agent WHERE role = ANY(%(roles)s) ORDER BY name"
    roles = {"roles": [r.value for r in Role]}
    for _ in range(8):  # past PostgreSQL's five custom plans, onto the cached generic one
        with tenant_context(a.agent.tenant_id):
            assert fetch_prepared(sql, roles) == [("alice",)]
        with tenant_context(b.agent.tenant_id):
            assert fetch_prepared(sql, roles) == [("bob",)]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE 'SELECT name FROM accounts_agent WHERE role%%'"
        )
        [(generic, custom)] = cursor.fetchall()
    assert generic > 0 and custom >= 5  # the later calls ran the cached generic plan
    assert current_tenant_id() is None
    assert fetch_prepared(sql, roles) == []  # no tenant: no rows


def test_without_prepared_statements_the_same_reads_go_through_djangos_cursor(settings):
    from config.db.prepared import fetch_prepared

    settings.TRIBUTARY_PREPARED_STATEMENTS = False
    a = make_caller("tenant-a", "alice")
    with tenant_context(a.agent.tenant_id):
        rows = fetch_prepared("SELECT name FROM accounts_agent WHERE name = %(n)s", {"n": "alice"})
    assert rows == [("alice",)]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements "
            "WHERE statement LIKE '%%accounts_agent WHERE name =%%'"
        )
        assert cursor.fetchone()[0] == 0


def test_a_pooled_checkout_does_not_look_the_server_up_again(monkeypatch):
    """With a pool, the parameters it was made with are the ones that count:
    a checkout reads no postmaster.pid (config.db.base)."""
    from config import embedded

    connection.ensure_connection()
    pool: Any = getattr(connection, "pool")  # noqa: B009 (django-stubs lacks it)
    assert pool is not None
    connection.close()  # back to the pool

    def looked_up(*args, **kwargs):
        raise AssertionError("the embedded server was looked up for a pooled connection")

    monkeypatch.setattr(embedded, "ensure_postgres", looked_up)
    assert connection.get_connection_params() == pool.kwargs
    connection.ensure_connection()  # a checkout
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
