"""Conflict safety under real concurrency: separate processes, one
PostgreSQL, snapshot-isolated apply transactions."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from multiprocessing.pool import Pool
from typing import Any

import pytest

from accounts.tenancy import tenant_context
from memory.models import LearnRequest, Lesson, LessonStatus
from tests.conftest import database_url_for_tests, make_caller
from tests.memory import concurrent_agents

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
PROCESSES = 8


@pytest.fixture(scope="module")
def agents(django_db_setup: None) -> Iterator[tuple[Pool, Any]]:
    """One pool for the module: starting eight processes that each load
    Django and the embedding model costs more than the tests themselves."""
    # A fork server that has imported the model's runtime once (and run
    # nothing): each process forks from it instead of importing it anew,
    # and the runtime is never forked after it has started threads.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["onnxruntime", "tokenizers", "numpy"])
    # Single flight off and one request per claim: every process applies its
    # own request at the same instant, so the conflict machinery itself
    # (version check, 40001 retry, re-judging) is what is under test.
    env = {
        "DATABASE_URL": database_url_for_tests(),
        "TRIBUTARY_LEARN_BATCH": "1",
        "TRIBUTARY_LEARN_SINGLE_FLIGHT": "false",
    }
    with (
        context.Manager() as manager,
        context.Pool(PROCESSES, initializer=concurrent_agents.init, initargs=(env,)) as pool,
    ):
        yield pool, manager
        pool.close()
        pool.join()


def test_concurrent_contradictions_from_one_agent_leave_one_active_lesson(agents):
    pool, manager = agents
    for repetition in range(20):
        caller = make_caller(f"rep-{repetition}", "scheduler")
        tenant, agent = str(caller.agent.tenant_id), str(caller.agent.id)
        barrier = manager.Barrier(PROCESSES)
        jobs = [
            (tenant, agent, f"The export job runs at 0{n}:00 UTC.", barrier)
            for n in range(1, PROCESSES + 1)
        ]
        results = pool.map(concurrent_agents.learn_at_once, jobs)
        stuck = [r for r in results if r["status"] != "applied"]
        assert not stuck, stuck
        with tenant_context(caller.agent.tenant_id):
            lessons = {lesson.id: lesson for lesson in Lesson.objects.all()}
            active = [lesson for lesson in lessons.values() if lesson.status == LessonStatus.ACTIVE]
            assert len(active) == 1, (repetition, results)
            assert len(lessons) == PROCESSES, (repetition, results)
            # Every other lesson is superseded, and its chain leads to the
            # active one without a gap or a loop.
            for lesson in lessons.values():
                seen = set()
                while lesson.status == LessonStatus.SUPERSEDED:
                    assert lesson.id not in seen
                    seen.add(lesson.id)
                    lesson = lessons[lesson.superseded_by_id]
                assert lesson.id == active[0].id
            outcomes = sorted(r["outcome"] for r in results)
            assert outcomes == ["inserted"] + ["superseded"] * (PROCESSES - 1), outcomes


def test_concurrent_learns_in_different_tenants_never_fail_serialization(agents):
    pool, manager = agents
    barrier = manager.Barrier(PROCESSES)
    jobs = []
    for n in range(PROCESSES):
        caller = make_caller(f"tribe-{n}", "agent")
        contents = [
            f"Service {topic} of tribe {n} listens on port {5000 + i}."
            for i, topic in enumerate(["billing", "search", "auth", "export", "ingest"] * 5)
        ]
        jobs.append((str(caller.agent.tenant_id), str(caller.agent.id), contents, barrier))
    results = [r for batch in pool.map(concurrent_agents.learn_many, jobs) for r in batch]
    assert len(results) == 200
    assert {r["status"] for r in results} == {"applied"}
    assert sum(r["serialization_failures"] for r in results) == 0
    # And a learn's scope moving never came from another tenant either.
    assert sum(r["revalidations"] for r in results) == 0
    assert LearnRequest.objects.count() == 0  # no tenant set: RLS shows nothing
