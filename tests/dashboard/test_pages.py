"""The dashboard's pages without a browser: who may see what (one tenant
at a time, row-level security scoping it), CSRF on every action, bad input,
and what each page shows."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from accounts.models import Role, StaffMembership, Tenant
from accounts.tenancy import cross_tenant, tenant_context
from memory.models import CuratorAction, Dispute, Lesson, Outcome
from tests.conftest import learn_now, make_caller

pytestmark = pytest.mark.django_db(transaction=True)

A_TEXT = "Tenant A deploys from the release-a branch on Tuesdays."
B_TEXT = "Tenant B keeps its secrets in the vault-b namespace."


def curator(client: Client, *slugs: str, name: str = "curie") -> User:
    user = User.objects.create_user(name, password="pw-not-used", is_staff=True)
    with cross_tenant(reason="test setup"):
        for slug in slugs:
            StaffMembership.objects.create(user=user, tenant_slug=slug)
    client.force_login(user)
    return user


@pytest.fixture
def two_tenants():
    alice = make_caller("tenant-a", "alice")
    bob = make_caller("tenant-b", "bob")
    return learn_now(alice, A_TEXT), learn_now(bob, B_TEXT), alice, bob


def test_anonymous_users_are_sent_to_log_in_and_outsiders_are_refused(client, two_tenants):
    response = client.get("/dashboard/lessons/")
    assert response.status_code == 302 and response["Location"].startswith("/dashboard/login/")
    assert client.get("/dashboard/login/").status_code == 200
    nobody = User.objects.create_user("nobody", password="pw-not-used", is_staff=True)
    client.force_login(nobody)
    refused = client.get("/dashboard/")
    assert refused.status_code == 403 and b"No tenant to curate" in refused.content


def test_logging_in_without_next_lands_on_the_feed_and_with_next_on_next(client, two_tenants):
    User.objects.create_user("carol", password="a-long-password-9", is_staff=True)
    plain = client.post("/dashboard/login/", {"username": "carol", "password": "a-long-password-9"})
    assert plain.status_code == 302 and plain["Location"] == "/dashboard/"
    client.logout()
    asked = client.post(
        "/dashboard/login/?next=/dashboard/health/",
        {"username": "carol", "password": "a-long-password-9", "next": "/dashboard/health/"},
    )
    assert asked.status_code == 302 and asked["Location"] == "/dashboard/health/"


def test_a_curator_of_tenant_a_sees_nothing_of_tenant_b(client, two_tenants):
    a, b, _, bob = two_tenants
    curator(client, "tenant-a")
    for page in ("/dashboard/", "/dashboard/lessons/", "/dashboard/lessons/?q=vault",
                 "/dashboard/disputes/", "/dashboard/health/"):  # fmt: skip
        response = client.get(page)
        assert response.status_code == 200, page
        assert b"vault-b" not in response.content, page
    assert b"release-a" in client.get("/dashboard/lessons/").content
    assert client.get(f"/dashboard/lessons/{b.lesson_id}/").status_code == 404
    assert client.get(f"/dashboard/lessons/{a.lesson_id}/").status_code == 200
    # Acting on B's lesson by id: not found, and nothing changed.
    response = client.post(f"/dashboard/lessons/{b.lesson_id}/retire", {"reason": "x"})
    assert response.status_code == 404
    with tenant_context(bob.agent.tenant_id):
        assert Lesson.objects.get(id=b.lesson_id).status == "active"
    # Switching to a tenant one does not curate is refused.
    assert client.post("/dashboard/tenant", {"tenant": "tenant-b"}).status_code == 404
    assert client.get("/dashboard/tenant").status_code == 405


def test_every_action_needs_the_csrf_token(two_tenants):
    a, _, alice, _ = two_tenants
    client = Client(enforce_csrf_checks=True)
    curator(client, "tenant-a")
    response = client.post(f"/dashboard/lessons/{a.lesson_id}/retire", {"reason": "stale"})
    assert response.status_code == 403
    with tenant_context(alice.agent.tenant_id):
        assert Lesson.objects.get(id=a.lesson_id).status == "active"
    page = client.get(f"/dashboard/lessons/{a.lesson_id}/")
    token = page.cookies["csrftoken"].value
    response = client.post(
        f"/dashboard/lessons/{a.lesson_id}/retire", {"reason": "stale"}, HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 302


def test_lesson_actions_need_a_reason_and_are_audited(client, two_tenants):
    a, _, alice, _ = two_tenants
    curator(client, "tenant-a")
    url = f"/dashboard/lessons/{a.lesson_id}"
    page = client.post(f"{url}/pin", {"reason": ""}, follow=True)
    assert b"Say why" in page.content
    client.post(f"{url}/pin", {"reason": "release process"})
    client.post(f"{url}/retire", {"reason": "replaced by the new process"})
    assert client.post(f"{url}/explode", {"reason": "x"}).status_code == 404
    with tenant_context(alice.agent.tenant_id):
        lesson = Lesson.objects.get(id=a.lesson_id)
        audit = list(CuratorAction.objects.order_by("id").values_list("actor", "action"))
    assert lesson.pinned and lesson.status == "retired"
    assert audit == [("staff:curie", "pin"), ("staff:curie", "retire")]
    erased = client.post(f"{url}/erase", {"reason": "wrong"})
    assert erased.status_code == 302 and erased["Location"] == "/dashboard/lessons/"
    with tenant_context(alice.agent.tenant_id):
        assert Lesson.objects.get(id=a.lesson_id).content == ""


def test_time_travel_shows_what_was_believed_then(client):
    alice = make_caller("tenant-a", "alice")
    old = learn_now(alice, "The nightly export job runs at 02:00 UTC.")
    with tenant_context(alice.agent.tenant_id):
        Lesson.objects.filter(id=old.lesson_id).update(
            activated_at=timezone.now() - timedelta(hours=2),
            created_at=timezone.now() - timedelta(hours=2),
        )
    between = timezone.now() - timedelta(hours=1)
    new = learn_now(alice, "The nightly export job runs at 03:00 UTC.")
    assert new.outcome == Outcome.SUPERSEDED
    curator(client, "tenant-a")
    now = client.get("/dashboard/lessons/").content.decode()
    assert "03:00" in now and "02:00" in now  # both listed: one active, one superseded
    then = client.get("/dashboard/lessons/", {"as_of": between.strftime("%Y-%m-%dT%H:%M:%S")})
    body = then.content.decode()
    assert "02:00" in body and "03:00" not in body and "now superseded" in body
    searched = client.get("/dashboard/lessons/", {"q": "export job", "as_of": between.isoformat()})
    assert "02:00" in searched.content.decode()
    bad = client.get("/dashboard/lessons/", {"as_of": "yesterday-ish"})
    assert bad.status_code == 400 and b"as_of must be a date and time" in bad.content


def test_disputes_are_shown_side_by_side_and_resolved(client):
    alice = make_caller("tenant-a", "alice")
    bob = make_caller("tenant-a", "bob")
    learn_now(alice, "The nightly export job runs at 02:00 UTC.")
    learn_now(bob, "The nightly export job runs at 03:00 UTC.")
    curator(client, "tenant-a")
    page = client.get("/dashboard/disputes/").content.decode()
    assert "Existing lesson" in page and "New lesson" in page and "Opened by <strong>bob" in page
    with tenant_context(alice.agent.tenant_id):
        dispute = Dispute.objects.get()
    response = client.post(
        f"/dashboard/disputes/{dispute.id}/resolve",
        {"resolution": "keep_both", "note": "two jobs"}, HTTP_HX_REQUEST="true",
    )  # fmt: skip
    assert response.status_code == 200 and b"No open disputes" in response.content
    assert b"Dispute resolved: keep both" in response.content
    again = client.post(f"/dashboard/disputes/{dispute.id}/resolve", {"resolution": "keep_old"},
                        follow=True)  # fmt: skip
    assert b"already" in again.content.lower()
    bad = client.post(f"/dashboard/disputes/{dispute.id}/resolve", {"resolution": "withdrawn"})
    assert bad.status_code == 400


def test_health_draws_its_charts(client, two_tenants):
    curator(client, "tenant-a")
    page = client.get("/dashboard/health/").content.decode()
    for title in ("Lessons by status", "Lessons by kind", "Forgotten, by rule",
                  "Learn requests per day, last 14 days"):  # fmt: skip
        assert f'aria-label="{title}"' in page
    assert "<svg" in page and "Learn latency p50 / p95" in page


def test_a_superuser_looks_at_one_tenant_at_a_time(client, two_tenants):
    root = User.objects.create_superuser("root", "root@example.com", "pw-not-used")
    client.force_login(root)
    first = client.get("/dashboard/lessons/").content
    assert b"release-a" in first and b"vault-b" not in first
    assert client.post("/dashboard/tenant", {"tenant": "tenant-b"}).status_code == 302
    second = client.get("/dashboard/lessons/").content
    assert b"vault-b" in second and b"release-a" not in second
    assert Role.CURATOR  # the superuser acts as a curator agent of the tenant shown


def test_the_lessons_page_shows_what_waits_for_a_second_source(client, two_tenants):
    a, _, alice, _ = two_tenants
    curator(client, "tenant-a")
    page = client.get("/dashboard/lessons/").content.decode()
    assert "1 active lesson waits for a second source" in page
    assert "recalled meanwhile" in page  # the default policy is not strict
    with tenant_context(alice.agent.tenant_id):
        Tenant.objects.filter(id=alice.agent.tenant_id).update(
            corroboration_policy={"strict": True}
        )
    page = client.get("/dashboard/lessons/").content.decode()
    assert "other agents do not recall it until one comes" in page
    waiting = client.get("/dashboard/lessons/?status=active&corroboration=single-source")
    assert str(a.lesson_id) in waiting.content.decode()


def test_the_lineage_graph_puts_the_decisions_above_the_lesson():
    from dashboard.lineage import layout, lineage_svg

    lineage = {
        "lesson": "L",
        "nodes": [
            {"id": "O", "type": "observation", "content": "log line", "valid": True},
            {"id": "B", "type": "belief", "content": "a belief", "status": "active"},
            {"id": "L", "type": "lesson", "content": "the lesson", "status": "active"},
            {"id": "D", "type": "decision", "action": "moved the job", "status": "needs_review"},
        ],
        "edges": [
            {"from": "B", "to": "O", "kind": "derived_from"},
            {"from": "B", "to": "L", "kind": "supports"},
            {"from": "D", "to": "L", "kind": "based_on"},
        ],
    }
    placed, _, _, _ = layout(lineage)
    level = {n.id: n.level for n in placed}
    assert level["O"] < level["B"] < level["L"] < level["D"]
    svg = str(lineage_svg(lineage))
    assert 'class="node decision needs_review"' in svg and "moved the job" in svg
