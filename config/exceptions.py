"""The one API exception handler.

Services raise ``config.errors.ApplicationError`` subclasses; the handler
maps them, DRF's own exceptions and a few Django ones to
``{"error": {"code", "message"}}`` with a stable ``code``. Any error rolls
the request's transaction back.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import set_rollback

from config.errors import ApplicationError, refusal_from_database, retry_after
from config.middleware import DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS, database_unavailable

log = logging.getLogger(__name__)

UNAUTHORIZED_MESSAGE = "A valid API key is required: Authorization: Bearer trib_…"


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        for field, value in detail.items():
            inner = _first_message(value)
            return inner if field == "non_field_errors" else f"{field}: {inner}"
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


# Validation failures whose cause deserves its own stable code.
_SPECIFIC_CODES = ("unknown_field", "null_characters_not_allowed", "invalid_choice")


def _validation_code(exc: drf.ValidationError) -> str:
    codes = exc.get_codes()
    flat: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)
        else:
            flat.append(str(value))

    walk(codes)
    for code in _SPECIFIC_CODES:
        if code in flat:
            return {"null_characters_not_allowed": "nul_byte"}.get(code, code)
    return "invalid"


def _body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **extra}}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    set_rollback()
    headers: dict[str, str] = {}
    exc = refusal_from_database(exc) or exc
    if isinstance(exc, ApplicationError):
        return Response(_body(exc.code, exc.message), status=exc.status)
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        # One body for missing, malformed, unknown and revoked keys: an
        # attacker learns nothing from which of them it was.
        headers["WWW-Authenticate"] = 'Bearer realm="tributary"'
        return Response(_body("unauthorized", UNAUTHORIZED_MESSAGE), status=401, headers=headers)
    if isinstance(exc, (Http404, drf.NotFound)):
        return Response(_body("not_found", "Not found."), status=404)
    if isinstance(exc, (PermissionDenied, drf.PermissionDenied)):
        message = str(getattr(exc, "detail", "")) or "Your role does not allow this."
        return Response(_body("forbidden", message), status=403)
    if isinstance(exc, RequestDataTooBig):
        return Response(_body("payload_too_large", "Request body is too large."), status=413)
    if isinstance(exc, drf.ValidationError):
        return Response(
            _body(_validation_code(exc), _first_message(exc.detail), fields=exc.detail),
            status=400,
        )
    if isinstance(exc, drf.ParseError):
        code = getattr(exc, "error_code", "malformed_body")
        return Response(_body(code, str(exc.detail)), status=400)
    if isinstance(exc, drf.UnsupportedMediaType):
        return Response(_body("unsupported_media_type", str(exc.detail)), status=415)
    if isinstance(exc, drf.MethodNotAllowed):
        return Response(_body("method_not_allowed", str(exc.detail)), status=405)
    if isinstance(exc, drf.Throttled):
        wait = getattr(exc, "wait", None)
        if wait is not None:
            headers["Retry-After"] = retry_after(wait)
        return Response(_body("rate_limited", str(exc.detail)), status=429, headers=headers)
    if isinstance(exc, drf.APIException):
        return Response(_body(exc.default_code, str(exc.detail)), status=exc.status_code)
    if database_unavailable(exc):
        log.warning("database unavailable in %s: %s", context.get("view"), exc)
        return Response(
            _body("database_unavailable", DATABASE_UNAVAILABLE),
            status=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )  # fmt: skip
    log.exception("unhandled error in %s", context.get("view"))
    return Response(_body("internal_error", "Internal server error."), status=500)
