"""`manage.py up` supervises: kill -9 of each part under a load of learns."""

from __future__ import annotations

import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import psutil
import psycopg
import pytest

from config.embedded import EmbeddedPostgres, EmbeddedRedis
from tests.config.upstack import (
    free_port,
    issue_key,
    start_up,
    stop_up,
    wait_ready,
)

pytestmark = pytest.mark.slow


class _Load:
    """Writers learning through the API while the faults happen. Every
    acknowledged request (202, or 200 once applied) is kept; anything else
    is counted by phase, and so is a /healthz probe that gets no answer."""

    def __init__(self, base: str, key: str, writers: int = 3) -> None:
        self.base, self.key = base, key
        self.phases = ["warm-up"]
        self.acknowledged: list[str] = []
        self.refused: Counter[tuple[str, str]] = Counter()
        self.unhealthy: Counter[str] = Counter()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._write, args=(n,), daemon=True) for n in range(writers)
        ]
        self._threads.append(threading.Thread(target=self._probe, daemon=True))

    def __enter__(self) -> _Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)

    @property
    def phase(self) -> str:
        return self.phases[-1]

    @phase.setter
    def phase(self, name: str) -> None:
        self.phases.append(name)

    def _now(self) -> int:
        return len(self.phases) - 1

    def _during(self, started: int) -> str:
        """The phases a call belongs to: the one it started in, and every
        phase begun while it was in flight ("redis/postgres/after" for a
        call the postgres kill struck on its way)."""
        return "/".join(self.phases[started : self._now() + 1])

    def _write(self, writer: int) -> None:
        headers = {"Authorization": f"Bearer {self.key}"}
        with httpx.Client(base_url=self.base, headers=headers, timeout=30) as client:
            n = 0
            while not self._stop.is_set():
                n += 1
                content = f"Fleet host w{writer}-{n} serves metrics on port {20000 + n}."
                phase = self._now()
                try:
                    response = client.post("/api/v1/learn", json={"content": content})
                except httpx.HTTPError as exc:
                    what = f"{type(exc).__name__}: {exc}"[:120]
                    self.refused[(self._during(phase), what)] += 1
                    time.sleep(0.2)
                    continue
                if response.status_code in (200, 202):
                    self.acknowledged.append(response.json()["id"])
                else:
                    what = f"{response.status_code} {response.text[:120]}"
                    self.refused[(self._during(phase), what)] += 1
                time.sleep(0.25)

    def _probe(self) -> None:
        with httpx.Client(base_url=self.base, timeout=5) as client:
            while not self._stop.is_set():
                phase = self._now()
                try:
                    ok = client.get("/healthz").status_code == 200
                except httpx.HTTPError:
                    ok = False
                if not ok:
                    self.unhealthy[self._during(phase)] += 1
                time.sleep(0.2)


def _struck_by(label: str, faults: set[str]) -> bool:
    return bool(set(label.split("/")) & faults)


def _child(up: subprocess.Popen[bytes], word: str) -> psutil.Process:
    for process in psutil.Process(up.pid).children():
        if word in process.cmdline():  # an argument, not part of one ("--workers")
            return process
    raise LookupError(f"no child of up runs {word}")


def _web_worker(up: subprocess.Popen[bytes]) -> psutil.Process:
    for process in _child(up, "uvicorn").children():
        if "spawn_main" in " ".join(process.cmdline()):
            return process
    raise LookupError("no uvicorn worker")


def _until(predicate: Callable[[], bool], timeout: float, what: str, log: Path) -> float:
    started = time.monotonic()
    while True:
        try:
            if predicate():
                return time.monotonic() - started
        except (LookupError, psutil.Error, httpx.HTTPError, OSError):
            pass
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{what} within {timeout:.0f} s\n{log.read_text()[-6000:]}")
        time.sleep(0.25)


