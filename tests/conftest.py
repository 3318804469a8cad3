from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import connection, transaction

from accounts.models import Agent, Role
from accounts.principal import AgentPrincipal
from accounts.services import agent_ensure, api_key_authenticate, api_key_issue, tenant_ensure
from accounts.tenancy import cross_tenant, tenant_context
from config.embedded import EmbeddedPostgres
from memory import search_cost
from memory.models import LearnRequest
from memory.services.learn import learn_pending_drain, lesson_learn
from tests.embedded_stack import DATA_DIR
from tests.fake_llm import FakeLLM, fake_llm


@dataclass(frozen=True)
class Caller:
    agent: Agent
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def make_caller(tenant: str, agent: str, role: Role = Role.WRITER) -> Caller:
    """A tenant, an agent and a fresh key, committed the way issue_key does."""
    with cross_tenant(reason="test setup"):
        t = tenant_ensure(slug=tenant)
        a = agent_ensure(tenant=t, name=agent, role=role)
        issued = api_key_issue(agent=a)
    return Caller(agent=a, key=issued.plaintext)


@pytest.fixture(autouse=True)
def _search_threshold_read_anew() -> None:
    """The exact-search threshold a process remembers (memory.search_cost)
    survives the flush between tests, which fires no signal: forget it."""
    search_cost.forget()


@pytest.fixture(autouse=True)
def _tuned_readers_read_anew() -> Iterator[None]:
    """The tuned readers (memory.tuned) read their switch once: a test that
    turns one off with the settings fixture must not leave it off."""
    from memory import answers
    from memory.guard import reader
    from memory.judge import reader as judge_reader

    yield
    answers.MODEL.forget()
    reader.MODEL.forget()
    judge_reader.MODEL.forget()


@pytest.fixture
def superuser_sql() -> Iterator[psycopg.Connection]:
    """A superuser connection to the test database: for looking under RLS
    and for breaking things on purpose."""
    dsn = EmbeddedPostgres(DATA_DIR).dsn(dbname=connection.settings_dict["NAME"])
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


def principal_of(caller: Caller) -> AgentPrincipal:
    """The principal a request with this caller's key would get."""
    with transaction.atomic():
        principal = api_key_authenticate(caller.key)
    assert principal is not None
    return principal


def learn(caller: Caller, content: str, **fields: Any) -> LearnRequest:
    """What POST /learn does, committed (the worker is not involved)."""
    principal = principal_of(caller)
    with tenant_context(principal.tenant_id):
        request, _ = lesson_learn(principal=principal, content=content, **fields)
    return request


def process_pending(tenant_id: uuid.UUID, **kwargs: Any) -> int:
    """Run the worker's service in this process until the tenant has no
    pending request left; returns how many were applied."""
    return learn_pending_drain(tenant_id=tenant_id, **kwargs)


def learn_now(caller: Caller, content: str, **fields: Any) -> LearnRequest:
    """Learn and process synchronously; returns the applied request."""
    request = learn(caller, content, **fields)
    process_pending(caller.agent.tenant_id)
    with tenant_context(caller.agent.tenant_id):
        request.refresh_from_db()
    return request


def database_url_for_tests() -> str:
    """The test database as a DATABASE_URL, for processes the suite starts."""
    server = EmbeddedPostgres(DATA_DIR)
    name = connection.settings_dict["NAME"]
    return f"postgres://{connection.settings_dict['USER']}@/{name}?host={server.socket_dir()}&port={server.port()}"


def start_worker(log: Path, name: str) -> subprocess.Popen[bytes]:
    """A real Celery worker process on the suite's Redis and test database,
    with a 2-second lease so a dead worker's claims expire quickly; returned
    once its pool process can take work."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for_tests(),
        "TRIBUTARY_LEARN_LEASE_SECONDS": "2",
    }
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", "1",
             "--loglevel", "INFO", "--without-mingle", "--without-gossip", "-n", f"{name}@%h"],
            env=env, stdout=out, stderr=subprocess.STDOUT, cwd=settings.BASE_DIR,
        )  # fmt: skip
    deadline = time.monotonic() + 120
    # Ready for work once the pool process has loaded the embedding model
    # too: "ready." comes from the main process, before that.
    while "ready: embedding model loaded" not in log.read_text():
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    return proc


def stop_worker(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def module_worker(
    django_db_setup: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[subprocess.Popen[bytes]]:
    """One real Celery worker for a whole module (it is slow to start)."""
    from config.celery import app

    app.control.purge()  # messages left by earlier tests name rows that are gone
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    proc = start_worker(log, f"module-{os.getpid()}")
    yield proc
    stop_worker(proc)


@pytest.fixture
def celery_worker_process(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    from config.celery import app

    app.control.purge()  # messages left by earlier tests name rows that are gone
    proc = start_worker(tmp_path / "worker.log", f"test-{os.getpid()}")
    yield proc
    stop_worker(proc)


@pytest.fixture
def openai_fake(settings) -> Iterator[FakeLLM]:
    """The judge is an OpenAI-compatible model served by the fake LLM."""

    with fake_llm() as fake:
        settings.TRIBUTARY_JUDGE = "openai"
        settings.TRIBUTARY_JUDGE_BASE_URL = f"{fake.url}/v1"
        settings.TRIBUTARY_JUDGE_API_KEY = "sk-test"
        settings.TRIBUTARY_JUDGE_MODEL = "cheap-model"
        settings.TRIBUTARY_JUDGE_STRONG_MODEL = None
        settings.TRIBUTARY_JUDGE_TIMEOUT = 1.0
        settings.TRIBUTARY_JUDGE_ATTEMPTS = 3
        yield fake


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """A skipped browser test is a gap in the evidence: say so loudly."""
    skipped = [
        r for r in terminalreporter.stats.get("skipped", []) if "NO BROWSER" in str(r.longrepr)
    ]
    if skipped:
        terminalreporter.write_sep(
            "!", f"{len(skipped)} BROWSER TESTS SKIPPED: NO CHROMIUM", red=True
        )
        terminalreporter.write_line(
            "The dashboard was not tested in a browser. Install Debian's chromium "
            "(`make test` does, as root) and run again."
        )


@contextlib.contextmanager
def serve_asgi(app: Any, *, lifespan: str = "off") -> Iterator[str]:
    """A real uvicorn serving ``app`` on a free loopback port, in a thread;
    yields its base URL."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan=lifespan, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files marked slow run first, the longest (``slow(first=True)``: the
    offline evaluation, ~7 minutes beside the other workers) before them all:
    pytest-xdist hands out whole files in this order, so the long ones do not
    start last and leave one worker running alone at the end."""

    def order(item: pytest.Item) -> tuple[bool, bool]:
        slow = item.get_closest_marker("slow")
        return slow is None, not (slow is not None and slow.kwargs.get("first", False))

    items.sort(key=order)
