from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.principal import AgentPrincipal


class WhoAmIApi(APIView):
    """Who this key belongs to."""

    class OutputSerializer(serializers.Serializer):
        tenant = serializers.CharField(source="tenant_slug")
        agent = serializers.CharField(source="agent_name")
        role = serializers.CharField()

    @extend_schema(responses=OutputSerializer, operation_id="whoami")
    def get(self, request: Request) -> Response:
        principal: AgentPrincipal = request.user  # type: ignore[assignment]
        return Response(self.OutputSerializer(principal).data)
