"""Agent processes for the concurrency tests: each is a separate Python
process with its own database connection and embedding model, doing what an
API call plus a worker would do, released together by a barrier."""

from __future__ import annotations

import os
import uuid
from typing import Any

_READY = False


def init(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()
    from memory.embeddings import get_provider

    get_provider()
    global _READY
    _READY = True


def learn_at_once(args: tuple[str, str, str, Any]) -> dict[str, Any]:
    """Record one learn request, wait for the others, then process it."""
    tenant_id, agent_id, content, barrier = args
    from accounts.models import Agent, Role
    from accounts.principal import AgentPrincipal
    from accounts.tenancy import tenant_context
    from memory.models import LearnRequest
    from memory.services.learn import learn_request_process, lesson_learn

    assert _READY
    tenant = uuid.UUID(tenant_id)
    with tenant_context(tenant):
        agent = Agent.objects.select_related("tenant").get(id=uuid.UUID(agent_id))
        principal = AgentPrincipal(
            tenant_id=tenant, tenant_slug=agent.tenant.slug, region=agent.tenant.region,
            agent_id=agent.id, agent_name=agent.name, role=Role(agent.role), key_id=uuid.uuid4(),
        )  # fmt: skip
        request, _ = lesson_learn(principal=principal, content=content)
    barrier.wait()
    applied = learn_request_process(tenant_id=tenant, request_id=request.id)
    with tenant_context(tenant):
        request = LearnRequest.objects.get(id=request.id)
    return {
        "applied_here": applied,
        "claims": request.claims,
        "attempts": request.attempts,
        "id": str(request.id),
        "status": request.status,
        "outcome": request.outcome,
        "lesson": str(request.lesson_id),
        "serialization_failures": request.serialization_failures,
        "revalidations": request.revalidations,
    }


def learn_many(args: tuple[str, str, list[str], Any]) -> list[dict[str, Any]]:
    """After the barrier, learn ``contents`` one after another."""
    tenant_id, agent_id, contents, barrier = args
    barrier.wait()
    return [learn_at_once((tenant_id, agent_id, content, _NoBarrier())) for content in contents]


class _NoBarrier:
    def wait(self) -> None:
        return None
