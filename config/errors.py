"""Errors services raise; ``config.exceptions`` maps them to HTTP answers.

Kept free of DRF imports so that any layer may raise them.
"""

from __future__ import annotations


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
