"""Request bodies at the ASGI edge, over real HTTP through uvicorn: a chunked
body (no Content-Length) is read whole, and held to the size limit."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from accounts.tenancy import tenant_context
from memory.models import LearnRequest
from tests.conftest import make_caller, serve_asgi

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def base_url() -> Iterator[str]:
    from config.asgi_handler import OneHopASGIHandler
    from config.asgi_limits import BodyLimit
    from tribal_mcp.http import build

    with serve_asgi(BodyLimit(build(OneHopASGIHandler()))) as url:
        yield url


def _chunks(*parts: bytes) -> Iterator[bytes]:
    yield from parts  # a generator: httpx sends it with Transfer-Encoding: chunked


def test_a_chunked_body_is_read_whole(base_url):
    alice = make_caller("acme", "alice")
    with httpx.Client(base_url=base_url, headers=alice.headers, timeout=30) as http:
        response = http.post(
            "/api/v1/learn",
            content=_chunks(b'{"content": "Chunked bodies ', b'are read whole."}'),
            headers={"Content-Type": "application/json"},
        )
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert response.status_code in (200, 202), response.text
    with tenant_context(alice.agent.tenant_id):
        stored = LearnRequest.objects.get(id=response.json()["id"])
    assert stored.content == "Chunked bodies are read whole."


def test_a_chunked_body_past_the_limit_is_refused_without_reading_it_all(base_url, settings):
    alice = make_caller("acme", "alice")
    sent = 0

    def flood() -> Iterator[bytes]:
        nonlocal sent
        yield b'{"content": "'
        for _ in range(200):  # up to 200 MB, far past the limit
            sent += 1
            yield b"x" * 1_000_000
        yield b'"}'

    with httpx.Client(base_url=base_url, headers=alice.headers, timeout=30) as http:
        try:
            response = http.post(
                "/api/v1/learn", content=flood(), headers={"Content-Type": "application/json"}
            )
        except httpx.HTTPError:
            response = None  # the server closed the connection mid-upload: also a refusal
    if response is not None:
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "payload_too_large"
    assert sent < 200  # it stopped reading
    with tenant_context(alice.agent.tenant_id):
        assert not LearnRequest.objects.exists()


def test_a_declared_length_past_the_limit_is_refused_before_the_body(base_url, settings):
    alice = make_caller("acme", "alice")
    body = b'{"content": "' + b"x" * (settings.TRIBUTARY_MAX_BODY_BYTES + 10) + b'"}'
    with httpx.Client(base_url=base_url, headers=alice.headers, timeout=30) as http:
        response = http.post("/api/v1/learn", content=body,
                             headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.status_code == 413
    assert response.json() == {
        "error": {"code": "payload_too_large", "message": response.json()["error"]["message"]}
    }
