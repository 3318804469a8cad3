"""Route each web request to its region before its transaction opens.

The request's transaction (ATOMIC_REQUESTS, entered when the view is
called) is on the ``default`` alias, which follows the region: so the
region must be known before the view, from what the request carries —

* an API key (``Authorization: Bearer trib_<prefix>_…``): the directory
  maps the prefix to its tenant's region, and the key is then verified
  there, against that region's rows. An unknown prefix stays unrouted (the
  directory database has no keys: the answer is the usual 401);
* a signed-in curator on the admin or the dashboard: the region of the
  tenant they curate now (``accounts.staff.page_region``).

A tenant being moved (``tenant_move``) is answered 503 with Retry-After
until its placement switches. With one region this middleware removes
itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.core.exceptions import MiddlewareNotUsed
from django.db import connections
from django.http import HttpRequest, HttpResponse

from config.middleware import RETRY_AFTER_SECONDS, _Hybrid, error_response
from regions.connections import DIRECTORY
from regions.directory import Placement, placement_of_prefix, prefix_of_key
from regions.routing import in_region, multi_region

PAGES = ("/admin/", "/dashboard/")


def key_prefix(request: HttpRequest) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, raw = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return prefix_of_key(raw.strip())


def tenant_moving(placement: Placement) -> HttpResponse:
    response = error_response(
        503,
        "tenant_moving",
        f"This tenant's memory is moving to region {placement.moving_to!r}; retry shortly.",
    )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def route(request: HttpRequest) -> tuple[str | None, HttpResponse | None]:
    """(region, None) to serve the request there; (None, response) to
    answer it at once. Reads the directory; runs in a thread under ASGI."""
    try:
        prefix = key_prefix(request)
        if prefix is not None:
            placement = placement_of_prefix(prefix)
            if placement is None:
                return None, None
            if placement.moving_to:
                return None, tenant_moving(placement)
            return placement.region, None
        if request.path_info.startswith(PAGES):
            from accounts.staff import page_region

            return page_region(request), None
        return None, None
    finally:
        directory = connections[DIRECTORY]
        if not directory.in_atomic_block:
            directory.close()  # back to the pool: the view runs elsewhere


class RegionRoutingMiddleware(_Hybrid):
    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        if not multi_region():
            raise MiddlewareNotUsed
        super().__init__(get_response)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        region, answer = route(request)
        if answer is not None:
            return answer
        with in_region(region):
            return self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        region, answer = await sync_to_async(route, thread_sensitive=False)(request)
        if answer is not None:
            return answer
        with in_region(region):
            return await self.get_response(request)  # type: ignore[no-any-return]
