"""Provenance over real HTTP: echo chains are one source, independent
evidence corroborates, copies count once, invalidation cascades."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from accounts.models import Role
from accounts.tenancy import cross_tenant, tenant_context
from provenance.models import CorroborationAudit
from tests.conftest import Caller, make_caller, process_pending

pytestmark = pytest.mark.django_db(transaction=True)

CLAIM = "The payments API rejects refunds older than 180 days."


@pytest.fixture
def api(live_server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"{live_server.url}/api/v1", timeout=30) as client:
        yield client


def post(api: httpx.Client, caller: Caller, path: str, body: dict[str, Any], status: int = 201):
    response = api.post(path, headers=caller.headers, json=body)
    assert response.status_code == status, response.text
    return response.json()


def lesson(api: httpx.Client, caller: Caller, lesson_id: str) -> dict[str, Any]:
    response = api.get(f"/lessons/{lesson_id}", headers=caller.headers)
    assert response.status_code == 200, response.text
    return response.json()


def echo_chain(api: httpx.Client) -> dict[str, Any]:
    """observation → A → B → C, all supporting one lesson."""
    a, b, c = (make_caller("acme", name) for name in ("ann", "ben", "cat"))
    source = post(api, a, "/observations", {
        "content": "Refund of order 1123 (200 days old) failed with E_REFUND_WINDOW.",
        "source_type": "tool_output", "source_uri": "https://pay.internal/logs/1123",
    })  # fmt: skip
    learned = post(api, a, "/learn", {
        "content": CLAIM, "derived_from": [{"type": "observation", "id": source["id"]}],
    }, status=202)  # fmt: skip
    process_pending(a.agent.tenant_id)
    request = api.get(f"/learn/{learned['id']}", headers=a.headers).json()
    lesson_id = request["lesson"]["id"]
    belief_a = api.get(f"/lessons/{lesson_id}/lineage", headers=a.headers).json()
    [a_id] = [n["id"] for n in belief_a["nodes"] if n["type"] == "belief"]
    b_belief = post(api, b, "/beliefs", {
        "content": "Ann says refunds over 180 days fail.", "confidence": 0.8,
        "derived_from": [{"type": "belief", "id": a_id}], "supports": lesson_id,
    })  # fmt: skip
    c_belief = post(api, c, "/beliefs", {
        "content": "Ben told me refunds over 180 days fail.", "confidence": 0.8,
        "derived_from": [{"type": "belief", "id": b_belief["id"]}], "supports": lesson_id,
    })  # fmt: skip
    return {"callers": (a, b, c), "source": source, "lesson": lesson_id,
            "beliefs": (a_id, b_belief["id"], c_belief["id"])}  # fmt: skip


def test_an_echo_chain_is_one_source_and_independent_evidence_corroborates(api):
    chain = echo_chain(api)
    a, _, _ = chain["callers"]
    got = lesson(api, a, chain["lesson"])
    assert (got["agreeing_agents"], got["supporting_beliefs"], got["independent_sources"]) == (
        3, 3, 1,
    )  # fmt: skip
    assert got["corroboration"] == "single-source"
    assert got["corroboration_reason"] == (
        "3 supporting beliefs descend from a single evidence source; the policy needs 2."
    )
    # Recall can ask for independence, and says what it found.
    recalled = post(api, a, "/recall", {"query": "refund window", "min_independent_sources": 2},
                    status=200)  # fmt: skip
    assert recalled["results"] == []
    dan = make_caller("acme", "dan")
    other = post(api, dan, "/observations", {
        "content": "Support ticket 88: refund for a 7-month-old charge was refused by the API.",
        "source_type": "human",
    })  # fmt: skip
    post(api, dan, "/beliefs", {
        "content": "Old refunds are refused.", "confidence": 0.9,
        "derived_from": [{"type": "observation", "id": other["id"]}], "supports": chain["lesson"],
    })  # fmt: skip
    got = lesson(api, a, chain["lesson"])
    assert (got["independent_sources"], got["agreeing_agents"]) == (2, 4)
    assert got["corroboration"] == "corroborated"
    [hit] = post(api, a, "/recall", {"query": "refund window", "min_independent_sources": 2},
                 status=200)["results"]  # fmt: skip
    assert hit["trust"]["corroboration"] == "corroborated"
    with tenant_context(a.agent.tenant_id):
        audits = list(
            CorroborationAudit.objects.filter(lesson_id=chain["lesson"])
            .order_by("id").values_list("status", "trigger")
        )  # fmt: skip
    assert audits[0] == ("single-source", "learn") and audits[-1] == ("corroborated", "belief")


def test_copies_of_one_original_count_once(api):
    alice = make_caller("acme", "alice")
    first = post(api, alice, "/observations", {
        "content": "Advisory: the 2.3 client leaks sockets.", "source_family": "vendor-adv-42",
        "source_uri": "https://vendor.example/adv/42",
    })  # fmt: skip
    mirror = post(api, alice, "/observations", {
        "content": "Mirror of the vendor advisory: 2.3 client leaks sockets.",
        "source_family": "vendor-adv-42", "source_uri": "https://mirror.example/adv/42",
    })  # fmt: skip
    post(api, alice, "/learn", {
        "content": "The 2.3 payments client leaks sockets; pin 2.2.",
        "derived_from": [{"type": "observation", "id": first["id"]},
                         {"type": "observation", "id": mirror["id"]}],
    }, status=202)  # fmt: skip
    process_pending(alice.agent.tenant_id)
    [hit] = post(api, alice, "/recall", {"query": "payments client sockets"}, status=200)["results"]
    assert hit["lesson"]["independent_sources"] == 1


def test_invalidating_the_source_retracts_the_chain_and_flags_the_decision(api):
    chain = echo_chain(api)
    a, b, _ = chain["callers"]
    decision = post(api, b, "/decisions", {
        "action": "Rejected refund request 2291 without escalation.", "based_on": [chain["lesson"]],
    })  # fmt: skip
    assert decision["status"] == "ok"
    curator = make_caller("acme", "cora", Role.CURATOR)
    assert api.post(
        f"/observations/{chain['source']['id']}/invalidate", headers=a.headers,
        json={"reason": "x"},
    ).status_code == 403  # fmt: skip
    report = post(
        api,
        curator,
        f"/observations/{chain['source']['id']}/invalidate",
        {"reason": "the log was from the sandbox, not production"},
        status=200,
    )
    assert sorted(report["beliefs_retracted"]) == sorted(chain["beliefs"])
    assert report["beliefs_uncertain"] == []
    assert report["lessons_reevaluated"] == [
        {"id": chain["lesson"], "before": "single-source", "after": "unsupported"}
    ]
    assert report["decisions_flagged"] == [decision["id"]]
    flagged = api.get("/decisions?status=needs_review", headers=b.headers).json()["decisions"]
    assert [d["id"] for d in flagged] == [decision["id"]]
    assert "invalidated" in flagged[0]["review_reason"]
    got = lesson(api, a, chain["lesson"])
    assert got["corroboration"] == "unsupported" and got["supporting_beliefs"] == 0
    again = api.post(f"/observations/{chain['source']['id']}/invalidate",
                     headers=curator.headers, json={"reason": "again"})  # fmt: skip
    assert again.status_code == 409
    lineage = api.get(f"/lessons/{chain['lesson']}/lineage", headers=a.headers).json()
    kinds = sorted(n["type"] for n in lineage["nodes"])
    assert kinds == ["belief", "belief", "belief", "decision", "lesson", "observation"]
    # The decision stands on the lesson in the graph, flagged.
    [node] = [n for n in lineage["nodes"] if n["type"] == "decision"]
    assert (node["id"], node["status"]) == (decision["id"], "needs_review")
    assert {"from": decision["id"], "to": chain["lesson"], "kind": "based_on"} in lineage["edges"]
    [floor] = [n for n in lineage["nodes"] if n["type"] == "observation"]
    assert floor["valid"] is False
    assert {n["status"] for n in lineage["nodes"] if n["type"] == "belief"} == {"retracted"}


def test_in_a_strict_tenant_a_lesson_that_loses_its_evidence_is_retired_like_any_other(api):
    """The cascade takes a lesson out of use through the one lesson
    transition: status, validity, the scope's count and an event."""
    from memory.models import Event, Scope

    chain = echo_chain(api)
    a = chain["callers"][0]
    curator = make_caller("acme", "cora", Role.CURATOR)
    strict = api.put("/curation/corroboration-policy", headers=curator.headers,
                     json={"strict": True})  # fmt: skip
    assert strict.status_code == 200, strict.text
    assert lesson(api, curator, chain["lesson"])["status"] == "active"
    tenant = a.agent.tenant_id
    with tenant_context(tenant):
        active_before = Scope.objects.get(kind="lesson").active_count
    report = post(
        api, curator, f"/observations/{chain['source']['id']}/invalidate",
        {"reason": "the log was from the sandbox"}, status=200,
    )  # fmt: skip
    assert report["lessons_deactivated"] == [chain["lesson"]]
    got = lesson(api, curator, chain["lesson"])
    assert got["status"] == "retired" and got["deactivated_at"] is not None
    with tenant_context(tenant):
        assert Scope.objects.get(kind="lesson").active_count == active_before - 1
        [event] = Event.objects.filter(lesson_id=chain["lesson"], kind="retired")
    assert event.agent_id == curator.agent.id
    assert event.data["previous_status"] == "active"
    assert event.data["observation_id"] == chain["source"]["id"]


