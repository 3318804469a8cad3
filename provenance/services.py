"""Writes for the provenance substrate."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from accounts.models import Agent
from accounts.principal import AgentPrincipal
from accounts.tenancy import tenant_context
from config.db.bulk import rows_insert, unsaved
from config.errors import NotFound
from memory.services.events import curator_action_record
from provenance.models import (
    Belief,
    Decision,
    DecisionBasis,
    DecisionStatus,
    Edge,
    EdgeKind,
    Observation,
    SourceType,
)
from provenance.selectors import (
    ProvenanceSummary,
    corroboration,
    corroboration_policy,
    provenance_summaries,
)


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


@dataclass(frozen=True)
class RootedBelief:
    """A belief that cites nothing, and the observation it rests on."""

    agent_id: uuid.UUID
    content: str
    confidence: float
    root: str  # the observation's content
    source_type: str = SourceType.FIRST_HAND
    source_uri: str = ""
    source_family: str = ""


def beliefs_record_rooted(*, tenant_id: uuid.UUID, beliefs: list[RootedBelief]) -> list[Belief]:
    """Write beliefs that cite nothing, in bulk: each rests on an
    observation of its own (the agent's first-hand experience, or the
    document an import read), joined by a ``derived_from`` edge. Three
    statements for any number, in one round trip. Precondition: inside the tenant's context."""
    made = [
        unsaved(
            Belief,
            tenant_id=tenant_id,
            agent_id=b.agent_id,
            content=b.content,
            confidence=b.confidence,
        )
        for b in beliefs
    ]
    roots = [
        unsaved(
            Observation, tenant_id=tenant_id, agent_id=b.agent_id, source_type=b.source_type,
            content=b.root, content_hash=Observation.hash_content(b.root),
            source_uri=b.source_uri, source_family=b.source_family,
        )
        for b in beliefs
    ]  # fmt: skip
    rows_insert(
        made,
        roots,
        [
            unsaved(Edge, tenant_id=tenant_id, kind=EdgeKind.DERIVED_FROM, belief_id=belief.id,
                    to_observation_id=root.id)
            for belief, root in zip(made, roots, strict=True)
        ]
    )  # fmt: skip
    return made


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
    if not parents:
        rooted = RootedBelief(
            agent_id=agent_id, content=content, confidence=confidence, root=situation or content
        )
        return beliefs_record_rooted(tenant_id=tenant_id, beliefs=[rooted])[0]
    belief = Belief.objects.create(
        tenant_id=tenant_id, agent_id=agent_id, content=content, confidence=confidence
    )
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


# --- issue 5: evidence, beliefs, decisions, corroboration, the cascade -------

_ANCESTORS_SQL = """
WITH RECURSIVE up(kind, id) AS (
    SELECT 'belief', b FROM unnest(%(beliefs)s::uuid[]) b
  UNION
    SELECT 'lesson', l FROM unnest(%(lessons)s::uuid[]) l
  UNION
    SELECT x.kind, x.id FROM up CROSS JOIN LATERAL (
        SELECT CASE WHEN e.to_belief_id IS NOT NULL THEN 'belief' ELSE 'lesson' END AS kind,
               coalesce(e.to_belief_id, e.to_lesson_id) AS id
        FROM provenance_edge e
        WHERE up.kind = 'belief' AND e.belief_id = up.id AND e.kind = 'derived_from'
          AND coalesce(e.to_belief_id, e.to_lesson_id) IS NOT NULL
        UNION ALL
        SELECT 'belief', s.belief_id FROM provenance_edge s
        WHERE up.kind = 'lesson' AND s.to_lesson_id = up.id AND s.kind = 'supports'
    ) x
)
SELECT EXISTS (SELECT 1 FROM up WHERE kind = 'lesson' AND id = %(target)s)
"""


def _would_cycle(parents: list[ParentRef], lesson_id: uuid.UUID) -> bool:
    """Would a belief deriving from ``parents`` and supporting ``lesson_id``
    close a cycle (the lesson is already among its parents' ancestors)?"""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            _ANCESTORS_SQL,
            {
                "beliefs": [p.id for p in parents if p.type == "belief"],
                "lessons": [p.id for p in parents if p.type == "lesson"],
                "target": lesson_id,
            },
        )
        row = cursor.fetchone()
    return bool(row and row[0])


def observation_record(
    *,
    tenant_id: uuid.UUID,
    agent_id: uuid.UUID | None,
    content: str,
    source_type: str = SourceType.TOOL_OUTPUT,
    source_uri: str = "",
    source_family: str = "",
    reliability: float = 0.8,
) -> Observation:
    """Evidence from outside, immutable from now on. Precondition: inside
    the tenant's context."""
    return Observation.objects.create(
        tenant_id=tenant_id, agent_id=agent_id, source_type=source_type, content=content,
        content_hash=Observation.hash_content(content), source_uri=source_uri,
        source_family=source_family, reliability=reliability,
    )  # fmt: skip


