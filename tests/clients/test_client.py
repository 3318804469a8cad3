"""The Python client against the live service (real HTTP), every method,
through the sync client and the async one (the ``connect`` fixture runs each
test with both)."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connections
from tributary_client import (
    BadRequest,
    Belief,
    Conflict,
    CorroborationPolicyChange,
    CurationState,
    Decision,
    Dispute,
    Forbidden,
    InvalidationReport,
    KindPolicy,
    LearnResult,
    Lesson,
    Lineage,
    NotFound,
    Observation,
    Page,
    PayloadTooLarge,
    RecallResult,
    Stats,
    Unauthorized,
    WhoAmI,
)

from accounts.models import Role
from accounts.tenancy import tenant_context
from memory.models import LearnRequest
from memory.models import Lesson as LessonRow
from tests.conftest import Caller, make_caller, process_pending

pytestmark = pytest.mark.django_db(transaction=True)

EXPORT_0200 = "The nightly export job runs at 02:00 UTC."
EXPORT_0300 = "The nightly export job runs at 03:00 UTC."


def applied(client, caller: Caller, pending: LearnResult) -> LearnResult:
    """Run the worker's service in-process, then read the request back."""
    assert pending.pending and pending.lesson is None
    process_pending(caller.agent.tenant_id)
    result = client.learn_request(pending.id)
    assert isinstance(result, LearnResult) and result.applied
    return result


def test_whoami_health_and_readiness(connect):
    alice = make_caller("acme", "alice")
    client = connect(alice)
    assert client.whoami() == WhoAmI(tenant="acme", agent="alice", role="writer")
    assert client.health() == {"status": "ok"}
    readiness = client.ready()
    assert readiness.ready is True and readiness.status == "ok"
    assert set(readiness.checks) == {"postgres", "redis", "learning"}


def test_learn_resolves_to_a_typed_lesson_that_lessons_lesson_and_recall_return(connect):
    alice = make_caller("acme", "alice")
    client = connect(alice)
    observation = client.observe(
        "Deploy 4411 failed with 'X-Batch header missing'.",
        source_type="tool_output",
        source_uri="https://ci.internal/4411",
    )
    assert isinstance(observation, Observation) and observation.valid
    assert observation.source_uri == "https://ci.internal/4411"
    pending = client.learn(
        "The deploy API needs X-Batch: true.",
        situation="deploying",
        kind="procedure",
        confidence=0.8,
        derived_from=[observation],
        idempotency_key="deploy-1",
    )
    again = client.learn("The deploy API needs X-Batch: true.", idempotency_key="deploy-1")
    assert again.id == pending.id  # the same request, not a second one
    result = applied(client, alice, pending)
    assert result.outcome == "inserted" and result.target_lesson_id is None
    assert result.judge and result.applied_at and result.applied_at.tzinfo is not None
    lesson = result.lesson
    assert isinstance(lesson, Lesson)
    assert (lesson.content, lesson.situation, lesson.kind, lesson.author, lesson.status) == (
        "The deploy API needs X-Batch: true.", "deploying", "procedure", "alice", "active",
    )  # fmt: skip
    assert lesson.confidence == pytest.approx(0.8)
    assert isinstance(lesson.created_at, datetime) and lesson.created_at.tzinfo is not None
    assert lesson.independent_sources == 1 and lesson.raw["id"] == lesson.id
    with tenant_context(alice.agent.tenant_id):
        assert LearnRequest.objects.get(id=pending.id).derived_from == [
            {"type": "observation", "id": observation.id}
        ]

    assert client.lesson(lesson.id) == lesson
    other = applied(client, alice, client.learn("Staging deploys need a ticket number."))
    page = client.lessons(limit=1)
    assert isinstance(page, Page) and page.next_page == 2
    assert [item.id for item in page] == [other.lesson.id]  # newest first
    assert [item.id for item in client.lessons(limit=1, page=2)] == [lesson.id]
    assert [item.id for item in client.lessons(kind="procedure")] == [lesson.id]
    assert [item.id for item in client.lessons(situation="deploying", author="alice")] == [
        lesson.id
    ]
    assert client.lessons(author="nobody").results == ()

    recalled = client.recall("which header does the deploy API need?", k=3)
    assert isinstance(recalled, RecallResult)
    assert "untrusted data" in recalled.untrusted_data
    assert recalled.nothing_relevant is False
    unrelated = client.recall("How many legs does a spider have?", k=3, history=False)
    assert unrelated.nothing_relevant is True and len(unrelated.results) == 2
    hit = recalled.results[0]
    assert hit.lesson.id == lesson.id and hit.score > 0 and hit.similarity is not None
    assert hit.trust.untrusted is True and hit.trust.author == "alice"
    assert hit.trust.independent_sources == 1
    assert client.recall("deploy API header", kinds=["fact"]).results == ()
    assert client.recall("deploy API header", min_independent_sources=2).results == ()
    before = lesson.created_at - timedelta(seconds=1)
    assert client.recall("deploy API header", as_of=before).results == ()
    now = datetime.now(UTC).isoformat()
    assert lesson.id in {h.lesson.id for h in client.recall("deploy API header", as_of=now)}
    with pytest.raises(ValueError, match="timezone-aware"):
        client.recall("deploy", as_of=datetime(2030, 1, 1))


