"""The asynchronous path with a real Celery worker process."""

from __future__ import annotations

import signal
import time
import uuid
from collections.abc import Callable, Iterator

import httpx
import psutil
import pytest

from accounts.tenancy import tenant_context
from memory.models import Event, LearnRequest, Lesson, RequestStatus
from memory.services.learn import requeue_stale_learn_requests
from tests.conftest import learn, make_caller, start_worker, stop_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def api(live_server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"{live_server.url}/api/v1", timeout=60) as client:
        yield client


def test_learn_with_wait_answers_the_workers_outcome(api, celery_worker_process):
    alice = make_caller("acme", "alice")
    response = api.post(
        "/learn?wait=20", headers=alice.headers,
        json={"content": "Clear the build cache when the linker exits with 137."},
    )  # fmt: skip
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "applied" and body["outcome"] == "inserted"
    assert body["lesson"]["status"] == "active"


def _wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def _applied(tenant: uuid.UUID) -> int:
    with tenant_context(tenant):
        return LearnRequest.objects.filter(status=RequestStatus.APPLIED).count()


def test_a_worker_killed_mid_batch_loses_nothing_and_applies_nothing_twice(
    celery_worker_process, tmp_path
):
    alice = make_caller("acme", "alice")
    tenant = alice.agent.tenant_id
    total = 48
    # Queued while the worker runs: it claims them in batches and works
    # through them; we kill it once some, not all, are done.
    requests = [
        learn(alice, f"Service number {n} of the fleet listens on port {6000 + n}.")
        for n in range(total)
    ]
    _wait_for(lambda: _applied(tenant) >= 3, 120, "the worker never applied anything")
    # SIGKILL the worker and its pool process: no warm shutdown, no acks.
    tree = [psutil.Process(celery_worker_process.pid)]
    tree += tree[0].children(recursive=True)
    for process in tree:
        process.send_signal(signal.SIGKILL)
    psutil.wait_procs(tree, timeout=10)
    done = _applied(tenant)
    assert 0 < done < total, "kill the worker mid-way, or the test proves nothing"

    # A new worker, and the periodic re-enqueue once the dead one's lease
    # (2 s in this worker's settings) has run out.
    replacement = start_worker(tmp_path / "replacement.log", "replacement")
    try:
        time.sleep(2.5)
        requeue_stale_learn_requests(older_than_seconds=0)
        _wait_for(lambda: _applied(tenant) == total, 180, "requests were lost")
    finally:
        stop_worker(replacement)
    with tenant_context(tenant):
        assert LearnRequest.objects.filter(status=RequestStatus.PENDING).count() == 0
        # Each request produced exactly one lesson and one event.
        assert Lesson.objects.count() == total
        for request in requests:
            assert Event.objects.filter(learn_request_id=request.id).count() == 1


def test_a_killed_pool_process_is_replaced_and_learning_goes_on(celery_worker_process):
    """The replacement loads the embedding model (seconds) before it is
    alive; Celery must give it that time rather than kill it in a loop."""
    alice = make_caller("acme", "alice")
    tenant = alice.agent.tenant_id
    learn(alice, "The first lesson is applied by the first pool process.")
    _wait_for(lambda: _applied(tenant) >= 1, 120, "the worker never applied anything")
    main = psutil.Process(celery_worker_process.pid)
    [pool] = main.children()
    pool.send_signal(signal.SIGKILL)
    psutil.wait_procs([pool], timeout=10)
    _wait_for(lambda: any(p.pid != pool.pid for p in main.children()), 30, "no replacement started")
    learn(alice, "The second lesson is applied by the replacement pool process.")
    _wait_for(lambda: _applied(tenant) >= 2, 120, "learning stopped after the pool died")
    assert main.is_running() and len(main.children()) == 1