def belief_create(
    *,
    tenant_id: uuid.UUID,
    agent_id: uuid.UUID,
    content: str,
    confidence: float,
    derived_from: list[ParentRef],
    supports: uuid.UUID | None = None,
    contradicts: uuid.UUID | None = None,
    trigger: str = "belief",
) -> Belief:
    """A belief citing at least one parent, optionally supporting or
    contradicting a lesson; the lesson's corroboration is evaluated again.
    Refused: no parent (400), a parent or lesson of another tenant (404), a
    support that would close a cycle (409). Precondition: inside the
    tenant's context, in a transaction."""
    from config.errors import ApplicationError, Conflict
    from memory.models import Lesson

    if not derived_from:
        raise ApplicationError(
            "a belief must cite at least one parent in derived_from", code="uncited_belief"
        )
    check_parents(derived_from)
    for lesson_id in (supports, contradicts):
        if lesson_id is not None and not Lesson.objects.filter(id=lesson_id).exists():
            raise NotFound(f"no lesson {lesson_id}", code="lesson_not_found")
    if supports is not None and _would_cycle(derived_from, supports):
        raise Conflict(
            "derived_from would close a cycle: the supported lesson is among the belief's "
            "own sources",
            code="provenance_cycle",
        )
    belief = belief_record(
        tenant_id=tenant_id, agent=agent_id, content=content, situation="",
        confidence=confidence, parents=derived_from,
    )  # fmt: skip
    touched = []
    for lesson_id, kind in ((supports, EdgeKind.SUPPORTS), (contradicts, EdgeKind.CONTRADICTS)):
        if lesson_id is not None:
            belief_relate(tenant_id=tenant_id, belief_id=belief.id, lesson_id=lesson_id, kind=kind)
            touched.append(lesson_id)
    if touched:
        lessons_evaluate(tenant_id=tenant_id, lesson_ids=touched, trigger=trigger)
    return belief


def lessons_evaluate(
    *, tenant_id: uuid.UUID, lesson_ids: list[uuid.UUID], trigger: str
) -> dict[uuid.UUID, tuple[str, str]]:
    """Evaluate the lessons' corroboration under the tenant's policy, store
    it on each lesson and audit every evaluation. Returns id → (before,
    after). Precondition: inside the tenant's context, in a transaction."""
    from memory.models import Lesson
    from provenance.models import CorroborationAudit

    ids = list(dict.fromkeys(lesson_ids))
    if not ids:
        return {}
    policy = corroboration_policy(tenant_id)
    summaries = provenance_summaries(ids, strong_contradiction=policy["contradiction_confidence"])
    before = {
        i: (status, reason)
        for i, status, reason in Lesson.objects.filter(id__in=ids).values_list(
            "id", "corroboration", "corroboration_reason"
        )
    }
    changes: dict[uuid.UUID, tuple[str, str]] = {}
    audits, updates = [], []
    for lesson_id in ids:
        if lesson_id not in before:
            continue
        summary = summaries.get(lesson_id, ProvenanceSummary())
        status, reason = corroboration(summary, policy)
        changes[lesson_id] = (before[lesson_id][0], status)
        if before[lesson_id] != (status, reason):  # a lesson row rewritten costs index work
            updates.append((status, reason, lesson_id))
        audits.append(
            CorroborationAudit(
                tenant_id=tenant_id, lesson_id=lesson_id, status=status, reason=reason,
                independent_sources=summary.independent_sources,
                supporting_beliefs=summary.supporting_beliefs,
                agreeing_agents=summary.agreeing_agents,
                root_aware_confidence=summary.root_aware_confidence, trigger=trigger,
            )
        )  # fmt: skip
    CorroborationAudit.objects.bulk_create(audits)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.executemany(
            "UPDATE memory_lesson SET corroboration = %s, corroboration_reason = %s WHERE id = %s",
            updates,
        )
    return changes


def first_corroboration(confidence: float, policy: dict[str, Any]) -> tuple[str, str]:
    """What the policy says of a lesson whose only support is one belief on
    one root (a learn that cites nothing): set at insert, so the evaluation
    after the batch finds nothing to rewrite."""
    summary = ProvenanceSummary(
        supporting_beliefs=1, agreeing_agents=1, independent_sources=1,
        root_aware_confidence=confidence, naive_confidence=confidence,
    )  # fmt: skip
    return corroboration(summary, policy)


def decision_record(
    *, tenant_id: uuid.UUID, agent_id: uuid.UUID, action: str, based_on: set[uuid.UUID]
) -> Decision:
    """An agent's decision and the lessons it rests on (each of the caller's
    tenant, else not found), so the cascade can flag it for review when
    one of them falls. Precondition: inside the tenant's context."""
    from memory.models import Lesson

    found = set(Lesson.objects.filter(id__in=based_on).values_list("id", flat=True))
    if based_on - found:
        raise NotFound(
            f"no lesson {sorted(map(str, based_on - found))[0]}", code="lesson_not_found"
        )
    decision = Decision.objects.create(tenant_id=tenant_id, agent_id=agent_id, action=action)
    DecisionBasis.objects.bulk_create(
        [
            DecisionBasis(tenant_id=tenant_id, decision=decision, lesson_id=i)
            for i in sorted(based_on)
        ]
    )
    return Decision.objects.select_related("agent").get(id=decision.id)


def decision_review(*, principal: AgentPrincipal, decision_id: uuid.UUID, reason: str) -> Decision:
    """Curator: a decision flagged ``needs_review`` (a lesson it rested on
    fell) was looked at; its status is ``ok`` again. Audited."""
    principal.require_curator("reviews decisions")
    with tenant_context(principal.tenant_id):
        decision = Decision.objects.select_for_update().filter(id=decision_id).first()
        if decision is None:
            raise NotFound("no such decision")
        Decision.objects.filter(id=decision.id).update(status=DecisionStatus.OK, review_reason="")
        curator_action_record(
            principal=principal, action="mark_reviewed", target_type="decision",
            target_id=decision.id, reason=reason,
        )  # fmt: skip
        decision.refresh_from_db()
    return decision
