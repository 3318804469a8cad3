from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from whitenoise.middleware import WhiteNoiseMiddleware


def error_response(status: int, code: str, message: str) -> JsonResponse:
    """The one error shape of the API: ``{"error": {"code", "message"}}``."""
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


class _Hybrid:
    """A middleware that runs in the mode of the chain it sits in: under ASGI
    a sync-only middleware makes Django hop to a thread and back around it
    for every request (three thread hops for an async view instead of one)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        answer = self.answer(request)
        return self.get_response(request) if answer is None else answer

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        answer = await self.answer_async(request)
        return await self.get_response(request) if answer is None else answer

    def answer(self, request: HttpRequest) -> HttpResponse | None:
        """The response this middleware gives itself, or None to pass on."""
        raise NotImplementedError

    async def answer_async(self, request: HttpRequest) -> HttpResponse | None:
        return self.answer(request)


class RequestSizeLimitMiddleware(_Hybrid):
    """Refuse oversized bodies with 413 before anything reads them."""

    def answer(self, request: HttpRequest) -> HttpResponse | None:
        raw = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(raw)
        except ValueError:
            return error_response(400, "invalid_content_length", "Content-Length is not a number.")
        if length > settings.TRIBUTARY_MAX_BODY_BYTES:
            return error_response(
                413,
                "payload_too_large",
                f"Request body is {length} bytes; the limit is "
                f"{settings.TRIBUTARY_MAX_BODY_BYTES}.",
            )
        return None


class StaticFilesMiddleware(_Hybrid):
    """WhiteNoise's static files, without its sync-only middleware in front
    of every request: only a path under the static prefix goes to WhiteNoise
    (in a thread under ASGI: serving opens the file); every other request
    passes straight on in the chain's own mode."""

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        super().__init__(get_response)
        # Asked only to serve: where it has no file it answers None.
        self.whitenoise = WhiteNoiseMiddleware(get_response=lambda request: None)

    def answer(self, request: HttpRequest) -> HttpResponse | None:
        if not request.path_info.startswith(self.whitenoise.static_prefix):
            return None
        response: HttpResponse | None = self.whitenoise(request)
        return response

    async def answer_async(self, request: HttpRequest) -> HttpResponse | None:
        if not request.path_info.startswith(self.whitenoise.static_prefix):
            return None
        return await sync_to_async(self.answer, thread_sensitive=False)(request)
