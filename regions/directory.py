"""Reading and writing the directory (``regions.models``).

Writers: a tenant is placed when it is created (``accounts.services
.tenant_ensure``), a key when it is issued, and ``tenant_move`` switches a
placement. Readers route: a key prefix to its tenant's region (cached for a
few seconds in each process: every API request asks), a slug to its region.

The directory and a region are two databases, so a placement is written
after the region's rows commit, and is idempotent: a tenant whose placement
write failed is placed again by the next ``tenant_ensure`` or key issue.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass

from django.db import transaction

from regions.connections import DIRECTORY
from regions.models import KeyPlacement, TenantPlacement
from regions.routing import multi_region

# How long a process trusts what it read about a key prefix. tenant_move
# waits this long after freezing a tenant, so every process has seen the
# freeze before the copy starts.
ROUTE_CACHE_SECONDS = 5.0


@dataclass(frozen=True)
class Placement:
    slug: str
    tenant_id: uuid.UUID
    region: str
    moving_to: str


def _placement(row: TenantPlacement) -> Placement:
    return Placement(
        slug=row.slug, tenant_id=row.tenant_ref, region=row.region, moving_to=row.moving_to
    )


def tenant_place(*, slug: str, tenant_id: uuid.UUID, region: str) -> None:
    """Record (or confirm) that tenant ``slug`` lives in ``region``."""
    with transaction.atomic(using=DIRECTORY):
        TenantPlacement.objects.update_or_create(
            slug=slug, defaults={"tenant_ref": tenant_id, "region": region}
        )


def key_place(*, prefix: str, tenant_slug: str) -> None:
    KeyPlacement.objects.update_or_create(prefix=prefix, defaults={"tenant_id": tenant_slug})


def placement_of(slug: str) -> Placement | None:
    row = TenantPlacement.objects.filter(slug=slug).first()
    return None if row is None else _placement(row)


def placement_of_tenant(tenant_id: uuid.UUID) -> Placement | None:
    row = TenantPlacement.objects.filter(tenant_ref=tenant_id).first()
    return None if row is None else _placement(row)


def placements(region: str | None = None) -> list[Placement]:
    rows = TenantPlacement.objects.order_by("slug")
    if region is not None:
        rows = rows.filter(region=region)
    return [_placement(row) for row in rows]


def placements_of(slugs: list[str]) -> list[Placement]:
    return [_placement(row) for row in TenantPlacement.objects.filter(slug__in=slugs)]


def placement_set(*, slug: str, region: str | None = None, moving_to: str | None = None) -> None:
    changes: dict[str, str] = {}
    if region is not None:
        changes["region"] = region
    if moving_to is not None:
        changes["moving_to"] = moving_to
    TenantPlacement.objects.filter(slug=slug).update(**changes)
    route_cache_clear()


_cache: dict[str, tuple[float, Placement | None]] = {}
_cache_lock = threading.Lock()


def placement_of_prefix(prefix: str) -> Placement | None:
    """The placement of the tenant that key ``prefix`` belongs to (None:
    no such key anywhere); cached ROUTE_CACHE_SECONDS."""
    now = time.monotonic()
    with _cache_lock:
        hit = _cache.get(prefix)
    if hit is not None and hit[0] > now:
        return hit[1]
    row = KeyPlacement.objects.select_related("tenant").filter(prefix=prefix).first()
    found = None if row is None else _placement(row.tenant)
    with _cache_lock:
        if len(_cache) > 10_000:
            _cache.clear()
        _cache[prefix] = (now + ROUTE_CACHE_SECONDS, found)
    return found


def route_cache_clear() -> None:
    with _cache_lock:
        _cache.clear()


def prefix_of_key(raw: str) -> str | None:
    """The lookup prefix of ``trib_<prefix>_<secret>`` (None: not that shape)."""
    parts = raw.split("_")
    if len(parts) < 3 or parts[0] != "trib" or len(parts[1]) != 12:
        return None
    return parts[1]


class TenantMoving(Exception):
    """The key's tenant is being moved to another region (``tenant_move``):
    nothing may be written to it until its placement switches."""

    def __init__(self, placement: Placement) -> None:
        super().__init__(
            f"this tenant's memory is moving to region {placement.moving_to!r}; retry shortly"
        )
        self.placement = placement


def region_of_key(raw: str) -> str | None:
    """The region a presented key routes to; None for a malformed key or an
    unknown prefix (left unrouted, it matches no key). Raises
    ``TenantMoving`` while the key's tenant moves."""
    if not multi_region():
        return None
    prefix = prefix_of_key(raw)
    placement = None if prefix is None else placement_of_prefix(prefix)
    if placement is not None and placement.moving_to:
        raise TenantMoving(placement)
    return None if placement is None else placement.region
