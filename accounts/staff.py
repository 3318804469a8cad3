"""Staff users (Django's auth) as curators: which tenants they curate
(``StaffMembership``) and which one they are curating now. Shared by the
admin and the dashboard; the choice lives in the session."""

from __future__ import annotations

import hashlib
import uuid

from django.http import HttpRequest

from accounts.principal import AgentPrincipal
from config.errors import Forbidden
from regions.directory import Placement, placements, placements_of

SESSION_TENANT = "tributary_tenant"


def _placements(request: HttpRequest) -> list[Placement]:
    """The tenants the request's user may curate, by slug, from the
    directory (read once per request): a staff user's memberships, every
    tenant of every region for a superuser."""
    from accounts.models import StaffMembership

    cached = getattr(request, "_tributary_placements", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    user = request.user
    found: list[Placement] = []
    if user.is_active and user.is_superuser:
        found = placements()
    elif user.is_active and user.is_staff:
        slugs = StaffMembership.objects.filter(user_id=user.pk).values_list(
            "tenant_slug", flat=True
        )
        found = sorted(placements_of(list(slugs)), key=lambda p: p.slug)
    request._tributary_placements = found  # type: ignore[attr-defined]
    return found


def staff_tenants(request: HttpRequest) -> list[tuple[uuid.UUID, str]]:
    """(id, slug) of the tenants the request's staff user curates, by slug
    (none for a superuser, who curates through cross_tenant)."""
    if request.user.is_superuser:
        return []
    return [(p.tenant_id, p.slug) for p in _placements(request)]


def _chosen(request: HttpRequest) -> Placement | None:
    """The tenant chosen in the session if the user may see it, else the first."""
    found = _placements(request)
    wanted = request.session.get(SESSION_TENANT)
    return next((p for p in found if p.slug == wanted), found[0] if found else None)


def curated_tenant(request: HttpRequest) -> tuple[uuid.UUID, str] | None:
    """The tenant a staff user is curating now (None for a superuser, who
    sees all, and for a user who curates nothing)."""
    if request.user.is_superuser:
        return None
    chosen = _chosen(request)
    return None if chosen is None else (chosen.tenant_id, chosen.slug)


def dashboard_tenants(request: HttpRequest) -> list[tuple[uuid.UUID, str]]:
    """The tenants the dashboard may show this user: a staff user's, or
    every tenant for a superuser (the dashboard always shows one at a time)."""
    return [(p.tenant_id, p.slug) for p in _placements(request)]


def dashboard_tenant(request: HttpRequest) -> tuple[uuid.UUID, str] | None:
    """The tenant the dashboard shows now: the one chosen in the session if
    the user may see it, else the first."""
    chosen = _chosen(request)
    return None if chosen is None else (chosen.tenant_id, chosen.slug)


def page_region(request: HttpRequest) -> str | None:
    """The region the admin and the dashboard serve this user from: that
    of the tenant chosen now (a superuser sees the tenants of one region at
    a time: the region of the tenant they last chose)."""
    if not getattr(request.user, "is_authenticated", False):
        return None
    chosen = _chosen(request)
    return None if chosen is None else chosen.region


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
