"""What a process remembers about one tenant's scope — a region's
connection, a tenant, the kinds searched — for a few seconds or minutes:
the search plan (``memory.selectors``), the relevance floor
(``memory.relevance``). Each is a hint that is only ever slow when stale,
never wrong; a process serving many tenants starts over rather than grow.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Generic, TypeVar

from regions.routing import current_alias

Key = tuple[str, uuid.UUID, tuple[str, ...]]
V = TypeVar("V")


def scope_key(tenant_id: uuid.UUID, kinds: Sequence[str]) -> Key:
    return (current_alias(), tenant_id, tuple(sorted(kinds)))


class ScopeCache(Generic[V]):
    """A value per scope, kept for ``ttl`` seconds."""

    MAX = 50_000

    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self._values: dict[Key, tuple[float, V]] = {}

    def get(self, key: Key) -> V | None:
        known = self._values.get(key)
        return known[1] if known is not None and known[0] > time.monotonic() else None

    def put(self, key: Key, value: V) -> None:
        if len(self._values) > self.MAX:  # many tenants: start over rather than grow
            self._values.clear()
        self._values[key] = (time.monotonic() + self.ttl, value)

    def clear(self) -> None:
        self._values.clear()