def test_learn_request_waits_for_the_outcome_as_learn_does(connect):
    alice = make_caller("acme", "alice")
    as_alice = connect(alice)
    pending = as_alice.learn(EXPORT_0200)
    assert pending.pending
    started = time.monotonic()
    assert as_alice.learn_request(pending.id, wait=0.5).pending  # waited, nothing came
    assert time.monotonic() - started >= 0.5

    def worker() -> None:
        time.sleep(0.3)
        try:
            process_pending(alice.agent.tenant_id)
        finally:
            connections.close_all()

    thread = threading.Thread(target=worker)
    thread.start()
    started = time.monotonic()
    result = as_alice.learn_request(pending.id, wait=20)
    thread.join()
    assert result.applied and result.outcome == "inserted"
    assert time.monotonic() - started < 15  # answered when applied, not at the deadline


def test_lessons_and_recall_narrow_by_situation_prefix(connect):
    alice = make_caller("acme", "alice")
    as_alice = connect(alice)
    for content, situation in (
        ("The user drinks green tea without sugar.", "store:users/u1#prefs"),
        ("The user is allergic to peanuts.", "store:users/u2#diet"),
        ("The user prefers tea in the afternoon.", "store:teams/t1#prefs"),
    ):
        applied(as_alice, alice, as_alice.learn(content, situation=situation))
    listed = as_alice.lessons(situation_prefix="store:users/")
    assert sorted(lesson.situation for lesson in listed) == [
        "store:users/u1#prefs", "store:users/u2#diet",
    ]  # fmt: skip
    everywhere = {hit.lesson.situation for hit in as_alice.recall("tea", k=10)}
    assert "store:teams/t1#prefs" in everywhere and "store:users/u1#prefs" in everywhere
    found = {
        hit.lesson.situation
        for hit in as_alice.recall("tea", k=10, situation_prefix="store:users/")
    }
    assert "store:users/u1#prefs" in found and found <= {
        "store:users/u1#prefs",
        "store:users/u2#diet",
    }
    assert as_alice.recall("tea", k=10, situation_prefix="store:nobody/").results == ()


