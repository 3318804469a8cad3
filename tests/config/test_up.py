"""`manage.py up` starts the whole stack and stops every process it started."""

from __future__ import annotations

import socket
import subprocess
import time

import httpx
import psutil
import pytest

from config.embedded import EmbeddedPostgres, EmbeddedRedis
from tests.config.upstack import (
    MANAGE,
    alive,
    free_port,
    issue_key,
    start_up,
    stop_up,
    up_env,
    wait_ready,
)

pytestmark = pytest.mark.slow


def test_up_serves_shares_its_servers_refuses_a_twin_and_stops_cleanly(data_dir, tmp_path):
    port = free_port()
    log = tmp_path / "up.log"
    # One web worker and one pool process: each loads the embedding model,
    # and two ups start here (the fault test below runs the defaults).
    small = {"TRIBUTARY_WEB_WORKERS": "1", "TRIBUTARY_WORKER_CONCURRENCY": "1"}
    up = start_up(data_dir, port, log, **small)
    try:
        wait_ready(up, port, log)
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
        assert httpx.get(f"{base}/readyz").status_code == 200

        # A management command beside `up` uses the same embedded servers.
        key = issue_key(data_dir, "acme", "alice")
        whoami = httpx.get(f"{base}/api/v1/whoami", headers={"Authorization": f"Bearer {key}"})
        assert whoami.json() == {"tenant": "acme", "agent": "alice", "role": "writer"}
        assert EmbeddedPostgres(data_dir).is_running(), "issue_key must not stop up's server"

        # A second `up` on the same data dir is refused, and harms nothing.
        twin = subprocess.run(
            [*MANAGE, "up", "--port", str(free_port())],
            env=up_env(data_dir),
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
        code = stop_up(up, log)
    assert code == 0, log.read_text()
    assert "stopped." in log.read_text()
    # Give the kernel a moment to reap; nothing may be left.
    deadline = time.monotonic() + 10
    while alive(children | servers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert alive(children | servers) == set()

    # Data survives a restart.
    log = tmp_path / "up-again.log"
    up = start_up(data_dir, port, log, **small)
    try:
        wait_ready(up, port, log)
        again = httpx.get(
            f"http://127.0.0.1:{port}/api/v1/whoami", headers={"Authorization": f"Bearer {key}"}
        )
        assert again.status_code == 200 and again.json()["agent"] == "alice"
    finally:
        assert stop_up(up, log) == 0


def test_up_stops_everything_when_a_part_keeps_dying(data_dir, tmp_path):
    """The web's port is taken: uvicorn dies at once, every time. After
    TRIBUTARY_UP_MAX_RESTARTS restarts with backoff, up gives up (exit 1)
    and leaves nothing running."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        log = tmp_path / "up.log"
        up = start_up(
            data_dir, port, log, "--no-worker", "--no-beat", TRIBUTARY_UP_MAX_RESTARTS="2"
        )
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
