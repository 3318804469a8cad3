from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from accounts.models import Agent, ApiKey, StaffMembership, Tenant
from accounts.services import api_key_issue, api_key_revoke, check_slug
from regions.directory import placements, tenant_place
from regions.routing import current_region


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = [
        "slug",
        "name",
        "region",
        "rate_limit_per_minute",
        "storage_quota_bytes",
        "created_at",
    ]
    search_fields = ["slug", "name"]
    list_filter = ["region"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # A tenant's region is where its data lives; it does not move.
        return ["region", "created_at"] if obj else ["created_at"]

    def save_model(self, request: HttpRequest, obj: Tenant, form: Any, change: bool) -> None:
        if not change:
            check_slug(obj.slug)
            # A new tenant lives in the region the admin is routed to now.
            obj.region = current_region() or obj.region
        super().save_model(request, obj, form, change)
        if not change:
            tenant_place(slug=obj.slug, tenant_id=obj.id, region=obj.region)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Its evidence cannot be deleted (a trigger refuses it): removing a
        # tenant is an operator's task as superuser, not a click.
        return False


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["name", "tenant", "role", "created_at"]
    list_filter = ["role", "tenant"]
    search_fields = ["name", "tenant__slug"]
    list_select_related = ["tenant"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["tenant", "created_at"] if obj else ["created_at"]


class IssueKeyForm(forms.Form):
    agent = forms.ModelChoiceField(queryset=Agent.objects.select_related("tenant"))
    label = forms.CharField(max_length=200, required=False)


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    """Keys are read-only: issued through ``add`` (the secret is shown once),
    revoked through the action, never edited."""

    list_display = [
        "__str__",
        "agent",
        "tenant",
        "label",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    list_filter = ["tenant", ("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["prefix", "label", "agent__name"]
    list_select_related = ["agent", "tenant"]
    readonly_fields = [
        "prefix",
        "tenant",
        "agent",
        "label",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    exclude = ["secret_hash"]
    actions = ["revoke"]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Revoke selected keys")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        for key in queryset:
            api_key_revoke(prefix=key.prefix)
        messages.success(request, f"Revoked {queryset.count()} key(s).")

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        form = IssueKeyForm(request.POST or None)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Issue an API key",
            "form": form,
        }
        if request.method == "POST" and form.is_valid():
            issued = api_key_issue(
                agent=form.cleaned_data["agent"], label=form.cleaned_data["label"]
            )
            context.update({"title": "API key issued", "issued": issued})
            response = TemplateResponse(request, "admin/accounts/apikey/issued.html", context)
            response["Cache-Control"] = "no-store"
            return response
        return TemplateResponse(request, "admin/accounts/apikey/issue.html", context)


def _tenant_slugs() -> list[tuple[str, str]]:
    return [(p.slug, f"{p.slug} ({p.region})") for p in placements()]


class StaffMembershipForm(forms.ModelForm):
    tenant_slug = forms.ChoiceField(label="Tenant", choices=_tenant_slugs)

    class Meta:
        model = StaffMembership
        fields = ["user", "tenant_slug"]


@admin.register(StaffMembership)
class StaffMembershipAdmin(admin.ModelAdmin):
    """Which staff users curate which tenants (superusers manage this);
    tenants of every region, from the directory."""

    form = StaffMembershipForm
    list_display = ["user", "tenant_slug", "created_at"]
    list_filter = ["tenant_slug"]
    list_select_related = ["user"]
