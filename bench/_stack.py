"""Shared set-up for benchmarks: a private embedded stack in a temporary
data dir (never ./var), migrated, with Django configured."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
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


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def machine() -> str:
    import platform

    return f"{os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}"
