"""The Django instrumentation's middleware, able to run in async mode, and
cheap for the requests whose trace is not recorded.

OpenTelemetry's Django middleware is sync-only. Most requests run the
chain in sync mode (``config.asgi_handler``) and meet it as it is; the
async views (the learn long-poll) run Django's async chain, where a
sync-only middleware first in line makes Django hop to a thread for it,
back to the event loop for the rest of the chain, and to a thread again for
its ``process_view``. This subclass keeps the instrumentation's own span
logic and, in async mode, calls it in place — it does no I/O.

The instrumentation does its work — the route resolved again for the span's
name, the request's attributes collected, the duration's attributes sorted
— before and whatever the sampler decides, and the sampler drops nine
requests in ten. So the decision is taken first (``config.telemetry.
decide_root``: the trace id drawn, the sampler asked): a request that starts
a trace the sampler drops runs under a non-recording span of that trace id,
not sampled, which everything below it (our spans, psycopg's statements,
the Celery task it enqueues) follows as it followed the instrumentation's;
one it keeps, or one that arrives with a ``traceparent``, takes the
instrumentation's path, whose root span gets the id already drawn and so
the same decision. Imported only when tracing is on
(``config.telemetry.install_tracing``).
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse
from opentelemetry import context, trace
from opentelemetry.instrumentation.django.middleware.otel_middleware import _DjangoMiddleware

from config.telemetry import decide_root

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
        dropped = _dropped(request)
        if dropped is None:
            return super().__call__(request)
        token = context.attach(trace.set_span_in_context(dropped))
        try:
            return self.get_response(request)
        finally:
            context.detach(token)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        dropped = _dropped(request)
        if dropped is not None:
            token = context.attach(trace.set_span_in_context(dropped))
            try:
                return await self.get_response(request)  # type: ignore[no-any-return]
            finally:
                context.detach(token)
        self.process_request(request)
        response = await self.get_response(request)
        return self.process_response(request, response)  # type: ignore[no-any-return]

    async def _process_view_in_place(
        self, request: HttpRequest, view_func: Any, *args: Any, **kwargs: Any
    ) -> None:
        super().process_view(request, view_func, *args, **kwargs)


def _dropped(request: HttpRequest) -> trace.Span | None:
    """The non-recording span a request runs under when it starts a trace
    the sampler drops; None when the instrumentation's path is to run (the
    trace is kept, or the request carries its caller's trace)."""
    if "traceparent" in request.headers:
        return None
    return decide_root(f"{request.method} {request.path}")
