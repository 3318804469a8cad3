"""pytest plugin (loaded with ``-p`` before Django is configured): the suite
runs on its own embedded PostgreSQL + pgvector and Redis, in a temporary
directory, never on ``./var`` and never on a DATABASE_URL / REDIS_URL that
happens to be set in the environment.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

DATA_DIR = Path(tempfile.mkdtemp(prefix="trib-test-"))
os.environ["TRIBUTARY_DATA_DIR"] = str(DATA_DIR)
for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY"):
    os.environ.pop(name, None)


def _runs_tests(config: pytest.Config) -> bool:
    """False in pytest-xdist's controller, which hands tests to workers and
    runs none: each worker process starts servers of its own (its own
    temporary DATA_DIR), so workers share nothing but the CPU."""
    distributed = getattr(config.option, "numprocesses", None) not in (None, 0)
    return hasattr(config, "workerinput") or not distributed


def pytest_configure(config: pytest.Config) -> None:
    from config.embedded import EmbeddedPostgres, EmbeddedRedis

    if not _runs_tests(config):
        return
    EmbeddedPostgres(DATA_DIR).start()
    EmbeddedRedis(DATA_DIR).start()


def pytest_unconfigure(config: pytest.Config) -> None:
    from django.db import connections

    from config.embedded import EmbeddedPostgres, EmbeddedRedis

    if not _runs_tests(config):
        shutil.rmtree(DATA_DIR, ignore_errors=True)
        return
    connections.close_all()
    EmbeddedRedis(DATA_DIR).stop()
    EmbeddedPostgres(DATA_DIR).stop()
    shutil.rmtree(DATA_DIR, ignore_errors=True)
