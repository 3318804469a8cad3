"""Parse ``DATABASE_URL`` into a Django ``DATABASES`` entry."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

ENGINE = "config.db"


def parse_database_url(url: str) -> dict[str, Any]:
    """``postgres[ql]://user:password@host:port/name?sslmode=require``.

    A unix socket directory may be given as ``?host=/path``; other query
    parameters are passed to psycopg as connection options.
    """
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL must start with postgres:// or postgresql://, got {parts.scheme!r}://"
        )
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL must name a database (…/dbname)")
    options = dict(parse_qsl(parts.query))
    host = options.pop("host", None) or unquote(parts.hostname or "")
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured("DATABASE_URL has an invalid port") from None
    return {
        "ENGINE": ENGINE,
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(port or ""),
        "OPTIONS": options,
    }
