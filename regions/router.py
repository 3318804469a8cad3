"""What lives in the directory database rather than a region's.

The directory (``regions.models``), Django's users, groups, permissions,
content types, sessions and admin log, staff memberships (a staff user to a
tenant slug) and the evaluation history: identity of people, routing and
product figures, never tenant content.
Everything else is a tenant's and goes to the ``default`` alias, which is
the routed region's database (``regions.connections``).

Every database gets the whole schema (migrations run on each); only rows
are placed. With one region the directory is the one database.
"""

from __future__ import annotations

from typing import Any

from regions.connections import DIRECTORY

DIRECTORY_APPS = frozenset({"regions", "auth", "contenttypes", "sessions", "admin"})
# Staff memberships are people's; the evaluation history is the product's
# (no tenant's rows: it is kept once, whatever region an evaluation ran in).
DIRECTORY_MODELS = frozenset({("accounts", "staffmembership"), ("memory", "evalrun")})


def in_directory(model: Any) -> bool:
    meta = model._meta
    return meta.app_label in DIRECTORY_APPS or (meta.app_label, meta.model_name) in DIRECTORY_MODELS


class DirectoryRouter:
    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        return DIRECTORY if in_directory(model) else "default"

    def db_for_write(self, model: Any, **hints: Any) -> str | None:
        return DIRECTORY if in_directory(model) else "default"

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        return in_directory(type(obj1)) == in_directory(type(obj2)) or None
