"""Starting and stopping `manage.py up` in a data dir of its own, for the
tests of up (tests/config/test_up.py, test_up_faults.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
from django.conf import settings

MANAGE = [sys.executable, str(settings.BASE_DIR / "manage.py")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def up_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "TRIBUTARY_DATA_DIR": str(data_dir), **extra}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def start_up(
    data_dir: Path, port: int, log: Path, *args: str, **extra: str
) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [*MANAGE, "up", "--port", str(port), *args],
            env=up_env(data_dir, **extra),
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=settings.BASE_DIR,
        )


def wait_ready(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        if "Tributary is up" in log.read_text():
            return
        time.sleep(0.25)
    raise AssertionError(f"up did not become ready:\n{log.read_text()}")


def stop_up(proc: subprocess.Popen[bytes], log: Path) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"up did not stop on SIGTERM:\n{log.read_text()}") from None


def alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.add(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def issue_key(data_dir: Path, tenant: str, agent: str) -> str:
    issued = subprocess.run(
        [*MANAGE, "issue_key", "--tenant", tenant, "--agent", agent],
        env=up_env(data_dir),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return issued.stdout.strip().splitlines()[-1]
