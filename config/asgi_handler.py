"""Django under uvicorn with the whole request in one thread hop.

Django's own ASGI handler builds the middleware chain in async mode. Our
views are sync (DRF), and so are most middlewares' hooks: Django's
``MiddlewareMixin`` runs each ``process_request``/``process_response`` of
an async chain through ``sync_to_async``, so a recall crossed between the
event loop and a thread about fourteen times, and a fifth of the web
process's time went to that machinery (asyncio and concurrent.futures, by
py-spy). This handler builds the chain in sync mode and runs it, view
included, in one ``sync_to_async`` call per request (in the request's own
thread, as ``ThreadSensitiveContext`` gives every ASGI request): recall p50
over HTTP 0.92 of before (docs/benchmarks.md). Requests for an async view
(the learn long-poll, which waits without holding a thread) go through
Django's own async chain, unchanged.
"""

from __future__ import annotations

from functools import partial

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest, HttpResponseBase
from django.urls import Resolver404, resolve

from config.after_response import collect, run_all, stop_collecting


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self._async_views = ASGIHandler()  # Django's async chain, for async views

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        if _async_view(request.path_info):
            return await self._async_views.get_response_async(request)
        # Work the request leaves for after its response (config.after_response)
        # runs when Django closes the response, once the body is sent.
        tasks, token = collect()
        try:
            response: HttpResponseBase = await sync_to_async(
                self.get_response, thread_sensitive=True
            )(request)
        finally:
            stop_collecting(token)
        if tasks:
            response._resource_closers.append(partial(run_all, tasks))  # type: ignore[attr-defined]
        return response


def _async_view(path: str) -> bool:
    try:
        return iscoroutinefunction(resolve(path).func)
    except Resolver404:
        return False
