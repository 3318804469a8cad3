"""Bulk import (``manage.py import_lessons``): records from a file become
learn requests applied through the same pipeline as any learn — screened,
embedded unless they bring a vector, judged in batches against the tenant's
lessons (or trusted: inserted as novel without a candidate read), and
written with their provenance — a belief per record resting on the
document it came from. Each record's idempotency key makes a second import
of the same file write nothing.

While a batch is applied the import holds the tenant's single-flight lock
(``tenant_flight``, what a learn worker holds), so its batches and the
workers' never judge against each other's half-seen writes; live learns of
the tenant go on between batches.
"""

from __future__ import annotations

import copy
import uuid
from collections import Counter
from collections.abc import Callable, Collection
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import timedelta
from typing import ClassVar

from django.conf import settings
from django.db import connection
from django.utils import timezone

from accounts.models import Agent, Role, Tenant
from accounts.services import agent_ensure
from accounts.tenancy import tenant_context, tenant_transaction
from config.db.bulk import rows_insert, unsaved
from config.db.prepared import run_bound
from config.telemetry import span
from memory.ahead import Ahead
from memory.embeddings import EmbeddingProvider, Vector
from memory.importing import ImportRecord
from memory.judge import Judge
from memory.models import LearnRequest, Lesson
from memory.services.learn.plan import BatchProgress, Item
from memory.services.learn.worker import (
    learn_batch_apply_or_each,
    screen_and_embed,
    tenant_flight,
    tenant_judge,
)
from provenance.models import Belief, Observation, SourceType
from provenance.services import RootedBelief, beliefs_record_rooted

_REQUESTS = LearnRequest._meta.db_table
# Names from the model's metadata, never from input.
_KNOWN_SQL = (
    f"SELECT agent_id, idempotency_key FROM {_REQUESTS} "  # noqa: S608
    "WHERE agent_id = ANY(%s) AND idempotency_key = ANY(%s)"
)
_OUTCOMES_SQL = f"SELECT outcome, count(*) FROM {_REQUESTS} WHERE id = ANY(%s) GROUP BY outcome"  # noqa: S608


@dataclass
class ImportCounts:
    read: int = 0  # records offered
    skipped: int = 0  # imported before (their key is known), or repeated in the batch
    applied: int = 0  # learn requests written and applied now
    embedded: int = 0  # vectors computed here (the rest came with the records)
    outcomes: Counter[str] = field(default_factory=Counter)  # inserted, reinforced, …

    def add(self, other: ImportCounts) -> None:
        self.read += other.read
        self.skipped += other.skipped
        self.applied += other.applied
        self.embedded += other.embedded
        self.outcomes.update(other.outcomes)


# (content, situation) of each record, and whether it needs embedding.
Screener = Callable[[list[tuple[str, str]], list[bool]], "Future[Ahead]"]


@dataclass
class ImportBatch:
    """A batch read against the tenant: its authors, the records not
    imported before (``fresh``) and their screening, done or on its way."""

    tenant_id: uuid.UUID
    fresh: list[ImportRecord]
    agents: dict[str, Agent]
    default_author: str
    counts: ImportCounts
    screened: Future[Ahead] | None = None

    @property
    def marks(self) -> set[tuple[uuid.UUID, str]]:
        """The (author, key) of each fresh record: what this batch imports."""
        return {(self.agents[r.author or self.default_author].id, r.key) for r in self.fresh}


