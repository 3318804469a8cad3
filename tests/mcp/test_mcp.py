"""The MCP server through the SDK's own client, over streamable HTTP (the
ASGI app served by uvicorn) and over stdio (``manage.py mcp`` as a
subprocess): tools listed, learn, recall, tenants isolated, keys required,
origins checked, and no tool that takes an identity."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.db import connections
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from accounts.models import ApiKey, Role
from accounts.services import api_key_revoke
from accounts.tenancy import cross_tenant
from tests.conftest import (
    Caller,
    database_url_for_tests,
    make_caller,
    process_pending,
    serve_asgi,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

TOOLS = {
    "tribal_recall", "tribal_learn", "tribal_reinforce", "tribal_retire", "tribal_recall_as_of",
    "tribal_forget", "tribal_trace", "tribal_stats", "tribal_curation_state", "tribal_pin",
}  # fmt: skip
NAABA_TOOLS = {"remember", "recall", "forget", "curation_state"}
LESSON = "The deploy API answers 429 unless the X-Batch: true header is sent."


@pytest.fixture(scope="module")
def mcp_url() -> Iterator[str]:
    """The real ASGI app (Django + /mcp) under uvicorn, on loopback: one per
    module (the SDK's session manager runs once per server)."""
    from config.asgi_handler import OneHopASGIHandler
    from tribal_mcp.http import build

    with serve_asgi(build(OneHopASGIHandler()), lifespan="on") as url:
        yield f"{url}/mcp"


def payload(result: Any) -> Any:
    """A tool result's JSON (the structured content, else the text)."""
    assert not result.isError, result.content
    if result.structuredContent is not None:
        return result.structuredContent.get("result", result.structuredContent)
    return json.loads(result.content[0].text)


async def http_session(stack: AsyncExitStack, url: str, caller: Caller) -> ClientSession:
    http = await stack.enter_async_context(
        httpx.AsyncClient(headers={"Authorization": f"Bearer {caller.key}"}, timeout=30)
    )
    read, write, _ = await stack.enter_async_context(streamable_http_client(url, http_client=http))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


def identity_fields(schema: Any, path: str = "") -> list[str]:
    """Every property, anywhere in a JSON schema, that names an identity."""
    found = []
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            if any(word in name.lower() for word in ("tenant", "agent", "user", "principal")):
                found.append(f"{path}{name}")
            found += identity_fields(sub, f"{path}{name}.")
        for key in ("items", "anyOf", "oneOf", "allOf", "$defs", "additionalProperties"):
            value = schema.get(key)
            subs = (
                value.values()
                if isinstance(value, dict) and key == "$defs"
                else (value if isinstance(value, list) else [value])
            )
            for sub in subs:
                found += identity_fields(sub, path)
    return found


def test_over_http_the_tools_learn_and_recall_within_one_tenant(mcp_url):
    alice = make_caller("acme", "alice")
    olga = make_caller("other", "olga")

    async def scenario() -> None:
        async with AsyncExitStack() as stack:
            session = await http_session(stack, mcp_url, alice)
            tools = (await session.list_tools()).tools
            assert {t.name for t in tools} == TOOLS
            for tool in tools:  # no tool takes a tenant, agent or user id
                assert identity_fields(tool.inputSchema) == [], tool.name
                assert len(tool.description or "") > 60, tool.name
            learned = payload(await session.call_tool("tribal_learn", {"content": LESSON}))
            assert learned["status"] == "pending"
            await asyncio.to_thread(apply_learns, alice)
            recalled = payload(await session.call_tool(
                "tribal_recall", {"query": "deploy API rate limited 429"}
            ))  # fmt: skip
            assert "untrusted" in recalled["untrusted_data"].lower()
            [hit] = recalled["results"]
            assert hit["lesson"]["content"] == LESSON and hit["trust"]["author"] == "alice"
            lesson_id = hit["lesson"]["id"]
            # The promotion gate per recall: one source is not two.
            gated = {"query": "deploy API rate limited 429", "min_independent_sources": 2}
            assert payload(await session.call_tool("tribal_recall", gated))["results"] == []
            gated["min_independent_sources"] = 1
            assert len(payload(await session.call_tool("tribal_recall", gated))["results"]) == 1
            # Superseded lessons on demand (none here): the same answer.
            recall_tool = next(t for t in tools if t.name == "tribal_recall")
            assert recall_tool.inputSchema["properties"]["history"]
            past = {"query": "deploy API rate limited 429", "history": True}
            found = payload(await session.call_tool("tribal_recall", past))["results"]
            assert [r["lesson"]["id"] for r in found] == [lesson_id]
            trace = payload(await session.call_tool("tribal_trace", {"lesson_id": lesson_id}))
            assert {n["type"] for n in trace["nodes"]} == {"lesson", "belief", "observation"}
            stats = payload(await session.call_tool("tribal_stats", {}))
            assert stats["lessons"]["active"]["lesson"] == 1
            state = payload(await session.call_tool("tribal_curation_state", {}))
            assert state["policies"]["session"]["eviction"] == "erase"
            # Writers may not retire; bad input is refused with the REST rules.
            refused = await session.call_tool(
                "tribal_retire", {"lesson_id": lesson_id, "reason": "old"}
            )
            assert refused.isError and "forbidden" in refused.content[0].text
            empty = await session.call_tool("tribal_learn", {"content": "   "})
            assert empty.isError and "invalid_input" in empty.content[0].text

            other = await http_session(stack, mcp_url, olga)
            nothing = payload(await other.call_tool("tribal_recall", {"query": "deploy API 429"}))
            assert nothing["results"] == []
            hidden = await other.call_tool("tribal_trace", {"lesson_id": lesson_id})
            assert hidden.isError and "not_found" in hidden.content[0].text
            gone = await other.call_tool("tribal_forget", {"lesson_id": lesson_id})
            assert gone.isError and "not_found" in gone.content[0].text

            forgot = payload(await session.call_tool("tribal_forget", {"lesson_id": lesson_id}))
            assert forgot["status"] == "erased"
            after = payload(await session.call_tool("tribal_recall", {"query": "deploy API 429"}))
            assert after["results"] == []

    asyncio.run(scenario())


def test_over_http_keys_hosts_and_origins_are_checked_on_every_request(mcp_url):
    alice = make_caller("acme", "alice")
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"}}}  # fmt: skip
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx.Client(timeout=10) as http:

        def send(**headers: str) -> httpx.Response:
            return http.post(mcp_url, json=hello, headers={**accept, **headers})

        assert send(**alice.headers).status_code == 200
        missing = send()
        assert missing.status_code == 401 and missing.json()["error"]["code"] == "unauthorized"
        assert missing.headers["www-authenticate"].startswith("Bearer")
        assert send(Authorization="Bearer trib_nope_nope").status_code == 401
        evil = send(**alice.headers, Origin="https://evil.example")
        assert evil.status_code == 403 and evil.json()["error"]["code"] == "bad_origin"
        assert send(**alice.headers, Origin=mcp_url.rsplit("/", 1)[0]).status_code == 200
        assert send(**alice.headers, Host="attacker.example").status_code == 400
        with cross_tenant(reason="test"):
            api_key_revoke(prefix=ApiKey.objects.get(agent=alice.agent).prefix)
        assert send(**alice.headers).status_code == 401  # revoked


def test_over_http_a_key_over_its_rate_gets_429_counted_with_its_rest_calls(mcp_url):
    """MCP shares the key's one-minute window with REST: the calls a key
    made through the API count against what it may send to /mcp."""
    from accounts.models import Tenant
    from accounts.throttling import WINDOW_SECONDS, rate_key
    from config.broker import broker
    from tests.conftest import principal_of

    alice = make_caller("acme", "alice")
    bob = make_caller("globex", "bob")
    with cross_tenant(reason="test setup"):
        Tenant.objects.filter(slug="acme").update(rate_limit_per_minute=4)
    if time.time() % WINDOW_SECONDS > WINDOW_SECONDS - 10:  # start well inside a minute
        time.sleep(WINDOW_SECONDS - time.time() % WINDOW_SECONDS + 0.1)
    key = rate_key(principal_of(alice), int(time.time() // WINDOW_SECONDS))
    broker().set(key, 3, ex=WINDOW_SECONDS * 2)  # three REST calls this minute
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"}}}  # fmt: skip
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx.Client(timeout=10) as http:
        first = http.post(mcp_url, json=hello, headers={**accept, **alice.headers})
        refused = http.post(mcp_url, json=hello, headers={**accept, **alice.headers})
        other = http.post(mcp_url, json=hello, headers={**accept, **bob.headers})
    assert first.status_code == 200
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["retry-after"]) <= WINDOW_SECONDS
    assert other.status_code == 200


def test_a_reader_recalls_but_cannot_learn(mcp_url):
    reader = make_caller("acme", "rita", Role.READER)

    async def scenario() -> None:
        async with AsyncExitStack() as stack:
            session = await http_session(stack, mcp_url, reader)
            assert (
                payload(await session.call_tool("tribal_recall", {"query": "x"}))["results"] == []
            )
            refused = await session.call_tool("tribal_learn", {"content": LESSON})
            assert refused.isError and "forbidden" in refused.content[0].text

    asyncio.run(scenario())


def stdio_params(caller: Caller, **extra: str) -> StdioServerParameters:
    env = {**os.environ, "DATABASE_URL": database_url_for_tests(),
           "TRIBUTARY_API_KEY": caller.key, **extra}  # fmt: skip
    return StdioServerParameters(
        command=sys.executable, args=[str(settings.BASE_DIR / "manage.py"), "mcp"], env=env,
        cwd=str(settings.BASE_DIR),
    )  # fmt: skip


@pytest.mark.slow
def test_over_stdio_a_coding_agent_learns_and_recalls(tmp_path):
    """Two stdio servers: alice's offers the tribal_* tools; olga's, in
    another tenant, only Naaba's names (TRIBUTARY_MCP_TOOLSET=naaba)."""
    alice = make_caller("acme", "alice")
    olga = make_caller("other", "olga")

    async def scenario() -> None:
        async with AsyncExitStack() as stack:
            # Both servers start at once (each loads Django and the model).
            read, write = await stack.enter_async_context(stdio_client(stdio_params(alice)))
            other_read, other_write = await stack.enter_async_context(
                stdio_client(stdio_params(olga, TRIBUTARY_MCP_TOOLSET="naaba"))
            )
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            assert {t.name for t in (await session.list_tools()).tools} == TOOLS
            learned = payload(await session.call_tool("tribal_learn", {"content": LESSON}))
            assert learned["status"] == "pending"
            await asyncio.to_thread(apply_learns, alice)
            [hit] = payload(await session.call_tool(
                "tribal_recall", {"query": "deploy API answers 429"}
            ))["results"]  # fmt: skip
            assert hit["lesson"]["content"] == LESSON

            other = await stack.enter_async_context(ClientSession(other_read, other_write))
            await other.initialize()
            assert {t.name for t in (await other.list_tools()).tools} == NAABA_TOOLS
            nothing = payload(await other.call_tool("recall", {"query": "deploy API 429"}))
            assert nothing["results"] == []  # alice's lesson is another tenant's
            own = "Olga's billing exports run at 04:00 UTC on weekdays."
            remembered = payload(
                await other.call_tool("remember", {"content": own, "kind": "fact"})
            )
            assert remembered["status"] == "pending"
            await asyncio.to_thread(apply_learns, olga)
            [found] = payload(await other.call_tool("recall", {"query": "billing exports"}))[
                "results"
            ]
            assert found["lesson"]["content"] == own and found["lesson"]["kind"] == "fact"
            state = payload(await other.call_tool("curation_state", {}))
            assert set(state["policies"]) == {
                "lesson",
                "fact",
                "procedure",
                "preference",
                "session",
            }
            forgotten = payload(
                await other.call_tool("forget", {"lesson_id": found["lesson"]["id"]})
            )
            assert forgotten["status"] == "erased"
            after = payload(await other.call_tool("recall", {"query": "billing exports"}))
            assert after["results"] == []
            unknown = await other.call_tool("tribal_recall", {"query": "billing"})
            assert unknown.isError  # the tribal_* names are not offered on this server

            # A key revoked while the server runs stops working at once.
            await asyncio.to_thread(_revoke, alice)
            refused = await session.call_tool("tribal_recall", {"query": "deploy"})
            assert refused.isError and "unauthorized" in refused.content[0].text

    asyncio.run(scenario())


def _revoke(caller: Caller) -> None:
    try:
        with cross_tenant(reason="test"):
            api_key_revoke(prefix=ApiKey.objects.get(agent=caller.agent).prefix)
    finally:
        connections.close_all()


def apply_learns(caller: Caller) -> None:
    """The worker's service, in this helper thread (which then lets go of
    its database connection, or the test database could not be dropped)."""
    try:
        process_pending(caller.agent.tenant_id)
    finally:
        connections.close_all()


def test_over_stdio_a_bad_key_is_refused_at_start():
    import subprocess

    params = stdio_params(make_caller("acme", "alice"))
    env = {**params.env, "TRIBUTARY_API_KEY": "trib_000000000000_wrong"}  # type: ignore[dict-item]
    done = subprocess.run(
        [params.command, *params.args], env=env, capture_output=True, timeout=120,
        cwd=params.cwd, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode != 0
    assert b"not a valid, unrevoked key" in done.stderr


def test_outside_a_request_no_key_from_the_environment_is_taken(monkeypatch):
    from mcp.server.fastmcp.exceptions import ToolError

    from tribal_mcp import server

    alice = make_caller("acme", "alice")
    monkeypatch.setenv("TRIBUTARY_API_KEY", alice.key)  # e.g. a shared env file
    with pytest.raises(ToolError, match="unauthorized"):
        server._principal(None)
    monkeypatch.setattr(server, "stdio_key", alice.key)  # what manage.py mcp sets
    assert server._principal(None).agent_name == "alice"
