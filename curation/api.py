"""The curation API: disputes and policies (curators), the curation state
(any agent). Thin views over curation's services and selectors."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsReader
from config.errors import ApplicationError
from config.rest import request_principal
from config.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    StrictSerializer,
)
from curation.disputes import dispute_resolve, disputes_list
from curation.policies import corroboration_policy_set, kind_policy_set
from curation.presenters import (
    CorroborationPolicySetOut,
    CurationStateOut,
    DisputeOut,
    DisputesOut,
    KindPolicyOut,
    disputes_out,
)
from curation.selectors import curation_state
from memory.models import DisputeStatus, Eviction, Kind, Resolution


class DisputesApi(APIView):
    permission_classes = [IsCurator]
    query_parameters = frozenset({"status"})

    @extend_schema(
        parameters=[OpenApiParameter("status", str, enum=["open", "resolved", "all"])],
        responses=DisputesOut,
        operation_id="disputes_list",
    )
    def get(self, request: Request) -> Response:
        status = request.query_params.get("status", DisputeStatus.OPEN)
        if status not in (*DisputeStatus.values, "all"):
            raise ApplicationError("status must be open, resolved or all", code="invalid_choice")
        disputes = list(disputes_list(status=None if status == "all" else status)[:500])
        return Response({"disputes": disputes_out(disputes)})


class DisputeResolveApi(APIView):
    permission_classes = [IsCurator]

    class InputSerializer(StrictSerializer):
        resolution = serializers.ChoiceField(
            choices=[c for c in Resolution.choices if c[0] != Resolution.WITHDRAWN]
        )
        note = StrictCharField(max_length=1000, allow_blank=True, default="")

    @extend_schema(request=InputSerializer, responses=DisputeOut, operation_id="dispute_resolve")
    def post(self, request: Request, dispute_id: uuid.UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        principal = request_principal(request)
        dispute_resolve(
            principal=principal,
            dispute_id=dispute_id,
            resolution=serializer.validated_data["resolution"],
            note=serializer.validated_data["note"],
        )
        [answer] = disputes_out([disputes_list(status=None).get(id=dispute_id)])
        return Response(answer)


class CurationStateApi(APIView):
    """Any agent of the tenant may read how its memory forgets."""

    permission_classes = [IsReader]

    @extend_schema(responses=CurationStateOut, operation_id="curation_state")
    def get(self, request: Request) -> Response:
        return Response(curation_state(request_principal(request).tenant_id))


class KindPolicyApi(APIView):
    permission_classes = [IsCurator]

    class InputSerializer(StrictSerializer):
        ceiling = StrictIntegerField(
            min_value=1, max_value=10_000_000, allow_null=True, required=False
        )
        ttl_seconds = StrictIntegerField(min_value=60, max_value=10 * 365 * 86400, allow_null=True,
                                         required=False)  # fmt: skip
        half_life_days = StrictFloatField(min_value=0.01, max_value=36500, allow_null=True,
                                          required=False)  # fmt: skip
        retire_below = StrictFloatField(min_value=0.0, max_value=1.0, required=False)
        eviction = serializers.ChoiceField(choices=Eviction.choices, required=False)
        merge_duplicates = StrictBooleanField(required=False)
        pinned = StrictBooleanField(required=False)
        reason = StrictCharField(max_length=1000, allow_blank=True, default="")

    @extend_schema(
        request=InputSerializer,
        parameters=[OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=sorted(Kind.values))],
        responses=KindPolicyOut,
        operation_id="kind_policy_set",
    )
    def put(self, request: Request, kind: str) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        principal = request_principal(request)
        fields = dict(serializer.validated_data)
        reason = fields.pop("reason")
        policy = kind_policy_set(
            principal=principal, kind=kind, reason=reason, **fields,
        )  # fmt: skip
        return Response(policy.as_dict())


class CorroborationPolicyApi(APIView):
    permission_classes = [IsCurator]

    class InputSerializer(StrictSerializer):
        min_independent_sources = StrictIntegerField(min_value=1, max_value=100, required=False)
        min_confidence = StrictFloatField(min_value=0.0, max_value=1.0, required=False)
        contradiction_confidence = StrictFloatField(min_value=0.0, max_value=1.0, required=False)
        strict = StrictBooleanField(required=False)
        reason = StrictCharField(max_length=1000, allow_blank=True, default="")

    @extend_schema(
        request=InputSerializer,
        responses=CorroborationPolicySetOut,
        operation_id="corroboration_policy_set",
    )
    def put(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        principal = request_principal(request)
        fields = dict(serializer.validated_data)
        reason = fields.pop("reason")
        return Response(
            corroboration_policy_set(
                principal=principal,
                reason=reason,
                **fields,
            )
        )