def import_batch_read(
    *,
    tenant_id: uuid.UUID,
    records: list[ImportRecord],
    default_author: str,
    screener: Screener | None = None,
    coming: Collection[tuple[uuid.UUID, str]] = (),
) -> ImportBatch:
    """The first half of a batch's import: which records are new (not
    imported before, not repeated in the batch, not in ``coming``: the
    batch before, still to be written), and — given a ``screener`` — their
    screening started, so it runs while the batch before is written.

    Precondition: outside any transaction."""
    counts = ImportCounts(read=len(records))
    with tenant_context(tenant_id):
        agents = _authors(tenant_id, {r.author or default_author for r in records})
        # Two array parameters bound on the server, not an IN list of the
        # batch's 500 keys that the ORM would compile and convert one by one.
        known: set[tuple[uuid.UUID, str]] = set(
            run_bound(
                _KNOWN_SQL,
                [[a.id for a in agents.values()], list({r.key for r in records})],
            )
        )
    known.update(coming)
    fresh: list[ImportRecord] = []
    for record in records:
        mark = (agents[record.author or default_author].id, record.key)
        if mark in known:
            counts.skipped += 1
            continue
        known.add(mark)
        fresh.append(record)
    batch = ImportBatch(tenant_id, fresh, agents, default_author, counts)
    if fresh and screener is not None:
        batch.screened = screener(
            [(r.content, r.situation) for r in fresh], [r.vector is None for r in fresh]
        )
    return batch


def import_batch_write(
    batch: ImportBatch,
    *,
    source: str,
    trusted: bool = False,
    judge: Judge | None = None,
    provider: EmbeddingProvider | None = None,
) -> ImportCounts:
    """The second half: screen (unless screened ahead), embed what came
    without a vector, then write and apply the batch's learn requests.
    ``source`` names the file (the roots' source and family: lessons of one
    export are one source, never independent evidence for each other).

    Precondition: outside any transaction."""
    tenant_id, fresh, agents, default_author = (
        batch.tenant_id, batch.fresh, batch.agents, batch.default_author
    )  # fmt: skip
    counts = batch.counts
    if not fresh:
        return counts
    if not trusted and judge is None:
        with tenant_context(tenant_id):
            judge = tenant_judge(tenant_id)
    ahead = batch.screened.result() if batch.screened is not None else None
    given: list[Vector | None] = [r.vector for r in fresh]
    if ahead is not None:
        given = [v if v is not None else a for v, a in zip(given, ahead.vectors, strict=True)]
    screenings, vectors = screen_and_embed(
        [(r.content, r.situation) for r in fresh], given, provider,
        screened=ahead.screenings if ahead is not None else None,
    )  # fmt: skip
    counts.embedded = sum(
        1 for r, v in zip(fresh, vectors, strict=True) if r.vector is None and v is not None
    )  # here or ahead
    with tenant_flight(tenant_id), span("learn.import", size=len(fresh)):
        requests = _requests_write(tenant_id, fresh, agents, default_author, source)
        items = [
            Item(request=q, vector=v, author=_as_writer(agents[r.author or default_author]),
                 screening=s, created_at=r.created_at)
            for q, r, v, s in zip(requests, fresh, vectors, screenings, strict=True)
        ]  # fmt: skip
        # A request that fails is marked failed at once, never left pending
        # for a worker to judge later without the import's vector and time.
        counts.applied = learn_batch_apply_or_each(
            tenant_id=tenant_id, items=items, judge=None if trusted else judge,
            progress=BatchProgress(), trusted=trusted, give_up=True,
        )  # fmt: skip
    with tenant_context(tenant_id):
        outcomes = run_bound(_OUTCOMES_SQL, [[q.id for q in requests]])
    counts.outcomes.update({outcome or "failed": n for outcome, n in outcomes})
    return counts


# What an imported lesson's rows refer to: the tables whose rows the
# deferred same-tenant checks look up, one per reference written.
_REFERENCED = tuple(m._meta.db_table for m in (Lesson, LearnRequest, Belief, Observation))