def test_history_reinforce_retire_and_forget(connect):
    alice = make_caller("acme", "alice")
    bob = make_caller("acme", "bob")
    carol = make_caller("acme", "carol", Role.CURATOR)
    as_alice, as_bob, as_carol = connect(alice), connect(bob), connect(carol)
    old = applied(as_alice, alice, as_alice.learn(EXPORT_0200)).lesson
    new = applied(as_alice, alice, as_alice.learn(EXPORT_0300))
    assert new.outcome == "superseded" and new.target_lesson_id == old.id
    history = as_bob.history(old.id)
    assert [h.id for h in history] == [old.id, new.lesson.id]
    assert history[0].superseded_by == new.lesson.id and history[0].status == "superseded"
    assert history[0].deactivated_at is not None

    used = as_bob.reinforce(new.lesson.id)
    assert used.reinforcement_count == 1 and used.independent_sources == 1
    backed = as_bob.reinforce(
        new.lesson.id,
        evidence={"content": "Export log 2024-05-02 starts 03:00:02 UTC.", "source_uri": "s3://x"},
    )
    assert backed.independent_sources == 2 and backed.agreeing_agents == 2

    with pytest.raises(Forbidden):
        as_bob.pin(new.lesson.id, reason="mine")
    assert as_carol.pin(new.lesson.id, reason="the runbook cites it").pinned is True
    assert as_carol.unpin(new.lesson.id, reason="the runbook moved on").pinned is False

    with pytest.raises(Forbidden):
        as_bob.retire(new.lesson.id, reason="obsolete")
    retired = as_carol.retire(new.lesson.id, reason="obsolete")
    assert retired.status == "retired" and retired.deactivated_at is not None

    assert as_alice.forget(old.id) is None
    assert as_alice.forget(old.id) is None  # idempotent: forgotten already is a success
    with pytest.raises(NotFound):
        as_alice.lesson(old.id)
    with tenant_context(alice.agent.tenant_id):
        assert LessonRow.objects.get(id=old.id).status == "erased"


def test_observations_beliefs_lineage_decisions_and_invalidation(connect):
    alice = make_caller("acme", "alice")
    bob = make_caller("acme", "bob")
    carol = make_caller("acme", "carol", Role.CURATOR)
    as_alice, as_bob, as_carol = connect(alice), connect(bob), connect(carol)
    source = as_alice.observe(
        "Refund of order 1123 (200 days old) failed with E_REFUND_WINDOW.",
        source_type="log",
        source_family="pay-logs-1123",
        reliability=0.9,
    )
    assert (source.source_type, source.source_family, source.reliability) == (
        "log", "pay-logs-1123", 0.9,
    )  # fmt: skip
    lesson = applied(
        as_alice,
        alice,
        as_alice.learn(
            "The payments API rejects refunds older than 180 days.",
            derived_from=[("observation", source.id)],
        ),
    ).lesson
    belief = as_bob.believe(
        "Alice's log shows old refunds fail.",
        derived_from=[{"type": "observation", "id": source.id}],
        supports=lesson,
        confidence=0.8,
    )
    assert isinstance(belief, Belief)
    assert (belief.agent, belief.status, belief.confidence) == ("bob", "held", 0.8)

    lineage = as_bob.lineage(lesson.id)
    assert isinstance(lineage, Lineage) and lineage.lesson == lesson.id
    assert {n.type for n in lineage.nodes} == {"lesson", "belief", "observation"}
    assert lineage.node(lesson.id).as_lesson().agreeing_agents == 2
    assert lineage.node(source.id).as_observation().valid is True
    assert lineage.node(belief.id).as_belief().agent == "bob"
    edges = {(e.source, e.target, e.kind) for e in lineage.edges}
    assert (belief.id, source.id, "derived_from") in edges
    assert (belief.id, lesson.id, "supports") in edges

    decision = as_bob.decide("Rejected refund request 2291.", based_on=[lesson.id])
    assert isinstance(decision, Decision)
    assert (decision.status, decision.based_on, decision.agent) == ("ok", (lesson.id,), "bob")
    assert [d.id for d in as_bob.decisions(status="ok")] == [decision.id]
    assert as_bob.decisions(status="needs_review") == ()

    with pytest.raises(Forbidden):
        as_alice.invalidate(source.id, reason="sandbox log")
    report = as_carol.invalidate(source.id, reason="the log was from the sandbox")
    assert isinstance(report, InvalidationReport)
    assert report.decisions_flagged == (decision.id,)
    assert belief.id in report.beliefs_retracted
    [change] = report.lessons_reevaluated
    assert (change.id, change.after) == (lesson.id, "unsupported")
    [flagged] = as_bob.decisions(status="needs_review")
    assert flagged.id == decision.id and flagged.review_reason
    lineage = as_bob.lineage(lesson.id)
    assert lineage.node(source.id).valid is False
    [standing] = lineage.of_type("decision")
    assert standing.as_decision().id == decision.id and standing.status == "needs_review"


