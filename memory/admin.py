"""Admin for the judge's record: model calls (with spend, escalation rate
and latency by model above the list) and evaluation runs. Read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from memory.models import EvalRun, ModelCall
from memory.stats import judge_summary


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ModelCall)
class ModelCallAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at", "tenant", "provider", "model", "purpose", "outcome", "input_tokens",
        "output_tokens", "cost", "latency_ms",
    ]  # fmt: skip
    list_filter = ["provider", "model", "purpose", "outcome", "tenant"]
    list_select_related = ["tenant"]
    date_hierarchy = "created_at"

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        return super().changelist_view(
            request, {**(extra_context or {}), "judge_summary": judge_summary(None)}
        )


@admin.register(EvalRun)
class EvalRunAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "tier", "judge", "commit", "passed", "metrics"]
    list_filter = ["tier", "judge", "passed"]
