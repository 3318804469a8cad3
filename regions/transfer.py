"""A tenant's whole memory out of one region and into another.

``tenant_export`` writes every row of the tenant — the tenant, its agents
and keys (hashes only), lessons with their vectors, provenance (beliefs,
observations, edges, decisions), events, disputes, policies, the journal,
model calls — as JSON Lines: a header with the count of every table, then
one line per row, each read in one snapshot (REPEATABLE READ). The tables
are found in the catalogue (every table with a ``tenant_id`` column, and
the tenant itself), so a new tenant table travels without a change here.

``tenant_import`` writes a file into the region routed to, in one
transaction: a kill leaves nothing behind, and a rerun finds the tenant
already there and only verifies. Two kinds of row are not copied but
rebuilt by the target's own triggers: the full-text terms of each lesson
and the tenant's storage usage. Rows keyed by a database-wide sequence
(events, the journal, audits …) get new ids in the target, in their
original order; nothing refers to those ids. After the write, every
table's count must equal the header's.

``tenant_move`` (``move``) does both, in an order that loses nothing if it
stops anywhere: freeze the tenant (its requests get 503 while it moves),
copy, verify, switch the directory entry, and only then erase the source.
Run again after a stop, it picks up where it stopped.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from django.db import connection, transaction
from django.utils import timezone

from accounts.tenancy import activate_tenant, tenant_context
from regions.directory import (
    ROUTE_CACHE_SECONDS,
    placement_of,
    placement_set,
    tenant_place,
)
from regions.routing import in_region, region_names

FORMAT = "tributary-tenant/1"
TENANT_TABLE = "accounts_tenant"
# Rebuilt by the target's triggers from the rows they derive from.
DERIVED = frozenset({"memory_lessonterm", "accounts_tenantusage"})
BATCH = 500
ERASING_SETTING = "app.erasing_tenant"

Progress = Callable[[str, int], None]  # (table, rows done in it so far)


class TransferError(RuntimeError):
    pass


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[str, ...]  # written on import (no generated columns)
    key: str  # the column to order by
    renumbered: bool  # a sequence-keyed id: the target assigns its own


def tenant_tables() -> list[Table]:
    """Every table of the tenant, the tenant's own first. (Table and column
    names below come from this catalogue query, never from input.)"""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname,
                   array_agg(a.attname ORDER BY a.attnum) FILTER (WHERE a.attgenerated = ''),
                   bool_or(a.attname = 'id' AND a.attidentity <> ''),
                   bool_or(a.attname = 'id')
            FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
              AND (c.relname = %s OR EXISTS (
                    SELECT 1 FROM pg_attribute t
                    WHERE t.attrelid = c.oid AND t.attname = 'tenant_id' AND NOT t.attisdropped))
            GROUP BY c.relname
            ORDER BY c.relname <> %s, c.relname
            """,
            [TENANT_TABLE, TENANT_TABLE],
        )
        rows = cursor.fetchall()
    tables = []
    for name, columns, identity, has_id in rows:
        renumbered = bool(identity)
        written = tuple(c for c in columns if not (renumbered and c == "id"))
        tables.append(Table(name, written, "id" if has_id else "tenant_id", renumbered))
    return tables


def _where(table: Table) -> str:
    return "id = %s" if table.name == TENANT_TABLE else "tenant_id = %s"


def table_counts(tenant_id: uuid.UUID) -> dict[str, int]:
    """Rows of the tenant in each table of the region routed to.
    Precondition: inside the tenant's transaction."""
    counts = {}
    with connection.cursor() as cursor:
        for table in tenant_tables():
            count = f'SELECT count(*) FROM "{table.name}" WHERE {_where(table)}'  # noqa: S608
            cursor.execute(count, [tenant_id])
            counts[table.name] = int(cursor.fetchone()[0])  # type: ignore[index]
    return counts


def _tenant_row(slug: str) -> tuple[uuid.UUID, str] | None:
    """(id, slug) of the tenant ``slug`` in the region routed to."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('app.cross_tenant', 'on', true)")
        cursor.execute("SELECT id FROM accounts_tenant WHERE slug = %s", [slug])
        row = cursor.fetchone()
        cursor.execute("SELECT set_config('app.cross_tenant', '', true)")
    return None if row is None else (row[0], slug)


# --- export -----------------------------------------------------------------


def export_tenant(slug: str, out: IO[str], progress: Progress | None = None) -> dict[str, Any]:
    """Write tenant ``slug`` of the region routed to as JSON Lines to
    ``out``; return the header. One REPEATABLE READ snapshot: the counts and
    the rows agree."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        found = _tenant_row(slug)
        if found is None:
            raise TransferError(f"no tenant {slug!r} in this region")
        tenant_id = found[0]
        activate_tenant(tenant_id)
        counts = table_counts(tenant_id)
        header = {
            "format": FORMAT,
            "tenant": slug,
            "tenant_id": str(tenant_id),
            "exported_at": timezone.now().isoformat(),
            "counts": counts,
        }
        out.write(json.dumps(header) + "\n")
        for table in tenant_tables():
            done = 0
            for row in _rows(table, tenant_id):
                out.write(json.dumps({"t": table.name, "r": row}, separators=(",", ":")) + "\n")
                done += 1
                if progress is not None and done % BATCH == 0:
                    progress(table.name, done)
            if progress is not None:
                progress(table.name, done)
    return header


