"""Errors services raise; ``config.exceptions`` maps them to HTTP answers.

Kept free of DRF imports so that any layer may raise them.
"""

from __future__ import annotations

import math

from accounts.quotas import QUOTA_SQLSTATE


class ApplicationError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class NotFound(ApplicationError):
    """Also what another tenant's id gets: 404, never 403."""

    status = 404
    code = "not_found"


class Conflict(ApplicationError):
    status = 409
    code = "conflict"


class Forbidden(ApplicationError):
    status = 403
    code = "forbidden"


class PayloadTooLarge(ApplicationError):
    status = 413
    code = "payload_too_large"


class QuotaExceeded(ApplicationError):
    """The tenant's storage quota (accounts/quotas.py): nothing was kept."""

    status = 507
    code = "storage_quota_exceeded"


def refusal_from_database(exc: BaseException) -> ApplicationError | None:
    """The application error a database error stands for — a refusal a
    trigger raised (the storage quota) — or None for any other error."""
    seen: BaseException | None = exc
    while seen is not None:
        if getattr(seen, "sqlstate", None) == QUOTA_SQLSTATE:
            detail = getattr(getattr(seen, "diag", None), "message_detail", None) or ""
            return QuotaExceeded(f"The tenant's storage quota is used up: {detail}".strip(": "))
        seen = seen.__cause__
    return None


def retry_after(wait: float) -> str:
    """The Retry-After header's value for a wait in seconds: whole seconds,
    at least one (REST's 429 and the MCP gate's alike)."""
    return str(max(1, math.ceil(wait)))
