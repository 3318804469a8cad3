"""Reinforce, retire, forget, and recall bookkeeping."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from django.db import connection
from django.db.models import F
from django.utils import timezone

from accounts.models import Role
from accounts.principal import AgentPrincipal
from accounts.tenancy import run_apply_transaction, tenant_context
from config.broker import broker
from config.errors import Conflict, Forbidden, NotFound
from memory.models import EventKind, Lesson, LessonStatus
from memory.services.events import curator_action_record, event_record
from memory.services.transitions import lesson_move
from regions.routing import current_region


def _visible(lesson_id: uuid.UUID) -> Lesson:
    """The lesson, locked for the rest of the transaction: a write decides
    on what it read, and a concurrent write waits (or, under snapshot
    isolation, makes this one retry) instead of being overwritten."""
    lesson = (
        Lesson.objects.select_for_update(of=("self",))
        .filter(id=lesson_id)
        .exclude(status=LessonStatus.ERASED)
        .first()
    )
    if lesson is None:
        raise NotFound("no such lesson")
    return lesson


def lesson_reinforce(
    *, principal: AgentPrincipal, lesson_id: uuid.UUID, evidence: dict[str, str] | None = None
) -> Lesson:
    """The lesson helped. Without ``evidence`` a usage signal only (counts
    and last-useful time; it never raises corroboration). With evidence
    (``content``, optional ``source_uri`` and ``source_family``) the agent
    saw it work: an observation and a belief supporting the lesson are
    recorded — a new independent root — and its corroboration is evaluated
    again."""
    from provenance.models import SourceType
    from provenance.services import ParentRef, belief_create, observation_record

    def operation() -> Lesson:
        lesson = _visible(lesson_id)
        if lesson.status != LessonStatus.ACTIVE:
            raise Conflict(f"lesson is {lesson.status}, not active", code="lesson_not_active")
        Lesson.objects.filter(id=lesson.id).update(
            reinforcement_count=F("reinforcement_count") + 1, last_useful_at=timezone.now()
        )
        if evidence:
            observation = observation_record(
                tenant_id=principal.tenant_id, agent_id=principal.agent_id,
                content=evidence["content"], source_type=SourceType.FIRST_HAND,
                source_uri=evidence.get("source_uri", ""),
                source_family=evidence.get("source_family", ""),
            )  # fmt: skip
            belief_create(
                tenant_id=principal.tenant_id, agent_id=principal.agent_id,
                content=f"Saw it work: {evidence['content']}"[:4000], confidence=0.8,
                derived_from=[ParentRef("observation", observation.id)], supports=lesson.id,
                trigger="evidence",
            )  # fmt: skip
        event_record(
            tenant_id=principal.tenant_id, kind=EventKind.REINFORCED, lesson_id=lesson.id,
            agent_id=principal.agent_id, via="evidence" if evidence else "reinforce",
        )  # fmt: skip
        lesson.refresh_from_db()
        return lesson

    return run_apply_transaction(principal.tenant_id, operation, joinable=True)


def lesson_retire(*, principal: AgentPrincipal, lesson_id: uuid.UUID, reason: str) -> Lesson:
    """Curator: take a lesson out of use. Status change only; history and
    time travel keep it."""
    principal.require_curator("retires lessons")

    def operation() -> Lesson:
        lesson = _visible(lesson_id)
        if lesson.status == LessonStatus.RETIRED:
            return lesson  # already retired: nothing changes, nothing to record
        curator_action_record(
            principal=principal, action="retire", target_type="lesson", target_id=lesson.id,
            reason=reason,
        )  # fmt: skip
        lesson_move(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id, lesson=lesson,
            status=LessonStatus.RETIRED, event=EventKind.RETIRED, retired_reason=reason,
        )  # fmt: skip
        lesson.refresh_from_db()
        return lesson

    return run_apply_transaction(principal.tenant_id, operation, joinable=True)


def lesson_forget(*, principal: AgentPrincipal, lesson_id: uuid.UUID, reason: str = "") -> None:
    """Erase a lesson's content and embedding (its author, or a curator).
    The row stays as a tombstone so supersede chains hold; an event without
    content records that it happened, and a curator's erase is audited.
    Idempotent: forgetting an erased lesson again succeeds and does nothing."""

    def operation() -> None:
        lesson = Lesson.objects.select_for_update(of=("self",)).filter(id=lesson_id).first()
        if lesson is None:
            raise NotFound("no such lesson")
        if lesson.author_id != principal.agent_id and principal.role != Role.CURATOR:
            raise Forbidden("only the lesson's author or a curator can forget it")
        if lesson.status == LessonStatus.ERASED:
            return  # already forgotten: the same outcome, nothing to record
        lesson_move(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id, lesson=lesson,
            status=LessonStatus.ERASED, event=EventKind.FORGOTTEN,
        )  # fmt: skip
        if principal.role == Role.CURATOR:
            curator_action_record(
                principal=principal, action="erase", target_type="lesson", target_id=lesson.id,
                reason=reason,
            )  # fmt: skip

    run_apply_transaction(principal.tenant_id, operation, joinable=True)


def lessons_mark_recalled(
    *,
    tenant_id: uuid.UUID,
    lesson_ids: Sequence[uuid.UUID] = (),
    counts: Mapping[uuid.UUID, tuple[int, datetime]] | None = None,
) -> None:
    """Recall bookkeeping written: each of ``lesson_ids`` recalled once now,
    or ``counts`` (lesson → times recalled, last time) as the flush carries
    them from Redis. Off the lesson row (a side table), so it never takes
    part in a learn's conflict; a lesson gone since is skipped."""
    now = timezone.now()
    rows = dict(counts or {})
    for lesson_id in lesson_ids:
        times, _ = rows.get(lesson_id, (0, now))
        rows[lesson_id] = (times + 1, now)
    if not rows:
        return
    with tenant_context(tenant_id), connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO memory_lessonrecallstats
                (lesson_id, tenant_id, recall_count, last_recalled_at)
            SELECT l.id, l.tenant_id, c.times, c.at
            FROM unnest(%(ids)s::uuid[], %(times)s::int[], %(ats)s::timestamptz[])
                 AS c(id, times, at)
            JOIN memory_lesson l ON l.id = c.id AND l.tenant_id = %(tenant)s
            ON CONFLICT (lesson_id) DO UPDATE
               SET recall_count = memory_lessonrecallstats.recall_count + excluded.recall_count,
                   last_recalled_at = greatest(memory_lessonrecallstats.last_recalled_at,
                                               excluded.last_recalled_at)
            """,
            {"ids": list(rows), "times": [t for t, _ in rows.values()],
             "ats": [at for _, at in rows.values()], "tenant": tenant_id},
        )  # fmt: skip


# Recalls are counted in Redis on the answer's path — one pipelined round
# trip, no task per recall — and written to the side table by the beat's
# flush every TRIBUTARY_RECALL_FLUSH_SECONDS, each region's by its own
# worker. Counts not yet flushed are lost if Redis is (bookkeeping only:
# the gardener's "last useful" reads them).
def _recall_keys(region: str, tenant: str) -> tuple[str, str]:
    return f"tributary:recalls:{region}:{tenant}", f"tributary:recalls:{region}:{tenant}:at"


def _recalled_tenants(region: str) -> str:
    return f"tributary:recalls:{region}"


def lessons_note_recalled(*, tenant_id: uuid.UUID, lesson_ids: Sequence[uuid.UUID]) -> None:
    """Count a recall of ``lesson_ids`` in Redis (see ``recalls_flush``)."""
    if not lesson_ids:
        return
    region = current_region() or "-"
    counts, last = _recall_keys(region, str(tenant_id))
    now = time.time()
    pipe = broker().pipeline(transaction=False)
    for lesson_id in lesson_ids:
        pipe.hincrby(counts, str(lesson_id), 1)
    pipe.hset(last, mapping={str(lesson_id): now for lesson_id in lesson_ids})
    pipe.sadd(_recalled_tenants(region), str(tenant_id))
    pipe.execute()


def recalls_flush() -> int:
    """Write the recalls counted in Redis for this process's region to the
    side table; returns how many lessons' counts were written. A tenant's
    counts are read and deleted in one MULTI, so a recall counted meanwhile
    waits for the next flush instead of being lost."""
    region = current_region() or "-"
    client = broker()
    written = 0
    while (tenant := client.spop(_recalled_tenants(region))) is not None:
        tenant_id = tenant.decode() if isinstance(tenant, bytes) else str(tenant)
        counts_key, last_key = _recall_keys(region, tenant_id)
        pipe = client.pipeline(transaction=True)
        pipe.hgetall(counts_key)
        pipe.hgetall(last_key)
        pipe.delete(counts_key, last_key)
        counts, last, _ = pipe.execute()
        rows = {
            uuid.UUID(key.decode()): (
                int(times),
                datetime.fromtimestamp(float(last.get(key, time.time())), tz=UTC),
            )
            for key, times in counts.items()
        }
        lessons_mark_recalled(tenant_id=uuid.UUID(tenant_id), counts=rows)
        written += len(rows)
    return written


def lesson_pin(
    *, principal: AgentPrincipal, lesson_id: uuid.UUID, pinned: bool, reason: str = ""
) -> Lesson:
    """Curator: a pinned lesson is never decayed, expired, evicted or merged
    away by the gardener. Audited."""
    principal.require_curator("pins lessons")
    with tenant_context(principal.tenant_id):
        lesson = _visible(lesson_id)
        Lesson.objects.filter(id=lesson.id).update(pinned=pinned)
        curator_action_record(
            principal=principal, action="pin" if pinned else "unpin", target_type="lesson",
            target_id=lesson.id, reason=reason,
        )  # fmt: skip
        lesson.refresh_from_db()
    return lesson


# A curator's actions on one lesson, by name: what the admin's actions and the
# dashboard's buttons both offer (each service audits itself, with the reason).
CURATOR_ACTIONS = ("retire", "pin", "unpin", "erase")


def lesson_curate(
    *, principal: AgentPrincipal, lesson_id: uuid.UUID, action: str, reason: str
) -> None:
    """Apply one of ``CURATOR_ACTIONS`` to a lesson (ValueError for another)."""
    if action == "retire":
        lesson_retire(principal=principal, lesson_id=lesson_id, reason=reason)
    elif action in ("pin", "unpin"):
        lesson_pin(principal=principal, lesson_id=lesson_id, pinned=action == "pin", reason=reason)
    elif action == "erase":
        lesson_forget(principal=principal, lesson_id=lesson_id, reason=reason)
    else:
        raise ValueError(f"no curator action {action!r}")
