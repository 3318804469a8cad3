"""The gardener and erasure at their edges (each found by a review): a
judge that comes back, tied activation times, disputes, extreme half-lives,
pinned expiry, TTL changes, stale reads, and whose text an erase may touch."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from accounts.models import Role, StaffMembership
from accounts.tenancy import cross_tenant, run_apply_transaction, tenant_context
from config.errors import Conflict
from curation.gardener import garden
from curation.policies import kind_policy_set
from memory.models import Dispute, EventKind, Lesson, LessonStatus
from memory.selectors import lesson_recall
from memory.services.lessons import lesson_forget
from memory.services.transitions import lesson_move
from provenance.models import Observation
from provenance.services import ParentRef
from tests.conftest import learn_now, make_caller, principal_of
from tests.curation.test_gardener import FACTS, age, duplicate_of_pinned, statuses
from tests.fake_llm import SERVER_ERROR, verdict

pytestmark = pytest.mark.django_db(transaction=True)


def test_lessons_a_failed_judge_could_not_judge_are_judged_when_it_is_back(openai_fake):
    alice = make_caller("garden", "alice")
    original = learn_now(alice, FACTS[3]).lesson_id
    twin = duplicate_of_pinned(alice, original, FACTS[3])
    openai_fake.default = SERVER_ERROR
    [down] = garden(steps=["merge"], tenant_slug="garden")
    assert down.counts["judge_failed"] == 1 and down.counts["merged"] == 0
    openai_fake.default = verdict("duplicate", "c1", 0.95)
    [back] = garden(steps=["merge"], tenant_slug="garden")
    assert back.counts["merged"] == 1
    assert statuses(alice)[twin][0] == "retired"


def test_lessons_activated_at_the_same_instant_are_all_looked_at(settings):
    settings.TRIBUTARY_GARDENER_BATCH = 1
    alice = make_caller("garden", "alice")
    original = learn_now(alice, FACTS[3]).lesson_id
    age(alice, original, days=1)
    first = duplicate_of_pinned(alice, original, FACTS[3])
    second = duplicate_of_pinned(alice, original, FACTS[3].replace("Loki", "central Loki"))
    with tenant_context(alice.agent.tenant_id):  # the two twins tie
        tied = Lesson.objects.get(id=first).activated_at
        Lesson.objects.filter(id=second).update(activated_at=tied)
    merged = sum(garden(steps=["merge"], tenant_slug="garden")[0].counts["merged"]
                 for _ in range(4))  # fmt: skip
    assert merged == 2
    now = statuses(alice)
    assert (now[original][0], now[first][0], now[second][0]) == ("active", "retired", "retired")


def test_merge_never_takes_away_a_lesson_a_dispute_is_about():
    alice = make_caller("garden", "alice")
    bob = make_caller("garden", "bob")
    old = learn_now(alice, "The nightly export job runs at 02:00 UTC.").lesson_id
    new = learn_now(bob, "The nightly export job runs at 03:00 UTC.")
    assert new.outcome == "disputed"
    with tenant_context(alice.agent.tenant_id):  # an older twin of the disputed-about lesson
        twin = duplicate_of_pinned(alice, old, "The nightly export job runs at 02:00 UTC!")
        Lesson.objects.filter(id=twin).update(activated_at=timezone.now() - timedelta(days=1))
    garden(steps=["merge"], tenant_slug="garden")
    assert statuses(alice)[old][0] == "active"
    with tenant_context(alice.agent.tenant_id):
        assert Dispute.objects.get().status == "open"


def test_an_extreme_half_life_decays_to_nothing_without_breaking_the_step():
    alice = make_caller("garden", "alice")
    cora = principal_of(make_caller("garden", "cora", Role.CURATOR))
    fact = learn_now(alice, FACTS[0], kind="fact").lesson_id
    lesson = learn_now(alice, FACTS[1]).lesson_id
    with tenant_context(alice.agent.tenant_id):
        kind_policy_set(principal=cora, kind="fact", half_life_days=0.01)
    age(alice, fact, days=30)
    age(alice, lesson, days=30)
    [result] = garden(steps=["decay"], tenant_slug="garden")
    assert result.error == "" and result.counts == {"decayed": 2, "withered": 1}
    now = statuses(alice)
    assert now[fact][0] == "retired" and now[fact][1] < 1e-100
    assert now[lesson][0] == "active" and now[lesson][1] < 0.7  # the other kind decayed too


def test_a_pinned_lesson_past_its_expiry_is_still_recalled():
    alice = make_caller("garden", "alice")
    request = learn_now(alice, "Scratch: the release train leaves at noon.", kind="session")
    with tenant_context(alice.agent.tenant_id):
        Lesson.objects.filter(id=request.lesson_id).update(
            pinned=True, expires_at=timezone.now() - timedelta(hours=1)
        )
        hits = lesson_recall(tenant_id=alice.agent.tenant_id, query="release train", k=3)
    assert [h.lesson.id for h in hits] == [request.lesson_id]


def test_a_ttl_change_reaches_the_lessons_already_learned():
    alice = make_caller("garden", "alice")
    cora = principal_of(make_caller("garden", "cora", Role.CURATOR))
    request = learn_now(alice, "Scratch: build 99 is being bisected.", kind="session")
    age(alice, request.lesson_id, days=3)  # older than the default TTL of a day
    with tenant_context(alice.agent.tenant_id):
        kind_policy_set(principal=cora, kind="session", ttl_seconds=None)
        assert Lesson.objects.get(id=request.lesson_id).expires_at is None
    assert garden(steps=["expire"], tenant_slug="garden")[0].counts == {"expired": 0}
    with tenant_context(alice.agent.tenant_id):
        kind_policy_set(principal=cora, kind="session", ttl_seconds=3600)
    assert garden(steps=["expire"], tenant_slug="garden")[0].counts == {"expired": 1}


def test_a_write_decided_on_a_stale_read_is_refused():
    alice = make_caller("garden", "alice")
    lesson_id = learn_now(alice, FACTS[2]).lesson_id
    with tenant_context(alice.agent.tenant_id):
        stale = Lesson.objects.get(id=lesson_id)
    lesson_forget(principal=principal_of(alice), lesson_id=lesson_id)

    def retire_from_the_stale_copy() -> None:
        lesson_move(
            tenant_id=alice.agent.tenant_id, agent_id=alice.agent.id, lesson=stale,
            status=LessonStatus.RETIRED, event=EventKind.RETIRED,
        )  # fmt: skip

    with pytest.raises(Conflict):
        run_apply_transaction(alice.agent.tenant_id, retire_from_the_stale_copy)
    assert statuses(alice)[lesson_id][0] == "erased"


def test_forgetting_a_lesson_never_erases_another_agents_observation():
    alice = make_caller("garden", "alice")
    bob = make_caller("garden", "bob")
    learn_now(alice, "ZORBLAX builds need 16 GB.", situation="ZORBLAX build host ran out of RAM")
    with tenant_context(alice.agent.tenant_id):
        observation = Observation.objects.get(agent=alice.agent)
    copied = learn_now(bob, observation.content, kind="fact",
                       derived_from=[ParentRef("observation", observation.id)])  # fmt: skip
    lesson_forget(principal=principal_of(bob), lesson_id=copied.lesson_id)
    with tenant_context(alice.agent.tenant_id):
        observation.refresh_from_db()
    assert observation.content == "ZORBLAX build host ran out of RAM"
    assert observation.erased_at is None


def test_erasing_a_lesson_erases_what_was_merged_into_it_and_the_reasons_about_it(superuser_sql):
    from tests.curation.test_gardener import assert_gone_everywhere

    alice = make_caller("garden", "alice")
    curator = make_caller("garden", "carol", Role.CURATOR)
    original = learn_now(alice, "QUOKKAZ retention on Loki is fourteen days.").lesson_id
    twin = duplicate_of_pinned(alice, original, "QUOKKAZ retention on Loki is fourteen days.")
    assert garden(steps=["merge"], tenant_slug="garden")[0].counts["merged"] == 1
    from memory.services.lessons import lesson_retire

    lesson_retire(principal=principal_of(curator), lesson_id=original,
                  reason="QUOKKAZ retention changed")  # fmt: skip
    lesson_forget(principal=principal_of(curator), lesson_id=original)
    assert statuses(alice)[twin][0] == "retired"
    assert_gone_everywhere(superuser_sql, "quokkaz")


def test_the_admin_refuses_a_policy_the_api_would_refuse(client):
    make_caller("garden", "alice")
    user = User.objects.create_user("curie", password="pw-not-used", is_staff=True)
    with cross_tenant(reason="test setup"):
        StaffMembership.objects.create(user=user, tenant_slug="garden")
    client.force_login(user)
    for kind, ceiling in (("memes", "5"), ("fact", "0")):
        response = client.post("/admin/memory/kindpolicy/add/", {
            "kind": kind, "ceiling": ceiling, "ttl_seconds": "", "half_life_days": "",
            "retire_below": "0.2", "eviction": "retire", "reason": "test",
        })  # fmt: skip
        assert response.status_code == 200  # the form again, with its error
        assert b"errorlist" in response.content
