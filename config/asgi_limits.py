"""The request-body limit at the ASGI edge, where every body arrives.

Django's own limit (``RequestSizeLimitMiddleware``) reads ``Content-Length``.
A chunked request has none: Django's ASGI handler spools the whole body
first (any size), and DRF, seeing no length, parses it as empty — a chunked
``PUT`` of a policy would reset it to the defaults. Here, before Django: a
declared length over ``TRIBUTARY_MAX_BODY_BYTES`` is refused at once; a body
without one is read up to the limit (413 past it, nothing more read), then
handed on whole with its ``Content-Length`` set.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings

Scope = dict[str, Any]
Message = dict[str, Any]


class BodyLimit:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = settings.TRIBUTARY_MAX_BODY_BYTES
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                too_large = int(declared) > limit
            except ValueError:
                await _error(send, 400, "invalid_content_length", "Content-Length is not a number.")
                return
            if too_large:
                await _error(send, 413, "payload_too_large", _too_large(limit))
                return
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > limit:
                await _error(send, 413, "payload_too_large", _too_large(limit))
                return
            if not message.get("more_body", False):
                break
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        scope = {
            **scope,
            "headers": [
                *[(k, v) for k, v in scope.get("headers", []) if k != b"transfer-encoding"],
                (b"content-length", str(len(body)).encode()),
            ],
        }
        await self.app(scope, replay, send)


def _too_large(limit: int) -> str:
    return f"The request body is larger than the limit of {limit} bytes."


async def _error(send: Any, status: int, code: str, message: str) -> None:
    payload = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
