from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from accounts.principal import AgentPrincipal
from accounts.services import api_key_authenticate
from config.logjson import tenant_slug


class ApiKeyAuthentication(BaseAuthentication):
    """``Authorization: Bearer trib_<prefix>_<secret>``.

    Missing, malformed, unknown and revoked keys all fail the same way (the
    exception handler gives them one 401 body). On success the request's
    transaction is scoped to the key's tenant.
    """

    def authenticate(self, request: Request) -> tuple[AgentPrincipal, AgentPrincipal] | None:
        header = get_authorization_header(request)
        if not header:
            return None
        try:
            scheme, _, raw = header.decode("ascii").partition(" ")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed() from None
        if scheme.lower() != "bearer":
            raise exceptions.AuthenticationFailed()
        if transaction.get_connection().in_atomic_block:
            principal = api_key_authenticate(raw.strip())
        else:
            # A view that manages its own transactions: verify the key in
            # one of ours (the tenant it sets ends with it; such a view
            # scopes its work with tenant_context itself).
            with transaction.atomic():
                principal = api_key_authenticate(raw.strip())
        if principal is None:
            raise exceptions.AuthenticationFailed()
        # For the request's log lines (config.logjson): the slug, never the key.
        request._request.tributary_tenant = principal.tenant_slug  # type: ignore[attr-defined]
        tenant_slug.set(principal.tenant_slug)
        return principal, principal

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="tributary"'


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "bearerFormat": "trib_<prefix>_<secret>"}
