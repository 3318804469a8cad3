"""Writes for the provenance substrate."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from accounts.models import Agent
from config.errors import NotFound
from provenance.models import Belief, Edge, EdgeKind, Observation, SourceType


@dataclass(frozen=True)
class ParentRef:
    type: str  # observation | belief | lesson
    id: uuid.UUID


def check_parents(parents: list[ParentRef]) -> None:
    """Every cited parent exists in the caller's tenant (RLS hides other
    tenants' rows, so another tenant's id is simply not found: 404)."""
    from memory.models import Lesson

    querysets: dict[str, QuerySet[Any]] = {
        "observation": Observation.objects.all(),
        "belief": Belief.objects.all(),
        "lesson": Lesson.objects.all(),
    }
    for kind, queryset in querysets.items():
        wanted = {p.id for p in parents if p.type == kind}
        if not wanted:
            continue
        found = set(queryset.filter(id__in=wanted).values_list("id", flat=True))
        missing = sorted(str(i) for i in wanted - found)
        if missing:
            raise NotFound(f"derived_from: no {kind} {missing[0]}", code="parent_not_found")


def belief_record(
    *,
    tenant_id: uuid.UUID,
    agent: Agent | uuid.UUID,
    content: str,
    situation: str,
    confidence: float,
    parents: list[ParentRef],
) -> Belief:
    """Write an agent's belief and a ``derived_from`` edge per parent. A
    belief that cites nothing rests on an observation of the agent's
    first-hand experience (its situation), written here as its root.

    Precondition: inside the tenant's context; parents checked.
    """
    agent_id = agent if isinstance(agent, uuid.UUID) else agent.id
    belief = Belief.objects.create(
        tenant_id=tenant_id, agent_id=agent_id, content=content, confidence=confidence
    )
    if not parents:
        text = situation or content
        root = Observation.objects.create(
            tenant_id=tenant_id,
            agent_id=agent_id,
            source_type=SourceType.FIRST_HAND,
            content=text,
            content_hash=Observation.hash_content(text),
        )
        parents = [ParentRef("observation", root.id)]
    Edge.objects.bulk_create(
        [
            Edge(
                tenant_id=tenant_id,
                kind=EdgeKind.DERIVED_FROM,
                belief=belief,
                to_observation_id=p.id if p.type == "observation" else None,
                to_belief_id=p.id if p.type == "belief" else None,
                to_lesson_id=p.id if p.type == "lesson" else None,
            )
            for p in parents
        ]
    )
    return belief


def belief_relate(
    *, tenant_id: uuid.UUID, belief_id: uuid.UUID, lesson_id: uuid.UUID, kind: EdgeKind
) -> None:
    """``belief —supports|contradicts→ lesson``."""
    Edge.objects.create(tenant_id=tenant_id, kind=kind, belief_id=belief_id, to_lesson_id=lesson_id)
