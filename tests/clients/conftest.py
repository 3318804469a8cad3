"""Fixtures for the Python client's tests: clients of the live service, by
caller, sync or async behind one interface, and a real Celery worker for the
tests that wait for learn outcomes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tributary_client import AsyncTributary, Tributary

from tests.conftest import Caller


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
