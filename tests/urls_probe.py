"""Test-only URLs: endpoints that exercise the role helpers and tenant
scoping through real HTTP before the product's own endpoints exist."""

from __future__ import annotations

import uuid

from django.urls import include, path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Agent
from accounts.permissions import IsCurator, IsWriter
from config.errors import NotFound


class WriterProbe(APIView):
    permission_classes = [IsWriter]

    def post(self, request: Request) -> Response:
        return Response({"ok": True})


class CuratorProbe(APIView):
    permission_classes = [IsCurator]

    def post(self, request: Request) -> Response:
        return Response({"ok": True})


class AgentProbe(APIView):
    def get(self, request: Request, agent_id: uuid.UUID) -> Response:
        agent = Agent.objects.filter(id=agent_id).first()
        if agent is None:
            raise NotFound("no such agent")
        return Response({"name": agent.name})


urlpatterns = [
    path("api/v1/_probe/writer", WriterProbe.as_view()),
    path("api/v1/_probe/curator", CuratorProbe.as_view()),
    path("api/v1/_probe/agents/<uuid:agent_id>", AgentProbe.as_view()),
    path("", include("config.urls")),
]
