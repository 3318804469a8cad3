"""MCP over streamable HTTP at ``/mcp``, beside Django in one ASGI app.

The gate in front of the SDK's app refuses, before anything else runs:
* a ``Host`` outside ``ALLOWED_HOSTS`` (400), and an ``Origin`` that is
  neither this host nor in ``TRIBUTARY_MCP_ALLOWED_ORIGINS`` (403) — a web
  page must not drive a local agent's memory (DNS rebinding);
* a request without a valid, unrevoked bearer key (401). Every request is
  authenticated on its own: the server is stateless, no session carries
  identity;
* a key over its request rate (429 with Retry-After), counted with its REST
  requests in one window (``accounts.throttling``).
The principal goes to the tools in the ASGI scope.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http.request import split_domain_port, validate_host

from accounts.throttling import rate_exceeded
from config.errors import retry_after as retry_after_value
from config.middleware import RETRY_AFTER_SECONDS
from regions.directory import TenantMoving
from tribal_mcp.server import SCOPE_PRINCIPAL, _authenticate, mcp

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[None]]
MCP_PATH = "/mcp"


async def _refuse(
    send: Send, status: int, code: str, message: str, *, retry_after: float | None = None
) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", retry_after_value(retry_after).encode()))
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="tributary"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def origin_allowed(origin: str, host: str) -> bool:
    """No Origin (not a browser), this very host, or one configured."""
    if not origin:
        return True
    if origin in settings.TRIBUTARY_MCP_ALLOWED_ORIGINS:
        return True
    return urlsplit(origin).netloc.lower() == host.lower()


class McpGate:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        domain, _ = split_domain_port(host)
        if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
            await _refuse(send, 400, "bad_host", "this host is not served here")
            return
        if not origin_allowed(headers.get("origin", ""), host):
            await _refuse(send, 403, "bad_origin", "requests from this origin are refused")
            return
        scheme, _, key = headers.get("authorization", "").partition(" ")
        principal = None
        if scheme.lower() == "bearer" and key.strip():
            try:
                principal = await sync_to_async(_authenticate, thread_sensitive=False)(key.strip())
            except TenantMoving as exc:  # as REST answers it (regions.middleware)
                await _refuse(send, 503, "tenant_moving", str(exc), retry_after=RETRY_AFTER_SECONDS)
                return
        if principal is None:
            await _refuse(send, 401, "unauthorized", "a valid, unrevoked API key is required")
            return
        wait = await sync_to_async(rate_exceeded, thread_sensitive=False)(principal)
        if wait is not None:
            message = "this key is over its request rate; retry after Retry-After seconds"
            await _refuse(send, 429, "rate_limited", message, retry_after=wait)
            return
        scope[SCOPE_PRINCIPAL] = principal
        await self.app(scope, receive, send)


class Router:
    """``/mcp`` to the MCP app (behind the gate), everything else to Django.
    Lifespan events go to the MCP app, whose session manager needs them."""

    def __init__(self, django_app: ASGIApp, mcp_app: ASGIApp) -> None:
        self.django_app = django_app
        self.mcp_app = mcp_app
        self.gated = McpGate(mcp_app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.mcp_app(scope, receive, send)
        elif scope["type"] == "http" and (
            scope["path"] == MCP_PATH or scope["path"].startswith(MCP_PATH + "/")
        ):
            await self.gated(scope, receive, send)
        else:
            await self.django_app(scope, receive, send)


def build(django_app: ASGIApp) -> Router:
    """The one ASGI app: Django, and ``/mcp`` behind the gate. Each app
    gets a session manager of its own (the SDK's runs once per instance,
    so a second app built in the same process - a second server in tests -
    would fail at start-up with the first one's)."""
    mcp._session_manager = None
    return Router(django_app, mcp.streamable_http_app())
