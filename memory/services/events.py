"""The record of what happens to lessons: events (the feed and the audit
trail) and the curator audit."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.utils import timezone

from accounts.principal import AgentPrincipal
from config.db.bulk import unsaved
from memory.models import CuratorAction, Event, EventKind


def event_build(
    *,
    tenant_id: uuid.UUID,
    kind: EventKind,
    lesson_id: uuid.UUID | None = None,
    agent_id: uuid.UUID | None = None,
    learn_request_id: uuid.UUID | None = None,
    created_at: datetime | None = None,
    **data: Any,
) -> Event:
    """An unsaved event (for writing many in one statement). ``data`` must
    never hold lesson content."""
    return unsaved(
        Event,
        tenant_id=tenant_id,
        kind=kind,
        lesson_id=lesson_id,
        agent_id=agent_id,
        learn_request_id=learn_request_id,
        created_at=created_at or timezone.now(),
        data={
            key: str(value) if isinstance(value, uuid.UUID) else value
            for key, value in data.items()
        },
    )


def event_record(**fields: Any) -> Event:
    """One event per state change (see ``event_build``), written now."""
    event = event_build(**fields)
    event.save(force_insert=True)
    return event


def curator_action_record(
    *,
    principal: AgentPrincipal,
    action: str,
    target_type: str,
    target_id: str | uuid.UUID = "",
    reason: str = "",
    **data: Any,
) -> None:
    """Audit what a curator did, who and why, in the transaction that did
    it. The actor is the acting agent's name — an API agent's, or
    ``staff:<username>`` for a staff user in the admin or the dashboard
    (``accounts.staff.acting_principal``). ``data`` must never hold lesson
    content. Precondition: inside the tenant's transaction."""
    CuratorAction.objects.create(
        tenant_id=principal.tenant_id, actor=principal.agent_name[:200], action=action,
        target_type=target_type, target_id=str(target_id), reason=reason[:1000],
        data={k: str(v) if isinstance(v, uuid.UUID) else v for k, v in data.items()},
    )  # fmt: skip