def test_low_confidence_and_unsupported_are_two_states(connect):
    alice = make_caller("acme", "alice")
    carol = make_caller("acme", "carol", Role.CURATOR)
    as_alice, as_carol = connect(alice), connect(carol)
    # One source is enough here, but it must be confident.
    as_carol.set_corroboration_policy(min_independent_sources=1, min_confidence=0.9)
    seen = as_alice.observe("Export log: the job started at 02:00:04 UTC.")
    learned = applied(
        as_alice, alice,
        as_alice.learn(EXPORT_0200, confidence=0.6, derived_from=[seen]),
    )  # fmt: skip
    lesson = as_alice.lesson(learned.lesson.id)
    assert lesson.corroboration == "low-confidence", lesson.corroboration_reason
    assert "below 0.9" in (lesson.corroboration_reason or "")
    # Its only evidence invalidated: nothing supports it any more.
    report = as_carol.invalidate(seen.id, reason="wrong host")
    [change] = report.lessons_reevaluated
    assert (change.before, change.after) == ("low-confidence", "unsupported")


def test_disputes_stats_and_curation(connect):
    alice = make_caller("acme", "alice")
    bob = make_caller("acme", "bob")
    carol = make_caller("acme", "carol", Role.CURATOR)
    as_alice, as_bob, as_carol = connect(alice), connect(bob), connect(carol)
    old = applied(as_alice, alice, as_alice.learn(EXPORT_0200)).lesson
    new = applied(as_bob, bob, as_bob.learn(EXPORT_0300))
    assert new.outcome == "disputed" and new.lesson.status == "disputed"

    [dispute] = as_carol.disputes()
    assert isinstance(dispute, Dispute) and dispute.status == "open"
    assert (dispute.new_lesson.id, dispute.existing_lesson.id) == (new.lesson.id, old.id)
    assert dispute.opened_by == "bob" and dispute.resolved_at is None
    with pytest.raises(Forbidden):
        as_bob.disputes()
    resolved = as_carol.resolve_dispute(dispute.id, resolution="keep_both", note="both hold")
    assert (resolved.status, resolved.resolution, resolved.resolved_by) == (
        "resolved", "keep_both", "carol",
    )  # fmt: skip
    assert resolved.resolved_at is not None and resolved.new_lesson.status == "active"
    assert as_carol.disputes() == () and len(as_carol.disputes(status="all")) == 1
    with pytest.raises(Conflict) as again:
        as_carol.resolve_dispute(dispute.id, resolution="keep_old")
    assert (again.value.status, again.value.code) == (409, "dispute_resolved")

    stats = as_alice.stats()
    assert isinstance(stats, Stats)
    assert stats.lessons["active"]["lesson"] == 2
    assert stats.learn["outcomes"] == {"inserted": 1, "disputed": 1}
    assert stats.open_disputes == 0 and isinstance(stats.recalls, int)
    assert stats.storage["used_bytes"] > 0 and stats.storage["quota_bytes"] > 0

    state = as_alice.curation_state()
    assert isinstance(state, CurationState)
    assert isinstance(state.policies["session"], KindPolicy)
    assert state.policies["session"].source == "default"
    assert state.corroboration_policy["min_independent_sources"] == 2
    assert "schedule" in state.gardener and "by_rule" in state.journal
    # Every kind has a ceiling by default, and the state says how full it is.
    assert all(p.ceiling for p in state.policies.values())
    assert state.fullness["lesson"] == {
        "active": 2, "ceiling": state.policies["lesson"].ceiling,
        "percent": round(100 * 2 / state.policies["lesson"].ceiling, 2),
    }  # fmt: skip

    with pytest.raises(Forbidden):
        as_alice.set_kind_policy("session", ttl_seconds=3600)
    policy = as_carol.set_kind_policy("session", ttl_seconds=3600, ceiling=None, reason="test")
    assert isinstance(policy, KindPolicy)
    assert (policy.kind, policy.ttl_seconds, policy.ceiling, policy.source) == (
        "session", 3600, None, "tenant",
    )  # fmt: skip
    assert policy.updated_at is not None and policy.updated_by
    assert policy.pinned is False
    assert as_carol.set_kind_policy("preference", pinned=True, reason="standing").pinned is True
    assert as_alice.curation_state().policies["session"].ttl_seconds == 3600
    with pytest.raises(NotFound) as unknown:
        as_carol.set_kind_policy("gossip", ceiling=3)
    assert unknown.value.code == "unknown_kind"

    assert as_alice.lesson(old.id).corroboration == "single-source"
    change = as_carol.set_corroboration_policy(
        min_independent_sources=1, min_confidence=0.6, reason="small team"
    )
    assert isinstance(change, CorroborationPolicyChange)
    assert (change.policy["min_independent_sources"], change.policy["min_confidence"]) == (1, 0.6)
    assert change.reevaluated == 2 and change.changed >= 1
    assert as_alice.lesson(old.id).corroboration == "corroborated"


