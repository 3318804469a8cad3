from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.deprecation import MiddlewareMixin
from psycopg_pool import PoolTimeout
from rest_framework.views import APIView
from whitenoise.middleware import WhiteNoiseMiddleware

from config.errors import refusal_from_database
from config.logjson import request_id, tenant_slug
from config.metrics import HTTP_REQUESTS, HTTP_SECONDS


def error_response(status: int, code: str, message: str) -> JsonResponse:
    """The one error shape of the API: ``{"error": {"code", "message"}}``."""
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


class _Hybrid:
    """A middleware that runs in the mode of the chain it sits in: under ASGI
    a sync-only middleware makes Django hop to a thread and back around it
    for every request (three thread hops for an async view instead of one)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        answer = self.answer(request)
        return self.get_response(request) if answer is None else answer

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        answer = await self.answer_async(request)
        return await self.get_response(request) if answer is None else answer

    def answer(self, request: HttpRequest) -> HttpResponse | None:
        """The response this middleware gives itself, or None to pass on."""
        raise NotImplementedError

    async def answer_async(self, request: HttpRequest) -> HttpResponse | None:
        return self.answer(request)


class RequestSizeLimitMiddleware(_Hybrid):
    """Refuse oversized bodies with 413 before anything reads them."""

    def answer(self, request: HttpRequest) -> HttpResponse | None:
        raw = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(raw)
        except ValueError:
            return error_response(400, "invalid_content_length", "Content-Length is not a number.")
        if length > settings.TRIBUTARY_MAX_BODY_BYTES:
            return error_response(
                413,
                "payload_too_large",
                f"Request body is {length} bytes; the limit is "
                f"{settings.TRIBUTARY_MAX_BODY_BYTES}.",
            )
        return None


class UnknownQueryParameterMiddleware(_Hybrid):
    """An API call with a query parameter its endpoint does not take gets
    ``400 unknown_parameter``, as an unknown body field does — a misspelt
    ``?limt=`` is a mistake to report, not to ignore. An endpoint's
    parameters are its view's ``query_parameters`` (none by default), the
    same names its schema documents."""

    prefix = "/api/v1/"

    def answer(self, request: HttpRequest) -> HttpResponse | None:
        if not request.GET or not request.path_info.startswith(self.prefix):
            return None
        try:
            view = getattr(resolve(request.path_info).func, "cls", None)
        except Resolver404:
            return None
        if view is None or not issubclass(view, APIView):
            return None
        allowed: frozenset[str] = getattr(view, "query_parameters", frozenset())
        unknown = sorted(set(request.GET) - allowed)
        if not unknown:
            return None
        takes = ", ".join(sorted(allowed)) or "none"
        return error_response(
            400,
            "unknown_parameter",
            f"Unknown query parameter {', '.join(map(repr, unknown))}; "
            f"this endpoint takes: {takes}.",
        )


# While PostgreSQL is down or restarting, a request cannot connect (or gets
# no pooled connection within TRIBUTARY_DB_TIMEOUT): a client should come
# back shortly, which is what 503 with Retry-After says (the Python client
# retries it).
RETRY_AFTER_SECONDS = 5


def database_unavailable(exc: BaseException) -> bool:
    if isinstance(exc, PoolTimeout):
        return True
    if isinstance(exc, (OperationalError, InterfaceError)):
        # 40001 / 40P01 are conflicts the services retry, not an outage
        sqlstate = getattr(getattr(exc, "__cause__", None), "sqlstate", None)
        return sqlstate not in {"40001", "40P01"}
    return False


DATABASE_UNAVAILABLE = "The database is unavailable; retry shortly."


def database_unavailable_response() -> JsonResponse:
    response = error_response(503, "database_unavailable", DATABASE_UNAVAILABLE)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """Outside DRF (pages, MCP's Django side, the transaction ATOMIC_REQUESTS
    opens before a view runs): the database down answers 503, not 500, and a
    trigger's refusal (the storage quota) its own 4xx/5xx."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        refusal = refusal_from_database(exception)
        if refusal is not None:
            return error_response(refusal.status, refusal.code, refusal.message)
        return database_unavailable_response() if database_unavailable(exception) else None