def test_a_belief_with_another_root_becomes_uncertain_not_retracted(api):
    chain = echo_chain(api)
    a, b, _ = chain["callers"]
    own = post(api, b, "/observations", {"content": "Refund of order 77 failed at 190 days."})
    both = post(api, b, "/beliefs", {
        "content": "Refunds fail after 180 days.", "confidence": 0.7,
        "derived_from": [{"type": "belief", "id": chain["beliefs"][0]},
                         {"type": "observation", "id": own["id"]}],
        "supports": chain["lesson"],
    })  # fmt: skip
    curator = make_caller("acme", "cora", Role.CURATOR)
    report = post(
        api,
        curator,
        f"/observations/{chain['source']['id']}/invalidate",
        {"reason": "wrong"},
        status=200,
    )
    assert report["beliefs_uncertain"] == [both["id"]]
    assert lesson(api, a, chain["lesson"])["independent_sources"] == 1


def test_cycles_uncited_beliefs_and_other_tenants_ids_are_refused(api):
    chain = echo_chain(api)
    a, _, _ = chain["callers"]
    cycle = api.post("/beliefs", headers=a.headers, json={
        "content": "Refunds fail after 180 days.",
        "derived_from": [{"type": "lesson", "id": chain["lesson"]}], "supports": chain["lesson"],
    })  # fmt: skip
    assert cycle.status_code == 409 and cycle.json()["error"]["code"] == "provenance_cycle"
    uncited = api.post("/beliefs", headers=a.headers, json={"content": "Trust me."})
    assert uncited.status_code == 400 and uncited.json()["error"]["code"] == "uncited_belief"
    outsider = make_caller("globex", "olga")
    theirs = post(api, outsider, "/observations", {"content": "Globex's own log line."})
    foreign = api.post("/beliefs", headers=a.headers, json={
        "content": "x", "derived_from": [{"type": "observation", "id": theirs["id"]}],
    })  # fmt: skip
    assert foreign.status_code == 404 and foreign.json()["error"]["code"] == "parent_not_found"
    assert api.get(f"/lessons/{chain['lesson']}/lineage",
                   headers=outsider.headers).status_code == 404  # fmt: skip
    reader = make_caller("acme", "rita", Role.READER)
    assert api.post("/observations", headers=reader.headers,
                    json={"content": "x"}).status_code == 403  # fmt: skip


