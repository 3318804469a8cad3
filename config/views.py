"""Health endpoints and the JSON fallbacks for the API's URL space."""

from __future__ import annotations

import hmac
import time
from typing import Any

from django.conf import settings
from django.db import connection, connections, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.http import require_GET
from django.views.defaults import bad_request as page_bad_request
from django.views.defaults import page_not_found, permission_denied, server_error
from prometheus_client import CONTENT_TYPE_LATEST

from config.metrics import exposition
from config.middleware import error_response
from regions.connections import DIRECTORY
from regions.routing import each_region, multi_region


@require_GET
@transaction.non_atomic_requests
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers. Touches neither database nor Redis."""
    return JsonResponse({"status": "ok"})


def _check(fn: Any) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        fn()
    except Exception as exc:  # any failure makes the check fail, with its reason
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}


def _postgres() -> None:
    """The directory and every region's database answer."""
    with connections[DIRECTORY].cursor() as cursor:
        cursor.execute("SELECT 1")
    for _ in each_region():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")


def _redis() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        conn.default_channel.client.ping()


def _learning() -> None:
    """No learn request has waited longer than TRIBUTARY_READY_MAX_PENDING_SECONDS:
    something consumes the queue (a dead or looping worker pool fails this)."""
    from accounts.tenancy import cross_tenant
    from memory.models import LearnRequest, RequestStatus

    for region in each_region():  # each region has its own worker pool
        with cross_tenant(reason="readiness: the oldest pending learn"):
            oldest = (
                LearnRequest.objects.filter(status=RequestStatus.PENDING)
                .order_by("created_at")
                .values_list("created_at", flat=True)
                .first()
            )
        if oldest is None:
            continue
        waited = (timezone.now() - oldest).total_seconds()
        if waited > settings.TRIBUTARY_READY_MAX_PENDING_SECONDS:
            where = f" in region {region}" if multi_region() else ""
            raise RuntimeError(
                f"a learn request has been pending{where} for {waited:.0f} s: "
                "no worker is consuming"
            )


@require_GET
@transaction.non_atomic_requests
def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: PostgreSQL and Redis answer, and learning is consumed."""
    checks = {"postgres": _check(_postgres), "redis": _check(_redis)}
    if checks["postgres"]["ok"]:
        checks["learning"] = _check(_learning)
    ready = all(check["ok"] for check in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503
    )


def _metrics_allowed(request: HttpRequest) -> bool:
    """With TRIBUTARY_METRICS_TOKEN as a bearer token from anywhere; without
    one, only from loopback and not through a proxy (a proxy on the same
    host would make every client look local)."""
    token = settings.TRIBUTARY_METRICS_TOKEN
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if token and hmac.compare_digest(header.encode(), f"Bearer {token}".encode()):
        return True
    proxied = "HTTP_X_FORWARDED_FOR" in request.META or "HTTP_FORWARDED" in request.META
    return request.META.get("REMOTE_ADDR") in LOOPBACK and not proxied


LOOPBACK = frozenset({"127.0.0.1", "::1"})


@require_GET
@transaction.non_atomic_requests
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus metrics (config.metrics), every process's."""
    if not _metrics_allowed(request):
        response = error_response(401, "unauthorized", "Metrics need the metrics token.")
        response["WWW-Authenticate"] = 'Bearer realm="tributary-metrics"'
        return response
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)


def _in_the_api(request: HttpRequest) -> bool:
    """Errors under /api/ answer in the API's JSON error shape; pages keep
    Django's own error pages."""
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's own 400s (a Host outside ALLOWED_HOSTS, too many fields)."""
    if _in_the_api(request):
        return error_response(400, "bad_request", "Bad request.")
    return page_bad_request(request, exception or Exception())


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _in_the_api(request):
        return error_response(403, "forbidden", "Forbidden.")
    return permission_denied(request, exception or Exception())


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _in_the_api(request):
        return error_response(404, "not_found", "Not found.")
    return page_not_found(request, exception or Exception())


def internal_error(request: HttpRequest) -> HttpResponse:
    if _in_the_api(request):
        return error_response(500, "internal_error", "Internal server error.")
    return server_error(request)
