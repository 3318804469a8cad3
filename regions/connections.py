"""The ``default`` database alias follows the region (``regions.routing``).

Every query, transaction and raw cursor of the code base uses ``default``;
with regions configured it must reach the database of the region the code
runs for. Django's connection handler is therefore given one rule more:
``connections["default"]`` is the current region's connection
(``region_<name>``) while one is routed, and the directory's otherwise.
``connections["directory"]`` is always the directory's (the ``default``
entry of DATABASES). With one region, both are simply ``default``.

Transactions nest properly with regions: ``transaction.atomic`` resolves
``default`` when it enters and again when it leaves, and ``in_region`` is a
``with`` block, so the two always agree.

A region's connection answers to the request's ATOMIC_REQUESTS through the
``default`` alias; its own alias is not wrapped again (that would open a
transaction on every region for every request), yet it reports
ATOMIC_REQUESTS so DRF marks it for rollback on a handled error.
"""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.utils import ConnectionHandler

from regions.routing import current_alias

DIRECTORY = "directory"


class RegionConnectionHandler(ConnectionHandler):
    def __getitem__(self, alias: str) -> Any:
        if alias == DEFAULT_DB_ALIAS:
            alias = current_alias()
        elif alias == DIRECTORY:
            alias = DEFAULT_DB_ALIAS
        return super().__getitem__(alias)

    def __contains__(self, alias: object) -> bool:
        return alias == DIRECTORY or alias in self.settings

    def create_connection(self, alias: str) -> Any:
        connection = super().create_connection(alias)
        if alias != DEFAULT_DB_ALIAS:
            # A copy: DATABASES keeps False for it (see the module's docstring).
            connection.settings_dict = {**connection.settings_dict, "ATOMIC_REQUESTS": True}
        return connection

    def all(self, initialized_only: bool = False) -> list[Any]:
        # Each connection once (``default`` is one of the others while routed).
        found: list[Any] = []
        for alias in self:
            if initialized_only and not hasattr(self._connections, alias):  # type: ignore[attr-defined]
                continue
            connection = super().__getitem__(alias)
            if all(connection is not seen for seen in found):
                found.append(connection)
        return found


def install() -> None:
    """Give Django's one connection handler the region rule (AppConfig.ready,
    before any query)."""
    if not isinstance(connections, RegionConnectionHandler):
        connections.__class__ = RegionConnectionHandler
