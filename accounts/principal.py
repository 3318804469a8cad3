from __future__ import annotations

import uuid
from dataclasses import dataclass

from accounts.models import ROLE_RANK, Role


@dataclass(frozen=True)
class AgentPrincipal:
    """Who is calling: derived from the API key and from nothing else."""

    tenant_id: uuid.UUID
    tenant_slug: str
    region: str
    agent_id: uuid.UUID
    agent_name: str
    role: Role
    key_id: uuid.UUID
    rate_limit_per_minute: int | None = None  # the tenant's; None: the setting

    # DRF and Django treat ``request.user`` as a user object.
    is_authenticated = True
    is_anonymous = False

    def has_role(self, minimum: Role) -> bool:
        return ROLE_RANK[self.role] >= ROLE_RANK[minimum]

    def require_curator(self, doing: str) -> None:
        """Refuse (403) unless the caller is a curator: every curator-only
        service checks here, whichever surface called it."""
        if self.role != Role.CURATOR:
            from config.errors import Forbidden

            raise Forbidden(f"only a curator {doing}")