def test_errors_map_to_exceptions_with_the_services_code(connect, live_server):
    alice = make_caller("acme", "alice")
    eve = make_caller("globex", "eve")
    rita = make_caller("acme", "rita", Role.READER)
    as_alice, as_eve, as_rita = connect(alice), connect(eve), connect(rita)
    lesson = applied(as_alice, alice, as_alice.learn(EXPORT_0200)).lesson

    for call in (
        lambda: as_eve.lesson(lesson.id),
        lambda: as_eve.history(lesson.id),
        lambda: as_eve.lineage(lesson.id),
        lambda: as_eve.reinforce(lesson.id),
        lambda: as_eve.forget(lesson.id),
        lambda: as_eve.learn_request(str(uuid.uuid4())),
    ):
        with pytest.raises(NotFound) as outsider:
            call()
        assert (outsider.value.status, outsider.value.code) == (404, "not_found")
    with pytest.raises(NotFound) as parent:
        as_eve.learn("Copying alice.", derived_from=[("lesson", lesson.id)])
    assert parent.value.code == "parent_not_found"

    with pytest.raises(Unauthorized) as bad_key:
        connect(Caller(agent=alice.agent, key="trib_not_a_key")).whoami()
    assert (bad_key.value.status, bad_key.value.code) == (401, "unauthorized")

    with pytest.raises(Forbidden) as reader:
        as_rita.learn("Readers cannot write.")
    assert (reader.value.status, reader.value.code) == (403, "forbidden")

    with pytest.raises(BadRequest) as uncited:
        as_alice.believe("A claim from nowhere.", derived_from=[])
    assert (uncited.value.status, uncited.value.code) == (400, "uncited_belief")
    assert "derived_from" in uncited.value.message
    with pytest.raises(BadRequest) as kind:
        as_alice.learn("x", kind="gossip")
    assert kind.value.code == "invalid_choice"
    with pytest.raises(BadRequest) as wait:
        as_alice.learn("x", wait=99)
    assert wait.value.code == "invalid_wait"
    with pytest.raises(PayloadTooLarge) as big:
        as_alice.learn("x" * 4001)
    assert (big.value.status, big.value.code) == (413, "content_too_large")
    with tenant_context(alice.agent.tenant_id):
        assert LearnRequest.objects.count() == 1  # nothing half-written
