"""Staff users (Django's auth) as curators: which tenants they curate
(``StaffMembership``) and which one they are curating now. Shared by the
admin and the dashboard; the choice lives in the session."""

from __future__ import annotations

import hashlib
import uuid

from django.http import HttpRequest

from accounts.principal import AgentPrincipal
from accounts.tenancy import cross_tenant
from config.errors import Forbidden

SESSION_TENANT = "tributary_tenant"


def staff_tenants(request: HttpRequest) -> list[tuple[uuid.UUID, str]]:
    """(id, slug) of the tenants the request's staff user curates, by slug;
    read once per request (before any tenant scope is opened)."""
    from accounts.models import StaffMembership

    cached = getattr(request, "_tributary_tenants", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    user = request.user
    tenants: list[tuple[uuid.UUID, str]] = []
    if user.is_active and user.is_staff and not user.is_superuser:
        with cross_tenant(reason=f"staff memberships of {user.get_username()}"):
            tenants = list(
                StaffMembership.objects.filter(user_id=user.pk)
                .order_by("tenant__slug")
                .values_list("tenant_id", "tenant__slug")
            )
    request._tributary_tenants = tenants  # type: ignore[attr-defined]
    return tenants


def curated_tenant(request: HttpRequest) -> tuple[uuid.UUID, str] | None:
    """The tenant a staff user is curating now (None for a superuser, who
    sees all, and for a user who curates nothing)."""
    if hasattr(request, "_tributary_tenant"):
        cached: tuple[uuid.UUID, str] | None = request._tributary_tenant
        return cached
    chosen = None
    if not request.user.is_superuser:
        tenants = staff_tenants(request)
        wanted = request.session.get(SESSION_TENANT)
        chosen = next((t for t in tenants if t[1] == wanted), tenants[0] if tenants else None)
    request._tributary_tenant = chosen  # type: ignore[attr-defined]
    return chosen


def dashboard_tenants(request: HttpRequest) -> list[tuple[uuid.UUID, str]]:
    """The tenants the dashboard may show this user: a staff user's, or
    every tenant for a superuser (the dashboard always shows one at a time)."""
    from accounts.models import Tenant

    user = request.user
    if not user.is_active:
        return []
    if not user.is_superuser:
        return staff_tenants(request)
    with cross_tenant(reason=f"dashboard tenant list for {user.get_username()}"):
        return list(Tenant.objects.order_by("slug").values_list("id", "slug"))


def dashboard_tenant(request: HttpRequest) -> tuple[uuid.UUID, str] | None:
    """The tenant the dashboard shows now: the one chosen in the session if
    the user may see it, else the first."""
    tenants = dashboard_tenants(request)
    wanted = request.session.get(SESSION_TENANT)
    return next((t for t in tenants if t[1] == wanted), tenants[0] if tenants else None)


def staff_agent_name(username: str) -> str:
    """``staff:<username>``, within the agent name's 100 characters: a long
    username keeps a digest of itself, so two never share an identity."""
    name = f"staff:{username}"
    if len(name) <= 100:
        return name
    return f"staff:{username[:80]}~{hashlib.sha256(username.encode()).hexdigest()[:12]}"


def acting_principal(request: HttpRequest, tenant_id: uuid.UUID) -> AgentPrincipal:
    """The curator agent ``staff:<username>`` of the tenant, created on first
    use: admin actions go through the same services (and leave the same
    events) as an agent's. An agent of that name that is not such a curator
    (another role, or one with API keys) is never taken over."""
    from accounts.models import Agent, Role, Tenant

    tenant = Tenant.objects.get(id=tenant_id)
    agent, _ = Agent.objects.get_or_create(
        tenant=tenant, name=staff_agent_name(request.user.get_username()),
        defaults={"role": Role.CURATOR},
    )  # fmt: skip
    if agent.role != Role.CURATOR or agent.api_keys.exists():
        raise Forbidden(f"the agent name {agent.name!r} belongs to an API agent")
    return AgentPrincipal(
        tenant_id=tenant.id, tenant_slug=tenant.slug, region=tenant.region, agent_id=agent.id,
        agent_name=agent.name, role=Role.CURATOR, key_id=uuid.UUID(int=0),
    )  # fmt: skip
