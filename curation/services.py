"""Writes for curation: events (the feed and the audit trail)."""

from __future__ import annotations

import uuid
from typing import Any

from curation.models import Event, EventKind


def event_record(
    *,
    tenant_id: uuid.UUID,
    kind: EventKind,
    lesson_id: uuid.UUID | None = None,
    agent_id: uuid.UUID | None = None,
    learn_request_id: uuid.UUID | None = None,
    **data: Any,
) -> Event:
    """One event per state change. ``data`` must never hold lesson content."""
    return Event.objects.create(
        tenant_id=tenant_id,
        kind=kind,
        lesson_id=lesson_id,
        agent_id=agent_id,
        learn_request_id=learn_request_id,
        data={
            key: str(value) if isinstance(value, uuid.UUID) else value
            for key, value in data.items()
        },
    )
