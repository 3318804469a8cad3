"""The learn pipeline (docs/design.md §4).

1. ``lesson_learn`` (the API's service, in the request's transaction):
   validate parents, write the belief with its provenance and the learn
   request, and enqueue its processing once that commits.
2. ``learn_request_process`` (the worker; by default the only one working
   on this tenant, under an advisory lock — "single flight"): claim a batch
   of the tenant's pending requests (SKIP LOCKED, then a lease), embed them in one
   batch (a helper thread claims and embeds the next batch meanwhile), then
   for each: read candidates and run the judge **outside any transaction**,
   and apply the verdict in one short snapshot-isolated transaction that
   reads only the scope's version row and rows by primary key, and always
   writes the version row. If the version moved since the
   candidate read, back to the candidate read and the judge (bounded; after
   the bound, insert as novel). 40001/40P01 → retry with jittered backoff.

Applying twice is harmless: the apply transaction re-reads the request by
primary key and does nothing unless it is still pending, and two
transactions applying the same request conflict and one retries into that
check. The lease only saves duplicated work.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import timedelta
from enum import Enum
from typing import Any

import numpy as np
import redis
from django.conf import settings
from django.db import IntegrityError, connection, connections, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Agent, Role, Tenant
from accounts.principal import AgentPrincipal
from accounts.tenancy import run_apply_transaction, tenant_context
from config.broker import broker
from config.db.advisory import advisory_try_lock, advisory_unlock
from memory.embeddings import EmbeddingProvider, Vector, embed, lesson_text
from memory.guard import Screening, screen
from memory.judge import Candidate, Judge, Relation, Verdict, judge_for
from memory.judge.calls import ModelCallRecord, collect_calls, model_calls_save
from memory.judge.llm import JudgeUnavailable
from memory.models import (
    Dispute,
    Event,
    EventKind,
    LearnRequest,
    Lesson,
    LessonStatus,
    Outcome,
    RequestStatus,
    Scope,
)
from memory.policies import kind_policies
from memory.selectors import lesson_candidates_many
from memory.services.events import event_build
from memory.services.transitions import Move, lessons_move
from provenance.models import CorroborationAudit, Edge, EdgeKind
from provenance.selectors import corroboration_policy
from provenance.services import (
    ParentRef,
    belief_record,
    check_parents,
    first_corroboration,
    lessons_evaluate,
)

log = logging.getLogger(__name__)

MAX_REVALIDATIONS = 16  # scope moved under us this often → insert as novel
MAX_APPLY_ATTEMPTS = 12  # serialization failures retried per apply
CANDIDATES = 8


def lesson_learn(
    *,
    principal: AgentPrincipal,
    content: str,
    situation: str = "",
    kind: str = "lesson",
    confidence: float = 0.7,
    derived_from: list[ParentRef] | None = None,
    idempotency_key: str | None = None,
) -> tuple[LearnRequest, bool]:
    """Record a learn call; returns (request, created). The same
    idempotency key from the same agent returns the first request.

    Precondition: inside the caller's tenant transaction. Processing is
    enqueued when that transaction commits.
    """
    if idempotency_key:
        existing = LearnRequest.objects.filter(
            agent_id=principal.agent_id, idempotency_key=idempotency_key
        ).first()
        if existing is not None:
            return existing, False
    parents = derived_from or []
    check_parents(parents)
    try:
        # A savepoint only where a concurrent call can collide (the same
        # idempotency key); otherwise the caller's transaction is enough.
        with transaction.atomic(savepoint=bool(idempotency_key)):
            belief = belief_record(
                tenant_id=principal.tenant_id,
                agent=principal.agent_id,
                content=content,
                situation=situation,
                confidence=confidence,
                parents=parents,
            )
            request = LearnRequest.objects.create(
                tenant_id=principal.tenant_id,
                agent_id=principal.agent_id,
                content=content,
                situation=situation,
                kind=kind,
                confidence=confidence,
                derived_from=[{"type": p.type, "id": str(p.id)} for p in parents],
                idempotency_key=idempotency_key or "",
                belief=belief,
            )
    except IntegrityError:
        # A concurrent call with the same key won the race: answer its request.
        if not idempotency_key:
            raise
        return LearnRequest.objects.get(
            agent_id=principal.agent_id, idempotency_key=idempotency_key
        ), False
    tenant_id = principal.tenant_id
    transaction.on_commit(lambda: learn_request_enqueue(request.id, tenant_id))
    return request, True


def learn_request_enqueue(
    request_id: uuid.UUID, tenant_id: uuid.UUID, *, coalesce: bool = True
) -> None:
    """Hand a committed request to the workers. If the broker is down the
    request stays pending in PostgreSQL and the periodic re-enqueue picks it
    up: nothing is lost.

    With single flight, a task of the tenant that is queued and has not
    started yet will take this request too (a task claims whatever of its
    tenant is pending once it starts): then no second task is queued.
    """
    from memory.tasks import process_learn_request

    if coalesce and settings.TRIBUTARY_LEARN_SINGLE_FLIGHT and not _mark_queued(tenant_id):
        return
    try:
        process_learn_request.delay(str(request_id), str(tenant_id))
    except Exception:  # the broker's errors vary by transport
        log.warning("could not enqueue learn request %s; it stays pending", request_id)


def _queued_key(tenant_id: uuid.UUID) -> str:
    return f"tributary:learn-queued:{tenant_id}"


def _mark_queued(tenant_id: uuid.UUID) -> bool:
    """True if this call marked the tenant as having a queued task (so the
    caller must queue one); False if a queued task already covers it. The
    mark expires with the lease, in case its task is lost."""
    try:
        ttl = settings.TRIBUTARY_LEARN_LEASE_SECONDS
        return bool(broker().set(_queued_key(tenant_id), "1", nx=True, ex=ttl))
    except redis.RedisError:
        return True


def _unmark_queued(tenant_id: uuid.UUID) -> None:
    # Before claiming: a request committed from now on queues its own task.
    with contextlib.suppress(redis.RedisError):
        broker().delete(_queued_key(tenant_id))


# --- the worker side -------------------------------------------------------


class _Applied(Enum):
    DONE = "done"
    SCOPE_MOVED = "scope moved"


@dataclass
class _Item:
    """One claimed request on its way through a batch (no vector: it failed
    the injection screen and is never embedded)."""

    request: LearnRequest
    vector: Vector | None
    author: Agent
    screening: Screening | None = None  # screened once, before embedding


@dataclass
class _Decision:
    item: _Item
    verdict: Verdict
    outcome: Outcome
    event: EventKind
    lesson_id: uuid.UUID
    target_id: uuid.UUID | None
    judge_ms: float
    event_data: dict[str, str] = field(default_factory=dict)
    fallback: bool = False  # the judge failed; inserted as novel, to be judged again
    calls: list[ModelCallRecord] = field(default_factory=list)


@dataclass
class _Plan:
    """What one batch will write, decided outside any transaction: the
    lessons it creates (each as it was decided: one created and superseded
    within the batch is created active, then moved), the lessons it
    reinforces or supersedes, its edges, and the scope versions it read."""

    policy: dict[str, Any]  # the tenant's corroboration policy
    ttls: dict[str, int | None]  # kind → seconds a new lesson lives (kind policies)
    seen_versions: dict[int, int | None]  # scope id → version read (None: not checked)
    scope_of_kind: dict[str, int]
    new: dict[uuid.UUID, Lesson] = field(default_factory=dict)
    new_units: dict[uuid.UUID, np.ndarray] = field(default_factory=dict)  # unit vectors
    reinforce: dict[uuid.UUID, int] = field(default_factory=dict)  # existing lesson → times
    # lesson → its successor (an existing lesson, or one created earlier in the batch)
    supersede: dict[uuid.UUID, uuid.UUID] = field(default_factory=dict)
    judged_at_insert: set[uuid.UUID] = field(default_factory=set)  # corroboration set at insert
    edges: list[Edge] = field(default_factory=list)
    decisions: list[_Decision] = field(default_factory=list)
    candidates_ms: float = 0.0


@dataclass
class _BatchProgress:
    attempts: int = 0
    revalidations: int = 0
    serialization_failures: int = 0
    embed_ms: float = 0.0
    # model calls of plans thrown away (the scope moved): made and paid for,
    # so written with the plan that is finally applied
    calls: list[tuple[uuid.UUID, ModelCallRecord]] = field(default_factory=list)


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
    _unmark_queued(tenant_id)
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
    claimed = _claim(tenant_id, request_id)
    if not claimed:
        return None
    started = time.perf_counter()
    # Quarantined text is never embedded (nor shown to a judge).
    screenings = {r.id: screen(r.content, r.situation) for r in claimed}
    clean = [r for r in claimed if not screenings[r.id].blocked]
    try:
        vectors = (
            embed([lesson_text(r.content, r.situation) for r in clean], provider) if clean else []
        )
    except Exception:
        # Nothing is written: give the batch back so another attempt (this
        # task's retry, or the periodic re-enqueue) can take it at once.
        _release(tenant_id, claimed)
        raise
    return _Prepared(
        claimed=claimed,
        screenings=screenings,
        vectors={r.id: v for r, v in zip(clean, vectors, strict=True)},
        embed_ms=round((time.perf_counter() - started) * 1000 / len(claimed), 2),
    )


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
        upcoming = helper.submit(_prepare_in_thread, tenant_id, request_id, provider)
        try:
            while (prepared := upcoming.result()) is not None:
                # Renew the batch's lease before the helper claims again: it
                # was claimed while the batch before was judged, which may
                # have outlasted the lease (an LLM judge, a long batch).
                prepared = _renewed(tenant_id, prepared)
                upcoming = helper.submit(_prepare_in_thread, tenant_id, request_id, provider)
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
    progress = _BatchProgress(embed_ms=prepared.embed_ms)
    with tenant_context(tenant_id):
        authors = Agent.objects.in_bulk({r.agent_id for r in claimed})
        if judge is None:
            config = Tenant.objects.filter(id=tenant_id).values_list("judge_config", flat=True)
            judge = judge_for(config.first() or {})
    items = [
        _Item(
            request=r,
            vector=prepared.vectors.get(r.id),
            author=authors[r.agent_id],
            screening=prepared.screenings[r.id],
        )
        for r in claimed
    ]
    try:
        return learn_batch_apply(tenant_id=tenant_id, items=items, judge=judge, progress=progress)
    except Exception as exc:
        if len(items) == 1:
            _failed(tenant_id, items[0].request, exc)
            return 0
        log.exception("a learn batch of %d failed; applying its requests one by one", len(items))
    # One bad request must not hold the others back: each alone; one that
    # keeps failing is given up after MAX_CLAIMS tries.
    applied = 0
    for item in items:
        try:
            applied += learn_batch_apply(
                tenant_id=tenant_id, items=[item], judge=judge,
                progress=_BatchProgress(embed_ms=progress.embed_ms),
            )  # fmt: skip
        except Exception as exc:
            _failed(tenant_id, item.request, exc)
    return applied


MAX_CLAIMS = 3  # a request whose processing failed this often is given up


def _failed(tenant_id: uuid.UUID, request: LearnRequest, exc: Exception) -> None:
    """Release a request whose processing raised, to be tried again; after
    MAX_CLAIMS tries mark it failed, with the error (nothing was applied)."""
    log.exception("learn request %s failed (claim %d)", request.id, request.claims, exc_info=exc)
    with tenant_context(tenant_id):
        pending = LearnRequest.objects.filter(id=request.id, status=RequestStatus.PENDING)
        if request.claims >= MAX_CLAIMS:
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
    item = _Item(request=request, vector=vector, author=author)
    return learn_batch_apply(tenant_id=tenant_id, items=[item], judge=judge) == 1


def learn_batch_apply(
    *,
    tenant_id: uuid.UUID,
    items: list[_Item],
    judge: Judge,
    progress: _BatchProgress | None = None,
) -> int:
    """Candidate read → judge → apply for a batch of one tenant's requests,
    in their order: each is judged against the tenant's lessons and those
    the batch itself creates before it. The whole batch is applied in one
    snapshot-isolated transaction that checks the versions of the scopes it
    read; if one moved, back to the candidate read (bounded: after
    ``MAX_REVALIDATIONS``, everything left is inserted as novel). Requests
    found no longer pending are dropped and the rest planned again.
    Returns how many requests this call applied."""
    progress = progress or _BatchProgress()
    while items:
        bounded = progress.revalidations >= MAX_REVALIDATIONS
        plan = _plan(tenant_id, items, judge, bounded=bounded)
        applied = _apply_with_retries(tenant_id, plan, progress)
        if applied is _Applied.DONE:
            for decision in plan.decisions:
                if decision.outcome == Outcome.QUARANTINED:
                    log.warning(
                        "audit: quarantined learn request %s (tenant %s, agent %s, rule %s)",
                        decision.item.request.id, tenant_id, decision.item.request.agent_id,
                        decision.event_data["rule"],
                    )  # fmt: skip
            _evaluate(tenant_id, plan)
            return len(items)
        progress.calls += [(d.item.request.id, c) for d in plan.decisions for c in d.calls]
        if isinstance(applied, set):  # some were applied elsewhere meanwhile
            items = [i for i in items if i.request.id in applied]
            continue
        progress.revalidations += 1
    return 0


def _evaluate(tenant_id: uuid.UUID, plan: _Plan) -> None:
    """Corroboration of every lesson the batch touched, after it committed
    (its own short transaction; audited)."""
    # A new lesson that cites nothing was judged at insert (and audited in
    # the apply transaction): one belief on one root.
    touched = [d.lesson_id for d in plan.decisions if d.lesson_id not in plan.judged_at_insert]
    touched += [d.target_id for d in plan.decisions if d.target_id is not None]
    with tenant_context(tenant_id):
        lessons_evaluate(tenant_id=tenant_id, lesson_ids=touched, trigger="learn")


def _plan(tenant_id: uuid.UUID, items: list[_Item], judge: Judge, *, bounded: bool) -> _Plan:
    started = time.perf_counter()
    screenings = {
        i.request.id: i.screening or screen(i.request.content, i.request.situation) for i in items
    }
    judged = [i for i in items if not screenings[i.request.id].blocked]
    kinds = sorted({i.request.kind for i in items})
    with tenant_context(tenant_id):
        scopes = {
            kind: Scope.objects.get_or_create(tenant_id=tenant_id, kind=kind)[0] for kind in kinds
        }
        found: dict[uuid.UUID, list[tuple[Candidate, uuid.UUID]]] = {}
        for kind in kinds:
            of_kind = [i for i in judged if i.request.kind == kind]
            many = lesson_candidates_many(
                tenant_id=tenant_id, kind=kind, vectors=[_vector(i) for i in of_kind],
                limit=CANDIDATES,
            )  # fmt: skip
            found.update({i.request.id: c for i, c in zip(of_kind, many, strict=True)})
        policy = corroboration_policy(tenant_id)
        ttls = {kind: p.ttl_seconds for kind, p in kind_policies(tenant_id).items()}
    plan = _Plan(
        policy=policy,
        ttls=ttls,
        seen_versions={s.id: None if bounded else s.version for s in scopes.values()},
        scope_of_kind={kind: s.id for kind, s in scopes.items()},
        candidates_ms=(time.perf_counter() - started) * 1000 / len(items),
    )
    authors = {c.id: author for near in found.values() for c, author in near}
    for item in items:
        started = time.perf_counter()
        screening = screenings[item.request.id]
        if screening.blocked:
            _quarantine(plan, item, screening)
            continue
        candidates = _batch_candidates(plan, item, found[item.request.id])
        calls: list[ModelCallRecord] = []
        if bounded:
            verdict = Verdict(
                relation=Relation.NOVEL, target_id=None, confidence=0.0, judge="bound",
                rationale=f"the scope moved {MAX_REVALIDATIONS} times; inserted as novel",
            )  # fmt: skip
        else:
            verdict, calls = _classify(judge, item, candidates)
        offered = {c.id for c in candidates}
        target = verdict.target_id if verdict.target_id in offered else None
        target_author = None
        if target is not None:
            target_author = plan.new[target].author_id if target in plan.new else authors[target]
        _decide(plan, item, verdict, target, target_author, (time.perf_counter() - started) * 1000)
        decision = plan.decisions[-1]
        decision.calls = calls
        if verdict.judge.startswith("fallback:"):
            decision.fallback = True
            plan.new[decision.lesson_id].needs_rejudge = True
    return plan


def _classify(
    judge: Judge, item: _Item, candidates: list[Candidate]
) -> tuple[Verdict, list[ModelCallRecord]]:
    """The judge's verdict and the model calls it made. A judge that fails
    (after its own retries) never merges or supersedes anything: the lesson
    goes in as novel, marked for re-judging, and the fallback is counted."""
    with collect_calls() as calls:
        try:
            verdict = judge.classify(
                content=item.request.content,
                situation=item.request.situation,
                candidates=candidates,
            )
        except JudgeUnavailable as exc:
            log.warning("judge failed for learn request %s: %s", item.request.id, exc)
            verdict = Verdict(
                relation=Relation.NOVEL, target_id=None, confidence=0.0,
                judge=f"fallback:{getattr(judge, 'name', 'judge')}",
                rationale="The judge failed; inserted as novel and marked for re-judging.",
            )  # fmt: skip
    return verdict, list(calls)


def _vector(item: _Item) -> Vector:
    if item.vector is None:  # only quarantined items have none
        raise ValueError(f"learn request {item.request.id} was not embedded")
    return item.vector


def _unit(vector: Vector) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else array


def _quarantine(plan: _Plan, item: _Item, screening: Screening) -> None:
    """Stored for audit, with no embedding: never a candidate, never
    recalled, never shown to a judge."""
    request = item.request
    lesson = Lesson(
        id=uuid.uuid4(), tenant_id=request.tenant_id, kind=request.kind, content=request.content,
        situation=request.situation, embedding=None, status=LessonStatus.QUARANTINED,
        confidence=request.confidence, author_id=request.agent_id,
    )  # fmt: skip
    plan.new[lesson.id] = lesson
    plan.edges.append(
        Edge(tenant_id=request.tenant_id, kind=EdgeKind.SUPPORTS, belief_id=request.belief_id,
             to_lesson_id=lesson.id)
    )  # fmt: skip
    verdict = Verdict(
        relation=Relation.NOVEL, target_id=None, confidence=1.0, rationale=screening.reason,
        judge="guard",
    )  # fmt: skip
    plan.decisions.append(
        _Decision(item=item, verdict=verdict, outcome=Outcome.QUARANTINED,
                  event=EventKind.QUARANTINED, lesson_id=lesson.id, target_id=None, judge_ms=0.0,
                  event_data={"rule": screening.rule})
    )  # fmt: skip


def _batch_candidates(
    plan: _Plan, item: _Item, stored: list[tuple[Candidate, uuid.UUID]]
) -> list[Candidate]:
    """The item's nearest active lessons: stored ones not superseded by an
    earlier item of the batch, and the batch's own new active lessons."""
    candidates = [c for c, _ in stored if c.id not in plan.supersede]
    mine = _unit(_vector(item))
    ids = [
        lesson_id
        for lesson_id, lesson in plan.new.items()
        if lesson.status == LessonStatus.ACTIVE
        and lesson.kind == item.request.kind
        and lesson_id not in plan.supersede
    ]
    if ids:  # cosine similarity to each, in one product
        similarities = np.stack([plan.new_units[i] for i in ids]) @ mine
        candidates += [
            Candidate(
                id=lesson_id, content=plan.new[lesson_id].content,
                situation=plan.new[lesson_id].situation, similarity=float(similarity),
            )
            for lesson_id, similarity in zip(ids, similarities, strict=True)
        ]  # fmt: skip
    candidates.sort(key=lambda c: -c.similarity)
    return candidates[:CANDIDATES]


