"""The worker: single flight per tenant, claims and leases, batches,
embedding, and the retries around planning and applying (layer 2 of
``memory.services.learn``)."""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass, replace
from datetime import timedelta

from django.conf import settings
from django.db import connection, connections
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Agent, Tenant
from accounts.tenancy import tenant_context
from config.db.advisory import advisory_lock, advisory_try_lock, advisory_unlock
from config.metrics import LEARN_OUTCOMES, QUARANTINES, TXN_REVALIDATIONS
from config.telemetry import span
from memory.embeddings import EmbeddingProvider, Vector, embed, lesson_text
from memory.guard import Screening, screen, screen_read, screen_vector, to_embed
from memory.judge import Judge, judge_for
from memory.models import (
    LearnRequest,
    Outcome,
    RequestStatus,
)
from memory.services.learn.apply import apply_with_retries
from memory.services.learn.plan import (
    MAX_REVALIDATIONS,
    Applied,
    BatchProgress,
    Item,
    plan_batch,
    plan_evaluate,
)
from memory.services.learn.request import learn_request_enqueue, unmark_queued

log = logging.getLogger(__name__)


def _claim(tenant_id: uuid.UUID, first_id: uuid.UUID) -> list[LearnRequest]:
    """Lease up to ``TRIBUTARY_LEARN_BATCH`` pending requests of the tenant,
    this one first. Requests leased by a live worker are skipped; an expired
    lease (its worker died) can be taken over."""
    lease_seconds = settings.TRIBUTARY_LEARN_LEASE_SECONDS
    with tenant_context(tenant_id), connection.cursor() as cursor:
        # Lock first (rows another worker is claiming right now are skipped),
        # then lease what we locked; both in one transaction. A single
        # UPDATE … WHERE id IN (SELECT … SKIP LOCKED) may re-run its
        # subquery under READ COMMITTED and lease rows it never meant to.
        cursor.execute(
            """
            SELECT id FROM memory_learnrequest
            WHERE tenant_id = %(tenant)s AND status = 'pending'
              AND (lease_until IS NULL OR lease_until < now())
            ORDER BY (id = %(first)s) DESC, created_at
            LIMIT %(batch)s
            FOR UPDATE SKIP LOCKED
            """,
            {"tenant": tenant_id, "first": first_id, "batch": settings.TRIBUTARY_LEARN_BATCH},
        )
        ids = [row[0] for row in cursor.fetchall()]
        if not ids:
            return []
        cursor.execute(
            "UPDATE memory_learnrequest SET claims = claims + 1, "
            "lease_until = now() + make_interval(secs => %s) WHERE id = ANY(%s)",
            [lease_seconds, ids],
        )
        claimed = LearnRequest.objects.in_bulk(ids)
    return sorted(claimed.values(), key=lambda r: r.created_at)


def learn_request_process(
    *,
    tenant_id: uuid.UUID,
    request_id: uuid.UUID,
    judge: Judge | None = None,
    provider: EmbeddingProvider | None = None,
) -> int:
    """Process ``request_id`` and whatever else of its tenant is pending.
    Returns how many requests this call applied.

    Single flight (``TRIBUTARY_LEARN_SINGLE_FLIGHT``, on by default): one
    worker at a time works through a tenant's pending requests, batch after
    batch, under a session advisory lock; a task that finds the lock taken
    leaves its request to the holder. Learns of one tenant then never
    contend with each other (no retries, no re-judging), and other workers
    serve other tenants. Off, every task applies its own batch and the apply
    transaction's version check sorts out the races.

    Precondition: outside any transaction (each step opens its own).
    """
    if not settings.TRIBUTARY_LEARN_SINGLE_FLIGHT:
        return _process_batch(tenant_id, request_id, judge, provider) or 0
    unmark_queued(tenant_id)
    key = _flight_key(tenant_id)
    applied = 0
    while advisory_try_lock(key):
        try:
            applied += _drain(tenant_id, request_id, judge, provider)
        finally:
            advisory_unlock(key)
        # A request whose task found the lock taken just before we let go
        # would wait for the periodic re-enqueue: look once more.
        with tenant_context(tenant_id):
            if not _pending(tenant_id).exists():
                break
    return applied


