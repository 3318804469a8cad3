"""When to try a request again, and how long to wait first.

Shared by the sync and async clients (they only differ in how they sleep).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from tributary_client.api import Call

# The service did not process the request: always safe to send again.
NOT_PROCESSED = frozenset({429, 503})
# A gateway gave up: the service may or may not have processed it.
GATEWAY = frozenset({502, 504})
MAX_DELAY = 30.0


def retry_after(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds (delta-seconds or an HTTP date), if any."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _unsent(exc: httpx.TransportError) -> bool:
    """The request never reached the server (nothing can have happened)."""
    return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)


@dataclass(frozen=True)
class RetryPolicy:
    """``retries`` further attempts at most, waiting ``backoff * 2**n``
    seconds (with jitter: between half and all of it, capped at 30 s), or
    what the server's ``Retry-After`` says. A ``Retry-After`` longer than
    ``max_retry_after`` is not waited for: the error is raised at once."""

    retries: int = 3
    backoff: float = 0.5
    max_retry_after: float = 60.0

    def backoff_delay(self, attempt: int) -> float:
        ceiling = min(MAX_DELAY, self.backoff * (2**attempt))
        return random.uniform(ceiling / 2, ceiling)  # noqa: S311 (jitter, not secrets)

    def after_response(
        self, call: Call[Any], response: httpx.Response, attempt: int
    ) -> float | None:
        """Seconds to wait before trying again, or ``None`` to answer now."""
        status = response.status_code
        if not call.retry or attempt >= self.retries or status in call.accept:
            return None
        if status in NOT_PROCESSED or (status in GATEWAY and call.idempotent):
            told = retry_after(response)
            if told is None:
                return self.backoff_delay(attempt)
            return told if told <= self.max_retry_after else None
        return None

    def after_error(self, call: Call[Any], exc: httpx.TransportError, attempt: int) -> float | None:
        """Seconds to wait before trying again after no answer, or ``None``
        to give up: only when the request never left, or repeating it is
        safe (GETs, recall, a learn with an idempotency key)."""
        if not call.retry or attempt >= self.retries:
            return None
        if _unsent(exc) or call.idempotent:
            return self.backoff_delay(attempt)
        return None
