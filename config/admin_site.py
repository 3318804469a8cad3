"""The admin site: the operator's and the curators' tool.

* A **superuser** sees every tenant: each admin view runs through the one
  cross-tenant mechanism (``accounts.tenancy.cross_tenant``).
* A **staff user with a tenant membership** (``accounts.StaffMembership``)
  is a curator of that tenant: each admin view runs in
  ``tenant_context(tenant)``, so row-level security itself keeps every other
  tenant's rows out of every list, form and action. A staff user of several
  tenants switches with ``/admin/tenant/<slug>/``.
* Anyone else is sent to the login page.

Curator actions run the same services as the API (which join the admin
request's transaction: ``run_apply_transaction(joinable=True)``), as the
agent ``staff:<username>`` of the tenant, and each service audits itself
with who and why (``memory.CuratorAction``).
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from django.contrib.admin import AdminSite
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.urls import URLPattern, URLResolver, path, reverse

from accounts.staff import SESSION_TENANT, curated_tenant, staff_tenants
from accounts.tenancy import cross_tenant, tenant_context


class TributaryAdminSite(AdminSite):
    site_header = "Tributary"
    site_title = "Tributary admin"
    index_title = "Shared memory"

    def has_permission(self, request: HttpRequest) -> bool:
        user = request.user
        if not user.is_active:
            return False
        return bool(user.is_superuser or curated_tenant(request) is not None)

    def each_context(self, request: HttpRequest) -> dict[str, Any]:
        context = super().each_context(request)
        if request.user.is_authenticated and not request.user.is_superuser:
            current = curated_tenant(request)
            context["curated_tenant"] = current[1] if current else None
            context["curated_tenants"] = [slug for _, slug in staff_tenants(request)]
        return context

    def get_urls(self) -> list[URLResolver | URLPattern]:
        return [
            path("tenant/<slug:slug>/", self.admin_view(self.switch_tenant), name="switch_tenant"),
            *super().get_urls(),
        ]

    def switch_tenant(self, request: HttpRequest, slug: str) -> HttpResponse:
        # A POST (CSRF-checked): a link elsewhere must not switch what a
        # curator acts on.
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if slug not in [s for _, s in staff_tenants(request)]:
            raise Http404("no such tenant")
        request.session[SESSION_TENANT] = slug
        return HttpResponseRedirect(reverse("admin:index"))

    def admin_view(self, view: Any, cacheable: bool = False) -> Any:
        inner = super().admin_view(view, cacheable)

        @wraps(view)
        def scoped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not self.has_permission(request):
                return inner(request, *args, **kwargs)  # the login redirect
            current = curated_tenant(request)
            if current is None:  # a superuser
                reason = f"admin {request.user.get_username()} {request.method} {request.path}"
                scope = cross_tenant(reason=reason)
            else:
                scope = tenant_context(current[0])
            with scope:
                response = inner(request, *args, **kwargs)
                # Templates query lazily: render while the scope is open.
                render = getattr(response, "render", None)
                if render is not None and not getattr(response, "is_rendered", True):
                    render()
            return response

        return scoped
