"""Health endpoints and the JSON fallbacks for the API's URL space."""

from __future__ import annotations

import time
from typing import Any

from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET
from django.views.defaults import page_not_found, server_error

from config.middleware import error_response


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
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _redis() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        conn.default_channel.client.ping()


@require_GET
@transaction.non_atomic_requests
def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: PostgreSQL and Redis both answer."""
    checks = {"postgres": _check(_postgres), "redis": _check(_redis)}
    ready = all(check["ok"] for check in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503
    )


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith("/api/"):
        return error_response(404, "not_found", "Not found.")
    return page_not_found(request, exception or Exception())


def internal_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        return error_response(500, "internal_error", "Internal server error.")
    return server_error(request)
