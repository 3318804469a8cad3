"""How observations, beliefs, decisions and a lesson's lineage are shown,
for REST, MCP and the dashboard alike."""

from __future__ import annotations

import uuid
from typing import Any

from django.db import connection
from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from memory.models import Lesson
from memory.presenters import LessonOut, lessons_out
from memory.selectors import lesson_get
from provenance.models import Belief, Decision, DecisionBasis, Observation
from provenance.selectors import LINEAGE_WALK, decision_bases

LINEAGE_MAX_NODES = 2000


class ObservationOut(serializers.Serializer):
    """An observation (``observation_out``)."""

    id = serializers.UUIDField()
    type = serializers.CharField(help_text="observation")
    source_type = serializers.CharField()
    content = serializers.CharField()
    source_uri = serializers.CharField()
    source_family = serializers.CharField()
    reliability = serializers.FloatField()
    valid = serializers.BooleanField()
    invalid_reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class BeliefOut(serializers.Serializer):
    """A belief (``belief_out``)."""

    id = serializers.UUIDField()
    type = serializers.CharField(help_text="belief")
    agent = serializers.CharField()
    content = serializers.CharField()
    confidence = serializers.FloatField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()


class DecisionOut(serializers.Serializer):
    """A decision (``decision_out``)."""

    id = serializers.UUIDField()
    agent = serializers.CharField()
    action = serializers.CharField()
    status = serializers.CharField()
    review_reason = serializers.CharField()
    based_on = serializers.ListField(child=serializers.UUIDField())
    created_at = serializers.DateTimeField()


class DecisionsOut(serializers.Serializer):
    decisions = DecisionOut(many=True)


class LessonNodeOut(LessonOut):
    """A lesson in a lineage: the lesson as everywhere, and its node type."""

    type = serializers.CharField(help_text="lesson")


class DecisionNodeOut(DecisionOut):
    """A decision resting on the lesson, in its lineage."""

    type = serializers.CharField(help_text="decision")


class LineageEdgeOut(serializers.Serializer):
    """``from`` (a belief) --kind--> ``to`` (an observation, belief or
    lesson); or ``from`` a decision --based_on--> ``to`` the lesson."""

    # "from" is a Python keyword: declared through the class namespace.
    locals()["from"] = serializers.UUIDField()
    to = serializers.UUIDField()
    kind = serializers.CharField(help_text="derived_from | supports | contradicts | based_on")


class LineageOut(serializers.Serializer):
    """A lesson's lineage (``lesson_lineage``)."""

    lesson = serializers.UUIDField()
    nodes = PolymorphicProxySerializer(
        component_name="LineageNode",
        serializers={
            "lesson": LessonNodeOut,
            "belief": BeliefOut,
            "observation": ObservationOut,
            "decision": DecisionNodeOut,
        },
        resource_type_field_name="type",
        many=True,
    )
    edges = LineageEdgeOut(many=True)


class InvalidatedObservationOut(serializers.Serializer):
    id = serializers.UUIDField()
    valid = serializers.BooleanField(help_text="always false")
    reason = serializers.CharField()


class ReevaluationOut(serializers.Serializer):
    id = serializers.UUIDField()
    before = serializers.CharField(help_text="the lesson's corroboration before")
    after = serializers.CharField(help_text="and after")


class InvalidationReportOut(serializers.Serializer):
    """The repair report of ``provenance.cascade.observation_invalidate``."""

    observation = InvalidatedObservationOut()
    beliefs_retracted = serializers.ListField(child=serializers.UUIDField())
    beliefs_uncertain = serializers.ListField(child=serializers.UUIDField())
    lessons_reevaluated = ReevaluationOut(many=True)
    lessons_deactivated = serializers.ListField(child=serializers.UUIDField())
    decisions_flagged = serializers.ListField(child=serializers.UUIDField())


def observation_out(o: Observation) -> dict[str, Any]:
    return {
        "id": str(o.id), "type": "observation", "source_type": o.source_type,
        "content": o.content, "source_uri": o.source_uri, "source_family": o.source_family,
        "reliability": o.reliability, "valid": o.valid, "invalid_reason": o.invalid_reason,
        "created_at": o.created_at.isoformat(),
    }  # fmt: skip


