"""``manage.py up``: the whole service in one process tree.

Starts the embedded PostgreSQL and Redis (unless DATABASE_URL / REDIS_URL
point elsewhere), migrates, checks row-level security, then runs the web
process (uvicorn, ASGI), a Celery worker and Celery beat as children. It
announces the stack once ``/readyz`` is green (however long a loaded
machine takes), and supervises: a child or embedded server that dies is
restarted with backoff (config/supervisor.py) while the rest keep serving;
one that keeps dying stops everything with exit 1. On Ctrl-C or SIGTERM it
stops the children, then the embedded servers, and exits 0. One ``up`` per
data dir: a second one is refused.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, connections

from accounts.rls import rls_audit
from config.embedded import (
    UP_LOCK_NAME,
    EmbeddedPostgres,
    EmbeddedRedis,
    claim_for_up,
    postgres_servers,
)
from config.supervisor import Restarts
from memory.embeddings import check_column
from memory.models import EMBEDDING_DIMENSIONS
from regions.celery import region_queue
from regions.routing import each_region, multi_region, region_names

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


def _metrics_dir(data_dir: Path) -> str:
    """Where the children keep their metrics: the operator's
    PROMETHEUS_MULTIPROC_DIR, else ``<data dir>/metrics``; emptied at start
    (a count from a previous run must not be added again)."""
    path = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or data_dir / "metrics")
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink(missing_ok=True)
    return str(path)


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
            exit_code = self._supervise(options, data_dir)
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
        for alias, pg in postgres_servers().items():
            pg.start()
            what = "" if alias == "default" else f" (region {alias.removeprefix('region_')})"
            self.stdout.write(f"PostgreSQL  embedded, {pg.pgdata}{what}")
        if settings.TRIBUTARY_EMBEDDED_REDIS:
            redis = EmbeddedRedis(data_dir)
            redis.start()
            self.stdout.write(f"Redis       embedded, {redis.socket_path}")
        self._check_stop()

    def _migrate_and_audit(self) -> None:
        call_command("migrate", interactive=False, verbosity=0)  # every region's database
        problems = []
        for region in each_region():
            with connection.cursor() as cursor:
                problems += [f"{region}: {p}" if multi_region() else p for p in rls_audit(cursor)]
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
        self._child_env = {
            **os.environ,
            "TRIBUTARY_DATA_DIR": str(data_dir),
            "PYTHONUNBUFFERED": "1",
            # Every child's metrics in files, added up by /metrics (config/metrics.py).
            "PROMETHEUS_MULTIPROC_DIR": _metrics_dir(data_dir),
        }
        web = f"-m uvicorn config.asgi:application --lifespan on --port {options['port']}"
        web += f" --workers {settings.TRIBUTARY_WEB_WORKERS}"
        # uvicorn kills a worker that misses its health ping for 5 s; on a
        # loaded laptop (a Celery process loading the model) a busy worker
        # can, and its requests in flight are cut off. 30 s still replaces
        # a hung one.
        web += " --timeout-worker-healthcheck 30"
        self._argv = {"web": [python, *web.split(), "--host", options["host"]]}
        self._env: dict[str, dict[str, str]] = {}
        if not options["no_worker"]:
            worker = "-m celery -A config worker --loglevel INFO"
            worker += f" --concurrency {settings.TRIBUTARY_WORKER_CONCURRENCY}"
            if not multi_region():
                self._argv["worker"] = [
                    python, *worker.split(), "--hostname", f"worker-{os.getpid()}@%h"
                ]  # fmt: skip
            for region in region_names() if multi_region() else []:
                # One pool per region, consuming only its region's queue,
                # routed to its region's database (TRIBUTARY_REGION).
                self._argv[f"worker-{region}"] = [
                    python, *worker.split(), "--hostname", f"worker-{region}-{os.getpid()}@%h",
                    "--queues", region_queue(region),
                ]  # fmt: skip
                self._env[f"worker-{region}"] = {"TRIBUTARY_REGION": region}
        if not options["no_beat"]:
            beat = "-m celery -A config beat --loglevel INFO"
            self._argv["beat"] = [
                python,
                *beat.split(),
                "--schedule",
                str(data_dir / "beat-schedule"),
            ]
        for name in self._argv:
            self._spawn(name)

    def _spawn(self, name: str) -> None:
        # Own session: a terminal's Ctrl-C reaches `up` only, which then stops
        # the children in order; and a dead child's leftovers are one group.
        self._children[name] = subprocess.Popen(
            self._argv[name],
            env={**self._child_env, **self._env.get(name, {})},
            cwd=settings.BASE_DIR,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )

    def _supervise(self, options: dict[str, Any], data_dir: Path) -> int:
        """Restart whatever dies (children and embedded servers), with backoff;
        announce the stack once ``/readyz`` is green. Returns the exit code:
        0 when asked to stop, 1 when a part keeps dying."""
        host = options["host"]
        url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{options['port']}/"  # noqa: S104
        servers: dict[str, EmbeddedPostgres | EmbeddedRedis] = {
            "postgres" if alias == "default" else f"postgres-{alias.removeprefix('region_')}": pg
            for alias, pg in postgres_servers().items()
        }
        if settings.TRIBUTARY_EMBEDDED_REDIS:
            servers["redis"] = EmbeddedRedis(data_dir)
        ledgers = {
            name: Restarts(
                name,
                limit=settings.TRIBUTARY_UP_MAX_RESTARTS,
                window=settings.TRIBUTARY_UP_RESTART_WINDOW_SECONDS,
            )
            for name in [*servers, *self._children]
        }
        announced = False
        started = time.monotonic()
        next_probe = next_server_check = next_report = started
        while not self._stopping:
            now = time.monotonic()
            for name, child in self._children.items():
                ledger = ledgers[name]
                if not ledger.waiting() and child.poll() is not None:
                    # Whatever the dead child left in its group (a pool
                    # process, a uvicorn worker) goes before the restart.
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(child.pid, signal.SIGKILL)
                    if not self._died(ledger, f"exited with {child.returncode}", now):
                        return 1
            if now >= next_server_check:
                next_server_check = now + 1.0
                for name, server in servers.items():
                    ledger = ledgers[name]
                    dead = not ledger.waiting() and server.pid() is None
                    if dead and not self._died(ledger, "is not running", now):
                        return 1
            for name, ledger in ledgers.items():
                if ledger.start_due(now) and not self._restart(name, ledger, servers, now):
                    return 1
            if not announced and now >= next_probe:
                next_probe = now + 0.5
                missing = self._not_ready(url)
                if not missing:
                    announced = True
                    self.stdout.write(
                        f"Tributary is up: dashboard {url}dashboard/  (API {url}api/v1/, "
                        f"docs {url}api/docs/, admin {url}admin/). Ctrl-C stops everything."
                    )
                elif now >= next_report + 15:
                    next_report = now
                    self.stdout.write(
                        f"starting ({now - started:.0f} s): waiting for {', '.join(missing)}"
                    )
            time.sleep(0.2)
        return 0

    def _died(self, ledger: Restarts, how: str, now: float) -> bool:
        pause = ledger.died(now)
        if pause is None:
            self.stderr.write(
                f"{ledger.name} {how}: it died {ledger.recent()} times in "
                f"{ledger.window:.0f} s; stopping everything"
            )
            return False
        self.stderr.write(
            f"{ledger.name} {how}; restarting it in {pause:.0f} s "
            f"({ledger.recent()} in the last {ledger.window:.0f} s)"
        )
        return True

    def _restart(
        self,
        name: str,
        ledger: Restarts,
        servers: dict[str, EmbeddedPostgres | EmbeddedRedis],
        now: float,
    ) -> bool:
        if name in servers:
            try:
                servers[name].start()
            except Exception as exc:  # a start that fails counts as another death
                return self._died(ledger, f"did not start ({type(exc).__name__}: {exc})", now)
        else:
            self._spawn(name)
        ledger.started()
        self.stdout.write(f"{name} restarted")
        return True

    @staticmethod
    def _not_ready(url: str) -> list[str]:
        """The parts ``/readyz`` reports missing (["web"] while it does not
        answer); empty once the stack is ready."""
        try:
            with urllib.request.urlopen(f"{url}readyz", timeout=2) as response:  # noqa: S310
                return [] if response.status == 200 else ["web"]
        except urllib.error.HTTPError as err:
            try:
                checks = json.loads(err.read())["checks"]
            except (ValueError, KeyError, TypeError):
                return ["web"]
            return [name for name, check in checks.items() if not check.get("ok")] or ["web"]
        except OSError:
            return ["web"]

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
        for pg in postgres_servers().values():
            pg.stop()
        self.stdout.write("stopped.")