def _rows(table: Table, tenant_id: uuid.UUID) -> Iterator[Any]:
    # A server-side cursor: a tenant's lessons with vectors need not fit in memory.
    with connection.chunked_cursor() as cursor:
        cursor.execute(
            f'SELECT row_to_json(x) FROM "{table.name}" x WHERE {_where(table)} '  # noqa: S608
            f"ORDER BY {table.key}",
            [tenant_id],
        )
        while rows := cursor.fetchmany(BATCH):
            for (row,) in rows:
                yield row if isinstance(row, dict) else json.loads(row)


# --- import -----------------------------------------------------------------


@dataclass
class ImportResult:
    tenant_id: uuid.UUID
    imported: bool  # False: it was there already (a rerun); only verified
    counts: dict[str, int] = field(default_factory=dict)


def read_header(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        header: dict[str, Any] = json.loads(handle.readline())
    if header.get("format") != FORMAT:
        raise TransferError(f"{path}: not a tenant export ({FORMAT})")
    return header


def import_tenant(path: Path, region: str, progress: Progress | None = None) -> ImportResult:
    """Write the export at ``path`` into the region routed to (``region``
    is its name, recorded on the tenant row); verify every count."""
    header = read_header(path)
    tenant_id = uuid.UUID(header["tenant_id"])
    expected: dict[str, int] = header["counts"]
    with transaction.atomic():
        present = _tenant_row(header["tenant"])
        if present is not None and present[0] != tenant_id:
            raise TransferError(f"region {region!r} has another tenant named {header['tenant']!r}")
        imported = present is None
        if imported:
            activate_tenant(tenant_id)
            tables = {table.name: table for table in tenant_tables()}
            unknown = set(expected) - set(tables)
            if unknown:
                raise TransferError(f"this region has no table {', '.join(sorted(unknown))}")
            _write_rows(path, tables, region, progress)
    with tenant_context(tenant_id):
        counts = table_counts(tenant_id)
    wrong = {
        name: (counts.get(name, 0), count)
        for name, count in expected.items()
        if counts.get(name, 0) != count
    }
    if wrong:
        detail = ", ".join(
            f"{name}: {got} of {want}" for name, (got, want) in sorted(wrong.items())
        )
        raise TransferError(f"the copy does not verify ({detail})")
    return ImportResult(tenant_id=tenant_id, imported=imported, counts=counts)


def _write_rows(
    path: Path, tables: dict[str, Table], region: str, progress: Progress | None
) -> None:
    batch: list[Any] = []
    current: str | None = None
    done = 0

    def flush() -> None:
        nonlocal done
        if current is None or not batch:
            return
        table = tables[current]
        columns = ", ".join(f'"{c}"' for c in table.columns)
        with connection.cursor() as cursor:
            cursor.execute(
                f'INSERT INTO "{table.name}" ({columns}) SELECT {columns} '  # noqa: S608
                f'FROM json_populate_recordset(NULL::"{table.name}", %s::json)',
                [json.dumps(batch)],
            )
        done += len(batch)
        batch.clear()
        if progress is not None:
            progress(table.name, done)

    with open(path, encoding="utf-8") as handle:
        handle.readline()
        for line in handle:
            item = json.loads(line)
            name, row = item["t"], item["r"]
            if name in DERIVED:
                continue
            if name != current:
                flush()
                current, done = name, 0
            if name == TENANT_TABLE:
                row = {**row, "region": region}
            batch.append(row)
            if len(batch) >= BATCH:
                flush()
        flush()


# --- erase ------------------------------------------------------------------


def allow_erasing(cursor: Any, tenant_id: uuid.UUID) -> None:
    """For the rest of this transaction the tenant's rows may be deleted,
    observations included (undeletable otherwise: provenance 0008), in any
    order (constraints checked at commit)."""
    cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    cursor.execute("SELECT set_config(%s, %s, true)", [ERASING_SETTING, str(tenant_id)])


def erase_tenant(tenant_id: uuid.UUID) -> dict[str, int]:
    """Delete every row of the tenant from the region routed to, in one
    transaction (``tenant_move``'s last step, after the copy verified)."""
    deleted: dict[str, int] = {}
    with tenant_context(tenant_id), connection.cursor() as cursor:
        allow_erasing(cursor, tenant_id)
        for table in reversed(tenant_tables()):
            delete = f'DELETE FROM "{table.name}" WHERE {_where(table)}'  # noqa: S608
            cursor.execute(delete, [tenant_id])
            deleted[table.name] = cursor.rowcount
        cursor.execute("SELECT set_config(%s, '', true)", [ERASING_SETTING])
    return deleted


# --- move -------------------------------------------------------------------


@dataclass
class MoveReport:
    slug: str
    source: str | None
    target: str
    steps: list[str] = field(default_factory=list)


def move_tenant(
    slug: str,
    target: str,
    workdir: Path,
    *,
    say: Callable[[str], None] = lambda line: None,
    progress: Progress | None = None,
    actor: str = "operator",
    reason: str = "",
) -> MoveReport:
    """Move tenant ``slug`` to region ``target`` (see the module's docstring).
    Every step is safe to repeat: a rerun after any stop completes the move."""
    placed = placement_of(slug)
    if placed is None:
        raise TransferError(f"the directory has no tenant {slug!r}")
    if target not in region_names():
        raise TransferError(f"unknown region {target!r}")
    source = placed.region if placed.region != target else None
    report = MoveReport(slug=slug, source=source, target=target)
    if source is not None:
        if placed.moving_to != target:
            placement_set(slug=slug, moving_to=target)
            say(f"frozen: {slug}'s requests are answered 503 while it moves")
            # Every process has read the freeze before the copy starts.
            time.sleep(ROUTE_CACHE_SECONDS + 1)
        with in_region(source):
            _wait_for_learns(placed.tenant_id, say)
            # In the source, so that it travels with the copy (and the
            # counts of both sides agree).
            with tenant_context(placed.tenant_id):
                _audit(placed.tenant_id, source, target, actor, reason)
        workdir.mkdir(parents=True, exist_ok=True)
        path = workdir / f"{slug}.{source}-to-{target}.jsonl"
        with in_region(source), open(path, "w", encoding="utf-8") as out:
            header = export_tenant(slug, out, progress)
        say(f"exported {sum(header['counts'].values())} rows from {source} to {path}")
        with in_region(target):
            result = import_tenant(path, target, progress)
        say(
            f"{'imported into' if result.imported else 'already in'} {target}; "
            f"{len(result.counts)} tables verify"
        )
        tenant_place(slug=slug, tenant_id=result.tenant_id, region=target)
        placement_set(slug=slug, moving_to="")
        say(f"directory: {slug} → {target}")
        path.unlink(missing_ok=True)
    # Erase whatever is left of the tenant anywhere but the target: the
    # source of this move, or of one that stopped after the switch.
    for region in region_names():
        if region == target:
            continue
        with in_region(region), transaction.atomic():
            leftover = _tenant_row(slug)
        if leftover is not None:
            with in_region(region):
                deleted = erase_tenant(leftover[0])
            say(f"erased {sum(deleted.values())} rows of {slug} from {region}")
            report.steps.append(f"erased from {region}")
    placement_set(slug=slug, moving_to="")
    return report


def _wait_for_learns(tenant_id: uuid.UUID, say: Callable[[str], None]) -> None:
    """Learns accepted before the freeze are applied (or fail) first."""
    from memory.models import LearnRequest, RequestStatus

    deadline = time.monotonic() + 300
    while True:
        with tenant_context(tenant_id):
            pending = LearnRequest.objects.filter(status=RequestStatus.PENDING).count()
        if not pending:
            return
        if time.monotonic() > deadline:
            raise TransferError(f"{pending} learn request(s) still pending after 300 s")
        say(f"waiting for {pending} pending learn request(s)")
        time.sleep(1)


def _audit(tenant_id: uuid.UUID, source: str, target: str, actor: str, reason: str) -> None:
    """The move in the tenant's curator audit (the admin's curator actions),
    once per move however often it is rerun."""
    from memory.models import CuratorAction

    data = {"from": source, "to": target}
    if not CuratorAction.objects.filter(action="region_move", data=data).exists():
        CuratorAction.objects.create(
            tenant_id=tenant_id, actor=actor[:200], action="region_move",
            target_type="tenant", target_id=str(tenant_id), reason=reason[:1000], data=data,
        )  # fmt: skip
