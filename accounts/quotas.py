"""Per-tenant storage quotas, enforced by PostgreSQL itself.

What counts: the text a tenant's agents send and the service keeps — learn
requests (content and situation), observations (content and source URI),
beliefs and decisions. Lessons are not counted again (their text is the
learn request's). A trigger on each of those tables adds a statement's new rows' bytes
to the tenant's one ``accounts_tenantusage`` row, and gives bytes back when
a row is erased or deleted. When a write takes the tenant past its quota the
trigger raises SQLSTATE ``TQ001`` and the whole statement — the whole
request — rolls back: nothing partial is kept. The row update takes a row
lock held to commit, so two writers of one tenant can never both take the
last bytes, whichever web process or worker they run in.

The quota is the tenant's *storage quota bytes* when set (0: unlimited),
else ``TRIBUTARY_STORAGE_QUOTA_MB``, which ``activate_tenant`` hands to the
transaction as ``app.storage_quota`` beside the tenant id (one round trip).
The API answers ``507 storage_quota_exceeded`` (``config.errors``).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import connection

QUOTA_SQLSTATE = "TQ001"
QUOTA_SETTING = "app.storage_quota"

# table -> its counted text columns
COUNTED: dict[str, tuple[str, ...]] = {
    "memory_learnrequest": ("content", "situation"),
    "provenance_observation": ("content", "source_uri"),
    "provenance_belief": ("content",),
    "provenance_decision": ("action",),
}

# Built from the constants above only, never from input.
FUNCTION_SQL = f"""
CREATE OR REPLACE FUNCTION app_row_bytes(rec jsonb, columns text[]) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT coalesce(sum(octet_length(rec ->> c)), 0)::bigint FROM unnest(columns) c $$;

-- The one place bytes are taken and the quota is held.
CREATE OR REPLACE FUNCTION app_storage_take(tenant uuid, delta bigint) RETURNS void
    LANGUAGE plpgsql AS $$
DECLARE
    used bigint;
    quota bigint;
BEGIN
    INSERT INTO accounts_tenantusage AS u (tenant_id, bytes) VALUES (tenant, delta)
    ON CONFLICT (tenant_id) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes
    RETURNING u.bytes INTO used;
    SELECT storage_quota_bytes INTO quota FROM accounts_tenant WHERE id = tenant;
    quota := coalesce(quota, nullif(current_setting('{QUOTA_SETTING}', true), '')::bigint);
    IF quota > 0 AND used > quota THEN
        RAISE EXCEPTION 'storage quota exceeded'
            USING ERRCODE = '{QUOTA_SQLSTATE}',
                  DETAIL = format('this write would store %s bytes; the quota is %s', used, quota);
    END IF;
END $$;

-- Rows changed or deleted, one at a time.
CREATE OR REPLACE FUNCTION app_storage_charge() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta bigint;
    tenant uuid;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        tenant := NEW.tenant_id;
        delta := app_row_bytes(to_jsonb(NEW), TG_ARGV) - app_row_bytes(to_jsonb(OLD), TG_ARGV);
    ELSE
        tenant := OLD.tenant_id;
        delta := -app_row_bytes(to_jsonb(OLD), TG_ARGV);
    END IF;
    IF delta < 0 THEN
        UPDATE accounts_tenantusage SET bytes = greatest(bytes + delta, 0)
        WHERE tenant_id = tenant;
    ELSIF delta > 0 THEN
        PERFORM app_storage_take(tenant, delta);
    END IF;
    RETURN NULL;
END $$;

-- Rows inserted, a statement's at once: one update of the usage row per
-- tenant per statement, where a row trigger updated it once per row (a
-- batch of 500 learns updated one row 1,500 times in one transaction).
CREATE OR REPLACE FUNCTION app_storage_charge_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    charge record;
BEGIN
    FOR charge IN
        SELECT n.tenant_id AS tenant, sum(app_row_bytes(to_jsonb(n), TG_ARGV))::bigint AS delta
        FROM inserted n GROUP BY n.tenant_id
    LOOP
        IF charge.delta > 0 THEN
            PERFORM app_storage_take(charge.tenant, charge.delta);
        END IF;
    END LOOP;
    RETURN NULL;
END $$;
"""  # noqa: S608


def _columns(table: str) -> str:
    return ", ".join(f"'{column}'" for column in COUNTED[table])


def triggers_sql() -> str:
    """The functions and each counted table's triggers, replacing any
    earlier version of them."""
    return FUNCTION_SQL + "".join(
        f"""
DROP TRIGGER IF EXISTS storage_charge ON "{table}";
DROP TRIGGER IF EXISTS storage_charge_inserted ON "{table}";
CREATE TRIGGER storage_charge AFTER UPDATE OF {", ".join(COUNTED[table])} OR DELETE
    ON "{table}" FOR EACH ROW EXECUTE FUNCTION app_storage_charge({_columns(table)});
CREATE TRIGGER storage_charge_inserted AFTER INSERT ON "{table}"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION app_storage_charge_inserted({_columns(table)});"""
        for table in COUNTED
    )


def drop_triggers_sql() -> str:
    drops = "".join(
        f'DROP TRIGGER IF EXISTS storage_charge ON "{table}";\n'
        f'DROP TRIGGER IF EXISTS storage_charge_inserted ON "{table}";\n'
        for table in COUNTED
    )
    return (
        drops
        + "DROP FUNCTION IF EXISTS app_storage_charge();\n"
        + "DROP FUNCTION IF EXISTS app_storage_charge_inserted();\n"
        + "DROP FUNCTION IF EXISTS app_storage_take(uuid, bigint);\n"
        + "DROP FUNCTION IF EXISTS app_row_bytes(jsonb, text[]);"
    )


def backfill_sql() -> str:
    """What each tenant stores already (run once, by the migration)."""
    parts = " UNION ALL ".join(
        f"SELECT tenant_id, app_row_bytes(to_jsonb(t), ARRAY[{_columns(table)}]) AS b "  # noqa: S608
        f'FROM "{table}" t'
        for table in COUNTED
    )
    return (
        "SELECT set_config('app.cross_tenant', 'on', true);\n"  # noqa: S608
        f"INSERT INTO accounts_tenantusage (tenant_id, bytes) SELECT tenant_id, sum(b) "
        f"FROM ({parts}) s GROUP BY tenant_id "
        "ON CONFLICT (tenant_id) DO UPDATE SET bytes = EXCLUDED.bytes;\n"
        "SELECT set_config('app.cross_tenant', '', true);"
    )


def default_quota_bytes() -> int:
    """The quota of tenants without their own (0: unlimited)."""
    return int(settings.TRIBUTARY_STORAGE_QUOTA_MB) * 1024 * 1024


def storage_usage(tenant_id: uuid.UUID) -> dict[str, Any]:
    """``{"used_bytes", "quota_bytes"}`` (quota None: unlimited).
    Precondition: inside the tenant's context."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce((SELECT bytes FROM accounts_tenantusage WHERE tenant_id = %s), 0), "
            "(SELECT storage_quota_bytes FROM accounts_tenant WHERE id = %s)",
            [tenant_id, tenant_id],
        )
        used, own = cursor.fetchone() or (0, None)
    quota = own if own is not None else default_quota_bytes()
    return {"used_bytes": int(used), "quota_bytes": int(quota) or None}
