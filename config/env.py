"""Typed readers for environment variables.

Every setting the service reads goes through one of these helpers, which
records it in ``REGISTRY`` so that ``manage.py doctor`` and the README table
can show every variable, its default and what is in force — without
connecting to anything. A malformed value raises ``ImproperlyConfigured``
naming the variable, never a bare ``ValueError`` deep in start-up.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class Variable:
    name: str
    default: str | None
    help: str
    secret: bool = False

    @property
    def raw(self) -> str | None:
        return os.environ.get(self.name)

    @property
    def is_set(self) -> bool:
        return self.name in os.environ


REGISTRY: dict[str, Variable] = {}


def _register(name: str, default: object, help: str, secret: bool = False) -> str | None:
    REGISTRY[name] = Variable(name, None if default is None else str(default), help, secret)
    return os.environ.get(name)


def env_str(name: str, default: str | None, help: str, *, secret: bool = False) -> str | None:
    raw = _register(name, default, help, secret)
    if raw is None or raw == "":
        return default
    if "\x00" in raw:
        raise ImproperlyConfigured(f"{name} contains a NUL byte")
    return raw


def env_bool(name: str, default: bool, help: str) -> bool:
    raw = _register(name, "true" if default else "false", help)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of true/false/1/0/yes/no, got {raw!r}")


def env_int(
    name: str, default: int, help: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    raw = _register(name, default, help)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ImproperlyConfigured(f"{name} must be <= {maximum}, got {value}")
    return value


def env_float(
    name: str, default: float, help: str, *, minimum: float = 0.0, maximum: float | None = None
) -> float:
    raw = _register(name, default, help)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None
    if value < minimum or (maximum is not None and value > maximum) or value != value:
        raise ImproperlyConfigured(f"{name} must be between {minimum} and {maximum}, got {value}")
    return value


def env_list(name: str, default: list[str], help: str) -> list[str]:
    raw = _register(name, ",".join(default), help)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_path(name: str, default: Path, help: str) -> Path:
    raw = _register(name, default, help)
    value = Path(raw) if raw else default
    return value.expanduser().resolve()
