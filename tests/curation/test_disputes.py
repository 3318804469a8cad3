"""Disputes over real HTTP: two writers contradict, a curator resolves."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from accounts.models import Role
from accounts.tenancy import tenant_context
from memory.models import (
    Dispute,
    DisputeStatus,
    Event,
    LearnRequest,
    Lesson,
    LessonStatus,
    Outcome,
    Scope,
)
from tests.conftest import learn_now, make_caller

pytestmark = pytest.mark.django_db(transaction=True)

OLD = "The nightly export job runs at 02:00 UTC."
NEW = "The nightly export job runs at 03:00 UTC."


@pytest.fixture
def api(live_server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"{live_server.url}/api/v1", timeout=30) as client:
        yield client


def _disputed_pair() -> tuple[LearnRequest, LearnRequest]:
    alice = make_caller("acme", "alice")
    bob = make_caller("acme", "bob")
    old = learn_now(alice, OLD)
    new = learn_now(bob, NEW)
    assert new.outcome == Outcome.DISPUTED
    return old, new


def test_two_writers_contradicting_open_a_dispute_a_curator_accepts_with_the_chain(api):
    old, new = _disputed_pair()
    carol = make_caller("acme", "carol", Role.CURATOR)
    listed = api.get("/disputes", headers=carol.headers)
    assert listed.status_code == 200
    [dispute] = listed.json()["disputes"]
    assert dispute["status"] == "open" and dispute["opened_by"] == "bob"
    assert dispute["new_lesson"]["id"] == str(new.lesson_id)
    assert dispute["new_lesson"]["status"] == "disputed"
    assert dispute["existing_lesson"]["id"] == str(old.lesson_id)
    assert dispute["existing_lesson"]["status"] == "active"
    assert "03:00" in dispute["rationale"] or "3" in dispute["rationale"]

    resolved = api.post(
        f"/disputes/{dispute['id']}/resolve", headers=carol.headers,
        json={"resolution": "accept_new", "note": "checked the crontab"},
    )  # fmt: skip
    assert resolved.status_code == 200, resolved.text
    body = resolved.json()
    assert (body["status"], body["resolution"], body["resolved_by"]) == (
        "resolved", "accept_new", "carol",
    )  # fmt: skip
    assert body["new_lesson"]["status"] == "active"
    assert body["existing_lesson"]["status"] == "superseded"
    assert body["existing_lesson"]["superseded_by"] == str(new.lesson_id)
    history = api.get(f"/lessons/{new.lesson_id}/history", headers=carol.headers).json()
    assert [h["id"] for h in history] == [str(old.lesson_id), str(new.lesson_id)]
    assert api.get("/disputes", headers=carol.headers).json()["disputes"] == []
    again = api.post(
        f"/disputes/{dispute['id']}/resolve", headers=carol.headers,
        json={"resolution": "keep_old"},
    )  # fmt: skip
    assert again.status_code == 409 and again.json()["error"]["code"] == "dispute_resolved"
    with tenant_context(carol.agent.tenant_id):
        assert Scope.objects.get(kind="lesson").active_count == 1
        assert Event.objects.filter(kind="resolved").count() == 1


def test_keep_old_retires_the_new_lesson_and_keep_both_activates_it(api):
    old, new = _disputed_pair()
    carol = make_caller("acme", "carol", Role.CURATOR)
    [dispute] = api.get("/disputes", headers=carol.headers).json()["disputes"]
    response = api.post(
        f"/disputes/{dispute['id']}/resolve", headers=carol.headers,
        json={"resolution": "keep_old"},
    )  # fmt: skip
    assert response.status_code == 200
    with tenant_context(carol.agent.tenant_id):
        assert Lesson.objects.get(id=new.lesson_id).status == LessonStatus.RETIRED
        assert Lesson.objects.get(id=old.lesson_id).status == LessonStatus.ACTIVE
    # A second dispute, kept both.
    dave = make_caller("acme", "dave")
    third = learn_now(dave, "The nightly export job runs at 04:00 UTC.")
    assert third.outcome == Outcome.DISPUTED
    [second] = api.get("/disputes", headers=carol.headers).json()["disputes"]
    api.post(
        f"/disputes/{second['id']}/resolve", headers=carol.headers,
        json={"resolution": "keep_both"},
    ).raise_for_status()  # fmt: skip
    with tenant_context(carol.agent.tenant_id):
        assert Lesson.objects.get(id=third.lesson_id).status == LessonStatus.ACTIVE
        assert Lesson.objects.get(id=old.lesson_id).status == LessonStatus.ACTIVE
        assert Scope.objects.get(kind="lesson").active_count == 2
        assert Dispute.objects.filter(status=DisputeStatus.RESOLVED).count() == 2


def test_only_curators_see_and_resolve_disputes_and_other_tenants_get_404(api):
    _disputed_pair()
    bob = make_caller("acme", "bob")
    reader = make_caller("acme", "rita", Role.READER)
    outsider = make_caller("globex", "olga", Role.CURATOR)
    carol = make_caller("acme", "carol", Role.CURATOR)
    [dispute] = api.get("/disputes", headers=carol.headers).json()["disputes"]
    url = f"/disputes/{dispute['id']}/resolve"
    for caller in (bob, reader):
        assert api.get("/disputes", headers=caller.headers).status_code == 403
        refused = api.post(url, headers=caller.headers, json={"resolution": "keep_old"})
        assert refused.status_code == 403
    assert api.get("/disputes", headers=outsider.headers).json()["disputes"] == []
    hidden = api.post(url, headers=outsider.headers, json={"resolution": "keep_old"})
    assert hidden.status_code == 404
    bad = api.post(url, headers=carol.headers, json={"resolution": "merge"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_choice"
    unknown = api.post(url, headers=carol.headers, json={"resolution": "keep_old", "x": 1})
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "unknown_field"
    assert api.get("/disputes?status=bogus", headers=carol.headers).status_code == 400
    with tenant_context(carol.agent.tenant_id):
        assert Dispute.objects.get().status == DisputeStatus.OPEN  # nothing half-written


def test_a_disputed_lesson_taken_out_of_use_withdraws_its_dispute(api):
    _, new = _disputed_pair()
    bob = make_caller("acme", "bob")
    carol = make_caller("acme", "carol", Role.CURATOR)
    [dispute] = api.get("/disputes", headers=carol.headers).json()["disputes"]
    assert api.delete(f"/lessons/{new.lesson_id}", headers=bob.headers).status_code == 204
    assert api.get("/disputes", headers=carol.headers).json()["disputes"] == []
    [closed] = api.get("/disputes?status=resolved", headers=carol.headers).json()["disputes"]
    assert closed["id"] == dispute["id"] and closed["resolution"] == "withdrawn"
    refused = api.post(
        f"/disputes/{dispute['id']}/resolve", headers=carol.headers,
        json={"resolution": "withdrawn"},
    )  # fmt: skip
    assert refused.status_code == 400


def test_accepting_the_new_lesson_when_the_old_one_left_use_is_refused(api):
    old, new = _disputed_pair()
    carol = make_caller("acme", "carol", Role.CURATOR)
    [dispute] = api.get("/disputes", headers=carol.headers).json()["disputes"]
    api.post(f"/lessons/{old.lesson_id}/retire", headers=carol.headers, json={}).raise_for_status()
    refused = api.post(
        f"/disputes/{dispute['id']}/resolve", headers=carol.headers,
        json={"resolution": "accept_new"},
    )  # fmt: skip
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "lesson_not_active"
    api.post(
        f"/disputes/{dispute['id']}/resolve", headers=carol.headers,
        json={"resolution": "keep_both"},
    ).raise_for_status()  # fmt: skip
    with tenant_context(carol.agent.tenant_id):
        assert Lesson.objects.get(id=new.lesson_id).status == LessonStatus.ACTIVE
