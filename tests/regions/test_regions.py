"""Two regions in one running stack (`manage.py up` with TRIBUTARY_REGIONS=eu,us):
each tenant's rows live only in its region's PostgreSQL, every surface
routes, a key never reaches another region, and a tenant moves whole."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from config.embedded import EmbeddedPostgres, EmbeddedRedis
from tests.config.upstack import MANAGE, free_port, start_up, stop_up, up_env, wait_ready

pytestmark = pytest.mark.slow

REGIONS = {"TRIBUTARY_REGIONS": "eu,us", "TRIBUTARY_WEB_WORKERS": "1",
           "TRIBUTARY_WORKER_CONCURRENCY": "1"}  # fmt: skip
PASSWORD = "a-long-password-9"


@dataclass
class Stack:
    data_dir: Path
    base: str

    def manage(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*MANAGE, *args], env=up_env(self.data_dir, **REGIONS), capture_output=True,
            text=True, timeout=300, check=check,
        )  # fmt: skip

    def key(self, tenant: str, agent: str, region: str, role: str = "writer") -> str:
        done = self.manage("issue_key", "--tenant", tenant, "--agent", agent,
                           "--region", region, "--role", role)  # fmt: skip
        return done.stdout.strip().splitlines()[-1]

    def server(self, where: str) -> EmbeddedPostgres:
        """``directory``, ``eu`` or ``us``."""
        if where == "directory":
            return EmbeddedPostgres(self.data_dir)
        return EmbeddedPostgres(self.data_dir / "regions" / where)

    def sql(self, where: str, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """As the superuser: what is physically in that database."""
        with psycopg.connect(self.server(where).dsn(dbname="tributary"), autocommit=True) as db:
            cursor = db.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    def count(self, where: str, table: str, tenant: str | None = None) -> int:
        if tenant is None:
            return int(self.sql(where, f"SELECT count(*) FROM {table}")[0][0])  # noqa: S608
        column = "t.id" if table == "accounts_tenant" else "x.tenant_id"
        query = (
            f"SELECT count(*) FROM {table} x JOIN accounts_tenant t ON {column} = t.id "  # noqa: S608
            "WHERE t.slug = %s"
        )
        return int(self.sql(where, query, tenant)[0][0])


def api(stack: Stack, key: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.request(method, f"{stack.base}/api/v1/{path}", timeout=60,
                         headers={"Authorization": f"Bearer {key}"}, **kwargs)  # fmt: skip


def learn(stack: Stack, key: str, content: str) -> dict[str, Any]:
    answer = api(stack, key, "POST", "learn", params={"wait": "20"},
                 json={"content": content, "kind": "fact"})  # fmt: skip
    assert answer.status_code in (200, 201, 202), answer.text
    body = answer.json()
    assert body["status"] == "applied", body
    return body  # type: ignore[no-any-return]


def recall(stack: Stack, key: str, query: str, k: int = 10) -> list[str]:
    answer = api(stack, key, "POST", "recall", json={"query": query, "k": k})
    assert answer.status_code == 200, answer.text
    return [hit["lesson"]["content"] for hit in answer.json()["results"]]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    data_dir = Path(tempfile.mkdtemp(prefix="trib-rg-"))
    port = free_port()
    log = data_dir.parent / f"{data_dir.name}.log"
    up = start_up(data_dir, port, log, **REGIONS)
    try:
        wait_ready(up, port, log)
        yield Stack(data_dir=data_dir, base=f"http://127.0.0.1:{port}")
    finally:
        stop_up(up, log)
        EmbeddedRedis(data_dir).stop()
        for where in ("eu", "us"):
            EmbeddedPostgres(data_dir / "regions" / where).stop()
        EmbeddedPostgres(data_dir).stop()
        shutil.rmtree(data_dir, ignore_errors=True)
        log.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def keys(stack: Stack) -> dict[str, str]:
    found = {
        "eu": stack.key("fjord", "ana", "eu"),
        "us": stack.key("prairie", "bo", "us"),
    }
    learn(
        stack, found["eu"], "The Frankfurt billing cluster rotates its TLS certificates on Mondays."
    )
    learn(stack, found["us"], "The Ohio billing cluster rotates its TLS certificates on Fridays.")
    return found


def test_each_tenants_rows_live_only_in_its_regions_database(stack, keys):
    assert recall(stack, keys["eu"], "billing TLS certificates") == [
        "The Frankfurt billing cluster rotates its TLS certificates on Mondays."
    ]
    assert recall(stack, keys["us"], "billing TLS certificates") == [
        "The Ohio billing cluster rotates its TLS certificates on Fridays."
    ]
    tables = ["accounts_tenant", "accounts_agent", "accounts_apikey", "memory_lesson",
              "provenance_observation", "provenance_belief", "memory_event",
              "memory_learnrequest"]  # fmt: skip
    for table in tables:
        assert stack.count("eu", table, "fjord") >= 1, table
        assert stack.count("us", table, "fjord") == 0, table
        assert stack.count("us", table, "prairie") >= 1, table
        assert stack.count("eu", table, "prairie") == 0, table
        # The directory holds no tenant's rows at all.
        assert stack.count("directory", table) == 0, table
    # What the directory does hold: slug and key prefix → region, no hashes.
    placed = dict(stack.sql("directory", "SELECT slug, region FROM regions_tenantplacement"))
    assert placed == {"fjord": "eu", "prairie": "us"}
    columns = {
        row[0]
        for row in stack.sql(
            "directory",
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name IN ('regions_tenantplacement', 'regions_keyplacement')",
        )
    }
    assert columns == {"slug", "tenant_ref", "region", "moving_to", "updated_at", "prefix",
                       "tenant_slug"}  # fmt: skip
    # The directory refuses tenant rows outright, even to the cross-tenant
    # path: code that reached a tenant table unrouted finds and writes nothing.
    app = stack.server("directory").dsn(user="tributary", dbname="tributary")
    with psycopg.connect(app) as db:
        db.execute("SELECT set_config('app.cross_tenant', 'on', false)")
        assert db.execute("SELECT count(*) FROM accounts_tenant").fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            db.execute("INSERT INTO accounts_tenant (id, slug, name, region, judge_config, "
                       "corroboration_policy, created_at) VALUES (gen_random_uuid(), 'x', 'x', "
                       "'eu', '{}', '{}', now())")  # fmt: skip
    # Row-level security holds in every region database as it did in one.
    for where in ("eu", "us"):
        forced = stack.sql(
            where, "SELECT bool_and(relforcerowsecurity) FROM pg_class WHERE relname = ANY(%s)",
            tables,
        )  # fmt: skip
        assert forced == [(True,)]


def test_a_key_never_reaches_another_regions_data(stack, keys):
    us_lesson = api(stack, keys["us"], "POST", "recall", json={"query": "Ohio"}).json()
    us_id = us_lesson["results"][0]["lesson"]["id"]
    # Ids of the other region answer as ids of another tenant do: 404.
    assert api(stack, keys["eu"], "GET", f"lessons/{us_id}").status_code == 404
    assert api(stack, keys["eu"], "GET", f"lessons/{us_id}/trace").status_code == 404
    # Take every right on the US database from the application role, and
    # close its sessions there: EU requests (recall, learn, MCP) that touched
    # the US database in any way would now fail.
    stack.sql("us", "REVOKE CONNECT ON DATABASE tributary FROM PUBLIC, tributary")
    stack.sql("us", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE usename = 'tributary'")  # fmt: skip
    try:
        assert "Frankfurt" in recall(stack, keys["eu"], "certificates")[0]
        learn(stack, keys["eu"], "The Frankfurt VPN gateway drops idle sessions after 15 minutes.")
        found = asyncio.run(mcp_recall(stack, keys["eu"], "VPN idle sessions"))
        assert found and "VPN gateway" in found[0]
        # …while the US tenant's requests, routed to the US database, cannot
        # connect: proof the routing, not luck, kept the EU requests away.
        refused = api(stack, keys["us"], "POST", "recall", json={"query": "Ohio"})
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "database_unavailable"
    finally:
        stack.sql("us", "GRANT CONNECT ON DATABASE tributary TO PUBLIC, tributary")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if api(stack, keys["us"], "POST", "recall", json={"query": "Ohio"}).status_code == 200:
            break
        time.sleep(0.5)
    assert "Ohio" in recall(stack, keys["us"], "Ohio billing")[0]


@asynccontextmanager
async def _mcp_http(stack: Stack, key: str) -> AsyncIterator[ClientSession]:
    """An MCP session over streamable HTTP with ``key`` (not initialized)."""
    async with AsyncExitStack() as exits:
        http = await exits.enter_async_context(
            httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
        )
        read, write, _ = await exits.enter_async_context(
            streamable_http_client(f"{stack.base}/mcp", http_client=http)
        )
        yield await exits.enter_async_context(ClientSession(read, write))


async def _call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool's answer, after the session's initialization."""
    await session.initialize()
    result = await session.call_tool(tool, arguments)
    assert not result.isError, result.content
    body = result.structuredContent or json.loads(result.content[0].text)
    return body.get("result", body)  # type: ignore[no-any-return]


