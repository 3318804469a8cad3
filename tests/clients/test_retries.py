"""Retries and error answers, against an ``httpx.MockTransport`` that plays a
service answering 429, 503, 5xx pages and dropped connections (the only
tests of the client that do not use the live service)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
from tributary_client import (
    AsyncTributary,
    ConnectionFailed,
    NotFound,
    RateLimited,
    ServerError,
    Tributary,
    TributaryError,
)
from tributary_client import client as client_module

WHOAMI = {"tenant": "acme", "agent": "alice", "role": "writer"}
LESSON = {
    "id": "6b1a3f0e-0000-4000-8000-000000000001", "content": "c", "situation": "", "kind": "lesson",
    "status": "active", "confidence": 0.7, "author": "alice",
    "created_at": "2026-01-02T03:04:05.123456Z",
}  # fmt: skip


class Script:
    """Answers requests in order from a list of responses or exceptions, and
    records what was asked."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """The client's waits, recorded instead of slept."""
    waits: list[float] = []

    async def record_async(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(client_module, "_sleep", waits.append)
    monkeypatch.setattr(client_module, "_async_sleep", record_async)
    yield waits


def sync(
    script: Script, *, retries: int = 3, backoff: float = 0.5, timeout: float = 30
) -> Tributary:
    return Tributary(
        "http://tributary.test", "trib_k", transport=httpx.MockTransport(script),
        retries=retries, backoff=backoff, timeout=timeout,
    )  # fmt: skip


def asynchronous(script: Script) -> AsyncTributary:
    return AsyncTributary("http://tributary.test", "trib_k", transport=httpx.MockTransport(script))


def error(status: int, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"error": {"code": code, "message": f"{code} happened"}}
    return httpx.Response(status, json=body, headers=headers)


def test_a_429_is_retried_after_the_servers_retry_after(slept):
    script = Script(
        error(429, "rate_limited", {"Retry-After": "2"}), httpx.Response(200, json=WHOAMI)
    )
    assert sync(script).whoami().agent == "alice"
    assert slept == [2.0]
    assert len(script.requests) == 2
    assert script.requests[0].headers["Authorization"] == "Bearer trib_k"


def test_a_retry_after_date_is_honoured(slept):
    when = datetime.now(UTC) + timedelta(seconds=30)
    script = Script(
        error(503, "unavailable", {"Retry-After": format_datetime(when, usegmt=True)}),
        httpx.Response(200, json=WHOAMI),
    )
    sync(script).whoami()
    [wait] = slept
    assert 28 <= wait <= 30


def test_503s_back_off_exponentially_with_jitter_then_raise(slept):
    script = Script(*[error(503, "unavailable") for _ in range(4)])
    with pytest.raises(ServerError) as raised:
        sync(script, retries=3, backoff=0.5).whoami()
    assert (raised.value.status, raised.value.code) == (503, "unavailable")
    assert len(script.requests) == 4  # the first try and three retries
    for attempt, wait in enumerate(slept):
        ceiling = 0.5 * 2**attempt
        assert ceiling / 2 <= wait <= ceiling
    assert len(slept) == 3


def test_a_post_is_retried_on_429_and_503_because_they_were_not_processed(slept):
    script = Script(
        error(503, "unavailable"), error(429, "rate_limited"), httpx.Response(200, json=LESSON)
    )
    lesson = sync(script).reinforce(LESSON["id"])
    assert lesson.id == LESSON["id"] and lesson.created_at.tzinfo is not None
    assert [r.method for r in script.requests] == ["POST"] * 3
    assert len(slept) == 2


def test_other_errors_are_not_retried(slept):
    for answer, exception in (
        (error(500, "internal_error"), ServerError),
        (error(404, "not_found"), NotFound),
        (error(400, "invalid"), TributaryError),
    ):
        script = Script(answer)
        with pytest.raises(exception):
            sync(script).lesson(LESSON["id"])
        assert len(script.requests) == 1
    assert slept == []


def test_a_retry_after_longer_than_the_client_waits_raises_rate_limited_at_once(slept):
    script = Script(error(429, "rate_limited", {"Retry-After": "3600"}))
    with pytest.raises(RateLimited) as raised:
        sync(script).whoami()
    assert raised.value.retry_after == 3600 and raised.value.code == "rate_limited"
    assert slept == [] and len(script.requests) == 1


def test_a_non_json_error_page_still_gives_a_clear_exception(slept):
    page = httpx.Response(502, text="<html><body><h1>502 Bad Gateway</h1></body></html>")
    script = Script(page)
    with pytest.raises(ServerError) as raised:
        sync(script, retries=0).whoami()
    assert (raised.value.status, raised.value.code) == (502, "http_502")
    assert "Bad Gateway" in raised.value.message
    assert str(raised.value).startswith("502 http_502")
    with pytest.raises(TributaryError) as malformed:
        sync(Script(httpx.Response(200, text="not json"))).whoami()
    assert malformed.value.code == "malformed_response"


def test_not_ready_is_an_answer_not_an_error_and_is_not_retried(slept):
    checks = {"postgres": {"ok": True, "ms": 1.0}, "redis": {"ok": False, "error": "refused"}}
    script = Script(httpx.Response(503, json={"status": "unavailable", "checks": checks}))
    readiness = sync(script).ready()
    assert (readiness.ready, readiness.status) == (False, "unavailable")
    assert readiness.checks["redis"]["ok"] is False
    assert len(script.requests) == 1 and slept == []
    assert str(script.requests[0].url) == "http://tributary.test/readyz"


def test_lost_answers_are_retried_only_where_repeating_is_safe(slept):
    timeout = httpx.ReadTimeout("read timed out")
    # A GET is safe to repeat.
    script = Script(timeout, httpx.Response(200, json=WHOAMI))
    assert sync(script).whoami().agent == "alice"
    # A learn without an idempotency key may have been recorded: not repeated.
    script = Script(timeout)
    with pytest.raises(ConnectionFailed) as lost:
        sync(script).learn("The build needs 8 GB.")
    assert lost.value.status is None and isinstance(lost.value.__cause__, httpx.ReadTimeout)
    assert len(script.requests) == 1
    # With one, the service answers the first request again: repeated.
    pending = httpx.Response(202, json={"id": "r1", "status": "pending"})
    script = Script(timeout, pending)
    assert sync(script).learn("The build needs 8 GB.", idempotency_key="k1").pending
    assert script.requests[0].content == script.requests[1].content
    # A request that never reached the server is always safe to send again.
    script = Script(httpx.ConnectError("refused"), pending)
    assert sync(script).learn("The build needs 8 GB.").pending
    assert len(slept) == 3


def test_a_learn_that_waits_gets_a_longer_timeout(slept):
    script = Script(httpx.Response(202, json={"id": "r1", "status": "pending"}))
    sync(script, timeout=5).learn("x", wait=20)
    request = script.requests[0]
    assert request.url.params["wait"] == "20"
    assert request.extensions["timeout"]["read"] == 30.0


def test_the_async_client_retries_the_same_way(slept):
    script = Script(
        error(429, "rate_limited", {"Retry-After": "1.5"}),
        httpx.ReadTimeout("read timed out"),
        httpx.Response(200, json=WHOAMI),
    )
    lost = Script(httpx.ReadTimeout("read timed out"))

    async def scenario() -> None:
        async with asynchronous(script) as client:
            assert (await client.whoami()).agent == "alice"
        async with asynchronous(lost) as client:
            with pytest.raises(ConnectionFailed):
                await client.learn("The build needs 8 GB.")

    asyncio.run(scenario())
    assert len(script.requests) == 3 and len(lost.requests) == 1
    assert slept[0] == 1.5 and len(slept) == 2


def test_the_key_and_url_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("TRIBUTARY_API_KEY", "trib_from_env")
    monkeypatch.setenv("TRIBUTARY_URL", "http://memory.test:9000/api/v1/")
    script = Script(httpx.Response(200, json=WHOAMI))
    with Tributary(transport=httpx.MockTransport(script)) as client:
        client.whoami()
        assert client.base_url == "http://memory.test:9000"
    request = script.requests[0]
    assert str(request.url) == "http://memory.test:9000/api/v1/whoami"
    assert request.headers["Authorization"] == "Bearer trib_from_env"
    monkeypatch.delenv("TRIBUTARY_API_KEY")
    with pytest.raises(ValueError, match="TRIBUTARY_API_KEY"):
        Tributary()
