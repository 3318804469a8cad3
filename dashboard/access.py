"""Who may open a dashboard page, and over which tenant: a logged-in staff
user over a tenant they curate, or a superuser over any one tenant at a
time. Every page runs in ``tenant_context`` — row-level security, not a
filter, keeps the other tenants' rows out — and the services its actions
call join that transaction (``run_apply_transaction(joinable=True)``), as
in the admin."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.staff import dashboard_tenant, dashboard_tenants
from accounts.tenancy import tenant_context
from regions.routing import current_region, multi_region

LOGIN_URL = "/dashboard/login/"


def curator_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @login_required(login_url=LOGIN_URL)
    @wraps(view)
    def scoped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        current = dashboard_tenant(request)
        if current is None:
            return render(request, "dashboard/no_tenant.html", status=403)
        request.tenant_id, request.tenant_slug = current  # type: ignore[attr-defined]
        request.tenant_slugs = [slug for _, slug in dashboard_tenants(request)]  # type: ignore[attr-defined]
        # With regions, where this tenant's memory lives (the request is routed there).
        request.tenant_region = current_region() if multi_region() else None  # type: ignore[attr-defined]
        with tenant_context(current[0]):
            response = view(request, *args, **kwargs)
            render_now = getattr(response, "render", None)
            if render_now is not None and not getattr(response, "is_rendered", True):
                render_now()  # templates query lazily: inside the scope
        return response

    return scoped
