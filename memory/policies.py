"""Each kind's forgetting policy for a tenant: a curator's row where one was
set (``curation.policies.kind_policy_set``), else the settings' default
(``TRIBUTARY_KIND_POLICIES``). Read by the learn worker (TTLs) and the
gardener."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from django.conf import settings

from memory.models import Kind, KindPolicy

POLICY_FIELDS = (
    "ceiling", "ttl_seconds", "half_life_days", "retire_below", "eviction", "merge_duplicates",
    "pinned",
)  # fmt: skip


@dataclass(frozen=True)
class EffectivePolicy:
    kind: str
    ceiling: int | None
    ttl_seconds: int | None
    half_life_days: float | None
    retire_below: float
    eviction: str
    merge_duplicates: bool
    source: str  # default | tenant
    pinned: bool = False  # lessons of the kind are pinned when learned
    updated_by: str = ""
    updated_at: datetime | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["updated_at"] = self.updated_at.isoformat() if self.updated_at else None
        return out


def default_policy(kind: str) -> dict[str, Any]:
    return dict(settings.TRIBUTARY_KIND_POLICIES[kind])


def kind_policies(tenant_id: uuid.UUID) -> dict[str, EffectivePolicy]:
    """Every kind's effective policy for the tenant: its own row where a
    curator set one, else the settings' default. Precondition: inside the
    tenant's context."""
    rows = {p.kind: p for p in KindPolicy.objects.filter(tenant_id=tenant_id)}
    policies = {}
    for kind in Kind.values:
        row = rows.get(kind)
        if row is None:
            policies[kind] = EffectivePolicy(kind=kind, source="default", **default_policy(kind))
        else:
            fields = {name: getattr(row, name) for name in POLICY_FIELDS}
            policies[kind] = EffectivePolicy(
                kind=kind, source="tenant", updated_by=row.updated_by,
                updated_at=row.updated_at, **fields,
            )  # fmt: skip
    return policies
