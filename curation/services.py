"""Writes for curation: events (the feed and the audit trail)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.utils import timezone

from curation.models import Event, EventKind


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
    return Event(
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
