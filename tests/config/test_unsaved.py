"""``config.db.bulk.unsaved``: the write path's rows made without
``Model.__init__``'s generic path, the same as the constructor makes them."""

from __future__ import annotations

import uuid

import pytest
from django.db.models import signals

from config.db.bulk import unsaved
from memory.models import Event, EventKind, Kind, LearnRequest, Lesson, LessonStatus
from provenance.models import Belief, Edge, EdgeKind, Observation, SourceType

TENANT, AGENT = uuid.uuid4(), uuid.uuid4()
# Defaults that are made at each call: an id, a time.
MADE = {"id", "created_at", "updated_at"}


def _fields(obj: object) -> dict[str, object]:
    return {k: v for k, v in vars(obj).items() if k != "_state" and k not in MADE}


CASES = [
    (Lesson, {"id": uuid.uuid4(), "tenant_id": TENANT, "kind": Kind.FACT, "content": "x",
              "situation": "ops", "embedding": [0.5] * 384, "status": LessonStatus.ACTIVE,
              "confidence": 0.7, "author_id": AGENT, "pinned": False}),
    (Belief, {"tenant_id": TENANT, "agent_id": AGENT, "content": "b", "confidence": 0.4}),
    (Observation, {"tenant_id": TENANT, "agent_id": AGENT, "source_type": SourceType.DOCUMENT,
                   "content": "root", "content_hash": "h", "source_uri": "f#1"}),
    (LearnRequest, {"tenant_id": TENANT, "agent_id": AGENT, "content": "c", "kind": "lesson",
                    "idempotency_key": "k", "claims": 1}),
    (Event, {"tenant_id": TENANT, "kind": EventKind.LEARNED, "lesson_id": None,
             "data": {"judge": "offline"}}),
]  # fmt: skip


@pytest.mark.parametrize(("model", "values"), CASES, ids=[m.__name__ for m, _ in CASES])
def test_unsaved_makes_what_the_constructor_makes(model, values):
    ours, theirs = unsaved(model, **values), model(**values)
    assert type(ours) is model
    assert _fields(ours) == _fields(theirs)
    assert ours._state.adding and ours._state.db is None
    made = {name for name in MADE if vars(theirs).get(name) is not None}
    assert made and all(getattr(ours, name) is not None for name in made)
    if "id" in made and "id" not in values:
        assert ours.id != unsaved(model, **values).id  # a fresh id each time


def test_a_relation_given_by_its_object_is_kept_and_its_id_set():
    belief = Belief(tenant_id=TENANT, agent_id=AGENT, content="b", confidence=0.5)
    edge = unsaved(Edge, tenant_id=TENANT, kind=EdgeKind.SUPPORTS, belief=belief,
                   to_lesson_id=uuid.uuid4())  # fmt: skip
    assert edge.belief_id == belief.id and edge.belief is belief
    assert _fields(edge) == _fields(
        Edge(
            tenant_id=TENANT, kind=EdgeKind.SUPPORTS, belief=belief, to_lesson_id=edge.to_lesson_id
        )
    )
    with pytest.raises(ValueError, match="must be a"):  # the descriptor's own check
        unsaved(Edge, belief=Lesson())


def test_an_unknown_field_is_refused_as_the_constructor_refuses_it():
    for make in (unsaved, lambda model, **values: model(**values)):
        with pytest.raises(
            TypeError, match=r"Belief\(\) got unexpected keyword arguments: 'colour'"
        ):
            make(Belief, colour="red")


def test_with_a_listener_on_post_init_it_is_the_constructor():
    seen = []

    def listener(sender, instance, **kwargs):
        seen.append(instance)

    signals.post_init.connect(listener, sender=Belief)
    try:
        belief = unsaved(Belief, tenant_id=TENANT, agent_id=AGENT, content="b", confidence=0.5)
    finally:
        signals.post_init.disconnect(listener, sender=Belief)
    assert seen == [belief]


def test_the_time_default_follows_use_tz(settings):
    assert unsaved(Belief).created_at.tzinfo is not None
    settings.USE_TZ = False
    assert unsaved(Belief).created_at.tzinfo is None
    settings.USE_TZ = True
    assert unsaved(Belief).created_at.tzinfo is not None