def learn_pending_drain(
    *, tenant_id: uuid.UUID, judge: Judge | None = None, provider: EmbeddingProvider | None = None
) -> int:
    """Run the worker's service in this process until the tenant has no
    pending request left (the oldest first); returns how many were applied.
    For tests, benchmarks, evaluations and seeding — where no Celery worker
    runs, or its work must be done before the next step. Precondition:
    outside any transaction."""
    applied = 0
    while True:
        with tenant_context(tenant_id):
            pending = (
                LearnRequest.objects.filter(tenant_id=tenant_id, status=RequestStatus.PENDING)
                .order_by("created_at")
                .values_list("id", flat=True)
                .first()
            )
        if pending is None:
            return applied
        applied += learn_request_process(
            tenant_id=tenant_id, request_id=pending, judge=judge, provider=provider
        )


@contextlib.contextmanager
def tenant_flight(tenant_id: uuid.UUID) -> Iterator[None]:
    """Hold the tenant's single-flight lock as a worker does, waiting for a
    worker that holds it (for work that must not judge against another's
    half-seen writes: a bulk import's batch). Afterwards hand the workers
    what arrived meanwhile — a learn whose task found the lock taken left
    its request to the holder. Precondition: outside any transaction."""
    if not settings.TRIBUTARY_LEARN_SINGLE_FLIGHT:
        yield
        return
    key = _flight_key(tenant_id)
    advisory_lock(key)
    try:
        yield
    finally:
        advisory_unlock(key)
    with tenant_context(tenant_id):
        waiting = _pending(tenant_id).order_by("created_at").values_list("id", flat=True).first()
    if waiting is not None:
        learn_request_enqueue(waiting, tenant_id, coalesce=False)


def _flight_key(tenant_id: uuid.UUID) -> int:
    # A signed 64-bit advisory-lock key per tenant ("learn" namespace).
    return int.from_bytes(uuid.uuid5(tenant_id, "learn").bytes[:8], "big", signed=True)


def _pending(tenant_id: uuid.UUID) -> QuerySet[LearnRequest]:
    return LearnRequest.objects.filter(
        Q(lease_until__isnull=True) | Q(lease_until__lt=timezone.now()),
        tenant_id=tenant_id,
        status=RequestStatus.PENDING,
    )


@dataclass
class _Prepared:
    """A claimed batch, screened and embedded: the work that needs no
    candidate read, so it can run ahead of the batch before it."""

    claimed: list[LearnRequest]
    screenings: dict[uuid.UUID, Screening]
    vectors: dict[uuid.UUID, Vector]
    embed_ms: float


def _prepare_batch(
    tenant_id: uuid.UUID, request_id: uuid.UUID, provider: EmbeddingProvider | None
) -> _Prepared | None:
    """Claim, screen and embed one batch; None when there was nothing to claim."""
    with span("learn.claim") as claiming:
        claimed = _claim(tenant_id, request_id)
        claiming.set_attribute("tributary.batch_size", len(claimed))
    if not claimed:
        return None
    started = time.perf_counter()
    try:
        screenings, vectors = screen_and_embed(
            [(r.content, r.situation) for r in claimed], [None] * len(claimed), provider
        )
    except Exception:
        # Nothing is written: give the batch back so another attempt (this
        # task's retry, or the periodic re-enqueue) can take it at once.
        _release(tenant_id, claimed)
        raise
    return _Prepared(
        claimed=claimed,
        screenings={r.id: s for r, s in zip(claimed, screenings, strict=True)},
        vectors={r.id: v for r, v in zip(claimed, vectors, strict=True) if v is not None},
        embed_ms=round((time.perf_counter() - started) * 1000 / len(claimed), 2),
    )


