"""`manage.py up` starts the whole stack and stops every process it started."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psutil
import psycopg
import pytest
from django.conf import settings

from config.embedded import EmbeddedPostgres, EmbeddedRedis

pytestmark = pytest.mark.slow
MANAGE = [sys.executable, str(settings.BASE_DIR / "manage.py")]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def data_dir() -> Iterator[Path]:
    # Short path: unix socket paths are limited to ~107 bytes.
    path = Path(tempfile.mkdtemp(prefix="trib-up-"))
    yield path
    EmbeddedRedis(path).stop()  # in case a failing test left them
    EmbeddedPostgres(path).stop()
    shutil.rmtree(path, ignore_errors=True)


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "TRIBUTARY_DATA_DIR": str(data_dir), **extra}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def _start_up(data_dir: Path, port: int, log: Path, **extra: str) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [*MANAGE, "up", "--port", str(port)],
            env=_env(data_dir, **extra),
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=settings.BASE_DIR,
        )


def _wait_ready(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        if "Tributary is up" in log.read_text():
            return
        time.sleep(0.25)
    raise AssertionError(f"up did not become ready:\n{log.read_text()}")


def _stop(proc: subprocess.Popen[bytes], log: Path) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"up did not stop on SIGTERM:\n{log.read_text()}") from None


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.add(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def test_up_serves_shares_its_servers_refuses_a_twin_and_stops_cleanly(data_dir, tmp_path):
    port = _free_port()
    log = tmp_path / "up.log"
    up = _start_up(data_dir, port, log)
    try:
        _wait_ready(up, port, log)
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
        assert httpx.get(f"{base}/readyz").status_code == 200

        # A management command beside `up` uses the same embedded servers.
        key = _issue_key(data_dir, "acme", "alice")
        whoami = httpx.get(f"{base}/api/v1/whoami", headers={"Authorization": f"Bearer {key}"})
        assert whoami.json() == {"tenant": "acme", "agent": "alice", "role": "writer"}
        assert EmbeddedPostgres(data_dir).is_running(), "issue_key must not stop up's server"

        # A second `up` on the same data dir is refused, and harms nothing.
        twin = subprocess.run(
            [*MANAGE, "up", "--port", str(_free_port())],
            env=_env(data_dir),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert twin.returncode != 0
        assert "already running on data dir" in twin.stderr
        assert httpx.get(f"{base}/readyz").status_code == 200

        children = {p.pid for p in psutil.Process(up.pid).children(recursive=True)}
        names = " ".join(" ".join(psutil.Process(p).cmdline()) for p in children)
        assert "uvicorn" in names and "worker" in names and "beat" in names
        pg_pid, redis_pid = EmbeddedPostgres(data_dir).pid(), EmbeddedRedis(data_dir).pid()
        assert pg_pid is not None and redis_pid is not None
        servers = {pg_pid, redis_pid}
    finally:
        code = _stop(up, log)
    assert code == 0, log.read_text()
    assert "stopped." in log.read_text()
    # Give the kernel a moment to reap; nothing may be left.
    deadline = time.monotonic() + 10
    while _alive(children | servers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _alive(children | servers) == set()

    # Data survives a restart.
    log = tmp_path / "up-again.log"
    up = _start_up(data_dir, port, log)
    try:
        _wait_ready(up, port, log)
        again = httpx.get(
            f"http://127.0.0.1:{port}/api/v1/whoami", headers={"Authorization": f"Bearer {key}"}
        )
        assert again.status_code == 200 and again.json()["agent"] == "alice"
    finally:
        assert _stop(up, log) == 0


def _issue_key(data_dir: Path, tenant: str, agent: str) -> str:
    issued = subprocess.run(
        [*MANAGE, "issue_key", "--tenant", tenant, "--agent", agent],
        env=_env(data_dir),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return issued.stdout.strip().splitlines()[-1]


class _Load:
    """Writers learning through the API while the faults happen. Every
    acknowledged request (202, or 200 once applied) is kept; anything else
    is counted by phase, and so is a /healthz probe that gets no answer."""

    def __init__(self, base: str, key: str, writers: int = 3) -> None:
        self.base, self.key = base, key
        self.phase = "warm-up"
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

    def _write(self, writer: int) -> None:
        headers = {"Authorization": f"Bearer {self.key}"}
        with httpx.Client(base_url=self.base, headers=headers, timeout=30) as client:
            n = 0
            while not self._stop.is_set():
                n += 1
                content = f"Fleet host w{writer}-{n} serves metrics on port {20000 + n}."
                phase = self.phase
                try:
                    response = client.post("/api/v1/learn", json={"content": content})
                except httpx.HTTPError as exc:
                    self.refused[(phase, type(exc).__name__)] += 1
                    time.sleep(0.2)
                    continue
                if response.status_code in (200, 202):
                    self.acknowledged.append(response.json()["id"])
                else:
                    self.refused[(phase, str(response.status_code))] += 1
                time.sleep(0.25)

    def _probe(self) -> None:
        with httpx.Client(base_url=self.base, timeout=5) as client:
            while not self._stop.is_set():
                phase = self.phase
                try:
                    ok = client.get("/healthz").status_code == 200
                except httpx.HTTPError:
                    ok = False
                if not ok:
                    self.unhealthy[phase] += 1
                time.sleep(0.2)


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
    port = _free_port()
    log = tmp_path / "up.log"
    up = _start_up(
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
        _wait_ready(up, port, log)
        key = _issue_key(data_dir, "acme", "alice")
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
                    "SELECT learn_request_id::text, count(*) FROM curation_event "
                    "WHERE learn_request_id = ANY(%s::uuid[]) GROUP BY 1",
                    [acknowledged],
                ).fetchall()
            )
        assert len(acknowledged) == len(set(acknowledged))
        assert set(events) == set(acknowledged)  # every acknowledged learn applied...
        assert set(events.values()) == {1}  # ...exactly once
        # The web answered throughout (healthz never touches the database;
        # a probe in flight on the killed web worker may be cut off).
        assert sum(load.unhealthy.values()) - load.unhealthy["web worker"] == 0, load.unhealthy
        assert load.unhealthy["web worker"] <= 1, load.unhealthy
        # Only the database's own restart may refuse a learn (503).
        refused = {phase for phase, _ in load.refused}
        assert refused <= {"postgres", "web worker"}, load.refused
        text = log.read_text()
        for part in ("worker", "beat", "redis", "postgres"):
            assert f"{part} restarted" in text, text[-6000:]
        print(f"recovered in seconds: {recovered}; acknowledged {len(acknowledged)}; "
              f"refused {dict(load.refused)}; unhealthy probes {dict(load.unhealthy)}")  # fmt: skip
    finally:
        code = _stop(up, log)
    assert code == 0, log.read_text()[-6000:]


def test_up_stops_everything_when_a_part_keeps_dying(data_dir, tmp_path):
    """The web's port is taken: uvicorn dies at once, every time. After
    TRIBUTARY_UP_MAX_RESTARTS restarts with backoff, up gives up (exit 1)
    and leaves nothing running."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        log = tmp_path / "up.log"
        up = _start_up(data_dir, port, log, TRIBUTARY_UP_MAX_RESTARTS="2")
        try:
            code = up.wait(timeout=180)
        except subprocess.TimeoutExpired:
            up.kill()
            raise AssertionError(f"up kept restarting:\n{log.read_text()}") from None
    text = log.read_text()
    assert code == 1, text
    assert text.count("web exited with") == 3, text
    assert "web restarted" in text and "stopping everything" in text
    assert EmbeddedPostgres(data_dir).pid() is None and EmbeddedRedis(data_dir).pid() is None