def test_reinforcing_with_evidence_adds_a_root_and_without_it_does_not(api, settings):
    alice = make_caller("acme", "alice")
    bob = make_caller("acme", "bob")
    post(api, alice, "/learn", {"content": CLAIM, "situation": "refunding order 1123"},
         status=202)  # fmt: skip
    process_pending(alice.agent.tenant_id)
    [hit] = post(api, alice, "/recall", {"query": "refund window"}, status=200)["results"]
    lesson_id = hit["lesson"]["id"]
    plain = post(api, bob, f"/lessons/{lesson_id}/reinforce", {}, status=200)
    assert plain["independent_sources"] == 1 and plain["reinforcement_count"] == 1
    seen = post(api, bob, f"/lessons/{lesson_id}/reinforce", {"evidence": {
        "content": "Refund of order 5521 at 181 days failed with E_REFUND_WINDOW.",
        "source_uri": "https://pay.internal/logs/5521",
    }}, status=200)  # fmt: skip
    assert seen["independent_sources"] == 2 and seen["corroboration"] == "corroborated"
    # A strict tenant recalls only corroborated lessons.
    with cross_tenant(reason="test"):
        tenant = alice.agent.tenant
        tenant.corroboration_policy = {"strict": True, "min_independent_sources": 3}
        tenant.save(update_fields=["corroboration_policy"])
    post(api, bob, f"/lessons/{lesson_id}/reinforce", {"evidence": {
        "content": "Order 6001 at 200 days: refund refused.", "source_family": "pay-logs-6001",
    }}, status=200)  # fmt: skip
    assert post(api, alice, "/recall", {"query": "refund window"}, status=200)["results"]
    bad = api.post(f"/lessons/{lesson_id}/reinforce", headers=bob.headers,
                   json={"evidence": {"content": "x", "extra": 1}})  # fmt: skip
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "unknown_field"


