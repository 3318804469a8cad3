from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.dburl import parse_database_url
from config.env import REGISTRY, env_bool, env_int, env_list


def test_typed_helpers_read_validate_and_register(monkeypatch):
    monkeypatch.setenv("T_INT", "42")
    monkeypatch.setenv("T_BOOL", "Yes")
    monkeypatch.setenv("T_LIST", "a, b,,c")
    assert env_int("T_INT", 1, "an int", minimum=0) == 42
    assert env_bool("T_BOOL", False, "a bool") is True
    assert env_list("T_LIST", [], "a list") == ["a", "b", "c"]
    assert REGISTRY["T_INT"].default == "1"
    assert env_int("T_UNSET", 7, "unset") == 7


@pytest.mark.parametrize(
    ("helper", "value", "message"),
    [
        (lambda: env_int("T_BAD", 1, "x"), "1.5", "T_BAD must be an integer"),
        (lambda: env_int("T_BAD", 1, "x", maximum=10), "11", "T_BAD must be <= 10"),
        (lambda: env_bool("T_BAD", False, "x"), "maybe", "T_BAD must be one of"),
    ],
)
def test_malformed_values_name_the_variable(monkeypatch, helper, value, message):
    monkeypatch.setenv("T_BAD", value)
    with pytest.raises(ImproperlyConfigured, match=message):
        helper()


def test_database_url_parsing():
    parsed = parse_database_url("postgresql://app:p%40ss@db:5433/tribe?sslmode=require")
    assert parsed["USER"] == "app" and parsed["PASSWORD"] == "p@ss"
    assert (parsed["HOST"], parsed["PORT"], parsed["NAME"]) == ("db", "5433", "tribe")
    assert parsed["OPTIONS"] == {"sslmode": "require"}
    socket = parse_database_url("postgres://app@/tribe?host=/run/postgresql")
    assert socket["HOST"] == "/run/postgresql"
    with pytest.raises(ImproperlyConfigured, match="postgres://"):
        parse_database_url("mysql://x@y/z")
    with pytest.raises(ImproperlyConfigured, match="name a database"):
        parse_database_url("postgres://x@y/")


def test_the_readme_documents_every_setting():
    from django.conf import settings

    readme = (settings.BASE_DIR / "README.md").read_text()
    missing = [name for name in REGISTRY if not name.startswith("T_") and f"`{name}`" not in readme]
    assert missing == []


@pytest.mark.parametrize(
    ("value", "read"),
    [(" Auto ", "'auto'"), (" 1500 ", "1500"), ("soon", None), ("-5", None), ("\u00b2", None)],
)
def test_the_exact_search_threshold_is_auto_or_a_whole_number(value, read, tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = "import config.settings as s; print(repr(s.TRIBUTARY_EXACT_SEARCH_MAX))"
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).resolve().parents[2],
        env={
            **os.environ,
            "TRIBUTARY_EXACT_SEARCH_MAX": value,
            "TRIBUTARY_DATA_DIR": str(tmp_path),
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    if read is None:
        assert done.returncode != 0
        assert "TRIBUTARY_EXACT_SEARCH_MAX must be auto or a whole number" in done.stderr
    else:
        assert done.returncode == 0 and done.stdout.strip() == read
