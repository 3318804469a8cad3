"""``manage.py up``: the whole service in one process tree.

Starts the embedded PostgreSQL and Redis (unless DATABASE_URL / REDIS_URL
point elsewhere), migrates, checks row-level security, then runs the web
process (uvicorn, ASGI), a Celery worker and Celery beat as children. On
Ctrl-C or SIGTERM it stops the children, then the embedded servers, and
exits 0. If a child dies on its own, everything is stopped and it exits 1.
One ``up`` per data dir: a second one is refused.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, connections

from accounts.rls import rls_audit
from config.embedded import UP_LOCK_NAME, EmbeddedPostgres, EmbeddedRedis, claim_for_up
from memory.embeddings import check_column
from memory.models import EMBEDDING_DIMENSIONS

STOP_TIMEOUT = 20.0
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Runs in each child before exec: if ``up`` itself is killed outright
    (SIGKILL, no chance to clean up), the kernel sends the child SIGTERM."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _acquire_lock(data_dir: Path) -> IO[str]:
    data_dir.mkdir(parents=True, exist_ok=True)
    handle = open(data_dir / UP_LOCK_NAME, "a+")  # noqa: SIM115 (held for the process's life)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "?"
        handle.close()
        raise CommandError(
            f"another `manage.py up` (pid {holder}) is already running on data dir {data_dir}; "
            "stop it first, or set TRIBUTARY_DATA_DIR to another directory."
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


class Command(BaseCommand):
    help = "Run the whole service: embedded PostgreSQL + Redis, web (ASGI), worker and beat."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, default=settings.TRIBUTARY_PORT)
        parser.add_argument("--host", default=settings.TRIBUTARY_HOST)
        parser.add_argument("--no-worker", action="store_true", help="do not start a Celery worker")
        parser.add_argument("--no-beat", action="store_true", help="do not start Celery beat")

    def handle(self, *args: Any, **options: Any) -> None:
        data_dir: Path = settings.TRIBUTARY_DATA_DIR
        lock = _acquire_lock(data_dir)
        claim_for_up()
        self._stopping = False
        self._children: dict[str, subprocess.Popen[bytes]] = {}
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        exit_code = 0
        try:
            self._start_servers(data_dir)
            self._migrate_and_audit()
            self._spawn_children(options, data_dir)
            exit_code = self._supervise(options)
        finally:
            self._stop_children()
            connections.close_all()
            self._stop_servers(data_dir)
            lock.close()
        if exit_code:
            raise SystemExit(exit_code)

    def _on_signal(self, signum: int, frame: Any) -> None:
        if not self._stopping:
            self.stderr.write(f"\n{signal.Signals(signum).name} received: stopping…")
        self._stopping = True

    def _check_stop(self) -> None:
        if self._stopping:
            raise CommandError("stopped before the service was up")

    def _start_servers(self, data_dir: Path) -> None:
        if settings.TRIBUTARY_EMBEDDED_POSTGRES:
            pg = EmbeddedPostgres(data_dir)
            pg.start()
            self.stdout.write(f"PostgreSQL  embedded, {pg.pgdata}")
        if settings.TRIBUTARY_EMBEDDED_REDIS:
            redis = EmbeddedRedis(data_dir)
            redis.start()
            self.stdout.write(f"Redis       embedded, {redis.socket_path}")
        self._check_stop()

    def _migrate_and_audit(self) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        with connection.cursor() as cursor:
            problems = rls_audit(cursor)
        check_column(EMBEDDING_DIMENSIONS)  # the children check their model against it
        connections.close_all()
        if problems:
            raise CommandError(
                "row-level security audit failed; refusing to serve:\n  - "
                + "\n  - ".join(problems)
            )
        self._check_stop()

    def _spawn_children(self, options: dict[str, Any], data_dir: Path) -> None:
        python = sys.executable
        env = {**os.environ, "TRIBUTARY_DATA_DIR": str(data_dir), "PYTHONUNBUFFERED": "1"}
        web = f"-m uvicorn config.asgi:application --lifespan on --port {options['port']}"
        web += f" --workers {settings.TRIBUTARY_WEB_WORKERS}"
        commands = {"web": [python, *web.split(), "--host", options["host"]]}
        if not options["no_worker"]:
            worker = (
                f"-m celery -A config worker --loglevel INFO --hostname worker-{os.getpid()}@%h"
            )
            worker += f" --concurrency {settings.TRIBUTARY_WORKER_CONCURRENCY}"
            commands["worker"] = [python, *worker.split()]
        if not options["no_beat"]:
            beat = "-m celery -A config beat --loglevel INFO"
            commands["beat"] = [
                python,
                *beat.split(),
                "--schedule",
                str(data_dir / "beat-schedule"),
            ]
        for name, argv in commands.items():
            # Own session: a terminal's Ctrl-C reaches `up` only, which then
            # stops the children in order.
            self._children[name] = subprocess.Popen(
                argv,
                env=env,
                cwd=settings.BASE_DIR,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )

    def _supervise(self, options: dict[str, Any]) -> int:
        host = options["host"]
        url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{options['port']}/"  # noqa: S104
        announced = False
        deadline = time.monotonic() + 60
        while not self._stopping:
            for name, child in self._children.items():
                if child.poll() is not None:
                    self.stderr.write(f"{name} exited with {child.returncode}; stopping everything")
                    return 1
            if not announced:
                if self._healthy(url):
                    announced = True
                    self.stdout.write(
                        f"Tributary is up: dashboard {url}dashboard/  (API {url}api/v1/, "
                        f"docs {url}api/docs/, admin {url}admin/). Ctrl-C stops everything."
                    )
                elif time.monotonic() > deadline:
                    self.stderr.write(f"web did not answer {url}healthz within 60 s")
                    return 1
            time.sleep(0.25)
        return 0

    @staticmethod
    def _healthy(url: str) -> bool:
        try:
            with urllib.request.urlopen(f"{url}healthz", timeout=1) as response:  # noqa: S310
                return bool(response.status == 200)
        except OSError:
            return False

    def _stop_children(self) -> None:
        children = list(self._children.items())
        for _, child in reversed(children):
            if child.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for name, child in reversed(children):
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.stderr.write(f"{name} did not stop in {STOP_TIMEOUT:.0f} s; killing it")
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGKILL)
                child.wait()
            # Whatever the child left in its process group goes too.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)

    def _stop_servers(self, data_dir: Path) -> None:
        if settings.TRIBUTARY_EMBEDDED_REDIS:
            EmbeddedRedis(data_dir).stop()
        if settings.TRIBUTARY_EMBEDDED_POSTGRES:
            EmbeddedPostgres(data_dir).stop()
        self.stdout.write("stopped.")
