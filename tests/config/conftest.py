from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from config.embedded import EmbeddedPostgres, EmbeddedRedis


@pytest.fixture
def data_dir() -> Iterator[Path]:
    # Short path: unix socket paths are limited to ~107 bytes.
    path = Path(tempfile.mkdtemp(prefix="trib-up-"))
    yield path
    EmbeddedRedis(path).stop()  # in case a failing test left them
    EmbeddedPostgres(path).stop()
    shutil.rmtree(path, ignore_errors=True)
