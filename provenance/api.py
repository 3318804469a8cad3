"""The provenance API: observations, beliefs, decisions, lineage and the
invalidation cascade. Thin views over provenance.services/cascade."""

from __future__ import annotations

import uuid
from typing import Any

from django.db import connection
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsReader, IsWriter
from config.errors import ApplicationError, NotFound
from config.serializers import StrictCharField, StrictFloatField, StrictSerializer
from memory.api import OwnTransactionApi, ParentIn, _principal, _within
from memory.models import Lesson
from provenance.cascade import observation_invalidate
from provenance.models import (
    Belief,
    Decision,
    DecisionBasis,
    DecisionStatus,
    Observation,
    SourceType,
)
from provenance.selectors import LINEAGE_WALK
from provenance.services import ParentRef, belief_create, observation_record

LINEAGE_MAX_NODES = 2000


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


def decision_out(d: Decision) -> dict[str, Any]:
    return {
        "id": str(d.id), "agent": d.agent.name, "action": d.action, "status": d.status,
        "review_reason": d.review_reason,
        "based_on": [str(i) for i in DecisionBasis.objects.filter(decision=d)
                     .values_list("lesson_id", flat=True)],
        "created_at": d.created_at.isoformat(),
    }  # fmt: skip


class ObservationsApi(APIView):
    permission_classes = [IsWriter]

    class InputSerializer(StrictSerializer):
        content = StrictCharField()
        source_type = serializers.ChoiceField(
            choices=SourceType.choices, default=SourceType.TOOL_OUTPUT
        )
        source_uri = StrictCharField(max_length=2000, allow_blank=True, default="")
        source_family = StrictCharField(max_length=200, allow_blank=True, default="")
        reliability = StrictFloatField(min_value=0.0, max_value=1.0, default=0.8)

        def validate_content(self, value: str) -> str:
            return _within("content", value, 4000)

    @extend_schema(
        request=InputSerializer, responses={201: dict}, operation_id="observation_create"
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        principal = _principal(request)
        observation = observation_record(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id,
            **serializer.validated_data,
        )  # fmt: skip
        return Response(observation_out(observation), status=201)


class ObservationInvalidateApi(OwnTransactionApi):
    permission_classes = [IsCurator]

    class InputSerializer(StrictSerializer):
        reason = StrictCharField(max_length=500)

    @extend_schema(request=InputSerializer, responses=dict, operation_id="observation_invalidate")
    def post(self, request: Request, observation_id: uuid.UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        report = observation_invalidate(
            principal=_principal(request), observation_id=observation_id,
            reason=serializer.validated_data["reason"],
        )  # fmt: skip
        return Response(report)


class BeliefsApi(APIView):
    permission_classes = [IsWriter]

    class InputSerializer(StrictSerializer):
        content = StrictCharField()
        confidence = StrictFloatField(min_value=0.0, max_value=1.0, default=0.7)
        derived_from = ParentIn(many=True, required=False, default=list)
        supports = serializers.UUIDField(required=False, allow_null=True, default=None)
        contradicts = serializers.UUIDField(required=False, allow_null=True, default=None)

        def validate_content(self, value: str) -> str:
            return _within("content", value, 4000)

    @extend_schema(request=InputSerializer, responses={201: dict}, operation_id="belief_create")
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data["supports"] and data["supports"] == data["contradicts"]:
            raise ApplicationError(
                "a belief cannot support and contradict one lesson", code="invalid"
            )
        principal = _principal(request)
        belief = belief_create(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id, content=data["content"],
            confidence=data["confidence"],
            derived_from=[ParentRef(p["type"], p["id"]) for p in data["derived_from"]],
            supports=data["supports"], contradicts=data["contradicts"],
        )  # fmt: skip
        belief = Belief.objects.select_related("agent").get(id=belief.id)
        return Response(belief_out(belief), status=201)


class DecisionsApi(APIView):
    query_parameters = frozenset({"status"})

    def get_permissions(self) -> list[Any]:
        return [IsWriter()] if self.request.method == "POST" else [IsReader()]

    class InputSerializer(StrictSerializer):
        action = StrictCharField()
        based_on = serializers.ListField(child=serializers.UUIDField(), allow_empty=False)

        def validate_action(self, value: str) -> str:
            return _within("action", value, 4000)

    @extend_schema(request=InputSerializer, responses={201: dict}, operation_id="decision_create")
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        principal = _principal(request)
        wanted = set(serializer.validated_data["based_on"])
        found = set(Lesson.objects.filter(id__in=wanted).values_list("id", flat=True))
        if wanted - found:
            raise NotFound(
                f"no lesson {sorted(map(str, wanted - found))[0]}", code="lesson_not_found"
            )
        decision = Decision.objects.create(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id,
            action=serializer.validated_data["action"],
        )  # fmt: skip
        DecisionBasis.objects.bulk_create(
            [DecisionBasis(tenant_id=principal.tenant_id, decision=decision, lesson_id=i)
             for i in sorted(wanted)]
        )  # fmt: skip
        decision = Decision.objects.select_related("agent").get(id=decision.id)
        return Response(decision_out(decision), status=201)

    @extend_schema(
        parameters=[OpenApiParameter("status", str, enum=["ok", "needs_review", "all"])],
        responses=dict,
        operation_id="decisions_list",
    )
    def get(self, request: Request) -> Response:
        status = request.query_params.get("status", "all")
        if status not in (*DecisionStatus.values, "all"):
            raise ApplicationError("status must be ok, needs_review or all", code="invalid_choice")
        decisions = Decision.objects.select_related("agent").order_by("created_at")
        if status != "all":
            decisions = decisions.filter(status=status)
        return Response({"decisions": [decision_out(d) for d in decisions[:500]]})


_LINEAGE_SQL = f"""
WITH RECURSIVE {LINEAGE_WALK}
SELECT e.belief_id, e.kind, e.to_observation_id, e.to_belief_id, e.to_lesson_id
FROM provenance_edge e
WHERE e.belief_id IN (SELECT belief_id FROM g)
LIMIT %(limit)s
"""  # noqa: S608 (a constant)


class LessonLineageApi(APIView):
    """The lesson on top, the beliefs under it, the observations at the
    floor: ``{"nodes", "edges"}``, each node with its type, status and
    validity."""

    permission_classes = [IsReader]

    @extend_schema(responses=dict, operation_id="lesson_lineage")
    def get(self, request: Request, lesson_id: uuid.UUID) -> Response:
        return Response(lesson_lineage(lesson_id))


def lesson_lineage(lesson_id: uuid.UUID, *, curator: bool = False) -> dict[str, Any]:
    """The lineage of a lesson of the caller's tenant (the API's and the
    dashboard's; a quarantined lesson's for curators only). Precondition:
    inside the tenant's context."""
    from memory.api import lessons_out
    from memory.selectors import lesson_get

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
    return {"lesson": str(lesson.id), "nodes": nodes, "edges": edges}
