"""Accepting a learn: the API's service and the enqueue (layer 1 of
``memory.services.learn``)."""

from __future__ import annotations

import contextlib
import logging
import uuid

import redis
from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.principal import AgentPrincipal
from accounts.tenancy import tenant_transaction
from config.broker import broker
from config.db.bulk import rows_insert, unsaved
from config.telemetry import span
from memory.models import (
    LearnRequest,
)
from provenance.services import (
    ParentRef,
    belief_record,
    check_parents,
)

log = logging.getLogger(__name__)


def lesson_learn(
    *,
    principal: AgentPrincipal,
    content: str,
    situation: str = "",
    kind: str = "lesson",
    confidence: float = 0.7,
    derived_from: list[ParentRef] | None = None,
    idempotency_key: str | None = None,
) -> tuple[LearnRequest, bool]:
    """Record a learn call; returns (request, created). The same
    idempotency key from the same agent returns the first request.

    Written in the caller's transaction (an API request's), else in one of
    its own (``tenant_transaction``); processing is enqueued when that
    transaction commits.
    """
    with span("learn.request", kind=kind), tenant_transaction(principal.tenant_id):
        if idempotency_key:
            existing = LearnRequest.objects.filter(
                agent_id=principal.agent_id, idempotency_key=idempotency_key
            ).first()
            if existing is not None:
                return existing, False
        parents = derived_from or []
        check_parents(parents)
        try:
            # A savepoint only where a concurrent call can collide (the same
            # idempotency key); otherwise the caller's transaction is enough.
            with transaction.atomic(savepoint=bool(idempotency_key)):
                belief = belief_record(
                    tenant_id=principal.tenant_id,
                    agent=principal.agent_id,
                    content=content,
                    situation=situation,
                    confidence=confidence,
                    parents=parents,
                )
                request = unsaved(
                    LearnRequest,
                    tenant_id=principal.tenant_id,
                    agent_id=principal.agent_id,
                    content=content,
                    situation=situation,
                    kind=kind,
                    confidence=confidence,
                    derived_from=[{"type": p.type, "id": str(p.id)} for p in parents],
                    idempotency_key=idempotency_key or "",
                    belief_id=belief.id,
                )
                rows_insert([request])
        except IntegrityError:
            # A concurrent call with the same key won the race: answer its request.
            if not idempotency_key:
                raise
            return LearnRequest.objects.get(
                agent_id=principal.agent_id, idempotency_key=idempotency_key
            ), False
        tenant_id = principal.tenant_id
        transaction.on_commit(lambda: learn_request_enqueue(request.id, tenant_id))
        return request, True


def learn_request_enqueue(
    request_id: uuid.UUID, tenant_id: uuid.UUID, *, coalesce: bool = True
) -> None:
    """Hand a committed request to the workers. If the broker is down the
    request stays pending in PostgreSQL and the periodic re-enqueue picks it
    up: nothing is lost.

    With single flight, a task of the tenant that is queued and has not
    started yet will take this request too (a task claims whatever of its
    tenant is pending once it starts): then no second task is queued.
    """
    from memory.tasks import process_learn_request

    if coalesce and settings.TRIBUTARY_LEARN_SINGLE_FLIGHT and not mark_queued(tenant_id):
        return
    try:
        process_learn_request.delay(str(request_id), str(tenant_id))
    except Exception:  # the broker's errors vary by transport
        log.warning("could not enqueue learn request %s; it stays pending", request_id)


def queued_key(tenant_id: uuid.UUID) -> str:
    return f"tributary:learn-queued:{tenant_id}"


def mark_queued(tenant_id: uuid.UUID) -> bool:
    """True if this call marked the tenant as having a queued task (so the
    caller must queue one); False if a queued task already covers it. The
    mark expires with the lease, in case its task is lost."""
    try:
        ttl = settings.TRIBUTARY_LEARN_LEASE_SECONDS
        return bool(broker().set(queued_key(tenant_id), "1", nx=True, ex=ttl))
    except redis.RedisError:
        return True


def unmark_queued(tenant_id: uuid.UUID) -> None:
    # Before claiming: a request committed from now on queues its own task.
    with contextlib.suppress(redis.RedisError):
        broker().delete(queued_key(tenant_id))


# --- the worker side -------------------------------------------------------