def screen_and_embed(
    texts: list[tuple[str, str]],
    given: list[Vector | None],
    provider: EmbeddingProvider | None,
    screened: list[Screening] | None = None,
) -> tuple[list[Screening], list[Vector | None]]:
    """Screen lessons (content, situation) and embed those the rules let
    through that have no vector yet (``given``: an import's own), in one
    batch; then the learned signal reads each vector. Quarantined text is
    never embedded (nor shown to a judge), and a quarantined lesson has no
    vector here. ``screened``: the rules' screenings when they were made
    elsewhere (an import screens ahead in another process). Returns the
    screenings and vectors, in order."""
    if screened is None:
        with span("learn.screen"):
            screened = [screen(content, situation) for content, situation in texts]
    screenings = list(screened)
    wanted = to_embed(screenings, [v is None for v in given])
    with span("learn.embed", texts=len(wanted)):
        made = embed([lesson_text(*texts[i]) for i in wanted], provider) if wanted else []
    vectors: list[Vector | None] = [
        None if s.blocked else v for s, v in zip(screenings, given, strict=True)
    ]
    for i, new in zip(wanted, made, strict=True):
        vectors[i] = new
    # The learned signal reads the vector: what it blocks is quarantined like
    # a rule's catch (stored with no embedding, never a candidate).
    scores: dict[int, float | None] = {}  # the learned signal's, of what it let through
    for i, found in enumerate(vectors):
        held = screenings[i].ingredients  # read ahead with the rules, for an import
        if found is None:
            continue
        learned = screen_vector(found, *texts[i], held)
        if learned.blocked:
            screenings[i], vectors[i] = learned, None
        else:
            scores[i] = learned.score
    # The reader reads what was embedded here (an import's own vectors came
    # with text the rules and the learned signal have read).
    read = [i for i in wanted if i in scores]
    with span("learn.read", candidates=len(read)):
        lessons = [(*texts[i], scores[i]) for i in read]
        for i, reading in zip(read, screen_read(lessons), strict=True):
            if reading.blocked:
                screenings[i], vectors[i] = reading, None
    return screenings, vectors


def _release(tenant_id: uuid.UUID, claimed: list[LearnRequest]) -> None:
    with tenant_context(tenant_id):
        LearnRequest.objects.filter(id__in=[r.id for r in claimed]).update(lease_until=None)


def _process_batch(
    tenant_id: uuid.UUID,
    request_id: uuid.UUID,
    judge: Judge | None,
    provider: EmbeddingProvider | None,
) -> int | None:
    """Claim, embed and apply one batch; None when there was nothing to claim."""
    prepared = _prepare_batch(tenant_id, request_id, provider)
    return None if prepared is None else _apply_batch(tenant_id, prepared, judge)


def _drain(
    tenant_id: uuid.UUID,
    request_id: uuid.UUID,
    judge: Judge | None,
    provider: EmbeddingProvider | None,
) -> int:
    """Apply the tenant's pending requests batch after batch, while a helper
    thread claims and embeds the next batch. Embedding is most of a learn's
    CPU and the model releases the GIL, so it overlaps the candidate read,
    the judge and the apply of the batch before (which stay in order: a
    batch is judged only after the one before it committed). Returns how
    many requests were applied."""
    applied = 0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="learn-embed") as helper:
        # The helper runs in this task's context (its trace, its region).
        upcoming = helper.submit(
            copy_context().run, _prepare_in_thread, tenant_id, request_id, provider
        )
        try:
            while (prepared := upcoming.result()) is not None:
                # Renew the batch's lease before the helper claims again: it
                # was claimed while the batch before was judged, which may
                # have outlasted the lease (an LLM judge, a long batch).
                prepared = _renewed(tenant_id, prepared)
                upcoming = helper.submit(
                    copy_context().run, _prepare_in_thread, tenant_id, request_id, provider
                )
                if prepared.claimed:
                    applied += _apply_batch(tenant_id, prepared, judge)
        except BaseException:
            # Leave nothing leased: a batch claimed ahead goes back at once.
            with contextlib.suppress(Exception):
                ahead = upcoming.result()
                if ahead is not None:
                    _release(tenant_id, ahead.claimed)
            raise
    return applied


