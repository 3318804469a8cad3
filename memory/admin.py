"""Admin for lessons (search, filters, curator actions), the learn inbox,
the judge's record (model calls with spend, escalation rate and latency by
model above the list) and evaluation runs (superusers)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from accounts.principal import AgentPrincipal
from accounts.staff import curated_tenant
from config.admin_base import CuratorAdmin
from memory.models import EvalRun, LearnRequest, Lesson, ModelCall
from memory.services.lessons import lesson_curate
from memory.stats import judge_summary


class TenantColumnMixin:
    """Superusers see every tenant: show and filter by it. A curator sees
    one tenant, so the column would only repeat it."""

    def get_list_display(self, request: HttpRequest) -> Any:
        columns = list(super().get_list_display(request))  # type: ignore[misc]
        return [*columns, "tenant"] if request.user.is_superuser else columns

    def get_list_filter(self, request: HttpRequest) -> Any:
        filters = list(super().get_list_filter(request))  # type: ignore[misc]
        return [*filters, "tenant"] if request.user.is_superuser else filters


@admin.register(Lesson)
class LessonAdmin(TenantColumnMixin, CuratorAdmin):
    list_display = [
        "short_content", "kind", "status", "corroboration", "confidence", "pinned", "author",
        "reinforcement_count", "last_useful_at", "activated_at",
    ]  # fmt: skip
    list_filter = ["status", "kind", "corroboration", "pinned"]
    search_fields = ["content", "situation"]
    list_select_related = ["author"]
    date_hierarchy = "created_at"
    actions = ["retire", "pin", "unpin", "erase"]
    exclude = ["embedding"]

    @admin.display(description="content")
    def short_content(self, obj: Lesson) -> str:
        return obj.content[:120] or "(erased)"

    @admin.action(description="Retire (history kept)")
    def retire(self, request: HttpRequest, queryset: QuerySet[Lesson]) -> None:
        self._curate(request, queryset, "retire")

    @admin.action(description="Pin (the gardener never forgets it)")
    def pin(self, request: HttpRequest, queryset: QuerySet[Lesson]) -> None:
        self._curate(request, queryset, "pin")

    @admin.action(description="Unpin")
    def unpin(self, request: HttpRequest, queryset: QuerySet[Lesson]) -> None:
        self._curate(request, queryset, "unpin")

    @admin.action(description="Erase (content and embedding deleted everywhere)")
    def erase(self, request: HttpRequest, queryset: QuerySet[Lesson]) -> None:
        self._curate(request, queryset, "erase")

    def _curate(self, request: HttpRequest, queryset: QuerySet[Lesson], action: str) -> None:
        def apply(principal: AgentPrincipal, lesson: Lesson, reason: str) -> None:
            lesson_curate(principal=principal, lesson_id=lesson.id, action=action, reason=reason)

        self.run_action(request, queryset, action, apply)


@admin.register(LearnRequest)
class LearnRequestAdmin(TenantColumnMixin, CuratorAdmin):
    list_display = [
        "created_at", "agent", "kind", "status", "outcome", "judge", "attempts",
        "revalidations", "timings",
    ]  # fmt: skip
    list_filter = ["status", "outcome", "kind", "judge_fallback"]
    search_fields = ["content", "id"]
    list_select_related = ["agent"]
    date_hierarchy = "created_at"


@admin.register(ModelCall)
class ModelCallAdmin(TenantColumnMixin, CuratorAdmin):
    list_display = [
        "created_at", "provider", "model", "purpose", "outcome", "input_tokens",
        "output_tokens", "cost", "latency_ms",
    ]  # fmt: skip
    list_filter = ["provider", "model", "purpose", "outcome"]
    date_hierarchy = "created_at"

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        current = curated_tenant(request)
        summary = judge_summary(current[0] if current else None)
        return super().changelist_view(request, {**(extra_context or {}), "judge_summary": summary})


@admin.register(EvalRun)
class EvalRunAdmin(admin.ModelAdmin):
    """Superusers only (Django's model permissions): runs hold no tenant."""

    list_display = ["created_at", "tier", "judge", "commit", "passed", "metrics"]
    list_filter = ["tier", "judge", "passed"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