@dataclass
class StatisticsRefresh:
    """``ANALYZE`` of the referenced tables each time an import has doubled
    what it wrote (from 500 rows on), of those whose statistics still say
    they are small. A reference check is a cached plan of its connection,
    made generic after five runs: planned while a table was empty it found
    a row by the tenant's index and filtered on the id — every check
    reading all the tenant's rows, so a 20,000-record import into a fresh
    tenant slowed batch by batch (310 → 780 ms) until autovacuum's next
    analyze. New statistics make PostgreSQL plan them again.

    A generic plan knows no tenant: it weighs the tenant's index by the
    table's rows over its tenants, never less than the row the unique
    ``(id, tenant_id)`` key finds, and the planner scales the rows it was
    told by the table's pages as they grow. So once a table's statistics
    count ``SETTLED`` rows the plan is the key's and stays so, and another
    analyze only costs: on a table of 30,000 lessons it took longer than
    the batch it followed (a 10,000-record import's five analyzes grew from
    0.8 to 2.4 s as the tables grew by 20,000 rows)."""

    SETTLED: ClassVar[int] = 10_000

    next_at: int = 500
    written: int = 0

    def add(self, rows: int) -> bool:
        """Count rows written; analyze (and say so) when they reach the
        mark and a referenced table's statistics count fewer than
        ``SETTLED`` rows (or none: never analyzed)."""
        self.written += rows
        if self.written < self.next_at:
            return False
        self.next_at = 2 * self.written
        with connection.cursor() as cursor:
            # The tables as the unqualified ANALYZE below finds them (the
            # search path's), whatever the schema is called.
            cursor.execute(
                "SELECT relname FROM pg_class WHERE oid = ANY(%s::regclass[]) AND reltuples < %s "
                "ORDER BY relname",
                [list(_REFERENCED), self.SETTLED],
            )
            small = [name for (name,) in cursor.fetchall()]
            if not small:
                return False
            # SKIP_LOCKED: never wait behind (or deadlock with) a concurrent
            # CREATE INDEX CONCURRENTLY of a tenant's HNSW index; a table
            # skipped now is analyzed at the next mark, or by autovacuum.
            # Names from the models' metadata, never from input.
            cursor.execute(f"ANALYZE (SKIP_LOCKED) {', '.join(small)}")
        return True


def _as_writer(agent: Agent) -> Agent:
    """The author as the plan sees it: a file names its authors, so a name
    that is a curator's never carries a curator's authority (overturning
    another agent's lesson) into an import."""
    if agent.role == Role.WRITER:
        return agent
    writer = copy.copy(agent)
    writer.role = Role.WRITER
    return writer


def _authors(tenant_id: uuid.UUID, names: set[str]) -> dict[str, Agent]:
    """The records' authors by name, created (as writers) where missing."""
    agents = {a.name: a for a in Agent.objects.filter(tenant_id=tenant_id, name__in=names)}
    missing = names - set(agents)
    if missing:
        tenant = Tenant.objects.get(id=tenant_id)
        agents.update({name: agent_ensure(tenant=tenant, name=name) for name in missing})
    return agents


def _requests_write(
    tenant_id: uuid.UUID,
    records: list[ImportRecord],
    agents: dict[str, Agent],
    default_author: str,
    source: str,
) -> list[LearnRequest]:
    """The records' beliefs (each on a root: the file's line) and their
    learn requests, pending and leased to this import, in one transaction.
    A concurrent import of the same records fails here on the idempotency
    constraint and writes nothing."""
    lease = timezone.now() + timedelta(seconds=settings.TRIBUTARY_LEARN_LEASE_SECONDS)
    with tenant_transaction(tenant_id):
        beliefs = beliefs_record_rooted(
            tenant_id=tenant_id,
            beliefs=[
                RootedBelief(
                    agent_id=agents[r.author or default_author].id, content=r.content,
                    confidence=r.confidence, root=r.situation or r.content,
                    source_type=SourceType.DOCUMENT, source_uri=f"{source}#{r.line}"[:2000],
                    source_family=source[:200],
                )
                for r in records
            ],
        )  # fmt: skip
        requests = [
            unsaved(
                LearnRequest, tenant_id=tenant_id, agent_id=belief.agent_id, content=r.content,
                situation=r.situation, kind=r.kind, confidence=r.confidence,
                idempotency_key=r.key, belief_id=belief.id, lease_until=lease, claims=1,
            )
            for r, belief in zip(records, beliefs, strict=True)
        ]  # fmt: skip
        rows_insert(requests)
        return requests
