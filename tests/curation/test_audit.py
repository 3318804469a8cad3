"""Every curator action, through every surface (REST, MCP, the admin, the
dashboard), leaves exactly one audit row, written by the service that did
it, with one actor format: the acting agent's name (an API agent's, or
``staff:<username>`` for a staff user)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack

import httpx
import pytest
from django.contrib.auth.models import User

from accounts.models import Role, StaffMembership
from accounts.tenancy import cross_tenant, tenant_context
from memory.models import CuratorAction, Dispute, LearnRequest, Outcome
from provenance.models import Decision, Edge, EdgeKind
from provenance.services import decision_record
from tests.conftest import Caller, learn_now, make_caller, serve_asgi
from tests.mcp.test_mcp import http_session, payload

pytestmark = pytest.mark.django_db(transaction=True)

TOPICS = [
    "Grafana dashboards for the payments team live in the finance folder.",
    "The iOS build needs Xcode 16 on the CI runners.",
    "Terraform state for staging is kept in the ops-state bucket.",
    "Customer refunds above 500 euros need a second approver.",
    "The on-call rotation hands over on Monday at 10:00.",
    "Kafka topics for audit events keep 30 days of retention.",
    "The mobile app's feature flags are served by the flags-api service.",
    "Database migrations run in the predeploy job, never at boot.",
]


@pytest.fixture
def api(live_server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"{live_server.url}/api/v1", timeout=30) as client:
        yield client


def _disputed(writer: Caller, hour: int) -> Dispute:
    """A writer contradicting alice's export time: a new open dispute."""
    learned = learn_now(writer, f"The nightly export job runs at {hour:02d}:00 UTC.")
    assert learned.outcome == Outcome.DISPUTED
    with tenant_context(writer.agent.tenant_id):
        return Dispute.objects.get(lesson_id=learned.lesson_id)


def _source(request: LearnRequest):
    with tenant_context(request.tenant_id):
        return Edge.objects.get(
            belief_id=request.belief_id, kind=EdgeKind.DERIVED_FROM
        ).to_observation_id


def _decide(caller: Caller, action: str, request: LearnRequest) -> uuid.UUID:
    """A decision of the caller's resting on the lesson ``request`` made."""
    with tenant_context(caller.agent.tenant_id):
        return decision_record(
            tenant_id=caller.agent.tenant_id, agent_id=caller.agent.id, action=action,
            based_on={request.lesson_id},
        ).id  # fmt: skip


def _status(caller: Caller, decision_id: uuid.UUID) -> str:
    with tenant_context(caller.agent.tenant_id):
        return Decision.objects.get(id=decision_id).status


def _mcp(url: str, caller: Caller, calls: list[tuple[str, dict[str, object]]]) -> None:
    async def scenario() -> None:
        async with AsyncExitStack() as stack:
            session = await http_session(stack, url, caller)
            for tool, arguments in calls:
                payload(await session.call_tool(tool, arguments))

    asyncio.run(scenario())


