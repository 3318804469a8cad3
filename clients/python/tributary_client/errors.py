"""Exceptions: one base class, one subclass per HTTP status the service uses.

The service answers every error as ``{"error": {"code", "message"}}``; the
``code`` is stable and meant for programs (``uncited_belief``,
``provenance_cycle``, ``content_too_large``…), the message for people.
"""

from __future__ import annotations

import json
from typing import Any

import httpx


class TributaryError(Exception):
    """An error answer from the service (``status`` is its HTTP status), or a
    request that never got one (``status`` is ``None``: see
    :class:`ConnectionFailed`)."""

    def __init__(
        self,
        status: int | None,
        code: str,
        message: str,
        *,
        body: Any = None,
    ) -> None:
        super().__init__(f"{status or 'no answer'} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body


class BadRequest(TributaryError):
    """400: the input was refused whole (nothing was written)."""


class Unauthorized(TributaryError):
    """401: the API key is missing, unknown or revoked."""


class Forbidden(TributaryError):
    """403: the key's role does not allow this (a reader learning, a writer
    retiring…)."""


class NotFound(TributaryError):
    """404: no such thing — also what another tenant's ids answer."""


class Conflict(TributaryError):
    """409: e.g. ``provenance_cycle``, ``dispute_resolved``."""


class PayloadTooLarge(TributaryError):
    """413: a text field or the whole body is over the limit."""


class RateLimited(TributaryError):
    """429, once the client's retries are spent. ``retry_after`` is the
    server's ``Retry-After`` in seconds, when it sent one."""

    def __init__(
        self,
        status: int | None,
        code: str,
        message: str,
        *,
        body: Any = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(status, code, message, body=body)
        self.retry_after = retry_after


class ServerError(TributaryError):
    """5xx, once the client's retries (for 503, and for 502/504 on safe
    requests) are spent."""


class ConnectionFailed(TributaryError):
    """The request got no answer (connection refused, timeout, dropped
    connection) and could not be retried safely, or the retries were spent.
    The ``httpx`` exception is the ``__cause__``."""


_BY_STATUS: dict[int, type[TributaryError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    429: RateLimited,
}


def error_from_response(
    response: httpx.Response, *, retry_after: float | None = None
) -> TributaryError:
    """The exception for an error answer. A body that is not the service's
    JSON error shape (a proxy's HTML page, an empty body) still gives a
    clear exception, with code ``http_<status>``."""
    status = response.status_code
    body: Any = None
    code, message = f"http_{status}", response.reason_phrase or "HTTP error"
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        text = response.text.strip()
        if text:
            message = f"{message}: {' '.join(text.split())[:300]}"
    else:
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            code = str(error.get("code") or code)
            message = str(error.get("message") or message)
    if status == 429:
        return RateLimited(status, code, message, body=body, retry_after=retry_after)
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else TributaryError)
    return cls(status, code, message, body=body)
