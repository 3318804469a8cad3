"""Shared set-up for benchmarks: a private embedded stack in a temporary
data dir (never ./var), migrated, with Django configured."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def setup(prefix: str) -> Path:
    data_dir = Path(os.environ.get("TRIBUTARY_DATA_DIR") or tempfile.mkdtemp(prefix=prefix))
    os.environ["TRIBUTARY_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from config.embedded import EmbeddedPostgres, EmbeddedRedis

    EmbeddedPostgres(data_dir).start()
    EmbeddedRedis(data_dir).start()
    call_command("migrate", verbosity=0)
    return data_dir


def run_in_stack(prefix: str, args: Any, run: Callable[[Any, Path], None]) -> None:
    """Set up a private stack, run the benchmark, tear it down (unless
    ``args.keep``)."""
    data_dir = setup(prefix)
    try:
        run(args, data_dir)
    finally:
        teardown(data_dir, args.keep)


def teardown(data_dir: Path, keep: bool) -> None:
    import shutil

    from django.db import connections

    from config.embedded import EmbeddedPostgres, EmbeddedRedis

    connections.close_all()
    EmbeddedRedis(data_dir).stop()
    EmbeddedPostgres(data_dir).stop()
    if not keep:
        shutil.rmtree(data_dir, ignore_errors=True)


@contextmanager
def web_process() -> Iterator[str]:
    """The service's web process (uvicorn, one worker) on this stack's data
    dir, on a free loopback port; yields its base URL once it answers."""
    import socket
    import subprocess
    import time

    import httpx
    from django.db import connections

    connections.close_all()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    web = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port),
         "--lifespan", "off", "--log-level", "warning"],
        cwd=ROOT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield base
    finally:
        web.terminate()
        web.wait(timeout=30)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def machine() -> str:
    import platform

    return f"{os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}"


def cpu_snapshot() -> dict[object, tuple[str, float]]:
    """CPU seconds (user + system) used so far by each process of this
    machine, with its role: PostgreSQL, the Celery worker, the web server,
    Redis, this benchmark, everything else. Keys "idle", "iowait", "steal" and
    "busy" are the machine's own counts (busy: every process, exited ones
    too, and the kernel)."""
    import psutil

    used: dict[object, tuple[str, float]] = {}
    me = os.getpid()
    for process in psutil.process_iter(["pid", "name", "cmdline", "cpu_times", "create_time"]):
        info = process.info
        if info["cpu_times"] is None:
            continue
        line = " ".join(info["cmdline"] or [info["name"] or ""])
        if "multiprocessing" in line:  # a spawned child (uvicorn's workers): its parent's role
            try:
                parent = process.parent()
                line = " ".join(parent.cmdline()) if parent else line
            except psutil.Error:
                pass
        if info["pid"] == me:
            role = "benchmark clients"
        elif "postgres" in line:
            role = "postgres"
        elif "celery" in line and "worker" in line:
            role = "celery worker"
        elif "celery" in line and "beat" in line:
            role = "celery beat"
        elif "uvicorn" in line or "manage.py up" in line:
            role = "web"
        elif "redis" in line:
            role = "redis"
        else:
            role = "other"
        used[(info["pid"], info["create_time"])] = (
            role,
            info["cpu_times"].user + info["cpu_times"].system,
        )
    machine = psutil.cpu_times()
    used["idle"] = ("idle", machine.idle)
    used["iowait"] = ("iowait (idle, waiting for the disk)", getattr(machine, "iowait", 0.0))
    used["steal"] = ("steal (taken by the hypervisor)", getattr(machine, "steal", 0.0))
    used["busy"] = (
        "busy, by the kernel's count",
        machine.user + machine.nice + machine.system
        + getattr(machine, "irq", 0.0) + getattr(machine, "softirq", 0.0),
    )  # fmt: skip
    return used


def cpu_report(
    before: dict[object, tuple[str, float]],
    after: dict[object, tuple[str, float]],
    wall: float,
    units: int,
) -> str:
    """Where the CPU went between two snapshots (processes alive at the
    second): per role, the share of the machine and milliseconds per unit
    of work."""
    cores = os.cpu_count() or 1
    spent: dict[str, float] = {}
    for key, (role, seconds) in after.items():
        spent[role] = spent.get(role, 0.0) + seconds - before.get(key, (role, 0.0))[1]
    return "\n".join(
        f"  {role:<18} {100 * seconds / (wall * cores):5.1f} % of the machine, "
        f"{1000 * seconds / units:6.1f} ms per unit"
        for role, seconds in sorted(spent.items(), key=lambda item: -item[1])
        if seconds > 0
    )
