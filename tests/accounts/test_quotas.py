"""Per-tenant storage quotas: counted and enforced by PostgreSQL, shared by
every process, answered 507 with nothing kept, configurable per tenant."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

from accounts.models import Tenant
from accounts.quotas import COUNTED, storage_usage
from accounts.tenancy import cross_tenant, tenant_context
from memory.models import LearnRequest
from provenance.models import Belief, Observation
from tests.conftest import learn_now, make_caller

pytestmark = pytest.mark.django_db(transaction=True)

LESSON = "The export job needs the EXPORT_TOKEN variable or it exits with code 3."


def _quota(slug: str, quota: int | None) -> None:
    with cross_tenant(reason="test setup"):
        Tenant.objects.filter(slug=slug).update(storage_quota_bytes=quota)


def _stored(tenant_id) -> tuple[int, int, int]:
    with tenant_context(tenant_id):
        return (
            LearnRequest.objects.count(),
            Belief.objects.count(),
            Observation.objects.count(),
        )


def _counted_bytes(superuser_sql, tenant_id) -> int:
    """What the tenant stores, summed from the tables themselves."""
    total = 0
    for table, columns in COUNTED.items():
        lengths = " + ".join(f"coalesce(octet_length({c}), 0)" for c in columns)
        row = superuser_sql.execute(
            f"SELECT coalesce(sum({lengths}), 0) FROM {table} WHERE tenant_id = %s",  # noqa: S608
            [tenant_id],
        ).fetchone()
        total += int(row[0])
    return total


@pytest.fixture
def api(live_server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"{live_server.url}/api/v1", timeout=30) as client:
        yield client


def test_a_write_past_the_quota_gets_507_and_keeps_nothing(api, superuser_sql):
    alice = make_caller("acme", "alice")
    bob = make_caller("globex", "bob")
    tenant = alice.agent.tenant_id
    # A learn stores its text three times (request, belief, first-hand
    # observation): room for two learns, not three.
    quota = 3 * len(LESSON) * 2 + 10
    _quota("acme", quota)
    for n in range(2):
        accepted = api.post("/learn", headers=alice.headers, json={"content": LESSON[:-1] + str(n)})
        assert accepted.status_code == 202, accepted.text
    before = _stored(tenant)
    refused = api.post("/learn", headers=alice.headers, json={"content": LESSON})
    assert refused.status_code == 507, refused.text
    assert refused.json()["error"]["code"] == "storage_quota_exceeded"
    assert "quota" in refused.json()["error"]["message"]
    assert _stored(tenant) == before  # no request, belief or observation half-written
    # Every kind of stored text counts: an observation is refused too.
    observed = api.post("/observations", headers=alice.headers, json={"content": LESSON})
    assert observed.status_code == 507
    assert _stored(tenant) == before
    # The usage row agrees with what the tables hold.
    with tenant_context(tenant):
        usage = storage_usage(tenant)
    assert usage == {"used_bytes": _counted_bytes(superuser_sql, tenant), "quota_bytes": quota}
    # and the tenant sees it in its stats.
    assert api.get("/stats", headers=alice.headers).json()["storage"] == usage
    # Another tenant is not touched by acme's quota.
    assert api.post("/learn", headers=bob.headers, json={"content": LESSON}).status_code == 202
    # Raising the quota lets acme write again.
    _quota("acme", 0)
    assert api.post("/learn", headers=alice.headers, json={"content": LESSON}).status_code == 202


def test_concurrent_writers_never_take_more_than_the_quota(api, live_server):
    """Eight writers at once, room for three learns: exactly three are kept
    (the usage row's lock serialises the last bytes)."""
    alice = make_caller("acme", "alice")
    tenant = alice.agent.tenant_id
    per_learn = 3 * len(LESSON)
    _quota("acme", per_learn * 3 + per_learn // 2)
    barrier = threading.Barrier(8)
    codes: list[int] = []

    def write(n: int) -> None:
        with httpx.Client(base_url=f"{live_server.url}/api/v1", timeout=30) as client:
            barrier.wait()
            content = LESSON[:-1] + str(n)
            codes.append(
                client.post("/learn", headers=alice.headers, json={"content": content}).status_code
            )

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [202] * 3 + [507] * 5
    assert _stored(tenant) == (3, 3, 3)
    with tenant_context(tenant):
        assert storage_usage(tenant)["used_bytes"] == per_learn * 3


def test_the_setting_is_the_default_and_erasure_gives_bytes_back(api, settings, superuser_sql):
    alice = make_caller("acme", "alice")
    tenant = alice.agent.tenant_id
    lesson = learn_now(alice, LESSON).lesson_id
    settings.TRIBUTARY_STORAGE_QUOTA_MB = 1
    big = "x" * 3990 + " ok."
    # Most of the megabyte through the ORM as the app role (the trigger
    # counts rows however they come), the last of it through the API.
    with tenant_context(tenant):
        Observation.objects.bulk_create(
            Observation(tenant_id=tenant, agent=alice.agent, source_type="tool_output",
                        content=f"{big} {n}", content_hash=f"{n:064d}")
            for n in range(240)
        )  # fmt: skip
    codes = [
        api.post("/observations", headers=alice.headers, json={"content": big + str(n)}).status_code
        for n in range(30)
    ]
    kept = codes.count(201)
    assert codes == [201] * kept + [507] * (30 - kept) and 10 < kept < 25
    with tenant_context(tenant):
        full = storage_usage(tenant)
    assert full == {"used_bytes": _counted_bytes(superuser_sql, tenant), "quota_bytes": 2**20}
    # Forgetting a lesson erases its text wherever it was written: those
    # bytes are free again.
    assert api.delete(f"/lessons/{lesson}", headers=alice.headers).status_code == 204
    with tenant_context(tenant):
        freed = storage_usage(tenant)["used_bytes"]
    assert freed == _counted_bytes(superuser_sql, tenant) < full["used_bytes"] - len(LESSON)


def test_rows_inserted_in_one_statement_are_charged_together_and_refused_together(superuser_sql):
    from django.db import DatabaseError

    from accounts.tenancy import tenant_transaction
    from provenance.services import RootedBelief, beliefs_record_rooted

    erin = make_caller("bulk-quota", "erin")
    tenant_id = erin.agent.tenant_id

    def batch(n: int) -> list[RootedBelief]:
        return [
            RootedBelief(agent_id=erin.agent.id, content=f"{LESSON} ({i})", confidence=0.7,
                         root=f"while exporting {i}")
            for i in range(n)
        ]  # fmt: skip

    with tenant_transaction(tenant_id):
        beliefs_record_rooted(tenant_id=tenant_id, beliefs=batch(40))  # 40 beliefs, 40 roots
        used = storage_usage(tenant_id)["used_bytes"]
    assert used == _counted_bytes(superuser_sql, tenant_id) > 40 * len(LESSON)
    # A quota this batch would pass: the statement is refused, nothing kept.
    _quota("bulk-quota", used + 100)
    with (
        pytest.raises(DatabaseError, match="storage quota exceeded"),
        tenant_transaction(tenant_id),
    ):
        beliefs_record_rooted(tenant_id=tenant_id, beliefs=batch(40))
    assert _stored(tenant_id)[1:] == (40, 40)
    with tenant_context(tenant_id):
        assert storage_usage(tenant_id)["used_bytes"] == used
