"""The admin site: superusers only, and every admin view runs through the
one cross-tenant mechanism (``accounts.tenancy.cross_tenant``).

Tenant-scoped staff (a curator who sees only their tribe) come with the
dashboard; until then the admin is the operator's tool.
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from django.contrib.admin import AdminSite
from django.http import HttpRequest, HttpResponse

from accounts.tenancy import cross_tenant


class TributaryAdminSite(AdminSite):
    site_header = "Tributary"
    site_title = "Tributary admin"
    index_title = "Shared memory"

    def has_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_superuser)

    def admin_view(self, view: Any, cacheable: bool = False) -> Any:
        inner = super().admin_view(view, cacheable)

        @wraps(view)
        def scoped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not self.has_permission(request):
                return inner(request, *args, **kwargs)  # the login redirect
            reason = f"admin {request.user.get_username()} {request.method} {request.path}"
            with cross_tenant(reason=reason):
                response = inner(request, *args, **kwargs)
                # Templates query lazily: render while the scope is open.
                render = getattr(response, "render", None)
                if render is not None and not getattr(response, "is_rendered", True):
                    render()
            return response

        return scoped