def _decide(
    plan: _Plan,
    item: _Item,
    verdict: Verdict,
    target: uuid.UUID | None,
    target_author: uuid.UUID | None,
    judge_ms: float,
) -> None:
    """Record one verdict's writes in the plan (the rules of docs/design.md §4)."""
    request = item.request
    relation = verdict.relation if target is not None else Relation.NOVEL

    def new_lesson(status: LessonStatus) -> uuid.UUID:
        lesson = Lesson(
            id=uuid.uuid4(),
            tenant_id=request.tenant_id,
            kind=request.kind,
            content=request.content,
            situation=request.situation,
            embedding=item.vector,
            status=status,
            confidence=request.confidence,
            author_id=request.agent_id,
        )
        ttl = plan.ttls.get(request.kind)
        if ttl:
            lesson.expires_at = timezone.now() + timedelta(seconds=ttl)
        if not request.derived_from:  # one belief on one first-hand root
            lesson.corroboration, lesson.corroboration_reason = first_corroboration(
                request.confidence, plan.policy
            )
            plan.judged_at_insert.add(lesson.id)
        plan.new[lesson.id] = lesson
        plan.new_units[lesson.id] = _unit(_vector(item))
        return lesson.id

    def edge(kind: EdgeKind, lesson_id: uuid.UUID) -> None:
        plan.edges.append(
            Edge(tenant_id=request.tenant_id, kind=kind, belief_id=request.belief_id,
                 to_lesson_id=lesson_id)
        )  # fmt: skip

    if relation == Relation.DUPLICATE and target is not None:
        if target in plan.new:
            plan.new[target].reinforcement_count += 1
        else:
            plan.reinforce[target] = plan.reinforce.get(target, 0) + 1
        edge(EdgeKind.SUPPORTS, target)
        lesson_id, outcome, event = target, Outcome.REINFORCED, EventKind.REINFORCED
    elif relation == Relation.CONTRADICTS and target is not None:
        if target_author == request.agent_id or item.author.role == Role.CURATOR:
            lesson_id = new_lesson(LessonStatus.ACTIVE)
            plan.supersede[target] = lesson_id
            outcome, event = Outcome.SUPERSEDED, EventKind.SUPERSEDED
        else:
            # Another agent's lesson: a writer never overturns it; a
            # curator decides (the old lesson stays active meanwhile).
            lesson_id = new_lesson(LessonStatus.DISPUTED)
            outcome, event = Outcome.DISPUTED, EventKind.DISPUTED
        edge(EdgeKind.SUPPORTS, lesson_id)
        edge(EdgeKind.CONTRADICTS, target)
    else:
        target = None
        lesson_id = new_lesson(LessonStatus.ACTIVE)
        edge(EdgeKind.SUPPORTS, lesson_id)
        outcome, event = Outcome.INSERTED, EventKind.LEARNED
    plan.decisions.append(
        _Decision(item=item, verdict=verdict, outcome=outcome, event=event,
                  lesson_id=lesson_id, target_id=target, judge_ms=judge_ms)
    )  # fmt: skip


