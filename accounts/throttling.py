"""Per-key request rates, counted in Redis so that every web process shares
one count: a key over its tenant's limit gets 429 with Retry-After (the
Python client honours it)."""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from django.conf import settings
from rest_framework.throttling import BaseThrottle

from accounts.principal import AgentPrincipal
from config.broker import broker

log = logging.getLogger(__name__)

WINDOW_SECONDS = 60


def rate_key(principal: AgentPrincipal, window: int) -> str:
    return f"tributary:rate:{principal.key_id}:{window}"


def rate_exceeded(principal: AgentPrincipal) -> float | None:
    """Count one request of this key; the seconds until its window ends if
    the key is over its tenant's limit, else None. A fixed one-minute window
    per API key: ``INCR`` is atomic, so two web processes can never both let
    the last request through. When Redis is unreachable requests pass (the
    broker's outage is ``/readyz``'s to report, and refusing every call
    would turn it into an API outage). REST (``KeyRateThrottle``) and MCP
    over HTTP (``tribal_mcp.http``) share this one count."""
    limit = principal.rate_limit_per_minute
    if limit is None:
        limit = settings.TRIBUTARY_RATE_LIMIT_PER_MINUTE
    if limit == 0:
        return None
    now = time.time()
    window = int(now // WINDOW_SECONDS)
    key = rate_key(principal, window)
    try:
        with broker().pipeline() as pipe:
            pipe.incr(key)
            pipe.expire(key, WINDOW_SECONDS * 2)
            count, _ = pipe.execute()
    except redis.RedisError as exc:
        log.warning("rate limit not enforced, Redis unavailable: %s", exc)
        return None
    if int(count) <= limit:
        return None
    return (window + 1) * WINDOW_SECONDS - now


class KeyRateThrottle(BaseThrottle):
    def __init__(self) -> None:
        self.wait_seconds: float | None = None

    def allow_request(self, request: Any, view: Any) -> bool:
        principal = request.user
        if not isinstance(principal, AgentPrincipal):
            return True
        self.wait_seconds = rate_exceeded(principal)
        return self.wait_seconds is None

    def wait(self) -> float | None:
        return self.wait_seconds
