"""Admin for curation: disputes (resolved with the dispute service), kind
policies (set with the policy service), the forgetting journal and the
gardener's runs and schedule (read-only), and the curators' audit."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from accounts.principal import AgentPrincipal
from accounts.staff import acting_principal, curated_tenant
from config.admin_base import CuratorAdmin, is_curator
from curation.disputes import dispute_resolve
from curation.models import GardenerRun, JournalLine
from curation.policies import kind_policy_set
from curation.selectors import gardener_schedule
from memory.admin import TenantColumnMixin
from memory.models import CuratorAction, Dispute, Kind, KindPolicy, Resolution
from memory.policies import POLICY_FIELDS


@admin.register(Dispute)
class DisputeAdmin(TenantColumnMixin, CuratorAdmin):
    list_display = ["created_at", "status", "resolution", "new_lesson", "existing_lesson",
                    "opened_by", "resolved_by"]  # fmt: skip
    list_filter = ["status", "resolution"]
    list_select_related = ["lesson", "target", "opened_by", "resolved_by"]
    actions = ["keep_old", "accept_new", "keep_both"]

    @admin.display(description="new lesson")
    def new_lesson(self, obj: Dispute) -> str:
        return obj.lesson.content[:100] or "(erased)"

    @admin.display(description="existing lesson")
    def existing_lesson(self, obj: Dispute) -> str:
        return obj.target.content[:100] or "(erased)"

    def _resolve(self, request: HttpRequest, queryset: QuerySet[Dispute], how: str) -> None:
        def apply(principal: AgentPrincipal, dispute: Dispute, reason: str) -> None:
            dispute_resolve(principal=principal, dispute_id=dispute.id, resolution=how, note=reason)

        self.run_action(request, queryset, f"resolve_{how}", apply)

    @admin.action(description="Resolve: keep the existing lesson")
    def keep_old(self, request: HttpRequest, queryset: QuerySet[Dispute]) -> None:
        self._resolve(request, queryset, Resolution.KEEP_OLD)

    @admin.action(description="Resolve: accept the new lesson (supersedes the old)")
    def accept_new(self, request: HttpRequest, queryset: QuerySet[Dispute]) -> None:
        self._resolve(request, queryset, Resolution.ACCEPT_NEW)

    @admin.action(description="Resolve: keep both")
    def keep_both(self, request: HttpRequest, queryset: QuerySet[Dispute]) -> None:
        self._resolve(request, queryset, Resolution.KEEP_BOTH)


class KindPolicyForm(forms.ModelForm):
    """The API's rules (``PUT /api/v1/curation/policies/<kind>``) in a form."""

    kind = forms.ChoiceField(choices=Kind.choices)
    ceiling = forms.IntegerField(min_value=1, max_value=10_000_000, required=False)
    ttl_seconds = forms.IntegerField(min_value=60, max_value=10 * 365 * 86400, required=False)
    half_life_days = forms.FloatField(min_value=0.01, max_value=36500, required=False)
    retire_below = forms.FloatField(min_value=0.0, max_value=1.0)
    reason = forms.CharField(max_length=1000, help_text="Why (audited).")

    class Meta:
        model = KindPolicy
        fields = ["tenant", "kind", *POLICY_FIELDS]


@admin.register(KindPolicy)
class KindPolicyAdmin(TenantColumnMixin, CuratorAdmin):
    """A curator's overrides of the kind policies (defaults: settings);
    ``GET /api/v1/curation/state`` shows the effective ones."""

    form = KindPolicyForm
    list_display = ["kind", *POLICY_FIELDS, "updated_by", "updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_curator(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_curator(request)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        fields = ["kind", *POLICY_FIELDS, "reason"]
        # A curator's tenant is the one being curated; only a superuser picks.
        return ["tenant", *fields] if request.user.is_superuser else fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["tenant", "kind"] if obj else []

    def save_model(self, request: HttpRequest, obj: KindPolicy, form: Any, change: bool) -> None:
        current = curated_tenant(request)
        tenant_id = current[0] if current else obj.tenant_id
        principal = acting_principal(request, tenant_id)
        saved = kind_policy_set(
            principal=principal, kind=obj.kind, reason=form.cleaned_data["reason"],
            **{name: getattr(obj, name) for name in POLICY_FIELDS},
        )  # fmt: skip
        obj.pk = KindPolicy.objects.get(tenant_id=tenant_id, kind=saved.kind).pk


@admin.register(JournalLine)
class JournalLineAdmin(TenantColumnMixin, CuratorAdmin):
    list_display = ["created_at", "kind", "rule", "action", "age_seconds", "times_recalled",
                    "times_reinforced"]  # fmt: skip
    list_filter = ["rule", "kind", "action"]
    date_hierarchy = "created_at"


@admin.register(GardenerRun)
class GardenerRunAdmin(TenantColumnMixin, CuratorAdmin):
    """The gardener's runs, with its schedule (settings) above the list."""

    list_display = ["started_at", "task", "trigger", "counts", "error", "finished_at"]
    list_filter = ["task", "trigger"]
    date_hierarchy = "started_at"

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        return super().changelist_view(
            request, {**(extra_context or {}), "gardener_schedule": gardener_schedule()}
        )


@admin.register(CuratorAction)
class CuratorActionAdmin(TenantColumnMixin, CuratorAdmin):
    list_display = ["created_at", "actor", "action", "target_type", "target_id", "reason"]
    list_filter = ["action", "target_type"]
    search_fields = ["actor", "target_id", "reason"]
    date_hierarchy = "created_at"