def _apply_with_retries(
    tenant_id: uuid.UUID, plan: _Plan, progress: _BatchProgress
) -> _Applied | set[uuid.UUID]:
    started = time.perf_counter()

    def attempt() -> _Applied | set[uuid.UUID]:
        progress.attempts += 1
        return _apply(tenant_id, plan, progress, started)

    def retried() -> None:
        progress.serialization_failures += 1

    return run_apply_transaction(tenant_id, attempt, attempts=MAX_APPLY_ATTEMPTS, on_retry=retried)


def _apply(
    tenant_id: uuid.UUID, plan: _Plan, progress: _BatchProgress, started: float
) -> _Applied | set[uuid.UUID]:
    """Inside the apply transaction. Reads: the scope rows and the requests,
    by primary key — never a search (docs/design.md §11). Returns the ids still
    pending when some of the batch no longer is (nothing written then)."""
    versions = dict(
        Scope.objects.filter(id__in=list(plan.seen_versions)).values_list("id", "version")
    )
    ids = [d.item.request.id for d in plan.decisions]
    pending = set(
        LearnRequest.objects.filter(id__in=ids, status=RequestStatus.PENDING).values_list(
            "id", flat=True
        )
    )
    if len(pending) != len(ids):
        return pending
    if any(seen is not None and versions[s] != seen for s, seen in plan.seen_versions.items()):
        return _Applied.SCOPE_MOVED
    now = timezone.now()
    for lesson in plan.new.values():
        lesson.created_at = now
        if lesson.status == LessonStatus.ACTIVE:
            lesson.activated_at = now
        if lesson.reinforcement_count:
            lesson.last_useful_at = now
    Lesson.objects.bulk_create(list(plan.new.values()))
    if plan.reinforce:
        with connection.cursor() as cursor:
            cursor.executemany(
                "UPDATE memory_lesson SET reinforcement_count = reinforcement_count + %s, "
                "last_useful_at = %s WHERE id = %s",
                [(times, now, lesson_id) for lesson_id, times in plan.reinforce.items()],
            )
    Edge.objects.bulk_create(plan.edges)
    CorroborationAudit.objects.bulk_create(
        [
            CorroborationAudit(
                tenant_id=tenant_id, lesson_id=lesson.id, status=lesson.corroboration,
                reason=lesson.corroboration_reason, independent_sources=1, supporting_beliefs=1,
                agreeing_agents=1, root_aware_confidence=lesson.confidence, trigger="learn",
                created_at=now,
            )
            for lesson in plan.new.values()
            if lesson.id in plan.judged_at_insert
        ]
    )  # fmt: skip
    calls = [(d.item.request.id, c) for d in plan.decisions for c in d.calls] + progress.calls
    model_calls_save(tenant_id=tenant_id, calls=calls, created_at=now)
    Dispute.objects.bulk_create(
        [
            Dispute(
                tenant_id=tenant_id, lesson_id=d.lesson_id, target_id=d.target_id,
                opened_by_id=d.item.request.agent_id, learn_request_id=d.item.request.id,
                rationale=d.verdict.rationale[:2000], created_at=now,
            )
            for d in plan.decisions
            if d.outcome == Outcome.DISPUTED and d.target_id is not None
        ]
    )  # fmt: skip
    Event.objects.bulk_create(
        [
            event_build(
                tenant_id=tenant_id, kind=d.event, lesson_id=d.lesson_id,
                agent_id=d.item.request.agent_id, learn_request_id=d.item.request.id,
                target_lesson_id=d.target_id, judge=d.verdict.judge, created_at=now,
                **d.event_data,
            )
            for d in plan.decisions
        ]
    )  # fmt: skip
    # Every apply writes the version row of each scope it read: a concurrent
    # apply in the same scope that read the same version then fails to
    # write it (40001) and starts again from the candidate read. (Apply
    # transactions are snapshot-isolated; see accounts.tenancy.APPLY_ISOLATION.)
    # The supersessions: each was an active candidate when the scope's
    # version (checked above) was read; the event is the successor's.
    lessons_move(
        tenant_id=tenant_id, agent_id=None,
        moves=[
            Move(lesson_id=old, kind=plan.new[successor].kind, before=LessonStatus.ACTIVE,
                 after=LessonStatus.SUPERSEDED, fields={"superseded_by_id": successor})
            for old, successor in plan.supersede.items()
        ],
        created={
            kind: sum(
                1 for lesson in plan.new.values()
                if lesson.kind == kind and lesson.status == LessonStatus.ACTIVE
            )
            for kind in plan.scope_of_kind
        },
        at=now,
    )  # fmt: skip
    count = len(plan.decisions)
    apply_ms = round((time.perf_counter() - started) * 1000 / count, 2)
    with connection.cursor() as cursor:
        cursor.executemany(
            """
            UPDATE memory_learnrequest SET status = 'applied', outcome = %s, lesson_id = %s,
                target_lesson_id = %s, judge = %s, verdict_confidence = %s, rationale = %s,
                attempts = %s, revalidations = %s, serialization_failures = %s,
                timings = %s::jsonb, applied_at = %s, lease_until = NULL, judge_fallback = %s
            WHERE id = %s
            """,
            [
                (
                    d.outcome, d.lesson_id, d.target_id, d.verdict.judge, d.verdict.confidence,
                    d.verdict.rationale[:2000], progress.attempts, progress.revalidations,
                    progress.serialization_failures,
                    json.dumps({
                        "embed": progress.embed_ms,
                        "candidates": round(plan.candidates_ms, 2),
                        "judge": round(d.judge_ms, 2),
                        # Up to the last write; the commit is not in the figure.
                        "apply": apply_ms,
                        "batch": count,
                        "total": round((now - d.item.request.created_at).total_seconds() * 1000, 2),
                    }),
                    now, d.fallback, d.item.request.id,
                )
                for d in plan.decisions
            ],
        )  # fmt: skip
    return _Applied.DONE


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
