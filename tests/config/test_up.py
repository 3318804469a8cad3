"""`manage.py up` starts the whole stack and stops every process it started."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
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


def _env(data_dir: Path) -> dict[str, str]:
    env = {**os.environ, "TRIBUTARY_DATA_DIR": str(data_dir)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def _start_up(data_dir: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [*MANAGE, "up", "--port", str(port)],
            env=_env(data_dir),
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
        issued = subprocess.run(
            [*MANAGE, "issue_key", "--tenant", "acme", "--agent", "alice"],
            env=_env(data_dir),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        key = issued.stdout.strip().splitlines()[-1]
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