# Pages load scripts only from the service itself (htmx and the dashboard's
# script are static files); styles may be inline (htmx injects its indicator
# style; the admin uses style attributes). The browsable API docs build
# Swagger UI with an inline script, and get that one allowance.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
_DOCS_POLICY = CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'", "script-src 'self' 'unsafe-inline'"
)


class ContentSecurityPolicyMiddleware(MiddlewareMixin):
    """A Content-Security-Policy on every HTML page."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if response.get("Content-Type", "").startswith("text/html"):
            docs = request.path_info.startswith(("/api/docs", "/api/redoc"))
            response.setdefault(
                "Content-Security-Policy", _DOCS_POLICY if docs else CONTENT_SECURITY_POLICY
            )
        return response


class StaticFilesMiddleware(_Hybrid):
    """WhiteNoise's static files, without its sync-only middleware in front
    of every request: only a path under the static prefix goes to WhiteNoise
    (in a thread under ASGI: serving opens the file); every other request
    passes straight on in the chain's own mode."""

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        super().__init__(get_response)
        # Asked only to serve: where it has no file it answers None.
        self.whitenoise = WhiteNoiseMiddleware(get_response=lambda request: None)

    def answer(self, request: HttpRequest) -> HttpResponse | None:
        if not request.path_info.startswith(self.whitenoise.static_prefix):
            return None
        response: HttpResponse | None = self.whitenoise(request)
        return response

    async def answer_async(self, request: HttpRequest) -> HttpResponse | None:
        if not request.path_info.startswith(self.whitenoise.static_prefix):
            return None
        return await sync_to_async(self.answer, thread_sensitive=False)(request)


_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
request_log = logging.getLogger("config.request")


class RequestObservabilityMiddleware(_Hybrid):
    """Every request: an id (the ``X-Request-ID`` it came with, if sane, or
    a new one; echoed in the answer and on every log line made for it), its
    count and latency by route (``config.metrics``) and, with JSON logs, one
    line saying how it ended."""

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._observed_async(request)
        token, started = self._begin(request)
        try:
            response = self.get_response(request)
        finally:
            request_id.reset(token)
        self._end(request, response, started)
        return response

    async def _observed_async(self, request: HttpRequest) -> HttpResponse:
        token, started = self._begin(request)
        try:
            response: HttpResponse = await self.get_response(request)
        finally:
            request_id.reset(token)
        self._end(request, response, started)
        return response

    @staticmethod
    def _begin(request: HttpRequest) -> tuple[Any, float]:
        given = request.META.get("HTTP_X_REQUEST_ID", "")
        request.tributary_request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex  # type: ignore[attr-defined]
        return request_id.set(request.tributary_request_id), time.perf_counter()  # type: ignore[attr-defined]

    @staticmethod
    def _end(request: HttpRequest, response: HttpResponse, started: float) -> None:
        seconds = time.perf_counter() - started
        match = getattr(request, "resolver_match", None)
        route = (match.route or match.view_name) if match is not None else "unmatched"
        status = response.status_code
        HTTP_REQUESTS.labels(request.method or "", route, str(status)).inc()
        HTTP_SECONDS.labels(route).observe(seconds)
        response["X-Request-ID"] = request.tributary_request_id  # type: ignore[attr-defined]
        if settings.TRIBUTARY_LOG_FORMAT == "json":
            outcome = "ok" if status < 400 else "client_error" if status < 500 else "server_error"
            token = tenant_slug.set(getattr(request, "tributary_tenant", None))
            rid = request_id.set(request.tributary_request_id)  # type: ignore[attr-defined]
            try:
                request_log.info(
                    "%s %s %s", request.method, route, status,
                    extra={"method": request.method, "route": route, "status": status,
                           "duration_ms": round(seconds * 1000, 2), "outcome": outcome},
                )  # fmt: skip
            finally:
                request_id.reset(rid)
                tenant_slug.reset(token)
