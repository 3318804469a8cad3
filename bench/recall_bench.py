"""Recall benchmark: latency and recall@10 at scale, within tenants.

    .venv/bin/python bench/recall_bench.py [--lessons 100000] [--tenants 100] \
        [--big 50000] [--base 6000] [--queries 200] [--load import|copy] [--keep]

Builds, in a private temporary stack: ``--tenants`` tenants sharing
``--lessons`` lessons with skewed (Zipf-like) sizes, plus one tenant of
``--big`` lessons, loaded through ``import_lessons --trust`` (``--load
copy``: the lessons alone, without their provenance); the service's sync gives each tenant past
``TRIBUTARY_EXACT_SEARCH_MAX`` its own HNSW index. Vectors: ``--base``
templated sentences embedded by the real model (all-MiniLM-L6-v2), each lesson a
noisy mix of two of them (so lessons cluster like real paraphrases; embedding
150k sentences one by one would take 15 minutes on 2 cores). Queries are
noisy copies of a base sentence's vector and its text.

Prints, for small tenants (< 5,000 lessons) and the big one: server-side
latency of the nearest-neighbour search the service chose (exact or HNSW
iterative scan) and of the whole hybrid recall (vector + full text + fusion +
provenance, excluding the query embedding), recall@10 against exact search,
how often an answer came back short, the same for plain HNSW without
iterative scan on the tenants that have an index, and end-to-end API
latency through a real web process (embedding included).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from _corpus import add_skewed_corpus_arguments, build_corpus, load_into_tributary, skewed_sizes
from _stack import machine, percentile, run_in_stack, web_process


def main() -> None:
    parser = argparse.ArgumentParser()
    add_skewed_corpus_arguments(parser, queries_help="timed queries per class")
    run_in_stack("trib-bench-recall-", parser.parse_args(), run)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    import numpy as np
    from django.db import connection

    from accounts.tenancy import tenant_context
    from memory import hnsw, selectors
    from memory.embeddings import _cached_query

    rng = random.Random(7)
    print(f"machine: {machine()}")
    sizes = skewed_sizes(args)
    corpus = build_corpus(
        {("big" if i == len(sizes) - 1 else f"t{i:03d}"): size for i, size in enumerate(sizes)},
        args.base,
    )
    texts, base = corpus.texts, corpus.base
    tenants = [(t.id, t.agent_id, t.size) for t in corpus.tenants]
    loaded = load_into_tributary(data_dir, corpus, args.load)
    # The large tenants' own HNSW indexes, as the beat task builds them.
    use_hnsw, why = hnsw.hnsw_wanted()
    started = time.perf_counter()
    report = hnsw.search_indexes_sync(max_builds=len(tenants))
    if use_hnsw:
        with connection.cursor() as measure:
            measure.execute(
                "SELECT coalesce(sum(pg_relation_size(to_regclass(n))), 0) / 1048576.0 "
                "FROM unnest(%s::text[]) n",
                [report.built],
            )
            index_mb = measure.fetchone()[0]  # type: ignore[index]
        built = (
            f"{len(report.built)} tenant HNSW index(es) built in "
            f"{time.perf_counter() - started:.0f} s, {index_mb:.0f} MB"
        )
    else:
        built = f"no HNSW index ({why})"
    total = sum(size for _, _, size in tenants)
    print(f"loaded {total} lessons in {len(tenants)} tenants in {loaded:.0f} s; {built}")

    small = [t for t in tenants[:-1] if t[2] < 5000]
    classes = {
        "small (<5k)": [rng.choice(small) for _ in range(args.queries)],
        f"big ({args.big // 1000}k)": [tenants[-1]] * args.queries,
    }
    print()
    header = (f"{'tenants':<12} {'path':<7} {'search p50/p95/p99 ms':<24} "
              f"{'hybrid p50/p95/p99 ms':<24} {'recall@10':>9} {'short':>6} "
              f"{'plain-HNSW r@10':>15} {'short':>6}")  # fmt: skip
    print(header)
    for label, picks in classes.items():
        search_ms, hybrid_ms, recalls, shorts, plain_recalls, plain_shorts = [], [], [], 0, [], 0
        # Three passes, so that the timed queries run back to back as a
        # service's would, not each right after a 50,000-row exact scan:
        # the exact truth and plain HNSW first, then the timed search, then
        # the timed hybrid recall.
        cases = []
        for tenant_id, _, size in picks:
            which = rng.randrange(len(texts))
            query_vector = base[which] + np.random.default_rng(which).normal(0, 0.05, 384)
            query_vector = (query_vector / np.linalg.norm(query_vector)).tolist()
            with tenant_context(tenant_id):
                exact = selectors._exact_neighbours(tenant_id, ["lesson"], query_vector, 10, None)
                plain = []
                indexed = hnsw.index_name(tenant_id) in report.built
                if indexed:  # plain HNSW, no iterative scan (docs/design.md §11)
                    with connection.cursor() as plain_cursor:
                        plain_cursor.execute("SET hnsw.iterative_scan = off")
                        plain_cursor.execute("SET hnsw.ef_search = 40")
                        plain_cursor.execute(
                            "SELECT id FROM memory_lesson WHERE tenant_id = %s "
                            "AND status = 'active' AND kind = 'lesson' "
                            "ORDER BY embedding <=> %s::halfvec LIMIT 10",
                            [tenant_id, selectors._vector_literal(query_vector)],
                        )
                        plain = [row[0] for row in plain_cursor.fetchall()]
                        plain_cursor.execute("RESET hnsw.iterative_scan; RESET hnsw.ef_search")
            truth = {lesson_id for lesson_id, _ in exact}
            if indexed:
                plain_recalls.append(len(truth & set(plain)) / max(1, len(truth)))
                plain_shorts += len(plain) < min(10, size)
            _cached_query(texts[which])
            cases.append((tenant_id, size, query_vector, texts[which], truth))
        for tenant_id, size, query_vector, _, truth in cases:
            with tenant_context(tenant_id):
                started = time.perf_counter()
                chosen = selectors.nearest_lessons(
                    tenant_id=tenant_id, kinds=["lesson"], vector=query_vector, limit=10
                )
                search_ms.append((time.perf_counter() - started) * 1000)
            recalls.append(len(truth & {i for i, _ in chosen}) / max(1, len(truth)))
            shorts += len(chosen) < min(10, size)
        for tenant_id, _, _, text, _ in cases:
            # The whole hybrid recall, its query embedding already cached:
            # server-side time without the model.
            with tenant_context(tenant_id):
                started = time.perf_counter()
                selectors.lesson_recall(tenant_id=tenant_id, query=text, k=10)
                hybrid_ms.append((time.perf_counter() - started) * 1000)
        path = "hnsw" if hnsw.index_name(picks[0][0]) in report.built else "exact"
        print(
            f"{label:<12} {path:<7} "
            f"{percentile(search_ms, 50):5.1f} / {percentile(search_ms, 95):5.1f} / "
            f"{percentile(search_ms, 99):5.1f}        "
            f"{percentile(hybrid_ms, 50):5.1f} / {percentile(hybrid_ms, 95):5.1f} / "
            f"{percentile(hybrid_ms, 99):5.1f}        "
            f"{sum(recalls) / len(recalls):9.3f} {shorts:6d} "
            + (
                f"{sum(plain_recalls) / len(plain_recalls):15.3f} {plain_shorts:6d}"
                if plain_recalls
                else f"{'n/a':>15} {'n/a':>6}"
            )
        )
    api_latency(data_dir, tenants, texts, rng, args.queries)


def api_latency(data_dir, tenants, texts, rng, queries) -> None:  # type: ignore[no-untyped-def]
    """End to end through a real web process: HTTP, auth, query embedding
    (uncached: every query text is new), search, serialization."""
    import httpx

    from accounts.models import Agent
    from accounts.services import api_key_issue
    from accounts.tenancy import cross_tenant

    keys = {}
    with cross_tenant(reason="benchmark keys"):
        for label, (_, agent_id, _) in (("small", tenants[5]), ("big", tenants[-1])):
            keys[label] = api_key_issue(agent=Agent.objects.get(id=agent_id)).plaintext
    with web_process() as base, httpx.Client(base_url=base, timeout=30) as client:
        for label, key in keys.items():
            timings = []
            for n in range(queries):
                query = f"{rng.choice(texts)} (question {n})"
                started = time.perf_counter()
                response = client.post(
                    "/api/v1/recall", json={"query": query, "k": 10},
                    headers={"Authorization": f"Bearer {key}"},
                )  # fmt: skip
                timings.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.text
            print(f"API end-to-end ({label} tenant, embedding included): p50 "
                  f"{percentile(timings, 50):.1f} ms, p95 {percentile(timings, 95):.1f} ms, "
                  f"p99 {percentile(timings, 99):.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