def test_the_stack_recovers_by_itself_from_a_kill_of_each_part_and_loses_no_learn(
    data_dir, tmp_path
):
    """kill -9, one after another under a load of concurrent learns: a
    Celery pool process, the worker's main process, beat, a web worker,
    embedded Redis and the embedded PostgreSQL postmaster. `up` (or the
    worker's and uvicorn's own supervisors) brings each back; the web keeps
    answering; every acknowledged learn is applied exactly once."""
    port = free_port()
    log = tmp_path / "up.log"
    up = start_up(
        data_dir,
        port,
        log,
        TRIBUTARY_WORKER_CONCURRENCY="1",
        TRIBUTARY_LEARN_LEASE_SECONDS="5",
        TRIBUTARY_LEARN_REQUEUE_SECONDS="3",
        TRIBUTARY_RATE_LIMIT_PER_MINUTE="0",
    )
    base = f"http://127.0.0.1:{port}"
    faults: list[tuple[str, Callable[[], psutil.Process]]] = [
        ("pool process", lambda: _child(up, "worker").children()[0]),
        ("worker", lambda: _child(up, "worker")),
        ("beat", lambda: _child(up, "beat")),
        ("web worker", lambda: _web_worker(up)),
        ("redis", lambda: psutil.Process(EmbeddedRedis(data_dir).pid())),
        ("postgres", lambda: psutil.Process(EmbeddedPostgres(data_dir).pid())),
    ]
    recovered: dict[str, float] = {}
    try:
        wait_ready(up, port, log)
        key = issue_key(data_dir, "acme", "alice")
        headers = {"Authorization": f"Bearer {key}"}

        def learns_again() -> bool:
            response = httpx.post(
                f"{base}/api/v1/learn?wait=20",
                headers=headers,
                json={"content": f"Probe {uuid.uuid4().hex[:8]} after a fault was applied."},
                timeout=30,
            )
            return response.status_code == 200 and response.json()["status"] == "applied"

        with _Load(base, key) as load:
            _until(learns_again, 120, "learning never worked", log)
            for name, find in faults:
                victim = find()
                load.phase = name
                victim.kill()
                psutil.wait_procs([victim], timeout=10)
                started = time.monotonic()
                _until(lambda f=find, v=victim: f().pid != v.pid, 90, f"{name} not replaced", log)
                _until(
                    lambda: httpx.get(f"{base}/readyz").status_code == 200,
                    90,
                    f"/readyz not green after the {name} kill",
                    log,
                )
                _until(learns_again, 120, f"learning did not resume after the {name} kill", log)
                recovered[name] = time.monotonic() - started
                assert up.poll() is None, log.read_text()
            load.phase = "after"
            time.sleep(2)

        acknowledged = load.acknowledged
        assert len(acknowledged) > 100, (len(acknowledged), load.refused)
        dsn = EmbeddedPostgres(data_dir).dsn(dbname="tributary")

        def all_applied() -> bool:
            with psycopg.connect(dsn) as conn:
                row = conn.execute(
                    "SELECT count(*) FROM memory_learnrequest "
                    "WHERE id = ANY(%s::uuid[]) AND status = 'applied'",
                    [acknowledged],
                ).fetchone()
            return row is not None and row[0] == len(acknowledged)

        _until(all_applied, 180, "acknowledged learns were not all applied", log)
        with psycopg.connect(dsn) as conn:
            events: dict[str, int] = dict(
                conn.execute(
                    "SELECT learn_request_id::text, count(*) FROM memory_event "
                    "WHERE learn_request_id = ANY(%s::uuid[]) GROUP BY 1",
                    [acknowledged],
                ).fetchall()
            )
        assert len(acknowledged) == len(set(acknowledged))
        assert set(events) == set(acknowledged)  # every acknowledged learn applied...
        assert set(events.values()) == {1}  # ...exactly once
        # The web answered throughout (healthz never touches the database;
        # a probe in flight on the killed web worker may be cut off).
        web = {"web worker"}
        assert all(_struck_by(p, web) for p in load.unhealthy), load.unhealthy
        assert sum(load.unhealthy.values()) <= 1, load.unhealthy
        # Only the database's own restart may refuse a learn (503), and a
        # call in flight on the killed web worker may be cut off.
        allowed = {"postgres", "web worker"}
        assert all(_struck_by(p, allowed) for p, _ in load.refused), (
            load.refused,
            log.read_text()[-8000:],
        )
        text = log.read_text()
        for part in ("worker", "beat", "redis", "postgres"):
            assert f"{part} restarted" in text, text[-6000:]
        print(f"recovered in seconds: {recovered}; acknowledged {len(acknowledged)}; "
              f"refused {dict(load.refused)}; unhealthy probes {dict(load.unhealthy)}")  # fmt: skip
    finally:
        code = stop_up(up, log)
    assert code == 0, log.read_text()[-6000:]
