"""Reinforce, retire, forget, and recall bookkeeping."""

from __future__ import annotations

import uuid

from django.db import connection, models
from django.db.models import F
from django.utils import timezone

from accounts.models import Role
from accounts.principal import AgentPrincipal
from accounts.tenancy import run_apply_transaction, tenant_context
from config.errors import Conflict, Forbidden, NotFound
from curation.models import EventKind
from curation.services import event_record
from memory.models import Lesson, LessonStatus, Scope


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


def take_out_of_use(
    *,
    tenant_id: uuid.UUID,
    agent_id: uuid.UUID | None,
    lesson: Lesson,
    status: LessonStatus,
    event: EventKind,
    event_data: dict[str, object] | None = None,
    **fields: object,
) -> None:
    """Move a lesson to ``status`` (closing its validity interval if it was
    active), record the event. An active lesson leaving shrinks its scope's
    active set: the version is bumped so that a learn which read candidates
    before now reads them again. ``agent_id`` is None for the gardener.
    Precondition: inside the tenant's apply transaction."""
    now = timezone.now()
    was_active = lesson.status == LessonStatus.ACTIVE
    changed = Lesson.objects.filter(id=lesson.id, status=lesson.status).update(
        status=status, deactivated_at=now if was_active else lesson.deactivated_at, **fields
    )
    if not changed:  # someone else changed it after it was read
        raise Conflict("the lesson changed meanwhile; read it again", code="lesson_changed")
    if was_active:
        Scope.objects.filter(tenant_id=lesson.tenant_id, kind=lesson.kind).update(
            version=F("version") + 1, active_count=F("active_count") - 1
        )
    if lesson.status == LessonStatus.DISPUTED:
        from curation.disputes import disputes_withdraw

        disputes_withdraw(agent_id=agent_id, lesson_id=lesson.id)
    if status == LessonStatus.ERASED:
        lesson_content_erase(lesson.id)
    event_record(
        tenant_id=tenant_id, kind=event, lesson_id=lesson.id, agent_id=agent_id,
        previous_status=lesson.status, **(event_data or {}),
    )  # fmt: skip


def lesson_content_erase(lesson_id: uuid.UUID) -> None:
    """Erase a lesson's text wherever it was written: the lesson row (and
    any lesson the gardener merged into it), the learn requests that made or
    restated it (and their judge rationales), the beliefs those requests
    wrote, the first-hand observations those requests wrote of it (no
    one else's, and none another belief also rests on), the rationales of
    requests and disputes aimed at it, and curators' reasons about it. What
    it was is gone; that it was (ids, events, edges) stays. Precondition:
    inside the tenant's transaction."""
    from curation.models import CuratorAction, Dispute
    from memory.models import LearnRequest
    from provenance.models import Belief, Edge, EdgeKind, Observation, SourceType

    now = timezone.now()
    Lesson.objects.filter(id=lesson_id).update(
        content="", situation="", embedding=None, erased_at=now, retired_reason=""
    )
    requests = LearnRequest.objects.filter(lesson_id=lesson_id)
    written = list(requests.values_list("belief_id", "agent_id", "content", "situation"))
    beliefs = [belief for belief, *_ in written]
    requests.update(content="", situation="", rationale="")
    LearnRequest.objects.filter(target_lesson_id=lesson_id).update(rationale="")
    Dispute.objects.filter(models.Q(lesson_id=lesson_id) | models.Q(target_id=lesson_id)).update(
        rationale=""
    )
    CuratorAction.objects.filter(target_type="lesson", target_id=str(lesson_id)).exclude(
        reason=""
    ).update(reason="(erased with the lesson)")
    Belief.objects.filter(id__in=beliefs).update(content="")
    for belief_id, agent_id, content, situation in written:
        roots = Edge.objects.filter(
            belief_id=belief_id, kind=EdgeKind.DERIVED_FROM, to_observation__isnull=False
        ).values_list("to_observation_id", flat=True)
        shared = Edge.objects.filter(to_observation_id__in=roots).exclude(belief_id__in=beliefs)
        Observation.objects.filter(
            id__in=list(roots), agent_id=agent_id, source_type=SourceType.FIRST_HAND,
            content__in=[t for t in (content, situation) if t], erased_at__isnull=True,
        ).exclude(id__in=shared.values("to_observation_id")).update(
            content="", content_hash="", erased_at=now
        )  # fmt: skip
    for merged in Lesson.objects.filter(merged_into_id=lesson_id).values_list("id", flat=True):
        lesson_content_erase(merged)


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

    return run_apply_transaction(principal.tenant_id, operation)


