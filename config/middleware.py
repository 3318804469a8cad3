from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


def error_response(status: int, code: str, message: str) -> JsonResponse:
    """The one error shape of the API: ``{"error": {"code", "message"}}``."""
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


class RequestSizeLimitMiddleware:
    """Refuse oversized bodies with 413 before anything reads them."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
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
        return self.get_response(request)
