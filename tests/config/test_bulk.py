"""``config.db.bulk``: rows written by ``rows_insert`` / ``rows_update`` read
back as Django's own ``bulk_create`` / ``save`` would leave them, under the
caller's tenant, with or without prepared statements."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import numpy as np
import pytest
from django.db import IntegrityError, connection
from django.db.utils import ProgrammingError
from django.utils import timezone

from accounts.tenancy import tenant_context, tenant_transaction
from config.db.bulk import rows_insert, rows_update
from memory.models import Kind, LearnRequest, Lesson, LessonStatus, RequestStatus
from provenance.models import Belief, Edge, EdgeKind
from tests.conftest import make_caller

pytestmark = pytest.mark.django_db(transaction=True)


def _lessons(tenant_id: uuid.UUID, author_id: uuid.UUID) -> list[Lesson]:
    at = datetime(2026, 5, 1, 12, 30, tzinfo=UTC)
    rng = np.random.default_rng(3)
    return [
        Lesson(
            tenant_id=tenant_id, author_id=author_id, kind=Kind.FACT, content=f"fact {n}",
            situation="ops" if n else "", status=LessonStatus.ACTIVE,
            activated_at=at, created_at=at, confidence=0.25 * n,
            embedding=rng.standard_normal(384).astype(np.float32) if n < 2 else None,
        )
        for n in range(3)
    ]  # fmt: skip


@pytest.mark.parametrize("prepared", [True, False])
def test_rows_insert_writes_what_bulk_create_writes(settings, prepared):
    settings.TRIBUTARY_PREPARED_STATEMENTS = prepared
    alice = make_caller(f"bulk-{str(prepared).lower()}", "alice")
    tenant_id, agent_id = alice.agent.tenant_id, alice.agent.id
    ours, django = _lessons(tenant_id, agent_id), _lessons(tenant_id, agent_id)
    for lesson in django:
        lesson.id = uuid.uuid4()
    with tenant_transaction(tenant_id):
        rows_insert(ours)
        Lesson.objects.bulk_create(django)
        belief = Belief.objects.create(
            tenant_id=tenant_id, agent_id=agent_id, content="b", confidence=0.5
        )
        edges = [
            Edge(tenant_id=tenant_id, kind=EdgeKind.SUPPORTS, belief=belief, to_lesson_id=x.id)
            for x in ours
        ]  # fmt: skip
        rows_insert(edges)
    assert all(e.pk is not None and not e._state.adding for e in edges)  # auto keys read back
    fields = [f.attname for f in Lesson._meta.concrete_fields if f.attname not in ("id", "search")]
    with tenant_context(tenant_id):
        for a, b in zip(ours, django, strict=True):
            got, want = (Lesson.objects.get(id=a.id), Lesson.objects.get(id=b.id))
            for name in fields:
                x, y = getattr(got, name), getattr(want, name)
                if name == "embedding" and x is not None:
                    assert np.allclose(x, y), name
                else:
                    assert x == y, name
        assert {e.to_lesson_id for e in Edge.objects.filter(belief=belief)} == {
            lesson.id for lesson in ours
        }
        with connection.cursor() as cursor:  # the full-text column is computed as ever
            cursor.execute(
                "SELECT count(*) FROM memory_lesson WHERE id = %s AND search @@ 'fact'::tsquery",
                [ours[1].id],
            )
            assert cursor.fetchone()[0] == 1


def test_rows_update_sets_each_rows_values_by_key():
    bob = make_caller("bulk-update", "bob")
    tenant_id, agent_id = bob.agent.tenant_id, bob.agent.id
    with tenant_transaction(tenant_id):
        belief = Belief.objects.create(
            tenant_id=tenant_id, agent_id=agent_id, content="b", confidence=0.5
        )
        requests = [
            LearnRequest.objects.create(
                tenant_id=tenant_id, agent_id=agent_id, content=f"r{n}", kind=Kind.LESSON,
                confidence=0.5, belief=belief, lease_until=timezone.now(),
            )
            for n in range(3)
        ]  # fmt: skip
        rows_update(
            LearnRequest, "id", ["status", "timings", "lease_until", "attempts"],
            [(r.id, RequestStatus.APPLIED, {"apply": n}, None, n) for n, r in enumerate(requests)],
        )  # fmt: skip
    with tenant_context(tenant_id):
        got = {r.id: r for r in LearnRequest.objects.all()}
    for n, request in enumerate(requests):
        row = got[request.id]
        assert (row.status, row.timings, row.lease_until, row.attempts) == (
            "applied", {"apply": n}, None, n,
        )  # fmt: skip


def test_rows_insert_is_held_by_row_level_security_and_constraints():
    a = make_caller("bulk-a", "alice")
    b = make_caller("bulk-b", "bob")
    with (
        pytest.raises(ProgrammingError, match="row-level security"),
        tenant_transaction(a.agent.tenant_id),
    ):
        rows_insert(_lessons(b.agent.tenant_id, b.agent.id))
    # Another tenant's author, in this tenant's rows: the same-tenant key
    # refuses it at commit, as Django's error (what an import retries on).
    with (
        pytest.raises(IntegrityError, match="author_id_same_tenant"),
        tenant_transaction(a.agent.tenant_id),
    ):
        rows_insert(_lessons(a.agent.tenant_id, b.agent.id))
    with tenant_context(a.agent.tenant_id):
        assert not Lesson.objects.exists()


def test_an_apply_retried_after_a_serialization_failure_writes_its_rows_again(monkeypatch):
    """The retried attempt inserts the same plan's objects (edges with the
    auto keys of the rolled-back attempt): they get new keys, and the learn
    is applied on that claim with the failure counted."""
    import psycopg
    from django.db import OperationalError

    import memory.services.learn.apply as apply_module
    from provenance.models import Edge
    from tests.conftest import learn, process_pending

    erin = make_caller("bulk-retry", "erin")
    learn(erin, "The nightly export job runs at 02:00 UTC on the reporting replica.")
    real, calls = apply_module.lessons_move, []

    def once_serialization_failure(**kwargs):  # what a concurrent apply causes
        calls.append(1)
        if len(calls) == 1:
            error = OperationalError("could not serialize access")
            error.__cause__ = psycopg.errors.SerializationFailure("could not serialize access")
            raise error
        return real(**kwargs)

    monkeypatch.setattr(apply_module, "lessons_move", once_serialization_failure)
    assert process_pending(erin.agent.tenant_id) == 1
    assert len(calls) == 2
    with tenant_context(erin.agent.tenant_id):
        [request] = LearnRequest.objects.all()
        assert (request.status, request.serialization_failures, request.claims) == (
            RequestStatus.APPLIED, 1, 1,
        )  # fmt: skip
        assert Lesson.objects.count() == 1
        assert Edge.objects.filter(to_lesson_id=request.lesson_id).exists()


def test_rows_insert_converts_each_value_by_its_field():
    """A float column given an int, a UUID column given a str: converted
    as Django would, where psycopg refuses an array of mixed types."""
    fay = make_caller("bulk-types", "fay")
    tenant_id = fay.agent.tenant_id
    with tenant_transaction(tenant_id):
        beliefs = [
            Belief(tenant_id=tenant_id, agent_id=fay.agent.id, content="a", confidence=1),
            Belief(tenant_id=str(tenant_id), agent_id=str(fay.agent.id), content="b",
                   confidence=0.5),
        ]  # fmt: skip
        rows_insert(beliefs)
    with tenant_context(tenant_id):
        assert sorted(Belief.objects.values_list("content", "confidence")) == [
            ("a", 1.0), ("b", 0.5),
        ]  # fmt: skip