async def mcp_recall(stack: Stack, key: str, query: str) -> list[str]:
    async with _mcp_http(stack, key) as session:
        return await _recall_contents(session, query)


async def _recall_contents(session: ClientSession, query: str) -> list[str]:
    body = await _call(session, "tribal_recall", {"query": query, "k": 3})
    return [hit["lesson"]["content"] for hit in body["results"]]


async def mcp_stdio_recall(stack: Stack, key: str, query: str) -> list[str]:
    env = up_env(stack.data_dir, **REGIONS, TRIBUTARY_API_KEY=key)
    params = StdioServerParameters(command=MANAGE[0], args=[*MANAGE[1:], "mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        return await _recall_contents(session, query)


async def mcp_learn(stack: Stack, key: str, content: str) -> dict[str, Any]:
    async with _mcp_http(stack, key) as session:
        arguments = {"content": content, "kind": "fact", "wait": 20}
        return await _call(session, "tribal_learn", arguments)


def test_mcp_serves_both_regions(stack, keys):
    # over stdio, as a coding agent starts it: the key routes the server
    assert asyncio.run(mcp_stdio_recall(stack, keys["us"], "TLS certificates")) == [
        "The Ohio billing cluster rotates its TLS certificates on Fridays."
    ]
    eu = asyncio.run(mcp_recall(stack, keys["eu"], "TLS certificates"))
    us = asyncio.run(mcp_recall(stack, keys["us"], "TLS certificates"))
    assert eu[0] == "The Frankfurt billing cluster rotates its TLS certificates on Mondays."
    assert us == ["The Ohio billing cluster rotates its TLS certificates on Fridays."]
    assert not [text for text in eu if "Ohio" in text]


def _login(stack: Stack, username: str) -> httpx.Client:
    client = httpx.Client(base_url=stack.base, timeout=60, follow_redirects=True)
    page = client.get("/dashboard/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, page.text[:500]
    done = client.post("/dashboard/login/", data={
        "username": username, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1),
    })  # fmt: skip
    assert done.status_code == 200 and "/dashboard/login/" not in str(done.url), done.text[:500]
    return client


def _switch(client: httpx.Client, slug: str) -> httpx.Response:
    page = client.get("/dashboard/")
    token = client.cookies["csrftoken"]
    assert page.status_code == 200
    return client.post("/dashboard/tenant", data={"tenant": slug, "csrfmiddlewaretoken": token},
                       headers={"Referer": f"{client.base_url}/dashboard/"})  # fmt: skip


def test_an_mcp_learn_over_http_waits_for_its_outcome_in_the_keys_region(stack, keys):
    """The web process serves every region: the wait polls the region the
    key's learn was written to (it polled the directory, which holds no
    tenant's rows, and answered "pending" after the whole wait)."""
    before = stack.count("us", "memory_lesson", "prairie")
    started = time.monotonic()
    body = asyncio.run(
        mcp_learn(stack, keys["us"], "The Ohio billing cluster pages the night shift at 02:00.")
    )
    assert body["status"] == "applied", body
    assert time.monotonic() - started < 20
    assert stack.count("us", "memory_lesson", "prairie") == before + 1
    assert stack.count("eu", "memory_lesson", "prairie") == 0


def test_dashboard_and_admin_show_each_region_one_at_a_time(stack, keys):
    env = {"DJANGO_SUPERUSER_PASSWORD": PASSWORD}
    subprocess.run(
        [*MANAGE, "createsuperuser", "--noinput", "--username", "root", "--email", "r@x.test"],
        env=up_env(stack.data_dir, **REGIONS, **env), check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    # People live in the directory, never in a region.
    assert stack.count("directory", "auth_user") == 1
    assert stack.count("eu", "auth_user") == stack.count("us", "auth_user") == 0
    root = _login(stack, "root")
    lessons = _switch(root, "fjord")
    assert lessons.status_code == 200
    page = root.get("/dashboard/lessons/").text
    assert "Frankfurt billing" in page and "Ohio" not in page and "region eu" in page
    assert _switch(root, "prairie").status_code == 200
    page = root.get("/dashboard/lessons/").text
    assert "Ohio billing" in page and "Frankfurt" not in page
    # The admin, for a superuser, lists the tenants of the current region.
    tenants = root.get("/admin/accounts/tenant/").text
    assert "prairie" in tenants and "fjord" not in tenants and "Region <strong>us" in tenants
    # A staff member of the EU tenant sees it, in its region.
    script = (
        "from django.contrib.auth.models import User\n"
        "from accounts.models import StaffMembership\n"
        f"u = User.objects.create_user('carol', password='{PASSWORD}', is_staff=True)\n"
        "StaffMembership.objects.create(user=u, tenant_slug='fjord')\n"
    )
    stack.manage("shell", "-c", script)
    carol = _login(stack, "carol")
    page = carol.get("/dashboard/lessons/").text
    assert "Frankfurt billing" in page and "Ohio" not in page
    assert carol.get("/admin/memory/lesson/").status_code == 200


def test_the_gardener_walks_every_region(stack, keys):
    done = stack.manage("garden", "--step", "expire")
    tenants = {line.split()[0] for line in done.stdout.splitlines() if line.strip()}
    assert {"fjord", "prairie"} <= tenants, done.stdout
    runs = {where: stack.count(where, "curation_gardenerrun") for where in ("eu", "us")}
    assert runs["eu"] >= 1 and runs["us"] >= 1
    assert stack.count("directory", "curation_gardenerrun") == 0
    listed = stack.manage("search_indexes", "--list").stdout
    assert "region eu:" in listed and "region us:" in listed


def _seed(stack: Stack, tenant: str, region: str, copies: int) -> None:
    """``copies`` more lessons for ``tenant``, made in its region's database
    from the ones it has, each with a vector of its own."""
    columns = [
        row[0]
        for row in stack.sql(
            region,
            "SELECT attname FROM pg_attribute WHERE attrelid = 'memory_lesson'::regclass "
            "AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
        )
    ]
    chosen = ", ".join(
        {
            "id": "gen_random_uuid()",
            "content": "l.content || ' (variant ' || g || ')'",
            "embedding": "(l.embedding::vector + (SELECT array_agg((random() - 0.5) * 0.2)"
            " FROM generate_series(1, 384) WHERE g > 0)::vector)::halfvec",
        }.get(column, f"l.{column}")
        for column in columns
    )
    stack.sql(
        region,
        f"INSERT INTO memory_lesson ({', '.join(columns)}) SELECT {chosen} "  # noqa: S608
        "FROM memory_lesson l JOIN accounts_tenant t ON t.id = l.tenant_id, "
        "generate_series(1, %s) g WHERE t.slug = %s",
        copies,
        tenant,
    )


def test_a_tenant_moves_whole_and_survives_a_kill_mid_copy(stack, keys):
    key = stack.key("mover", "mo", "eu")
    for text in ("The Lisbon data center runs its backups at 02:00 UTC.",
                 "The Lisbon data center's generator is tested on the first Tuesday.",
                 "Lisbon's on-call rotation changes on Wednesdays at noon."):  # fmt: skip
        learn(stack, key, text)
    _seed(stack, "mover", "eu", 600)  # 3 + 1,800 lessons
    lessons = stack.count("eu", "memory_lesson", "mover")
    assert lessons == 1803
    queries = ["Lisbon backups", "generator test", "on-call rotation", "data center", "noon"]
    before = {q: recall(stack, key, q) for q in queries}
    tables = ("memory_lesson", "provenance_observation", "memory_event", "accounts_apikey")
    counts = {table: stack.count("eu", table, "mover") for table in tables}

    # Killed mid-copy: as soon as the copy has started being written.
    moving = subprocess.Popen(
        [*MANAGE, "tenant_move", "mover", "--to", "us", "--reason", "customer moved to Ohio"],
        env=up_env(stack.data_dir, **REGIONS), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    copy = stack.data_dir / "moves" / "mover.eu-to-us.jsonl"
    deadline = time.monotonic() + 120
    while not (copy.exists() and copy.stat().st_size > 0) and time.monotonic() < deadline:
        assert moving.poll() is None, moving.stdout.read() if moving.stdout else ""
        time.sleep(0.02)
    moving.send_signal(signal.SIGKILL)
    moving.wait()
    # Half way, nothing is lost: the source is whole, the directory still
    # points at it, and the tenant is frozen (503) rather than split.
    assert stack.count("eu", "memory_lesson", "mover") == lessons
    assert stack.count("us", "memory_lesson", "mover") == 0
    frozen = api(stack, key, "POST", "recall", json={"query": "Lisbon"})
    assert frozen.status_code == 503 and frozen.json()["error"]["code"] == "tenant_moving"
    # MCP too: nothing reaches the source while it is copied.
    mcp = httpx.post(f"{stack.base}/mcp", headers={"Authorization": f"Bearer {key}"}, json={},
                     timeout=30)  # fmt: skip
    assert mcp.status_code == 503 and mcp.json()["error"]["code"] == "tenant_moving"
    assert mcp.headers["Retry-After"]

    done = stack.manage("tenant_move", "mover", "--to", "us", "--reason", "customer moved to Ohio")
    assert "mover is in region us" in done.stdout, done.stderr
    for table, count in counts.items():
        assert stack.count("us", table, "mover") == count, table
        assert stack.count("eu", table, "mover") == 0, table
    assert dict(stack.sql("directory", "SELECT slug, region FROM regions_tenantplacement "
                                       "WHERE slug = 'mover'")) == {"mover": "us"}  # fmt: skip
    time.sleep(6)  # the web's routing cache (ROUTE_CACHE_SECONDS)
    after = {q: recall(stack, key, q) for q in queries}
    assert after == before
    # The move is in the tenant's audit, once, with its reason.
    audit = stack.sql("us", "SELECT actor, reason, data FROM memory_curatoraction "
                            "WHERE action = 'region_move'")  # fmt: skip
    assert audit == [("operator", "customer moved to Ohio", {"from": "eu", "to": "us"})]
    # A rerun of a finished move changes nothing.
    again = stack.manage("tenant_move", "mover", "--to", "us")
    assert "mover is in region us" in again.stdout
    assert stack.count("us", "memory_lesson", "mover") == lessons


def test_export_and_import_keep_a_tenant(stack, keys, tmp_path):
    dump = tmp_path / "fjord.jsonl"
    stack.manage("tenant_export", "fjord", "-o", str(dump))
    header = json.loads(dump.read_text().splitlines()[0])
    assert header["tenant"] == "fjord" and header["counts"]["memory_lesson"] >= 1
    lines = dump.read_text().splitlines()[1:]
    assert len(lines) == sum(header["counts"].values())
    assert any(json.loads(line)["t"] == "memory_lesson" and
               json.loads(line)["r"]["embedding"].startswith("[") for line in lines)  # fmt: skip
    # Importing into the region that has it only verifies.
    again = stack.manage("tenant_import", str(dump), "--region", "eu")
    assert "already present" in again.stdout
    # A tenant of the same name but another id is refused, not merged.
    forged = tmp_path / "forged.jsonl"
    first, rest = dump.read_text().split("\n", 1)
    forged.write_text(
        json.dumps({**json.loads(first), "tenant_id": str(uuid.uuid4())}) + "\n" + rest
    )
    refused = stack.manage("tenant_import", str(forged), "--region", "eu", check=False)
    assert refused.returncode != 0 and "another tenant named 'fjord'" in refused.stderr
    # Kept elsewhere (a restore into another region): a whole copy, while the
    # directory keeps routing to where the tenant lives.
    copy = stack.manage("tenant_import", str(dump), "--region", "us")
    assert "imported" in copy.stdout and "places fjord in eu" in copy.stderr
    for table in ("memory_lesson", "provenance_observation", "memory_lessonterm"):
        assert stack.count("us", table, "fjord") == stack.count("eu", table, "fjord"), table
    assert "Frankfurt" in recall(stack, keys["eu"], "billing certificates")[0]
