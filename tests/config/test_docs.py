"""The documentation against the code: the README's configuration table is
the settings registry, row for row and default for default, and nothing
cites a design document the repository does not have."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Split so that this file does not contain what it looks for.
STALE_DESIGN_REFERENCE = ("DESIGN" + " §").encode()
SKIPPED_DIRS = {
    ".git", ".venv", "var", "build", "migrations", "node_modules", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache",
}  # fmt: skip
NAME_CELL = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")
NUMBER = re.compile(r"-?\d+(\.\d+)?")


def registry(data_dir: Path) -> dict[str, str | None]:
    """Each variable ``config.env.REGISTRY`` holds once ``config.settings``
    is imported, with its default, read in a fresh interpreter: tests
    register throwaway variables in this one's."""
    script = (
        "import json, config.settings\n"
        "from config.env import REGISTRY\n"
        "print(json.dumps({v.name: v.default for v in REGISTRY.values()}))\n"
    )
    # The secret key a settings import generates goes to a throwaway dir.
    env = {**os.environ, "TRIBUTARY_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        check=True, timeout=120,
    )  # fmt: skip
    answer: dict[str, str | None] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def readme_configuration() -> dict[str, str]:
    """``{name: default cell}`` for each row of the README's configuration
    table (the ``## Configuration`` section) whose first cell is one
    backticked name."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        match = NAME_CELL.fullmatch(cells[0]) if cells else None
        if match is None:
            continue
        assert match.group(1) not in rows, f"{match.group(1)} has two rows in the README"
        assert len(cells) == 3, f"{match.group(1)}: expected | variable | default | meaning |"
        rows[match.group(1)] = cells[1]
    return rows


def default_matches(registered: str | None, documented: str) -> bool:
    """Whether the README's default cell states the registry's default.

    Backticks are presentation. A variable without a default (``None``) must
    be documented as ``unset`` (optionally ``unset → what happens``); an
    empty list as ``empty``. Otherwise the text must be the default itself,
    where a number may be written without a trailing ``.0`` (``7`` for
    ``7.0``) and a path relative to the repository (``./var``)."""
    text = documented.replace("`", "").strip()
    if registered is None:
        return text == "unset" or text.startswith("unset →")
    if registered == "":
        return text == "empty"
    if text == registered:
        return True
    if NUMBER.fullmatch(text) and NUMBER.fullmatch(registered):
        return float(text) == float(registered)
    if text.startswith("./"):
        return (ROOT / text).resolve() == Path(registered)
    return False


def test_the_readme_configuration_table_is_the_settings_registry(tmp_path):
    registered = registry(tmp_path)
    documented = readme_configuration()
    problems = [f"{name}: a setting missing from the README" for name in sorted(registered)
                if name not in documented]  # fmt: skip
    problems += [f"{name}: a README row for no setting" for name in sorted(documented)
                 if name not in registered]  # fmt: skip
    problems += [
        f"{name}: the README says {documented[name]!r}, the registry {registered[name]!r}"
        for name in sorted(set(registered) & set(documented))
        if not default_matches(registered[name], documented[name])
    ]
    assert problems == []


def test_default_comparison_is_strict():
    assert default_matches("0.75", "`0.75`") and default_matches("7.0", "`7`")
    assert default_matches(None, "unset → embedded") and default_matches("", "empty")
    assert default_matches(str(ROOT / "var"), "`./var`")
    assert not default_matches("0.75", "`0.7`")
    assert not default_matches("auto", "`on`")
    assert not default_matches(None, "`8000`")
    assert not default_matches("8000", "unset")
    assert not default_matches("", "unset")
    assert not default_matches(str(ROOT / "var"), "`./data`")


def test_nothing_cites_a_design_document_the_repository_lacks():
    assert (ROOT / "docs" / "design.md").is_file()
    citing = []
    for directory, subdirs, files in os.walk(ROOT):
        subdirs[:] = [d for d in subdirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
        for name in files:
            path = Path(directory, name)
            if STALE_DESIGN_REFERENCE in path.read_bytes():
                citing.append(str(path.relative_to(ROOT)))
    assert citing == [], "cite docs/design.md §n instead"