def test_every_curator_action_through_every_surface_is_audited_once(api, client):
    alice = make_caller("acme", "alice")
    cora = make_caller("acme", "cora", Role.CURATOR)
    learn_now(alice, "The nightly export job runs at 02:00 UTC.")
    lessons = [learn_now(alice, text) for text in TOPICS]
    assert {r.outcome for r in lessons} == {Outcome.INSERTED}
    ids = [str(r.lesson_id) for r in lessons]
    user = User.objects.create_user("curie", password="pw-not-used", is_staff=True)
    with cross_tenant(reason="test setup"):
        StaffMembership.objects.create(user=user, tenant_slug="acme")
    client.force_login(user)
    expected: list[tuple[str, str, str]] = []

    # REST, as the curator agent cora.
    def rest(method: str, path: str, body: dict[str, object] | None = None) -> None:
        response = api.request(method, path, headers=cora.headers, json=body)
        assert response.status_code in (200, 204), (path, response.text)

    rest("POST", f"/lessons/{ids[0]}/pin", {"reason": "the release runbook cites it"})
    rest("POST", f"/lessons/{ids[0]}/unpin", {"reason": "the runbook moved on"})
    rest("POST", f"/lessons/{ids[0]}/retire", {"reason": "obsolete"})
    rest("DELETE", f"/lessons/{ids[1]}")
    dispute = _disputed(make_caller("acme", "bob"), 3)
    rest("POST", f"/disputes/{dispute.id}/resolve", {"resolution": "keep_old", "note": "cron"})
    relied = _decide(alice, "moved the staging state", lessons[2])
    rest("POST", f"/observations/{_source(lessons[2])}/invalidate", {"reason": "wrong bucket"})
    assert _status(alice, relied) == "needs_review"  # flagged by the invalidation
    rest("POST", f"/decisions/{relied}/review", {"reason": "the move still holds"})
    assert _status(alice, relied) == "ok"
    rest("PUT", "/curation/policies/fact", {"ceiling": 500, "reason": "bounded facts"})
    rest("PUT", "/curation/corroboration-policy", {"min_independent_sources": 1})
    expected += [
        ("cora", "pin", "lesson"), ("cora", "unpin", "lesson"),
        ("cora", "retire", "lesson"), ("cora", "erase", "lesson"),
        ("cora", "resolve_keep_old", "dispute"), ("cora", "invalidate", "observation"),
        ("cora", "mark_reviewed", "decision"),
        ("cora", "set_kind_policy", "kind_policy"),
        ("cora", "set_corroboration_policy", "corroboration_policy"),
    ]  # fmt: skip

    # MCP over HTTP, as cora.
    from config.asgi_handler import OneHopASGIHandler
    from tribal_mcp.http import build

    with serve_asgi(build(OneHopASGIHandler()), lifespan="on") as url:
        _mcp(f"{url}/mcp", cora, [
            ("tribal_pin", {"lesson_id": ids[3], "reason": "keep", "pinned": True}),
            ("tribal_retire", {"lesson_id": ids[3], "reason": "replaced"}),
            ("tribal_forget", {"lesson_id": ids[4]}),
        ])  # fmt: skip
    expected += [("cora", "pin", "lesson"), ("cora", "retire", "lesson"),
                 ("cora", "erase", "lesson")]  # fmt: skip

    # The admin, as the staff user curie.
    def admin(path: str, action: str, target: object, reason: str) -> None:
        response = client.post(path, {"action": action, "_selected_action": [str(target)],
                                      "reason": reason}, follow=True)  # fmt: skip
        assert b": 1 done" in response.content, (path, action)

    admin("/admin/memory/lesson/", "pin", ids[5], "keep it")
    admin("/admin/memory/lesson/", "retire", ids[5], "moved")
    admin("/admin/memory/dispute/", "keep_old", _disputed(make_caller("acme", "dave"), 4).id, "no")
    flagged = _decide(alice, "moved the feature flags", lessons[6])
    admin("/admin/provenance/observation/", "invalidate", _source(lessons[6]), "wrong service")
    with tenant_context(alice.agent.tenant_id):
        decision = Decision.objects.create(
            tenant_id=alice.agent.tenant_id, agent_id=alice.agent.id, action="raised retention",
            status="needs_review", review_reason="a lesson fell",
        )  # fmt: skip
    admin("/admin/provenance/decision/", "mark_reviewed", decision.id, "still right")
    response = client.post("/admin/memory/kindpolicy/add/", {
        "kind": "session", "ceiling": "50", "ttl_seconds": "600", "half_life_days": "",
        "retire_below": "0.2", "eviction": "retire", "merge_duplicates": "", "reason": "short",
    })  # fmt: skip
    assert response.status_code == 302
    expected += [
        ("staff:curie", "pin", "lesson"), ("staff:curie", "retire", "lesson"),
        ("staff:curie", "resolve_keep_old", "dispute"),
        ("staff:curie", "invalidate", "observation"),
        ("staff:curie", "mark_reviewed", "decision"),
        ("staff:curie", "set_kind_policy", "kind_policy"),
    ]  # fmt: skip

    # The dashboard, as curie.
    for action in ("pin", "unpin", "retire"):
        response = client.post(f"/dashboard/lessons/{ids[7]}/{action}", {"reason": "tidy"})
        assert response.status_code == 302, action
    response = client.post(f"/dashboard/lessons/{ids[6]}/erase", {"reason": "wrong"})
    assert response.status_code == 302
    assert _status(alice, flagged) == "needs_review"
    assert b"moved the feature flags" in client.get("/dashboard/decisions/").content
    response = client.post(f"/dashboard/decisions/{flagged}/review", {"reason": "still right"})
    assert response.status_code == 302 and _status(alice, flagged) == "ok"
    dispute = _disputed(make_caller("acme", "erin"), 5)
    response = client.post(f"/dashboard/disputes/{dispute.id}/resolve",
                           {"resolution": "keep_old", "note": "no"})  # fmt: skip
    assert response.status_code == 302
    expected += [
        ("staff:curie", "pin", "lesson"), ("staff:curie", "unpin", "lesson"),
        ("staff:curie", "retire", "lesson"), ("staff:curie", "erase", "lesson"),
        ("staff:curie", "mark_reviewed", "decision"),
        ("staff:curie", "resolve_keep_old", "dispute"),
    ]  # fmt: skip

    with tenant_context(alice.agent.tenant_id):
        audit = list(
            CuratorAction.objects.order_by("id").values_list("actor", "action", "target_type")
        )
    assert audit == expected