def lesson_retire(*, principal: AgentPrincipal, lesson_id: uuid.UUID, reason: str) -> Lesson:
    """Curator: take a lesson out of use. Status change only; history and
    time travel keep it."""
    if principal.role != Role.CURATOR:
        raise Forbidden("only a curator retires lessons")

    def operation() -> Lesson:
        lesson = _visible(lesson_id)
        if lesson.status == LessonStatus.RETIRED:
            return lesson
        take_out_of_use(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id, lesson=lesson,
            status=LessonStatus.RETIRED, event=EventKind.RETIRED, retired_reason=reason,
        )  # fmt: skip
        lesson.refresh_from_db()
        return lesson

    return run_apply_transaction(principal.tenant_id, operation)


def lesson_forget(*, principal: AgentPrincipal, lesson_id: uuid.UUID) -> None:
    """Erase a lesson's content and embedding (its author, or a curator).
    The row stays as a tombstone so supersede chains hold; an event without
    content records that it happened."""

    def operation() -> None:
        lesson = _visible(lesson_id)
        if lesson.author_id != principal.agent_id and principal.role != Role.CURATOR:
            raise Forbidden("only the lesson's author or a curator can forget it")
        take_out_of_use(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id, lesson=lesson,
            status=LessonStatus.ERASED, event=EventKind.FORGOTTEN,
        )  # fmt: skip

    run_apply_transaction(principal.tenant_id, operation)


def lessons_mark_recalled(*, tenant_id: uuid.UUID, lesson_ids: list[uuid.UUID]) -> None:
    """Recall bookkeeping, off the answer's path (a task) and off the lesson
    row (a side table), so it never takes part in a learn's conflict."""
    if not lesson_ids:
        return
    with tenant_context(tenant_id), connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO memory_lessonrecallstats
                (lesson_id, tenant_id, recall_count, last_recalled_at)
            SELECT l.id, l.tenant_id, 1, now() FROM memory_lesson l
            WHERE l.id = ANY(%(ids)s) AND l.tenant_id = %(tenant)s
            ON CONFLICT (lesson_id) DO UPDATE
               SET recall_count = memory_lessonrecallstats.recall_count + 1,
                   last_recalled_at = excluded.last_recalled_at
            """,
            {"ids": list(lesson_ids), "tenant": tenant_id},
        )


def lesson_pin(*, principal: AgentPrincipal, lesson_id: uuid.UUID, pinned: bool) -> Lesson:
    """Curator: a pinned lesson is never decayed, expired, evicted or merged
    away by the gardener."""
    if principal.role != Role.CURATOR:
        raise Forbidden("only a curator pins lessons")
    with tenant_context(principal.tenant_id):
        lesson = _visible(lesson_id)
        Lesson.objects.filter(id=lesson.id).update(pinned=pinned)
        lesson.refresh_from_db()
    return lesson


# A curator's actions on one lesson, by name: what the admin's actions and the
# dashboard's buttons both offer (each records the reason in its own audit).
CURATOR_ACTIONS = ("retire", "pin", "unpin", "erase")


def lesson_curate(
    *, principal: AgentPrincipal, lesson_id: uuid.UUID, action: str, reason: str
) -> None:
    """Apply one of ``CURATOR_ACTIONS`` to a lesson (ValueError for another)."""
    if action == "retire":
        lesson_retire(principal=principal, lesson_id=lesson_id, reason=reason)
    elif action in ("pin", "unpin"):
        lesson_pin(principal=principal, lesson_id=lesson_id, pinned=action == "pin")
    elif action == "erase":
        lesson_forget(principal=principal, lesson_id=lesson_id)
    else:
        raise ValueError(f"no curator action {action!r}")