def test_a_policy_change_re_evaluates_every_lesson_at_once(api):
    chain = echo_chain(api)
    a, _, _ = chain["callers"]
    curator = make_caller("acme", "cora", Role.CURATOR)
    assert lesson(api, a, chain["lesson"])["corroboration"] == "single-source"
    refused = api.put("/curation/corroboration-policy", headers=a.headers,
                      json={"min_independent_sources": 1})  # fmt: skip
    assert refused.status_code == 403
    bad = api.put("/curation/corroboration-policy", headers=curator.headers,
                  json={"min_independent_sources": 0, "strict": "yes"})  # fmt: skip
    assert bad.status_code == 400

    relaxed = api.put(
        "/curation/corroboration-policy",
        headers=curator.headers,
        json={"min_independent_sources": 1, "reason": "one good source is enough"},
    )
    assert relaxed.status_code == 200, relaxed.text
    assert relaxed.json()["reevaluated"] == 1 and relaxed.json()["changed"] == 1
    got = lesson(api, a, chain["lesson"])
    assert got["corroboration"] == "corroborated"
    # Strict, needing 2 again: recall hides the lesson at once.
    post(api, a, "/recall", {"query": "refund window"}, status=200)["results"][0]  # recalled now
    strict = api.put("/curation/corroboration-policy", headers=curator.headers,
                     json={"strict": True})  # fmt: skip
    assert strict.json()["policy"]["strict"] is True
    assert strict.json()["policy"]["min_independent_sources"] == 2  # left out: the default
    assert lesson(api, a, chain["lesson"])["corroboration"] == "single-source"
    assert post(api, a, "/recall", {"query": "refund window"}, status=200)["results"] == []
    with tenant_context(a.agent.tenant_id):
        from memory.models import CuratorAction

        triggers = list(
            CorroborationAudit.objects.filter(lesson_id=chain["lesson"], trigger="policy")
            .order_by("id").values_list("status", flat=True)
        )  # fmt: skip
        actions = list(CuratorAction.objects.order_by("id").values_list("actor", "reason"))
    assert triggers == ["corroborated", "single-source"]
    assert actions == [("cora", "one good source is enough"), ("cora", "")]


