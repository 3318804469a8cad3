"""The admin site: the operator's and the curators' tool.

* A **superuser** sees every tenant: each admin view runs through the one
  cross-tenant mechanism (``accounts.tenancy.cross_tenant``).
* A **staff user with a tenant membership** (``accounts.StaffMembership``)
  is a curator of that tenant: each admin view runs in
  ``tenant_context(tenant)``, so row-level security itself keeps every other
  tenant's rows out of every list, form and action. A staff user of several
  tenants switches with ``/admin/tenant/<slug>/``.
* With regions, every admin view runs in one region's database (the
  middleware routes the request, ``regions.middleware``): a superuser sees
  the tenants of the region of the tenant last chosen (the same switch, or
  the dashboard's), one region at a time.
* Anyone else is sent to the login page.

Curator actions run the same services as the API (which join the admin
request's transaction: ``run_apply_transaction(joinable=True)``), as the
agent ``staff:<username>`` of the tenant, and each service audits itself
with who and why (``memory.CuratorAction``).
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from django.contrib.admin import AdminSite, ModelAdmin
from django.db.models.base import ModelBase
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.urls import URLPattern, URLResolver, path, reverse

from accounts.staff import (
    SESSION_TENANT,
    curated_tenant,
    dashboard_tenants,
    page_region,
    staff_tenants,
)
from accounts.tenancy import cross_tenant, tenant_context
from regions.router import in_directory
from regions.routing import multi_region


class TenantRowsNotLogged:
    """Django's admin change log (``LogEntry``) lives with the users, in the
    directory database, and keeps a ``repr`` of what changed: for a
    tenant's rows that would copy content out of its region. The curator
    audit in the region (``memory.CuratorAction``) is their record."""

    def log_addition(self, request: HttpRequest, obj: Any, message: Any) -> None:
        return None

    def log_change(self, request: HttpRequest, obj: Any, message: Any) -> None:
        return None

    def log_deletion(self, request: HttpRequest, obj: Any, object_repr: str) -> None:
        return None

    def log_deletions(self, request: HttpRequest, queryset: Any) -> None:
        return None


class TributaryAdminSite(AdminSite):
    site_header = "Tributary"
    site_title = "Tributary admin"
    index_title = "Shared memory"

    def register(self, model_or_iterable: Any, admin_class: Any = None, **options: Any) -> None:
        models = (
            [model_or_iterable] if isinstance(model_or_iterable, ModelBase) else model_or_iterable
        )
        for model in models:
            chosen = admin_class or ModelAdmin
            if not in_directory(model):
                chosen = type(chosen.__name__, (TenantRowsNotLogged, chosen), {})
            super().register(model, chosen, **options)  # type: ignore[arg-type]

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
        if request.user.is_authenticated and multi_region():
            context["tributary_region"] = page_region(request)
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
        if slug not in [s for _, s in dashboard_tenants(request)]:
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
