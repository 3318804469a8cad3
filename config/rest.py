"""What every REST surface shares: the caller's principal. (Each request
runs in one transaction scoped to the key's tenant, ``ATOMIC_REQUESTS``;
a service that changes what a learn may have judged against joins it:
``accounts.tenancy.run_apply_transaction(joinable=True)``.)"""

from __future__ import annotations

from rest_framework.request import Request

from accounts.principal import AgentPrincipal


def request_principal(request: Request) -> AgentPrincipal:
    """The agent the API key identified (DRF's ``request.user``)."""
    principal = request.user
    assert isinstance(principal, AgentPrincipal)
    return principal
