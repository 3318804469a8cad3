"""Provenance benchmark: independence on a deep echo chain and on a large
graph, and the retraction cascade.

    .venv/bin/python bench/provenance_bench.py [--depth 1000] [--nodes 10000] [--keep]

In a private temporary stack, one tenant:

* **deep chain** — observation → B1 → B2 → … → B<depth>, every belief
  supporting one lesson (an echo chain of ``depth`` agents): the one
  recursive query must report ``depth`` supporting beliefs and 1 root;
* **graph** — ``--nodes`` nodes: 2 % observations in families of 4, beliefs
  deriving from 1–3 earlier beliefs or observations, 5 % lessons each
  supported by 6–12 beliefs (some citing lessons);
* **cascade** — invalidating the observation under the most beliefs.

Prints the latency of ``provenance_summaries`` (p50/p95 over 30 runs) for
one lesson and for every lesson at once, and the cascade's time and repair
report size.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
import uuid
from pathlib import Path

from _stack import machine, percentile, run_in_stack


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--keep", action="store_true")
    run_in_stack("trib-bench-prov-", parser.parse_args(), run)


def timed(fn, runs: int = 30) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return percentile(samples, 50), percentile(samples, 95)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    from django.utils import timezone

    from accounts.models import Role
    from accounts.principal import AgentPrincipal
    from accounts.services import agent_ensure, tenant_ensure
    from accounts.tenancy import cross_tenant, tenant_context
    from memory.models import Lesson, LessonStatus
    from provenance.cascade import observation_invalidate
    from provenance.models import Belief, Edge, EdgeKind, Observation, SourceType
    from provenance.selectors import provenance_summaries

    print(f"machine: {machine()}")
    rng = random.Random(7)
    with cross_tenant(reason="benchmark set-up"):
        tenant = tenant_ensure(slug="prov")
        agents = [agent_ensure(tenant=tenant, name=f"a{i}", role=Role.WRITER) for i in range(20)]
        curator = agent_ensure(tenant=tenant, name="cur", role=Role.CURATOR)
    now = timezone.now()

    def observation(family: str = "") -> Observation:
        text = f"evidence {uuid.uuid4()}"
        return Observation(
            id=uuid.uuid4(), tenant=tenant, agent=agents[0], source_type=SourceType.TOOL_OUTPUT,
            content=text, content_hash=Observation.hash_content(text), source_family=family,
        )  # fmt: skip

    def belief() -> Belief:
        return Belief(
            id=uuid.uuid4(), tenant=tenant, agent=rng.choice(agents), content="b",
            confidence=rng.uniform(0.6, 0.95),
        )  # fmt: skip

    def lesson() -> Lesson:
        return Lesson(
            id=uuid.uuid4(), tenant=tenant, content="l", status=LessonStatus.ACTIVE,
            confidence=0.7, author=agents[0], activated_at=now, created_at=now,
        )  # fmt: skip

    def edge(b: Belief, kind: str, **target: object) -> Edge:
        return Edge(tenant=tenant, belief=b, kind=kind, **target)

    with tenant_context(tenant.id):
        # --- the deep echo chain
        root = observation()
        chain = [belief() for _ in range(args.depth)]
        top = lesson()
        edges = [edge(chain[0], EdgeKind.DERIVED_FROM, to_observation=root)]
        edges += [edge(b, EdgeKind.DERIVED_FROM, to_belief=p) for p, b in itertools.pairwise(chain)]
        edges += [edge(b, EdgeKind.SUPPORTS, to_lesson=top) for b in chain]
        Observation.objects.bulk_create([root])
        Belief.objects.bulk_create(chain)
        Lesson.objects.bulk_create([top])
        Edge.objects.bulk_create(edges)
    with tenant_context(tenant.id):
        [summary] = provenance_summaries([top.id]).values()
        p50, p95 = timed(lambda: provenance_summaries([top.id]))
    assert summary.independent_sources == 1 and summary.supporting_beliefs == args.depth
    print(f"deep chain of {args.depth}: {summary.supporting_beliefs} supporting beliefs, "
          f"{summary.agreeing_agents} agents, {summary.independent_sources} root; "
          f"summary p50 {p50:.1f} ms, p95 {p95:.1f} ms")  # fmt: skip

    # --- the graph
    n_obs = max(4, args.nodes // 50)
    n_lessons = max(2, args.nodes // 20)
    n_beliefs = args.nodes - n_obs - n_lessons
    observations = [observation(family=f"fam-{i // 4}") for i in range(n_obs)]
    beliefs = [belief() for _ in range(n_beliefs)]
    lessons = [lesson() for _ in range(n_lessons)]
    edges = []
    for i, b in enumerate(beliefs):
        for _ in range(rng.randint(1, 3)):
            if i < 20 or rng.random() < 0.3:
                edges.append(
                    edge(b, EdgeKind.DERIVED_FROM, to_observation=rng.choice(observations))
                )
            else:
                edges.append(edge(b, EdgeKind.DERIVED_FROM, to_belief=beliefs[rng.randrange(i)]))
    for n, target_lesson in enumerate(lessons):
        for b in rng.sample(beliefs, rng.randint(6, 12)):
            edges.append(edge(b, EdgeKind.SUPPORTS, to_lesson=target_lesson))
        if n and rng.random() < 0.2:  # a belief citing an earlier lesson
            citing = belief()
            beliefs.append(citing)
            edges.append(edge(citing, EdgeKind.DERIVED_FROM, to_lesson=lessons[rng.randrange(n)]))
            edges.append(edge(citing, EdgeKind.SUPPORTS, to_lesson=target_lesson))
    started = time.perf_counter()
    with tenant_context(tenant.id):
        Observation.objects.bulk_create(observations, batch_size=2000)
        Belief.objects.bulk_create(beliefs, batch_size=2000)
        Lesson.objects.bulk_create(lessons, batch_size=2000)
        Edge.objects.bulk_create(edges, batch_size=5000)
    print(f"graph: {len(observations)} observations, {len(beliefs)} beliefs, {len(lessons)} "
          f"lessons, {len(edges)} edges, "
          f"loaded in {time.perf_counter() - started:.1f} s")  # fmt: skip
    ids = [lesson.id for lesson in lessons]
    with tenant_context(tenant.id):
        one = timed(lambda: provenance_summaries([rng.choice(ids)]))
        every = timed(lambda: provenance_summaries(ids), runs=5)
        roots = [s.independent_sources for s in provenance_summaries(ids).values()]
    print(f"graph summary, one lesson: p50 {one[0]:.1f} ms, p95 {one[1]:.1f} ms; all "
          f"{len(ids)} lessons in one query: p50 {every[0]:.0f} ms; independent roots per "
          f"lesson: median {sorted(roots)[len(roots) // 2]}, max {max(roots)}")  # fmt: skip

    # --- the cascade: the observation under the most derived_from edges
    with tenant_context(tenant.id):
        counts: dict[uuid.UUID, int] = {}
        for e in edges:
            if e.to_observation_id:
                counts[e.to_observation_id] = counts.get(e.to_observation_id, 0) + 1
    target = max(counts, key=lambda k: counts[k])
    principal = AgentPrincipal(
        tenant_id=tenant.id, tenant_slug=tenant.slug, region=tenant.region,
        agent_id=curator.id, agent_name=curator.name, role=Role.CURATOR, key_id=uuid.UUID(int=0),
    )  # fmt: skip
    started = time.perf_counter()
    report = observation_invalidate(principal=principal, observation_id=target, reason="bench")
    took = time.perf_counter() - started
    print(f"cascade from one observation ({counts[target]} direct beliefs): "
          f"{len(report['beliefs_retracted'])} retracted, {len(report['beliefs_uncertain'])} "
          f"uncertain, {len(report['lessons_reevaluated'])} lessons re-evaluated, "
          f"{len(report['decisions_flagged'])} decisions flagged, "
          f"in {took * 1000:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
