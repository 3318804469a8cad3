"""Folding one lesson into another, for the gardener's merge step and its
re-judge step alike: the merged lesson is retired into the survivor, its
supporting beliefs now support the survivor, and one forgetting-journal
line records it."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db.models import F, Value
from django.db.models.functions import Coalesce, Greatest

from curation.models import JournalLine
from memory.models import EventKind, Eviction, Lesson, LessonStatus
from memory.policies import EffectivePolicy
from memory.selectors import recall_counts
from memory.services.events import event_record


def journal_age(now: datetime, created_at: datetime) -> int:
    """A journal line's age, to the hour: enough to read a rule's effect,
    too coarse to pick out the one lesson it was."""
    return int((now - created_at).total_seconds()) // 3600 * 3600


def merge_into(
    *,
    tenant_id: uuid.UUID,
    survivor: Lesson,
    merged: Lesson,
    judge_name: str,
    policies: dict[str, EffectivePolicy],
    now: datetime,
) -> int:
    """Retire ``merged`` into ``survivor`` if both are still as the judge
    saw them; its supporting beliefs now support the survivor."""
    from memory.services.transitions import lesson_move
    from provenance.models import Edge, EdgeKind
    from provenance.services import lessons_evaluate

    current = Lesson.objects.in_bulk([survivor.id, merged.id])
    if any(
        current.get(x.id) is None
        or current[x.id].status != LessonStatus.ACTIVE
        or current[x.id].content != x.content
        for x in (survivor, merged)
    ) or (current[merged.id].pinned):
        return 0
    merged = current[merged.id]
    supports = set(
        Edge.objects.filter(to_lesson_id=survivor.id, kind=EdgeKind.SUPPORTS).values_list(
            "belief_id", flat=True
        )
    )
    Edge.objects.bulk_create(
        [
            Edge(tenant_id=tenant_id, kind=EdgeKind.SUPPORTS, belief_id=b, to_lesson_id=survivor.id)
            for b in Edge.objects.filter(
                to_lesson_id=merged.id, kind=EdgeKind.SUPPORTS
            ).values_list("belief_id", flat=True)
            if b not in supports
        ]
    )
    Lesson.objects.filter(id=survivor.id).update(
        reinforcement_count=F("reinforcement_count") + merged.reinforcement_count + 1,
        last_useful_at=Greatest(
            Coalesce("last_useful_at", Value(now)), Value(merged.last_useful_at or now)
        ),
    )
    lesson_move(
        tenant_id=tenant_id, agent_id=None, lesson=merged, status=LessonStatus.RETIRED,
        event=EventKind.RETIRED, event_data={"by": "gardener", "rule": "merged",
                                             "into": str(survivor.id), "judge": judge_name},
        retired_reason=f"gardener: merged into {survivor.id}", merged_into_id=survivor.id,
    )  # fmt: skip
    event_record(
        tenant_id=tenant_id, kind=EventKind.REINFORCED, lesson_id=survivor.id,
        via="merge", merged=str(merged.id),
    )  # fmt: skip
    JournalLine.objects.create(
        tenant_id=tenant_id, kind=merged.kind, rule="merged", action=Eviction.RETIRE,
        age_seconds=journal_age(now, merged.created_at),
        times_recalled=recall_counts([merged.id]).get(merged.id, 0),
        times_reinforced=merged.reinforcement_count, created_at=now,
    )  # fmt: skip
    lessons_evaluate(tenant_id=tenant_id, lesson_ids=[survivor.id], trigger="merge")
    return 1
