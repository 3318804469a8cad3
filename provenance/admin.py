"""Admin for evidence: observations (invalidate, with the cascade's repair
report) and decisions (those needing review, marked reviewed)."""

from __future__ import annotations

import json

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.principal import AgentPrincipal
from config.admin_base import CuratorAdmin
from memory.admin import TenantColumnMixin
from provenance.cascade import observation_invalidate
from provenance.models import Decision, Observation
from provenance.services import decision_review


@admin.register(Observation)
class ObservationAdmin(TenantColumnMixin, CuratorAdmin):
    list_display = ["short_content", "source_type", "source_family", "valid", "agent", "created_at"]
    list_filter = ["valid", "source_type"]
    search_fields = ["content", "source_uri", "source_family"]
    list_select_related = ["agent"]
    actions = ["invalidate"]

    @admin.display(description="content")
    def short_content(self, obj: Observation) -> str:
        return obj.content[:120] or "(erased)"

    @admin.action(description="Invalidate (the cascade repairs what rests on it)")
    def invalidate(self, request: HttpRequest, queryset: QuerySet[Observation]) -> None:
        def apply(principal: AgentPrincipal, observation: Observation, reason: str) -> str:
            report = observation_invalidate(
                principal=principal, observation_id=observation.id, reason=reason
            )
            return "repair report " + json.dumps(report, default=str)

        self.run_action(request, queryset, "invalidate", apply)


@admin.register(Decision)
class DecisionAdmin(TenantColumnMixin, CuratorAdmin):
    list_display = ["short_action", "status", "review_reason", "agent", "created_at"]
    list_filter = ["status"]
    search_fields = ["action"]
    list_select_related = ["agent"]
    actions = ["mark_reviewed"]

    @admin.display(description="action")
    def short_action(self, obj: Decision) -> str:
        return obj.action[:120]

    @admin.action(description="Mark reviewed (status ok)")
    def mark_reviewed(self, request: HttpRequest, queryset: QuerySet[Decision]) -> None:
        def apply(principal: AgentPrincipal, decision: Decision, reason: str) -> None:
            decision_review(principal=principal, decision_id=decision.id, reason=reason)

        self.run_action(request, queryset, "mark_reviewed", apply)
