"""Which region the current code runs for.

A context variable holds the region: the web sets it per request
(``regions.middleware``: from the API key's prefix, or a curator's tenant),
the MCP server per call (the principal's region), a worker from
``TRIBUTARY_REGION`` (one worker pool per region), a command with
``in_region``. While it is set, the ``default`` database alias is that
region's database (``regions.connections``): no query of tenant data names
a database, so none can reach a region it was not routed to.

Unrouted (no region set, no process region), ``default`` is the directory
database, which holds no tenant's rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings

from regions.layout import DEFAULT_REGION, region_alias

_current: ContextVar[str | None] = ContextVar("tributary_region", default=None)


class UnknownRegion(LookupError):
    pass


def region_names() -> list[str]:
    """The configured regions, in the order TRIBUTARY_REGIONS names them."""
    specs = settings.TRIBUTARY_REGION_SPECS
    return [spec.name for spec in specs] if specs else [DEFAULT_REGION]


def multi_region() -> bool:
    return bool(settings.TRIBUTARY_REGION_SPECS)


def check_region(name: str) -> str:
    if name not in region_names():
        raise UnknownRegion(
            f"unknown region {name!r}; the regions are: {', '.join(region_names())}"
        )
    return name


def current_region() -> str | None:
    """The region routed to now: the context's, else this process's
    (TRIBUTARY_REGION), else the only one; None when unrouted."""
    region = _current.get()
    if region is not None:
        return region
    if settings.TRIBUTARY_REGION:
        return str(settings.TRIBUTARY_REGION)
    return None if multi_region() else DEFAULT_REGION


def current_alias() -> str:
    """The database alias ``default`` stands for now."""
    region = current_region()
    return "default" if region is None else region_alias(region)


@contextmanager
def in_region(name: str | None) -> Iterator[None]:
    """Route the block to region ``name`` (None: unrouted). With one
    region there is nothing to route: a tenant's ``region`` is then only
    the label it was given."""
    if not multi_region():
        yield
        return
    if name is not None:
        check_region(name)
    token = _current.set(name)
    try:
        yield
    finally:
        _current.reset(token)


def each_region() -> Iterator[str]:
    """Run the loop body once routed to each region in turn."""
    for name in region_names():
        with in_region(name):
            yield name