def _renewed(tenant_id: uuid.UUID, prepared: _Prepared) -> _Prepared:
    """The batch with a fresh lease on each request still ours: pending and
    not claimed again since (its lease ran out and another worker took it)."""
    with tenant_context(tenant_id), connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memory_learnrequest r SET lease_until = now() + make_interval(secs => %s)
            FROM unnest(%s::uuid[], %s::int[]) AS mine(id, claims)
            WHERE r.id = mine.id AND r.claims = mine.claims AND r.status = 'pending'
            RETURNING r.id
            """,
            [settings.TRIBUTARY_LEARN_LEASE_SECONDS, [r.id for r in prepared.claimed],
             [r.claims for r in prepared.claimed]],
        )  # fmt: skip
        ours = {row[0] for row in cursor.fetchall()}
    if len(ours) == len(prepared.claimed):
        return prepared
    return replace(prepared, claimed=[r for r in prepared.claimed if r.id in ours])


def _prepare_in_thread(
    tenant_id: uuid.UUID, request_id: uuid.UUID, provider: EmbeddingProvider | None
) -> _Prepared | None:
    try:
        return _prepare_batch(tenant_id, request_id, provider)
    finally:
        connections.close_all()  # this thread's connection, back to the pool


def _apply_batch(tenant_id: uuid.UUID, prepared: _Prepared, judge: Judge | None) -> int:
    """Judge and apply a prepared batch. Returns how many requests it applied."""
    claimed = prepared.claimed
    progress = BatchProgress(embed_ms=prepared.embed_ms)
    with tenant_context(tenant_id):
        authors = Agent.objects.in_bulk({r.agent_id for r in claimed})
        judge = judge or tenant_judge(tenant_id)
    items = [
        Item(
            request=r,
            vector=prepared.vectors.get(r.id),
            author=authors[r.agent_id],
            screening=prepared.screenings[r.id],
        )
        for r in claimed
    ]
    with span("learn.batch", size=len(items)):
        return learn_batch_apply_or_each(tenant_id=tenant_id, items=items, judge=judge,
                                         progress=progress)  # fmt: skip


def learn_batch_apply_or_each(
    *,
    tenant_id: uuid.UUID,
    items: list[Item],
    judge: Judge | None,
    progress: BatchProgress,
    trusted: bool = False,
    give_up: bool = False,
) -> int:
    """``learn_batch_apply``; if the batch fails, each request alone — one
    bad request must not hold the others back. One that fails alone is
    released to be tried again, and marked failed after MAX_CLAIMS tries
    (at once with ``give_up``: a bulk import's request, which no later try
    could apply with the import's vector and time). Returns how many were
    applied."""
    try:
        return learn_batch_apply(
            tenant_id=tenant_id, items=items, judge=judge, progress=progress, trusted=trusted
        )
    except Exception as exc:
        if len(items) == 1:
            _failed(tenant_id, items[0].request, exc, give_up=give_up)
            return 0
        log.exception("a learn batch of %d failed; applying its requests one by one", len(items))
    applied = 0
    for item in items:
        try:
            applied += learn_batch_apply(
                tenant_id=tenant_id, items=[item], judge=judge,
                progress=BatchProgress(embed_ms=progress.embed_ms), trusted=trusted,
            )  # fmt: skip
        except Exception as exc:
            _failed(tenant_id, item.request, exc, give_up=give_up)
    return applied


def tenant_judge(tenant_id: uuid.UUID) -> Judge:
    """The judge the tenant's configuration asks for. Precondition: inside
    the tenant's context."""
    config = Tenant.objects.filter(id=tenant_id).values_list("judge_config", flat=True)
    return judge_for(config.first() or {})


MAX_CLAIMS = 3  # a request whose processing failed this often is given up


def _failed(
    tenant_id: uuid.UUID, request: LearnRequest, exc: Exception, *, give_up: bool = False
) -> None:
    """Release a request whose processing raised, to be tried again; after
    MAX_CLAIMS tries (or at once with ``give_up``) mark it failed, with the
    error (nothing was applied)."""
    log.exception("learn request %s failed (claim %d)", request.id, request.claims, exc_info=exc)
    with tenant_context(tenant_id):
        pending = LearnRequest.objects.filter(id=request.id, status=RequestStatus.PENDING)
        if give_up or request.claims >= MAX_CLAIMS:
            pending.update(
                status=RequestStatus.FAILED, lease_until=None,
                error=f"{type(exc).__name__}: {exc}"[:2000],
            )  # fmt: skip
        else:
            pending.update(lease_until=None)


def learn_request_apply(
    *,
    tenant_id: uuid.UUID,
    request: LearnRequest,
    vector: Vector,
    judge: Judge,
) -> bool:
    """Apply one request (a batch of one). Returns True if this call
    applied it."""
    with tenant_context(tenant_id):
        author = Agent.objects.get(id=request.agent_id)
    item = Item(request=request, vector=vector, author=author)
    return learn_batch_apply(tenant_id=tenant_id, items=[item], judge=judge) == 1


def learn_batch_apply(
    *,
    tenant_id: uuid.UUID,
    items: list[Item],
    judge: Judge | None,
    progress: BatchProgress | None = None,
    trusted: bool = False,
) -> int:
    """Candidate read → judge → apply for a batch of one tenant's requests,
    in their order: each is judged against the tenant's lessons and those
    the batch itself creates before it. The whole batch is applied in one
    snapshot-isolated transaction that checks the versions of the scopes it
    read; if one moved, back to the candidate read (bounded: after
    ``MAX_REVALIDATIONS``, everything left is inserted as novel). Requests
    found no longer pending are dropped and the rest planned again.
    ``trusted`` (a bulk import's choice; ``judge`` is then None): nothing
    is read or judged, every item is novel. Returns how many requests this
    call applied."""
    progress = progress or BatchProgress()
    while items:
        bounded = progress.revalidations >= MAX_REVALIDATIONS
        with span("learn.judge", size=len(items)):
            plan = plan_batch(tenant_id, items, judge, bounded=bounded, trusted=trusted)
        retried = progress.serialization_failures
        with span("db.txn", purpose="learn.apply") as txn:
            applied = apply_with_retries(tenant_id, plan, progress)
            if txn.is_recording():
                txn.set_attributes({
                    "tributary.txn.retries": progress.serialization_failures - retried,
                    "tributary.txn.revalidations": progress.revalidations,
                    "tributary.txn.attempts": progress.attempts,
                })  # fmt: skip
        if applied is Applied.DONE:
            for decision in plan.decisions:
                LEARN_OUTCOMES.labels(decision.item.request.kind, decision.outcome).inc()
                if decision.outcome == Outcome.QUARANTINED:
                    QUARANTINES.labels(decision.event_data["rule"]).inc()
                    log.warning(
                        "audit: quarantined learn request %s (tenant %s, agent %s, rule %s)",
                        decision.item.request.id, tenant_id, decision.item.request.agent_id,
                        decision.event_data["rule"],
                    )  # fmt: skip
            plan_evaluate(tenant_id, plan)
            return len(items)
        progress.calls += [(d.item.request.id, c) for d in plan.decisions for c in d.calls]
        if isinstance(applied, set):  # some were applied elsewhere meanwhile
            items = [i for i in items if i.request.id in applied]
            continue
        progress.revalidations += 1
        TXN_REVALIDATIONS.inc()
    return 0


def requeue_stale_learn_requests(
    *, older_than_seconds: int = 10, tenant_id: uuid.UUID | None = None
) -> int:
    """Re-enqueue pending requests nobody holds (never enqueued because the
    broker was down, or their worker died and the lease expired): one
    tenant's, or every tenant's through the cross-tenant mechanism.
    Returns how many."""
    from accounts.tenancy import cross_tenant

    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    scope = (
        tenant_context(tenant_id)
        if tenant_id is not None
        else cross_tenant(reason="requeue stale learn requests")
    )
    with scope:
        stale = list(
            LearnRequest.objects.filter(status=RequestStatus.PENDING, created_at__lt=cutoff)
            .exclude(lease_until__gt=timezone.now())
            .values_list("id", "tenant_id")[:1000]
        )
    for request_id, request_tenant in stale:
        learn_request_enqueue(request_id, request_tenant, coalesce=False)
    return len(stale)
