"""Applying a plan in one short snapshot-isolated transaction (layer 4
of ``memory.services.learn``)."""

from __future__ import annotations

import time
import uuid

from django.db import connection
from django.utils import timezone

from accounts.tenancy import run_apply_transaction
from config.db.bulk import rows_insert, rows_update, unsaved
from memory.judge.calls import model_calls_save
from memory.models import (
    Dispute,
    LearnRequest,
    LessonStatus,
    Outcome,
    RequestStatus,
    Scope,
)
from memory.services.events import event_build
from memory.services.learn.plan import Applied, BatchProgress, Plan
from memory.services.transitions import Move, lessons_move
from provenance.models import CorroborationAudit

MAX_APPLY_ATTEMPTS = 12  # serialization failures retried per apply


def apply_with_retries(
    tenant_id: uuid.UUID, plan: Plan, progress: BatchProgress
) -> Applied | set[uuid.UUID]:
    started = time.perf_counter()

    def attempt() -> Applied | set[uuid.UUID]:
        progress.attempts += 1
        return _apply(tenant_id, plan, progress, started)

    def retried() -> None:
        progress.serialization_failures += 1

    return run_apply_transaction(tenant_id, attempt, attempts=MAX_APPLY_ATTEMPTS, on_retry=retried)


def _apply(
    tenant_id: uuid.UUID, plan: Plan, progress: BatchProgress, started: float
) -> Applied | set[uuid.UUID]:
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
        return Applied.SCOPE_MOVED
    now = timezone.now()
    for lesson in plan.new.values():
        # An imported lesson keeps its own creation time; it became active
        # here and now (decay, merging and eviction count from activation).
        lesson.created_at = plan.created_at.get(lesson.id, now)
        if lesson.status == LessonStatus.ACTIVE:
            lesson.activated_at = now
        if lesson.reinforcement_count:
            lesson.last_useful_at = now
    # The batch's rows, every table in one round trip (the references are
    # checked at commit).
    rows_insert(
        list(plan.new.values()),
        plan.edges,
        [
            unsaved(
                CorroborationAudit, tenant_id=tenant_id, lesson_id=lesson.id,
                status=lesson.corroboration, reason=lesson.corroboration_reason,
                independent_sources=1, supporting_beliefs=1, agreeing_agents=1,
                root_aware_confidence=lesson.confidence, trigger="learn", created_at=now,
            )
            for lesson in plan.new.values()
            if lesson.id in plan.judged_at_insert
        ],
        [
            Dispute(
                tenant_id=tenant_id, lesson_id=d.lesson_id, target_id=d.target_id,
                opened_by_id=d.item.request.agent_id, learn_request_id=d.item.request.id,
                rationale=d.verdict.rationale[:2000], created_at=now,
            )
            for d in plan.decisions
            if d.outcome == Outcome.DISPUTED and d.target_id is not None
        ],
        [
            event_build(
                tenant_id=tenant_id, kind=d.event, lesson_id=d.lesson_id,
                agent_id=d.item.request.agent_id, learn_request_id=d.item.request.id,
                target_lesson_id=d.target_id, judge=d.verdict.judge, created_at=now,
                **d.event_data,
            )
            for d in plan.decisions
        ],
    )  # fmt: skip
    if plan.reinforce:  # after the insert: a batch may reinforce its own new lesson
        with connection.cursor() as cursor:
            cursor.executemany(
                "UPDATE memory_lesson SET reinforcement_count = reinforcement_count + %s, "
                "last_useful_at = %s WHERE id = %s",
                [(times, now, lesson_id) for lesson_id, times in plan.reinforce.items()],
            )
    calls = [(d.item.request.id, c) for d in plan.decisions for c in d.calls] + progress.calls
    model_calls_save(tenant_id=tenant_id, calls=calls, created_at=now)
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
    rows_update(
        LearnRequest, "id",
        ["status", "outcome", "lesson_id", "target_lesson_id", "judge", "verdict_confidence",
         "rationale", "attempts", "revalidations", "serialization_failures", "timings",
         "applied_at", "lease_until", "judge_fallback"],
        [
            (
                d.item.request.id, RequestStatus.APPLIED, d.outcome, d.lesson_id, d.target_id,
                d.verdict.judge, d.verdict.confidence, d.verdict.rationale[:2000],
                progress.attempts, progress.revalidations, progress.serialization_failures,
                {
                    "embed": progress.embed_ms,
                    "candidates": round(plan.candidates_ms, 2),
                    "judge": round(d.judge_ms, 2),
                    # Up to the last write; the commit is not in the figure.
                    "apply": apply_ms,
                    "batch": count,
                    "total": round((now - d.item.request.created_at).total_seconds() * 1000, 2),
                },
                now, None, d.fallback,
            )
            for d in plan.decisions
        ],
    )  # fmt: skip
    return Applied.DONE
