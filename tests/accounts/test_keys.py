"""API keys and authentication, over real HTTP."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator

import httpx
import pytest
from django.db import transaction

from accounts.models import ApiKey, Role
from accounts.services import api_key_authenticate, api_key_revoke
from accounts.tenancy import cross_tenant
from tests.conftest import make_caller

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def api(live_server, settings) -> Iterator[httpx.Client]:
    settings.ROOT_URLCONF = "tests.urls_probe"
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        yield client


def test_whoami_answers_the_keys_tenant_agent_and_role(api):
    caller = make_caller("acme", "alice", Role.CURATOR)
    response = api.get("/api/v1/whoami", headers=caller.headers)
    assert response.status_code == 200
    assert response.json() == {"tenant": "acme", "agent": "alice", "role": "curator"}


def test_key_format_and_no_plaintext_in_the_database(superuser_sql):
    caller = make_caller("acme", "alice")
    _, prefix, secret = caller.key.split("_", 2)
    assert len(prefix) == 12 and len(secret) == 43  # 43 base64url chars = 256 bits
    dump = "\n".join(
        row[0]
        for table in ("accounts_apikey", "accounts_agent", "accounts_tenant")
        for row in superuser_sql.execute(f"SELECT row_to_json(t)::text FROM {table} t")  # noqa: S608
    )
    assert secret not in dump
    assert hashlib.sha256(secret.encode()).hexdigest() in dump


def test_missing_malformed_unknown_wrong_and_revoked_keys_get_identical_401s(api):
    caller = make_caller("acme", "alice")
    prefix = caller.key.split("_")[1]
    revoked = make_caller("acme", "bob")
    with cross_tenant(reason="test"):
        api_key_revoke(prefix=revoked.key)
    unknown = f"trib_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"
    wrong_secret = f"trib_{prefix}_{secrets.token_urlsafe(32)}"
    attempts = {
        "missing": {},
        "malformed": {"Authorization": "Bearer trib_nope"},
        "not bearer": {"Authorization": f"Basic {caller.key}"},
        "non-ascii": {"Authorization": "Bearer trib_é".encode()},
        "unknown": {"Authorization": f"Bearer {unknown}"},
        "wrong secret": {"Authorization": f"Bearer {wrong_secret}"},
        "revoked": revoked.headers,
    }
    bodies = {}
    for name, headers in attempts.items():
        response = api.get("/api/v1/whoami", headers=headers)
        assert response.status_code == 401, name
        assert response.headers["WWW-Authenticate"].startswith("Bearer"), name
        bodies[name] = response.content
    assert len(set(bodies.values())) == 1, bodies
    assert httpx.Response(401, content=bodies["revoked"]).json()["error"]["code"] == "unauthorized"
    # The good key still works.
    assert api.get("/api/v1/whoami", headers=caller.headers).status_code == 200


def test_revoking_is_idempotent_and_immediate(api):
    caller = make_caller("acme", "alice")
    assert api.get("/api/v1/whoami", headers=caller.headers).status_code == 200
    with cross_tenant(reason="test"):
        first = api_key_revoke(prefix=caller.key.split("_")[1])
        again = api_key_revoke(prefix=caller.key.split("_")[1])
    assert first.revoked_at == again.revoked_at
    assert api.get("/api/v1/whoami", headers=caller.headers).status_code == 401


def test_last_used_is_recorded():
    caller = make_caller("acme", "alice")
    with transaction.atomic():
        principal = api_key_authenticate(caller.key)
        assert principal is not None
        assert ApiKey.objects.get(id=principal.key_id).last_used_at is not None


@pytest.mark.parametrize(
    ("role", "writer_status", "curator_status"),
    [(Role.READER, 403, 403), (Role.WRITER, 200, 403), (Role.CURATOR, 200, 200)],
)
def test_roles_gate_endpoints(api, role, writer_status, curator_status):
    caller = make_caller("acme", f"agent-{role}", role)
    writer = api.post("/api/v1/_probe/writer", headers=caller.headers, json={})
    curator = api.post("/api/v1/_probe/curator", headers=caller.headers, json={})
    assert (writer.status_code, curator.status_code) == (writer_status, curator_status)
    if writer_status == 403:
        assert writer.json()["error"]["code"] == "forbidden"
        assert "writer role" in writer.json()["error"]["message"]


def test_another_tenants_id_is_not_found_never_forbidden(api):
    a = make_caller("tenant-a", "alice")
    b = make_caller("tenant-b", "bob")
    own = api.get(f"/api/v1/_probe/agents/{a.agent.id}", headers=a.headers)
    assert own.status_code == 200 and own.json() == {"name": "alice"}
    theirs = api.get(f"/api/v1/_probe/agents/{b.agent.id}", headers=a.headers)
    assert theirs.status_code == 404
    assert theirs.json()["error"]["code"] == "not_found"
    # B still sees its own agent: the 404 was scoping, not absence.
    assert api.get(f"/api/v1/_probe/agents/{b.agent.id}", headers=b.headers).status_code == 200
