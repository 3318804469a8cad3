"""What every REST surface shares: the caller's principal, and the base
view of endpoints whose service runs its own transaction."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.principal import AgentPrincipal


def request_principal(request: Request) -> AgentPrincipal:
    """The agent the API key identified (DRF's ``request.user``)."""
    principal = request.user
    assert isinstance(principal, AgentPrincipal)
    return principal


class OwnTransactionApi(APIView):
    """An endpoint whose service runs its own apply transaction (it changes
    what a concurrent learn may have judged against, so it is snapshot-
    isolated and retried like a learn), which must be the outermost one: the
    request is therefore not wrapped in a transaction, and the view scopes
    its reads with ``tenant_context``."""

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        return transaction.non_atomic_requests(super().as_view(**initkwargs))
