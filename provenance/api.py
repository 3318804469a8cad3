"""The provenance API: observations, beliefs, decisions, lineage and the
invalidation cascade. Thin views over provenance.services/cascade."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsReader, IsWriter
from config.errors import ApplicationError
from config.rest import request_principal
from config.serializers import StrictCharField, StrictFloatField, StrictSerializer
from memory.inputs import CONTENT_MAX, ParentIn, within
from provenance.cascade import observation_invalidate
from provenance.models import (
    DecisionStatus,
    SourceType,
)
from provenance.presenters import (
    BeliefOut,
    DecisionOut,
    DecisionsOut,
    InvalidationReportOut,
    LineageOut,
    ObservationOut,
    belief_out,
    decision_out,
    decisions_out,
    lesson_lineage,
    observation_out,
)
from provenance.selectors import decisions_list
from provenance.services import (
    ParentRef,
    belief_create,
    decision_record,
    decision_review,
    observation_record,
)


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
            return within("content", value, CONTENT_MAX)

    @extend_schema(
        request=InputSerializer, responses={201: ObservationOut}, operation_id="observation_create"
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        principal = request_principal(request)
        observation = observation_record(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id,
            **serializer.validated_data,
        )  # fmt: skip
        return Response(observation_out(observation), status=201)


class ObservationInvalidateApi(APIView):
    permission_classes = [IsCurator]

    class InputSerializer(StrictSerializer):
        reason = StrictCharField(max_length=500)

    @extend_schema(
        request=InputSerializer,
        responses=InvalidationReportOut,
        operation_id="observation_invalidate",
    )
    def post(self, request: Request, observation_id: uuid.UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        report = observation_invalidate(
            principal=request_principal(request), observation_id=observation_id,
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
            return within("content", value, CONTENT_MAX)

    @extend_schema(
        request=InputSerializer, responses={201: BeliefOut}, operation_id="belief_create"
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data["supports"] and data["supports"] == data["contradicts"]:
            raise ApplicationError(
                "a belief cannot support and contradict one lesson", code="invalid"
            )
        principal = request_principal(request)
        belief = belief_create(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id, content=data["content"],
            confidence=data["confidence"],
            derived_from=[ParentRef(p["type"], p["id"]) for p in data["derived_from"]],
            supports=data["supports"], contradicts=data["contradicts"],
        )  # fmt: skip
        return Response(belief_out(belief), status=201)


class DecisionsApi(APIView):
    query_parameters = frozenset({"status"})

    def get_permissions(self) -> list[Any]:
        return [IsWriter()] if self.request.method == "POST" else [IsReader()]

    class InputSerializer(StrictSerializer):
        action = StrictCharField()
        based_on = serializers.ListField(child=serializers.UUIDField(), allow_empty=False)

        def validate_action(self, value: str) -> str:
            return within("action", value, CONTENT_MAX)

    @extend_schema(
        request=InputSerializer, responses={201: DecisionOut}, operation_id="decision_create"
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        principal = request_principal(request)
        decision = decision_record(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id,
            action=serializer.validated_data["action"],
            based_on=set(serializer.validated_data["based_on"]),
        )  # fmt: skip
        return Response(decision_out(decision), status=201)

    @extend_schema(
        parameters=[OpenApiParameter("status", str, enum=["ok", "needs_review", "all"])],
        responses=DecisionsOut,
        operation_id="decisions_list",
    )
    def get(self, request: Request) -> Response:
        status = request.query_params.get("status", "all")
        if status not in (*DecisionStatus.values, "all"):
            raise ApplicationError("status must be ok, needs_review or all", code="invalid_choice")
        return Response({"decisions": decisions_out(decisions_list(status=status))})


class DecisionReviewApi(APIView):
    """Curator: a decision flagged ``needs_review`` (a lesson it rested on
    fell) was looked at; its status is ``ok`` again. Audited."""

    permission_classes = [IsCurator]

    class InputSerializer(StrictSerializer):
        reason = StrictCharField(max_length=1000)

    @extend_schema(request=InputSerializer, responses=DecisionOut, operation_id="decision_review")
    def post(self, request: Request, decision_id: uuid.UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        decision = decision_review(
            principal=request_principal(request), decision_id=decision_id,
            reason=serializer.validated_data["reason"],
        )  # fmt: skip
        return Response(decision_out(decision))


class LessonLineageApi(APIView):
    """The lesson on top, the beliefs under it, the observations at the
    floor: ``{"nodes", "edges"}``, each node with its type, status and
    validity."""

    permission_classes = [IsReader]

    @extend_schema(responses=LineageOut, operation_id="lesson_lineage")
    def get(self, request: Request, lesson_id: uuid.UUID) -> Response:
        return Response(lesson_lineage(lesson_id))
