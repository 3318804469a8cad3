"""Curators in the admin: a staff user sees only the tenants they curate
(row-level security does the scoping), acts through the services, and every
action is audited with who and why."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from accounts.models import StaffMembership
from accounts.tenancy import cross_tenant, tenant_context
from memory.models import CuratorAction, Dispute, KindPolicy, Lesson, Outcome
from provenance.models import Decision, Edge, EdgeKind, Observation
from tests.conftest import learn_now, make_caller

pytestmark = pytest.mark.django_db(transaction=True)

A_TEXT = "Tenant A deploys from the release-a branch on Tuesdays."
B_TEXT = "Tenant B keeps its secrets in the vault-b namespace."


@pytest.fixture
def two_tenants():
    alice = make_caller("tenant-a", "alice")
    bob = make_caller("tenant-b", "bob")
    return learn_now(alice, A_TEXT), learn_now(bob, B_TEXT), alice, bob


def staff_of(client, *slugs: str) -> User:
    user = User.objects.create_user("curie", password="pw-not-used", is_staff=True)
    with cross_tenant(reason="test setup"):
        for slug in slugs:
            StaffMembership.objects.create(user=user, tenant_slug=slug)
    client.force_login(user)
    return user


def _tenant(slug: str):
    from accounts.models import Tenant

    return Tenant.objects.get(slug=slug).id


def test_a_staff_user_of_tenant_a_cannot_see_tenant_b(client, two_tenants):
    a, b, _, _ = two_tenants
    staff_of(client, "tenant-a")
    for page in ("/admin/memory/lesson/", "/admin/memory/learnrequest/",
                 "/admin/provenance/observation/", "/admin/curation/journalline/"):  # fmt: skip
        response = client.get(page)
        assert response.status_code == 200, page
        assert b"vault-b" not in response.content, page
    lessons = client.get("/admin/memory/lesson/").content
    assert b"release-a" in lessons and b"Curating <strong>tenant-a</strong>" in lessons
    # B's lesson by id: not found, as if it did not exist.
    detail = client.get(f"/admin/memory/lesson/{b.lesson_id}/change/", follow=True)
    assert b"vault-b" not in detail.content
    assert client.get(f"/admin/memory/lesson/{a.lesson_id}/change/").status_code == 200
    # Searching for B's words finds nothing; the tenants and keys are the operator's.
    assert b"vault-b" not in client.get("/admin/memory/lesson/?q=vault").content
    assert client.get("/admin/accounts/tenant/").status_code == 403
    assert client.get("/admin/accounts/apikey/").status_code == 403
    # Switching to a tenant one does not curate is refused.
    assert client.post("/admin/tenant/tenant-b/").status_code == 404


def test_a_staff_user_of_two_tenants_switches_between_them(client, two_tenants):
    staff_of(client, "tenant-a", "tenant-b")
    assert b"release-a" in client.get("/admin/memory/lesson/").content
    assert client.get("/admin/tenant/tenant-b/").status_code == 405  # never by a link
    assert client.post("/admin/tenant/tenant-b/").status_code == 302
    page = client.get("/admin/memory/lesson/").content
    assert b"vault-b" in page and b"release-a" not in page


def test_curator_actions_run_the_services_and_are_audited(client, two_tenants):
    a, _, alice, _ = two_tenants
    staff_of(client, "tenant-a")
    url = "/admin/memory/lesson/"
    refused = client.post(url, {"action": "pin", "_selected_action": [str(a.lesson_id)]},
                          follow=True)  # fmt: skip
    assert b"Say why" in refused.content
    for action in ("pin", "retire"):
        response = client.post(
            url, {"action": action, "_selected_action": [str(a.lesson_id)],
                  "reason": f"{action}: checked with the release team"}, follow=True,
        )  # fmt: skip
        assert response.status_code == 200
        assert f"{action}: 1 done".encode() in response.content.lower()
    with tenant_context(alice.agent.tenant_id):
        lesson = Lesson.objects.get(id=a.lesson_id)
        audit = list(CuratorAction.objects.order_by("id").values_list("actor", "action", "reason"))
    assert lesson.pinned and lesson.status == "retired"
    assert lesson.retired_reason == "retire: checked with the release team"
    assert audit == [
        ("staff:curie", "pin", "pin: checked with the release team"),
        ("staff:curie", "retire", "retire: checked with the release team"),
    ]


def test_a_dispute_is_resolved_and_a_source_invalidated_from_the_admin(client):
    alice = make_caller("tenant-a", "alice")
    bob = make_caller("tenant-a", "bob")
    old = learn_now(alice, "The nightly export job runs at 02:00 UTC.")
    new = learn_now(bob, "The nightly export job runs at 03:00 UTC.")
    assert new.outcome == Outcome.DISPUTED
    staff_of(client, "tenant-a")
    with tenant_context(alice.agent.tenant_id):
        dispute = Dispute.objects.get()
    response = client.post(
        "/admin/memory/dispute/",
        {"action": "accept_new", "_selected_action": [str(dispute.id)], "reason": "crontab"},
        follow=True,
    )
    assert b"resolve_accept_new: 1 done" in response.content.lower()
    with tenant_context(alice.agent.tenant_id):
        assert Lesson.objects.get(id=old.lesson_id).status == "superseded"
        assert Lesson.objects.get(id=new.lesson_id).status == "active"
        dispute.refresh_from_db()
        assert (dispute.resolution, dispute.note) == ("accept_new", "crontab")
        source = Edge.objects.get(
            belief_id=new.belief_id, kind=EdgeKind.DERIVED_FROM
        ).to_observation_id
        Decision.objects.create(
            tenant_id=alice.agent.tenant_id, agent_id=alice.agent.id, action="moved the job"
        )
    response = client.post(
        "/admin/provenance/observation/",
        {"action": "invalidate", "_selected_action": [str(source)], "reason": "wrong host"},
        follow=True,
    )
    assert (
        b"repair report" in response.content and b"invalidate: 1 done" in response.content.lower()
    )
    with tenant_context(alice.agent.tenant_id):
        assert Observation.objects.get(id=source).valid is False
    assert client.get("/admin/provenance/decision/?status__exact=ok").status_code == 200


def test_a_curator_sets_a_kind_policy_in_the_admin(client, two_tenants):
    _, _, alice, bob = two_tenants
    staff_of(client, "tenant-a")
    response = client.post(
        "/admin/memory/kindpolicy/add/",
        {"kind": "session", "ceiling": "50", "ttl_seconds": "600", "half_life_days": "",
         "retire_below": "0.2", "eviction": "retire", "merge_duplicates": "",
         "reason": "shorter sessions"},
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[-2000:]
    with tenant_context(alice.agent.tenant_id):
        policy = KindPolicy.objects.get()
        audit = CuratorAction.objects.get()
    assert (policy.tenant_id, policy.ttl_seconds, policy.updated_by) == (
        alice.agent.tenant_id, 600, "staff:curie",
    )  # fmt: skip
    assert (audit.action, audit.reason) == ("set_kind_policy", "shorter sessions")
    with tenant_context(bob.agent.tenant_id):
        assert not KindPolicy.objects.exists()
    schedule = client.get("/admin/curation/gardenerrun/")
    assert b"garden-decay" in schedule.content
