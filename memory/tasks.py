"""Celery tasks: thin wrappers that take ids and call a service."""

from __future__ import annotations

import uuid

from celery import shared_task

from memory.hnsw import search_indexes_sync
from memory.services.learn import learn_request_process, requeue_stale_learn_requests
from memory.services.lessons import lessons_mark_recalled, recalls_flush


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(ConnectionError, OSError),
    retry_backoff=True,
    max_retries=5,
)
def process_learn_request(request_id: str, tenant_id: str) -> int:
    return learn_request_process(tenant_id=uuid.UUID(tenant_id), request_id=uuid.UUID(request_id))


@shared_task
def requeue_stale_learn_requests_task() -> int:
    return requeue_stale_learn_requests()


@shared_task
def search_indexes_sync_task() -> str:
    return str(search_indexes_sync())


@shared_task(ignore_result=True)
def mark_recalled(tenant_id: str, lesson_ids: list[str]) -> None:
    """Recalls queued as a task each by a release before the Redis counts
    (``recalls_flush``); kept so such messages still count when drained."""
    lessons_mark_recalled(
        tenant_id=uuid.UUID(tenant_id), lesson_ids=[uuid.UUID(i) for i in lesson_ids]
    )


@shared_task(ignore_result=True)
def recalls_flush_task() -> int:
    return recalls_flush()
