"""A recall says when nothing in memory bears on the query: a floor per
tenant, measured with off-topic probe questions (memory/relevance.py)."""

from __future__ import annotations

import httpx
import pytest
from django.db import connection

from accounts.tenancy import tenant_context
from memory import answers, relevance, selectors
from memory.relevance import CEILING, MARGIN, floor_of, relevance_floor
from memory.selectors import recall_judged
from tests.conftest import make_caller
from tests.memory.test_recall import CORPUS, _seed

pytestmark = pytest.mark.django_db(transaction=True)

# Not among relevance.PROBES: questions the probes never saw.
UNRELATED = [
    "What is a good recipe for banana bread?",
    "Who won the Tour de France in 1998?",
    "How many legs does a spider have?",
]


def test_the_answer_says_whether_anything_relevant_was_found(live_server, settings):
    # The floor's part of the flag, on its own: the answer reader
    # (memory/answers.py, tests/memory/test_answers.py) also flags the
    # questions it reads no answer to — "which key has to be replaced every
    # quarter" of "rotate … every 90 days" among them, one of its wrong flags.
    settings.TRIBUTARY_ANSWER_READER = False
    answers.MODEL.forget()
    alice = make_caller("acme", "alice")
    _seed(alice, CORPUS)
    empty = make_caller("empty", "erin")
    with httpx.Client(base_url=f"{live_server.url}/api/v1", timeout=30) as api:

        def answer(caller, query):
            response = api.post("/recall", headers=caller.headers, json={"query": query, "k": 3})
            assert response.status_code == 200, response.text
            return response.json()

        for query in UNRELATED:
            unrelated = answer(alice, query)
            assert unrelated["nothing_relevant"] is True, query
            assert len(unrelated["results"]) == 3  # still the nearest, flagged
        for query in ["why does the deploy API answer 429", "how long are staging backups kept",
                      "which key has to be replaced every quarter"]:  # fmt: skip
            assert answer(alice, query)["nothing_relevant"] is False, query
        # A rare term of the query that a lesson holds is relevant however far the rest is.
        assert answer(alice, "E4021 banana bread")["nothing_relevant"] is False
        nothing = answer(empty, "why does the deploy API answer 429")
        assert nothing == {**nothing, "results": [], "nothing_relevant": True}


def test_the_floor_is_measured_once_then_again_when_the_tenant_grows(monkeypatch):
    alice = make_caller("acme", "alice")
    _seed(alice, CORPUS)
    tenant = alice.agent.tenant_id
    measured = []
    real = selectors.probe_similarities

    def counting(*args, **kwargs):
        measured.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(selectors, "probe_similarities", counting)
    relevance._floors.clear()
    with tenant_context(tenant):
        first = relevance_floor(tenant_id=tenant, kinds=["lesson"], size=len(CORPUS))
        again = relevance_floor(tenant_id=tenant, kinds=["lesson"], size=len(CORPUS) + 1)
        assert len(measured) == 1 and again == first
        relevance_floor(tenant_id=tenant, kinds=["lesson"], size=2 * len(CORPUS))
        assert len(measured) == 2
        # A close hit needs no floor at all.
        relevance._floors.clear()
        assert not relevance.nothing_relevant(
            tenant_id=tenant, kinds=["lesson"], size=len(CORPUS), best_similarity=CEILING,
            text_matched=False,
        )  # fmt: skip
        assert len(measured) == 2
        # Below the floor (and no rare term matched) is nothing relevant; above it is.
        judged = {
            similarity: relevance.nothing_relevant(
                tenant_id=tenant,
                kinds=["lesson"],
                size=len(CORPUS),
                best_similarity=similarity,
                text_matched=False,
            )
            for similarity in (first - 0.01, first + 0.01)
        }
        assert judged == {first - 0.01: True, first + 0.01: False}
        assert not relevance.nothing_relevant(
            tenant_id=tenant, kinds=["lesson"], size=len(CORPUS), best_similarity=0.0,
            text_matched=True,
        )  # fmt: skip
    assert 0.0 < first <= CEILING


def test_the_floor_is_the_probes_90th_percentile_plus_a_margin_never_above_the_ceiling():
    assert floor_of([]) == CEILING
    assert floor_of([0.1] * 9 + [0.5]) == pytest.approx(0.1 + 0.4 * 0.1 + MARGIN)
    assert floor_of([0.9] * 10) == CEILING


def test_as_of_an_instant_only_an_empty_answer_is_nothing_relevant():
    from django.utils import timezone

    alice = make_caller("acme", "alice")
    _seed(alice, CORPUS)
    with tenant_context(alice.agent.tenant_id):
        found = recall_judged(
            tenant_id=alice.agent.tenant_id, query=UNRELATED[0], k=3, as_of=timezone.now()
        )
        present = recall_judged(tenant_id=alice.agent.tenant_id, query=UNRELATED[0], k=3)
    assert len(found.hits) == 3 and found.nothing_relevant is False
    assert present.nothing_relevant is True


def test_a_floor_that_cannot_be_measured_never_fails_the_recall(monkeypatch, caplog, settings):
    from memory.models import Lesson

    settings.TRIBUTARY_ANSWER_READER = False  # the floor's failure, not the reader's verdict
    answers.MODEL.forget()
    alice = make_caller("acme", "alice")
    _seed(alice, CORPUS)
    relevance._floors.clear()

    def broken(*args, **kwargs):
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1/0")  # a failing statement in the transaction
        return []

    monkeypatch.setattr(selectors, "probe_similarities", broken)
    with tenant_context(alice.agent.tenant_id):
        found = recall_judged(tenant_id=alice.agent.tenant_id, query=UNRELATED[0], k=3)
        assert Lesson.objects.count() == len(CORPUS)  # the transaction goes on
    assert len(found.hits) == 3 and found.nothing_relevant is False
    assert "no relevance floor" in caplog.text


def test_threads_that_need_one_tenants_floor_at_once_measure_it_once(monkeypatch):
    import threading
    import time

    from django.db import connections

    alice = make_caller("acme", "alice")
    _seed(alice, CORPUS)
    tenant = alice.agent.tenant_id
    relevance._floors.clear()
    measured = []
    real = selectors.probe_similarities

    def slow(*args, **kwargs):
        measured.append(threading.get_ident())
        time.sleep(0.3)  # long enough for the others to arrive meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(selectors, "probe_similarities", slow)
    floors = []

    def recall_floor():
        try:
            with tenant_context(tenant):
                floors.append(relevance_floor(tenant_id=tenant, kinds=["lesson"], size=len(CORPUS)))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=recall_floor) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(measured) == 1 and len(floors) == 4 and len(set(floors)) == 1
