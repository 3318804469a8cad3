"""The Django instrumentation's middleware, able to run in async mode.

OpenTelemetry's Django middleware is sync-only. Most requests run the
chain in sync mode (``config.asgi_handler``) and meet it as it is; the
async views (the learn long-poll) run Django's async chain, where a
sync-only middleware first in line makes Django hop to a thread for it,
back to the event loop for the rest of the chain, and to a thread again for
its ``process_view``. This subclass keeps the instrumentation's own span
logic and, in async mode, calls it in place — it does no I/O. Imported only
when tracing is on (``config.telemetry.install_tracing``).
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse
from opentelemetry.instrumentation.django.middleware.otel_middleware import _DjangoMiddleware

PATH = f"{__name__}.TracingMiddleware"


class TracingMiddleware(_DjangoMiddleware):  # type: ignore[misc]
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Any) -> None:
        super().__init__(get_response)
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)
            # Django wraps a sync process_view in sync_to_async in async mode
            self.process_view = self._process_view_in_place  # type: ignore[method-assign]

    def __call__(self, request: HttpRequest) -> Any:
        if self.async_mode:
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        self.process_request(request)
        response = await self.get_response(request)
        return self.process_response(request, response)  # type: ignore[no-any-return]

    async def _process_view_in_place(
        self, request: HttpRequest, view_func: Any, *args: Any, **kwargs: Any
    ) -> None:
        super().process_view(request, view_func, *args, **kwargs)
