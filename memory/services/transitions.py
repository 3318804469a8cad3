"""Lesson transitions: the one writer of a lesson's status.

Everything that moves a lesson between statuses — a curator retiring or
erasing it, a dispute's resolution, the invalidation cascade, the gardener,
the learn worker's supersessions — goes through :func:`lessons_move`, which
keeps what must change with a status together: the validity interval, the
scope's version and active count (a learn that read candidates before the
move reads them again), the open dispute of a lesson leaving ``disputed``,
the erasure of an erased lesson's content, and the event.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import F
from django.utils import timezone

from config.errors import Conflict
from memory.models import (
    Dispute,
    DisputeStatus,
    Event,
    EventKind,
    Lesson,
    LessonStatus,
    Resolution,
    Scope,
)  # fmt: skip
from memory.services.erasure import lesson_content_erase
from memory.services.events import event_build


@dataclass(frozen=True)
class Move:
    """One lesson from the status it was read in (the move fails if it
    changed since) to another; ``fields`` are written with it."""

    lesson_id: uuid.UUID
    kind: str
    before: str
    after: str
    fields: Mapping[str, object] = field(default_factory=dict)

    @classmethod
    def of(cls, lesson: Lesson, after: str, **fields: object) -> Move:
        return cls(lesson.id, lesson.kind, lesson.status, after, fields)


def lessons_move(
    *,
    tenant_id: uuid.UUID,
    agent_id: uuid.UUID | None,
    moves: Sequence[Move],
    event: EventKind | None = None,
    event_data: Mapping[str, Any] | None = None,
    at: datetime | None = None,
    created: Mapping[str, int] | None = None,
) -> None:
    """Apply ``moves`` at one instant (``at``, default now: a superseded
    lesson's interval ends where its successor's begins) and record
    ``event`` for each moved lesson (None: the caller records the one event
    that tells the whole change, as a learn or a dispute's resolution does).
    ``created``: kind → lessons the caller created active in this
    transaction (a learn's apply), counted in with the moves; each of those
    kinds' version is written even when nothing moved. ``agent_id`` is None
    for the gardener and the learn worker.
    Precondition: inside the tenant's apply transaction."""
    now = at or timezone.now()
    shifts: dict[str, int] = dict(created or {})
    for move in moves:
        stamps = {}
        if move.before == LessonStatus.ACTIVE:
            stamps["deactivated_at"] = now
        if move.after == LessonStatus.ACTIVE:
            stamps["activated_at"] = now
        changed = Lesson.objects.filter(id=move.lesson_id, status=move.before).update(
            status=move.after, **stamps, **move.fields
        )
        if not changed:  # someone else changed it after it was read
            raise Conflict("the lesson changed meanwhile; read it again", code="lesson_changed")
        if stamps:  # the active set changed
            shift = (move.after == LessonStatus.ACTIVE) - (move.before == LessonStatus.ACTIVE)
            shifts[move.kind] = shifts.get(move.kind, 0) + shift
    for kind, shift in shifts.items():
        Scope.objects.filter(tenant_id=tenant_id, kind=kind).update(
            version=F("version") + 1, active_count=F("active_count") + shift
        )
    undisputed = [m.lesson_id for m in moves if m.before == LessonStatus.DISPUTED]
    if undisputed:
        disputes_withdraw(agent_id=agent_id, lesson_ids=undisputed)
    for move in moves:
        if move.after == LessonStatus.ERASED:
            lesson_content_erase(move.lesson_id)
    if event is not None:
        Event.objects.bulk_create(
            [
                event_build(
                    tenant_id=tenant_id, kind=event, lesson_id=m.lesson_id, agent_id=agent_id,
                    created_at=now, previous_status=m.before, **(event_data or {}),
                )
                for m in moves
            ]
        )  # fmt: skip


def lesson_move(
    *,
    tenant_id: uuid.UUID,
    agent_id: uuid.UUID | None,
    lesson: Lesson,
    status: str,
    event: EventKind | None,
    event_data: Mapping[str, Any] | None = None,
    **fields: object,
) -> None:
    """One lesson's move (see :func:`lessons_move`)."""
    lessons_move(
        tenant_id=tenant_id, agent_id=agent_id, moves=[Move.of(lesson, status, **fields)],
        event=event, event_data=event_data,
    )  # fmt: skip


def disputes_withdraw(*, agent_id: uuid.UUID | None, lesson_ids: Sequence[uuid.UUID]) -> int:
    """Close the open disputes of disputed lessons that were just taken out
    of use (nothing is left to decide)."""
    return Dispute.objects.filter(lesson_id__in=lesson_ids, status=DisputeStatus.OPEN).update(
        status=DisputeStatus.RESOLVED, resolution=Resolution.WITHDRAWN,
        resolved_by_id=agent_id, resolved_at=timezone.now(),
        note="the disputed lesson was taken out of use",
    )  # fmt: skip
