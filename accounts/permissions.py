"""Role permissions: reader < writer < curator.

A view declares the least role it needs, e.g.
``permission_classes = [IsWriter]``.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.models import Role
from accounts.principal import AgentPrincipal


class _HasRole(BasePermission):
    minimum: Role = Role.READER
    message = "Your role does not allow this."

    def has_permission(self, request: Request, view: Any) -> bool:
        principal = request.user
        if not isinstance(principal, AgentPrincipal):
            return False  # DRF turns this into 401 when no key was given
        if not principal.has_role(self.minimum):
            self.message = (
                f"This needs the {self.minimum} role; this key's agent is a {principal.role}."
            )
            return False
        return True


class IsReader(_HasRole):
    minimum = Role.READER


class IsWriter(_HasRole):
    minimum = Role.WRITER


class IsCurator(_HasRole):
    minimum = Role.CURATOR
