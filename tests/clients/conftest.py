"""Fixtures for the Python client's tests: clients of the live service, by
caller, sync or async behind one interface, and a real Celery worker for the
tests that wait for learn outcomes."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tributary_client import AsyncTributary, Tributary

from tests.conftest import Caller, start_worker, stop_worker


class Blocking:
    """An :class:`AsyncTributary` driven from synchronous test code: each
    method runs to completion on the driver's event loop, so one test body
    exercises the async client's own request path as well as the sync one."""

    def __init__(self, client: AsyncTributary, runner: asyncio.Runner) -> None:
        self.client = client
        self._runner = runner

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.client, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._runner.run(method(*args, **kwargs))

        return call


@pytest.fixture(params=["sync", "async"])
def connect(request: pytest.FixtureRequest, live_server: Any) -> Iterator[Callable[[Caller], Any]]:
    """``connect(caller)`` → a client of the live service with the caller's
    key: the sync client, or the async one behind :class:`Blocking`."""
    opened: list[Tributary] = []
    runner = asyncio.Runner()
    async_clients: list[AsyncTributary] = []

    def connect(caller: Caller) -> Any:
        if request.param == "sync":
            client = Tributary(live_server.url, caller.key, retries=0)
            opened.append(client)
            return client
        async_client = AsyncTributary(live_server.url, caller.key, retries=0)
        async_clients.append(async_client)
        return Blocking(async_client, runner)

    yield connect
    for client in opened:
        client.close()
    for async_client in async_clients:
        runner.run(async_client.aclose())
    runner.close()


@pytest.fixture
def sync_client(live_server: Any) -> Iterator[Callable[[Caller], Tributary]]:
    """``sync_client(caller)`` → a :class:`Tributary` of the live service."""
    opened: list[Tributary] = []

    def connect(caller: Caller) -> Tributary:
        client = Tributary(live_server.url, caller.key, retries=0)
        opened.append(client)
        return client

    yield connect
    for client in opened:
        client.close()


@pytest.fixture(scope="module")
def module_worker(
    django_db_setup: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[subprocess.Popen[bytes]]:
    """One real Celery worker for a whole module (it is slow to start)."""
    from config.celery import app

    app.control.purge()  # messages left by earlier tests name rows that are gone
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    proc = start_worker(log, f"clients-{os.getpid()}")
    yield proc
    stop_worker(proc)
