"""The learn pipeline (DESIGN §4).

1. ``lesson_learn`` (the API's service, in the request's transaction):
   validate parents, write the belief with its provenance and the learn
   request, and enqueue its processing once that commits.
2. ``learn_request_process`` (the worker; by default the only one working
   on this tenant, under an advisory lock — "single flight"): claim a batch
   of the tenant's pending requests (SKIP LOCKED, then a lease), embed them in one
   batch, then for each: read candidates and run the judge **outside any
   transaction**, and apply the verdict in one short snapshot-isolated
   transaction that reads only the scope's version row and rows by primary
   key, and always writes the version row. If the version moved since the
   candidate read, back to the candidate read and the judge (bounded; after
   the bound, insert as novel). 40001/40P01 → retry with jittered backoff.

Applying twice is harmless: the apply transaction re-reads the request by
primary key and does nothing unless it is still pending, and two
transactions applying the same request conflict and one retries into that
check. The lease only saves duplicated work.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from enum import Enum

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from accounts.models import Agent, Role
from accounts.principal import AgentPrincipal
from accounts.tenancy import run_apply_transaction, tenant_context
from curation.models import EventKind
from curation.services import event_record
from memory.embeddings import EmbeddingProvider, Vector, embed, lesson_text
from memory.judge import Judge, Relation, Verdict, get_judge
from memory.models import LearnRequest, Lesson, LessonStatus, Outcome, RequestStatus, Scope
from memory.selectors import lesson_candidates
from provenance.models import EdgeKind
from provenance.services import ParentRef, belief_record, belief_relate, check_parents

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
        with transaction.atomic():
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


def learn_request_enqueue(request_id: uuid.UUID, tenant_id: uuid.UUID) -> None:
    """Hand a committed request to the workers. If the broker is down the
    request stays pending in PostgreSQL and the periodic re-enqueue picks it
    up: nothing is lost."""
    from memory.tasks import process_learn_request

    try:
        process_learn_request.delay(str(request_id), str(tenant_id))
    except Exception:  # the broker's errors vary by transport
        log.warning("could not enqueue learn request %s; it stays pending", request_id)


# --- the worker side -------------------------------------------------------


class _Applied(Enum):
    DONE = "done"
    ALREADY = "already applied"
    SCOPE_MOVED = "scope moved"


@dataclass
class _Progress:
    attempts: int = 0
    revalidations: int = 0
    serialization_failures: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    apply_started: float = 0.0

    def add_time(self, name: str, started: float) -> None:
        self.timings[name] = round(
            self.timings.get(name, 0.0) + (time.perf_counter() - started) * 1000, 2
        )


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
    key = _flight_key(tenant_id)
    applied = 0
    while _advisory(f"pg_try_advisory_lock({key})"):
        try:
            while (done := _process_batch(tenant_id, request_id, judge, provider)) is not None:
                applied += done
        finally:
            _advisory(f"pg_advisory_unlock({key})")
        # A request whose task found the lock taken just before we let go
        # would wait for the periodic re-enqueue: look once more.
        with tenant_context(tenant_id):
            if not _pending(tenant_id).exists():
                break
    return applied


def _flight_key(tenant_id: uuid.UUID) -> int:
    # A signed 64-bit advisory-lock key per tenant ("learn" namespace).
    return int.from_bytes(uuid.uuid5(tenant_id, "learn").bytes[:8], "big", signed=True)


def _advisory(call: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {call}")
        row = cursor.fetchone()
    return bool(row and row[0])


def _pending(tenant_id: uuid.UUID) -> QuerySet[LearnRequest]:
    return LearnRequest.objects.filter(
        Q(lease_until__isnull=True) | Q(lease_until__lt=timezone.now()),
        tenant_id=tenant_id,
        status=RequestStatus.PENDING,
    )


def _process_batch(
    tenant_id: uuid.UUID,
    request_id: uuid.UUID,
    judge: Judge | None,
    provider: EmbeddingProvider | None,
) -> int | None:
    """Claim, embed and apply one batch; None when there was nothing to claim."""
    claimed = _claim(tenant_id, request_id)
    if not claimed:
        return None
    judge = judge or get_judge()
    started = time.perf_counter()
    try:
        vectors = embed([lesson_text(r.content, r.situation) for r in claimed], provider)
    except Exception:
        # Nothing is written: give the batch back so another attempt (this
        # task's retry, or the periodic re-enqueue) can take it at once.
        with tenant_context(tenant_id):
            LearnRequest.objects.filter(id__in=[r.id for r in claimed]).update(lease_until=None)
        raise
    embed_ms = round((time.perf_counter() - started) * 1000 / len(claimed), 2)
    with tenant_context(tenant_id):
        authors = Agent.objects.in_bulk({r.agent_id for r in claimed})
    applied = 0
    for request, vector in zip(claimed, vectors, strict=True):
        progress = _Progress(timings={"embed": embed_ms})
        if learn_request_apply(
            tenant_id=tenant_id, request=request, vector=vector, judge=judge,
            progress=progress, author=authors[request.agent_id],
        ):  # fmt: skip
            applied += 1
    return applied


def learn_request_apply(
    *,
    tenant_id: uuid.UUID,
    request: LearnRequest,
    vector: Vector,
    judge: Judge,
    progress: _Progress | None = None,
    author: Agent | None = None,
) -> bool:
    """Candidate read → judge → apply, re-validated against the scope's
    version. Returns True if this call applied the request."""
    progress = progress or _Progress()
    author = author or _author(tenant_id, request.agent_id)
    while True:
        bounded = progress.revalidations >= MAX_REVALIDATIONS
        started = time.perf_counter()
        with tenant_context(tenant_id):
            scope, _ = Scope.objects.get_or_create(tenant_id=tenant_id, kind=request.kind)
            candidates = lesson_candidates(
                tenant_id=tenant_id, kind=request.kind, vector=vector, limit=CANDIDATES
            )
        progress.add_time("candidates", started)
        started = time.perf_counter()
        if bounded:
            verdict = Verdict(
                relation=Relation.NOVEL, target_id=None, confidence=0.0, judge="bound",
                rationale=f"the scope moved {MAX_REVALIDATIONS} times; inserted as novel",
            )  # fmt: skip
        else:
            verdict = judge.classify(
                content=request.content,
                situation=request.situation,
                candidates=[candidate for candidate, _ in candidates],
            )
        progress.add_time("judge", started)
        authors = {candidate.id: author_id for candidate, author_id in candidates}
        outcome = _apply_with_retries(
            tenant_id=tenant_id,
            request=request,
            vector=vector,
            verdict=verdict,
            author=author,
            target_author=authors.get(verdict.target_id) if verdict.target_id else None,
            scope_id=scope.id,
            seen_version=None if bounded else scope.version,
            progress=progress,
        )
        if outcome is _Applied.SCOPE_MOVED:
            progress.revalidations += 1
            continue
        return outcome is _Applied.DONE


def _author(tenant_id: uuid.UUID, agent_id: uuid.UUID) -> Agent:
    with tenant_context(tenant_id):
        return Agent.objects.get(id=agent_id)


def _apply_with_retries(*, tenant_id: uuid.UUID, progress: _Progress, **kwargs: object) -> _Applied:
    def attempt() -> _Applied:
        progress.attempts += 1
        return _apply(tenant_id=tenant_id, progress=progress, **kwargs)  # type: ignore[arg-type]

    def retried() -> None:
        progress.serialization_failures += 1

    progress.apply_started = time.perf_counter()
    return run_apply_transaction(tenant_id, attempt, attempts=MAX_APPLY_ATTEMPTS, on_retry=retried)


def _apply(
    *,
    tenant_id: uuid.UUID,
    request: LearnRequest,
    vector: Vector,
    verdict: Verdict,
    author: Agent,
    target_author: uuid.UUID | None,
    scope_id: int,
    seen_version: int | None,
    progress: _Progress,
) -> _Applied:
    """Inside the apply transaction. Reads: the scope row, the request and
    the target lesson, each by primary key — never a search (DESIGN §9)."""
    version = Scope.objects.filter(id=scope_id).values_list("version", flat=True).get()
    status = LearnRequest.objects.filter(id=request.id).values_list("status", flat=True).get()
    if status != RequestStatus.PENDING:
        return _Applied.ALREADY
    if seen_version is not None and version != seen_version:
        return _Applied.SCOPE_MOVED
    now = timezone.now()
    target = None
    if verdict.target_id is not None:
        target = Lesson.objects.filter(id=verdict.target_id, status=LessonStatus.ACTIVE).first()
    relation = verdict.relation if target is not None else Relation.NOVEL
    lesson: Lesson | None = None
    active_delta = 0

    def new_lesson(status: LessonStatus) -> Lesson:
        return Lesson.objects.create(
            tenant_id=tenant_id,
            kind=request.kind,
            content=request.content,
            situation=request.situation,
            embedding=vector,
            status=status,
            confidence=request.confidence,
            author_id=request.agent_id,
            activated_at=now if status == LessonStatus.ACTIVE else None,
            created_at=now,
        )

    if relation == Relation.DUPLICATE and target is not None:
        Lesson.objects.filter(id=target.id).update(
            reinforcement_count=F("reinforcement_count") + 1, last_useful_at=now
        )
        belief_relate(
            tenant_id=tenant_id, belief_id=request.belief_id, lesson_id=target.id,
            kind=EdgeKind.SUPPORTS,
        )  # fmt: skip
        outcome, lesson, event = Outcome.REINFORCED, target, EventKind.REINFORCED
    elif relation == Relation.CONTRADICTS and target is not None:
        may_supersede = target.author_id == request.agent_id or author.role == Role.CURATOR
        if may_supersede:
            lesson = new_lesson(LessonStatus.ACTIVE)
            Lesson.objects.filter(id=target.id).update(
                status=LessonStatus.SUPERSEDED, deactivated_at=now, superseded_by=lesson
            )
            outcome, event = Outcome.SUPERSEDED, EventKind.SUPERSEDED
        else:
            # Another agent's lesson: a writer never overturns it; a
            # curator decides (the old lesson stays active meanwhile).
            lesson = new_lesson(LessonStatus.DISPUTED)
            outcome, event = Outcome.DISPUTED, EventKind.DISPUTED
        belief_relate(
            tenant_id=tenant_id, belief_id=request.belief_id, lesson_id=lesson.id,
            kind=EdgeKind.SUPPORTS,
        )  # fmt: skip
        belief_relate(
            tenant_id=tenant_id, belief_id=request.belief_id, lesson_id=target.id,
            kind=EdgeKind.CONTRADICTS,
        )  # fmt: skip
    else:
        lesson = new_lesson(LessonStatus.ACTIVE)
        active_delta = 1
        belief_relate(
            tenant_id=tenant_id, belief_id=request.belief_id, lesson_id=lesson.id,
            kind=EdgeKind.SUPPORTS,
        )  # fmt: skip
        outcome, event = Outcome.INSERTED, EventKind.LEARNED

    # Every apply writes its scope's version row: a concurrent apply in the
    # same scope that read the same version then fails to write it (40001)
    # and starts again from the candidate read. (Apply transactions are
    # snapshot-isolated; see accounts.tenancy.APPLY_ISOLATION.)
    Scope.objects.filter(id=scope_id).update(
        version=F("version") + 1, active_count=F("active_count") + active_delta
    )
    event_record(
        tenant_id=tenant_id, kind=event, lesson_id=lesson.id, agent_id=request.agent_id,
        learn_request_id=request.id, target_lesson_id=target.id if target else None,
        judge=verdict.judge,
    )  # fmt: skip
    LearnRequest.objects.filter(id=request.id).update(
        status=RequestStatus.APPLIED,
        outcome=outcome,
        lesson=lesson,
        target_lesson=target,
        judge=verdict.judge,
        verdict_confidence=verdict.confidence,
        rationale=verdict.rationale[:2000],
        attempts=progress.attempts,
        revalidations=progress.revalidations,
        serialization_failures=progress.serialization_failures,
        timings={
            **progress.timings,
            # Up to the last write; the commit itself is not in the figure.
            "apply": round((time.perf_counter() - progress.apply_started) * 1000, 2),
            "total": round((now - request.created_at).total_seconds() * 1000, 2),
        },
        applied_at=now,
        lease_until=None,
    )
    return _Applied.DONE


def requeue_stale_learn_requests(*, older_than_seconds: int = 10) -> int:
    """Re-enqueue pending requests nobody holds (never enqueued because the
    broker was down, or their worker died and the lease expired). Walks
    every tenant through the cross-tenant mechanism; returns how many."""
    from accounts.tenancy import cross_tenant

    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    with cross_tenant(reason="requeue stale learn requests"):
        stale = list(
            LearnRequest.objects.filter(status=RequestStatus.PENDING, created_at__lt=cutoff)
            .exclude(lease_until__gt=timezone.now())
            .values_list("id", "tenant_id")[:1000]
        )
    for request_id, tenant_id in stale:
        learn_request_enqueue(request_id, tenant_id)
    return len(stale)
