"""What every curator page of the admin shares: who may see it (a
superuser, or a staff user curating a tenant — row-level security scopes
what they see, see ``config.admin_site``), actions that ask why, and the
agent a staff user acts as."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.principal import AgentPrincipal
from accounts.staff import acting_principal, curated_tenant
from config.errors import ApplicationError


class ReasonActionForm(ActionForm):
    reason = forms.CharField(
        max_length=1000, required=False, label="Why",
        widget=forms.TextInput(attrs={"size": 40, "placeholder": "why (required, audited)"}),
    )  # fmt: skip


def is_curator(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_active and (user.is_superuser or curated_tenant(request) is not None))


class CuratorAdmin(admin.ModelAdmin):
    """Visible to curators; nothing is added or deleted here (only through
    the services behind the actions)."""

    action_form = ReasonActionForm

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_curator(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_curator(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        # Django hides actions from users without change permission; curators
        # may run these (each action checks with the service it calls).
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def run_action(
        self,
        request: HttpRequest,
        queryset: QuerySet[Any],
        name: str,
        apply: Callable[[AgentPrincipal, Any, str], str | None],
    ) -> None:
        """Apply ``apply(principal, obj, reason)`` to each selected object,
        as the tenant's curator agent (the service it calls audits it); a
        missing reason refuses the whole action."""
        reason = (request.POST.get("reason") or "").strip()
        if not reason:
            self.message_user(request, "Say why (the reason is audited).", messages.ERROR)
            return
        done = 0
        for obj in queryset:
            try:
                principal = acting_principal(request, obj.tenant_id)
                note = apply(principal, obj, reason)
            except ApplicationError as exc:
                self.message_user(request, f"{obj.pk}: {exc.message}", messages.ERROR)
                continue
            if note:
                self.message_user(request, f"{obj.pk}: {note}", messages.INFO)
            done += 1
        if done:
            self.message_user(request, f"{name}: {done} done.", messages.SUCCESS)