def test_the_evidence_of_many_lessons_at_once_is_what_each_lineage_ends_in(api):
    """The dashboard's disputes page reads every lesson's evidence in two
    queries (lessons_evidence); it must match each lesson's own lineage."""
    import uuid

    from provenance.presenters import lesson_lineage
    from provenance.selectors import lessons_evidence

    chain = echo_chain(api)
    a, _, _ = chain["callers"]
    second = post(api, a, "/observations", {
        "content": "Refund of order 2231 (190 days old) failed too.", "source_type": "tool_output",
    })  # fmt: skip
    learned = post(api, a, "/learn", {
        "content": "The refund window check runs in the payments API gateway.",
        "derived_from": [{"type": "observation", "id": second["id"]},
                         {"type": "lesson", "id": chain["lesson"]}],
    }, status=202)  # fmt: skip
    process_pending(a.agent.tenant_id)
    derived = api.get(f"/learn/{learned['id']}", headers=a.headers).json()["lesson"]["id"]
    ids = [uuid.UUID(chain["lesson"]), uuid.UUID(derived)]
    with tenant_context(a.agent.tenant_id):
        many = lessons_evidence(ids)
        for lesson_id in ids:
            lineage = lesson_lineage(lesson_id)
            one = {n["id"] for n in lineage["nodes"] if n["type"] == "observation"}
            assert {str(o.id) for o in many[lesson_id]} == one
    assert [str(o.id) for o in many[ids[0]]] == [chain["source"]["id"]]
    assert {str(o.id) for o in many[ids[1]]} == {chain["source"]["id"], second["id"]}


def test_a_confident_contradiction_from_an_independent_root_makes_a_lesson_contested(api):
    chain = echo_chain(api)
    dan = make_caller("acme", "dan")
    assert lesson(api, dan, chain["lesson"])["corroboration"] != "contested"
    # Ann's own echo contradicting does not contest it: the same root.
    ann = chain["callers"][0]
    post(api, ann, "/beliefs", {
        "content": "On second thought refunds might work after 180 days.", "confidence": 0.9,
        "derived_from": [{"type": "belief", "id": chain["beliefs"][0]}],
        "contradicts": chain["lesson"],
    })  # fmt: skip
    assert lesson(api, dan, chain["lesson"])["corroboration"] != "contested"
    # Dan's own evidence, a root of its own, confidently against it: contested.
    seen = post(api, dan, "/observations", {
        "content": "Refund of order 7781 (210 days old) succeeded.", "source_type": "tool_output",
        "source_uri": "https://pay.internal/logs/7781",
    })  # fmt: skip
    post(api, dan, "/beliefs", {
        "content": "Refunds older than 180 days go through.", "confidence": 0.9,
        "derived_from": [{"type": "observation", "id": seen["id"]}],
        "contradicts": chain["lesson"],
    })  # fmt: skip
    contested = lesson(api, dan, chain["lesson"])
    assert contested["corroboration"] == "contested", contested


def test_the_database_refuses_to_change_or_delete_an_observation(api):
    from django.db import IntegrityError, connection, transaction

    chain = echo_chain(api)
    source = chain["source"]["id"]
    tenant = chain["callers"][0].agent.tenant_id
    for sql in (
        "UPDATE provenance_observation SET content = 'something else' WHERE id = %s",
        "UPDATE provenance_observation SET source_uri = 'https://elsewhere' WHERE id = %s",
        "DELETE FROM provenance_observation WHERE id = %s",
    ):
        with (
            pytest.raises(IntegrityError, match="observations are immutable"),
            tenant_context(tenant),  # as the application role
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, [source])
        assert not transaction.get_connection().in_atomic_block
    with tenant_context(tenant), connection.cursor() as cursor:
        cursor.execute("SELECT content, valid FROM provenance_observation WHERE id = %s", [source])
        assert cursor.fetchone() == (chain["source"]["content"], True)
        # Its validity may change (invalidation); that is not an edit.
        cursor.execute("UPDATE provenance_observation SET valid = false WHERE id = %s", [source])