def belief_out(b: Belief) -> dict[str, Any]:
    return {
        "id": str(b.id), "type": "belief", "agent": b.agent.name, "content": b.content,
        "confidence": b.confidence, "status": b.status, "created_at": b.created_at.isoformat(),
    }  # fmt: skip


def decisions_out(decisions: list[Decision]) -> list[dict[str, Any]]:
    """Decisions (their agents loaded), with the lessons each rests on: one
    query for all of them."""
    bases = decision_bases([d.id for d in decisions])
    return [
        {
            "id": str(d.id), "agent": d.agent.name, "action": d.action, "status": d.status,
            "review_reason": d.review_reason,
            "based_on": [str(i) for i in bases.get(d.id, [])],
            "created_at": d.created_at.isoformat(),
        }
        for d in decisions
    ]  # fmt: skip


def decision_out(d: Decision) -> dict[str, Any]:
    return decisions_out([d])[0]


# The walk's beliefs' edges, looked up per belief (OFFSET 0 keeps the
# lateral a loop: as a semi-join the planner scanned the whole edge table).
_LINEAGE_SQL = f"""
WITH RECURSIVE {LINEAGE_WALK}
SELECT x.* FROM (SELECT DISTINCT belief_id FROM g) AS walked CROSS JOIN LATERAL (
    SELECT e.belief_id, e.kind, e.to_observation_id, e.to_belief_id, e.to_lesson_id
    FROM provenance_edge e
    WHERE e.belief_id = walked.belief_id
    OFFSET 0
) x
-- Past the cap, the lesson's own supports and contradictions are kept first.
ORDER BY coalesce(x.to_lesson_id = ANY(%(ids)s), false) DESC
LIMIT %(limit)s
"""  # noqa: S608 (a constant)


def lesson_lineage(lesson_id: uuid.UUID, *, curator: bool = False) -> dict[str, Any]:
    """The lineage of a lesson of the caller's tenant (the API's and the
    dashboard's; a quarantined lesson's for curators only). Precondition:
    inside the tenant's context."""
    lesson = lesson_get(lesson_id=lesson_id, curator=curator)
    with connection.cursor() as cursor:
        cursor.execute(_LINEAGE_SQL, {"ids": [lesson.id], "limit": LINEAGE_MAX_NODES * 4})
        rows = cursor.fetchall()
    derived_lessons = {r[4] for r in rows if r[1] == "derived_from" and r[4]}
    edges, beliefs, observations, lessons = [], set(), set(), {lesson.id}
    for belief_id, kind, to_observation, to_belief, to_lesson in rows:
        if kind != "derived_from" and to_lesson not in derived_lessons | {lesson.id}:
            continue  # the belief's support for some unrelated lesson
        target = to_observation or to_belief or to_lesson
        edges.append({"from": str(belief_id), "to": str(target), "kind": kind})
        beliefs.add(belief_id)
        if to_observation:
            observations.add(to_observation)
        if to_belief:
            beliefs.add(to_belief)
        if to_lesson:
            lessons.add(to_lesson)
    nodes = [
        {**out, "type": "lesson"}
        for out in lessons_out(list(Lesson.objects.select_related("author").filter(id__in=lessons)))
    ]
    nodes += [belief_out(b) for b in Belief.objects.select_related("agent").filter(id__in=beliefs)]
    nodes += [observation_out(o) for o in Observation.objects.filter(id__in=observations)]
    # The decisions agents made on the strength of the lesson, above it.
    decisions = Decision.objects.select_related("agent").filter(
        id__in=DecisionBasis.objects.filter(lesson_id=lesson.id).values("decision_id")
    )
    for out in decisions_out(list(decisions)):
        nodes.append({**out, "type": "decision"})
        edges.append({"from": out["id"], "to": str(lesson.id), "kind": "based_on"})
    return {"lesson": str(lesson.id), "nodes": nodes, "edges": edges}
