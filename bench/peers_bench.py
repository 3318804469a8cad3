"""Peers benchmark: Tributary's search and hybrid recall against bare
pgvector and LangGraph's PostgresStore, on one corpus, interleaved query by
query.

    make bench-deps   # LangGraph's PostgresStore (langgraph-checkpoint-postgres)
    .venv/bin/python bench/peers_bench.py [--lessons 100000] [--tenants 100] \
        [--small 20] [--base 3000] [--queries 100] [--load import|copy] [--keep]

In a private temporary stack (one PostgreSQL server for everyone):

- **Tributary**: ``--tenants`` tenants of Zipf-like sizes sharing
  ``--lessons`` lessons, plus ``--small`` tenants of 10–99 (the corpus of
  ``bench/_corpus.py``), loaded through ``manage.py import_lessons --trust``
  with their vectors (``--load copy``: COPYed into the lesson table alone,
  for a million); the beat task's sync builds
  the HNSW index of each tenant past the exact-search threshold (measured
  here first, as the index sync does, unless ``TRIBUTARY_EXACT_SEARCH_MAX``
  fixes it).
  *search* is ``nearest_lessons`` in ``tenant_reads`` (the tenant's scope
  and the search plan included; each round trip a read-only implicit
  transaction, as the MCP server's reads run), *search, transaction* the
  same in ``tenant_context`` (``BEGIN`` … ``COMMIT``), *hybrid* the whole
  ``lesson_recall`` with its query embedding cached (vector and full-text
  legs, fusion, provenance, loading), in ``tenant_reads``.
- **bare pgvector**, in a database of its own: one table ``(id, tenant,
  content, embedding vector(384))``, a B-tree on the tenant and one HNSW
  index (m 16, ef_construction 64) over every tenant, searched three ways on
  three connections: *relaxed* (iterative scan ``relaxed_order``,
  ef_search 40), *plain* (no iterative scan: what a filter does to HNSW),
  *exact* (the B-tree, every distance).
- **LangGraph PostgresStore** 3.x, in a database of its own, its
  ``index={"dims": 384, ...}`` (one HNSW over every namespace), a namespace
  per tenant; ``store.search((tenant,), query=..., limit=10)`` with an embed
  function that returns the prepared vector (so the model is not timed).
- **End to end** (unless ``--no-end-to-end``): a new question each time,
  Tributary's ``POST /api/v1/recall`` over HTTP against the store searched
  in process embedding with sentence-transformers on PyTorch (its usual
  embedding for this model) and with Tributary's own model call.

Each query picks a tenant of its size band, takes a noisy copy of a base
sentence's vector, and runs every system in a shuffled order. recall@10 is
against numpy's exact top 10 over the tenant's float32 vectors; *short*
counts answers with fewer than 10 results where 10 exist. Ratios are each
system's p50 over bare pgvector relaxed's, per band.
"""

from __future__ import annotations

import argparse
import random
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _corpus import (
    Corpus,
    Tenant,
    add_load_argument,
    build_corpus,
    exact_top,
    load_into_tributary,
    tenant_sizes,
)
from _corpus import vector_text as literal
from _stack import machine, percentile, run_in_stack, web_process

BANDS = [(0, 100, "<100"), (100, 1000, "100-999"), (1000, 5000, "1k-4,999"),
         (5000, 10_000, "5k-9,999"), (10_000, 10**9, ">=10k")]  # fmt: skip
SYSTEMS = ["tributary search", "tributary search, transaction", "tributary exact",
           "tributary own HNSW", "tributary hybrid",
           "pgvector relaxed", "pgvector plain", "pgvector exact", "langgraph store"]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lessons", type=int, default=100_000)
    parser.add_argument("--tenants", type=int, default=100)
    parser.add_argument("--small", type=int, default=20, help="extra tenants of 10-99 lessons")
    parser.add_argument("--base", type=int, default=3000)
    parser.add_argument("--queries", type=int, default=100, help="per size band")
    parser.add_argument(
        "--index-from", type=int, default=500,
        help="build a tenant HNSW index from this size (to time both paths per query)",
    )  # fmt: skip
    add_load_argument(parser)
    parser.add_argument("--no-langgraph", action="store_true", help="leave LangGraph's store out")
    parser.add_argument("--no-end-to-end", action="store_true", help="no API round")
    parser.add_argument("--keep", action="store_true", help="keep the data dir")
    run_in_stack("trib-bench-peers-", parser.parse_args(), run)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    from django.conf import settings

    print(f"machine: {machine()}")
    rng = random.Random(11)
    sizes = {f"t{i:03d}": size for i, size in enumerate(tenant_sizes(args.lessons, args.tenants))}
    sizes.update({f"s{i:03d}": rng.randint(10, 99) for i in range(args.small)})
    corpus = build_corpus(sizes, args.base)
    total = sum(sizes.values())
    elapsed = load_into_tributary(data_dir, corpus, args.load)
    how = "imported (import_lessons --trust)" if args.load == "import" else "COPYed"
    print(f"tributary: {total} lessons in {len(sizes)} tenants {how} in {elapsed:.0f} s, "
          f"{total / elapsed:.0f} lessons/s")  # fmt: skip
    # Every tenant from --index-from lessons gets its own index, so both of
    # Tributary's paths can be timed on the same query; "tributary search"
    # still chooses by TRIBUTARY_EXACT_SEARCH_MAX, as the service does.
    threshold = settings.TRIBUTARY_EXACT_SEARCH_MAX
    settings.TRIBUTARY_EXACT_SEARCH_MAX = args.index_from
    build_while_serving(corpus, rng)
    settings.TRIBUTARY_EXACT_SEARCH_MAX = threshold
    calibrate(corpus)
    sizes_report(data_dir, corpus)
    bare = BarePgvector(data_dir, corpus)
    store = None if args.no_langgraph else LangGraphStore(data_dir, corpus)
    measure(corpus, bare, store, args.queries, rng, args.index_from)
    if store is not None and not args.no_end_to_end:
        end_to_end(corpus, store, args.queries, rng)


def calibrate(corpus: Corpus) -> None:
    """With ``TRIBUTARY_EXACT_SEARCH_MAX=auto`` (the default), what the
    index sync does on a service: time exact search against the tenants'
    own indexes here and record the crossover "tributary search" then
    obeys (memory/search_cost.py)."""
    from memory import hnsw, search_cost

    if search_cost.fixed_exact_max() is None:
        valid = hnsw.tenant_indexes()
        sizes = {t.id: t.size for t in corpus.tenants}
        indexed = {t.id for t in corpus.tenants if valid.get(hnsw.index_name(t.id))}
        samples, found = search_cost.calibrate(sizes, indexed)
        for sample in samples:
            index = f", own index {sample.hnsw_ms:.3f} ms" if sample.hnsw_ms is not None else ""
            print(f"  timed {sample.lessons:>6} lessons: exact {sample.exact_ms:.3f} ms{index}")
        if found is not None:
            print(f"measured: exact {found.exact_fixed_ms:.3f} ms + "
                  f"{found.exact_per_1000_ms:.3f} ms per 1,000 lessons, own index "
                  f"{found.hnsw_ms:.3f} ms")  # fmt: skip
    print(f"the service searches exactly up to {search_cost.exact_search_max()} lessons")


def build_while_serving(corpus: Corpus, rng: random.Random) -> None:
    """The beat task's sync builds the tenant indexes (CREATE INDEX
    CONCURRENTLY), one at a time and timed, in a thread, while this thread
    keeps recalling from random tenants — those being indexed included —
    and checks every answer against the truth."""
    import threading

    from django.db import connections

    from accounts.tenancy import tenant_context
    from memory import hnsw, selectors

    builds: list[tuple[str, float]] = []

    def sync() -> None:
        try:
            while True:
                started = time.perf_counter()
                report = hnsw.search_indexes_sync(max_builds=1)
                if not report.built:
                    return
                builds.append((report.built[0], time.perf_counter() - started))
        finally:
            connections.close_all()

    builder = threading.Thread(target=sync)
    started = time.perf_counter()
    builder.start()
    served: list[float] = []
    wrong = short = 0
    while builder.is_alive():
        tenant = rng.choice(corpus.tenants)
        _, vector = corpus.query(rng)
        begun = time.perf_counter()
        with tenant_context(tenant.id):
            found = selectors.nearest_lessons(
                tenant_id=tenant.id, kinds=["lesson"], vector=vector, limit=10
            )
        served.append((time.perf_counter() - begun) * 1000)
        truth = set(exact_top(tenant, vector))
        wrong += len(truth - {i for i, _ in found}) > 1
        short += len(found) < min(10, tenant.size)
    builder.join()
    size_of = {hnsw.index_name(t.id): t.size for t in corpus.tenants}
    built = sorted(builds, key=lambda b: -size_of[b[0]])
    print(
        f"tributary: {len(built)} tenant HNSW index(es) in "
        f"{time.perf_counter() - started:.0f} s"
        + (
            f"; the largest ({size_of[built[0][0]]} lessons) in {built[0][1]:.1f} s, "
            f"the smallest ({size_of[built[-1][0]]}) in {built[-1][1]:.2f} s"
            if built
            else ""
        )
    )
    if served:
        print(f"  recall meanwhile: {len(served)} searches of random tenants, p50 "
              f"{percentile(served, 50):.1f} ms, p95 {percentile(served, 95):.1f} ms, "
              f"short {short}, more than one of the true top 10 missing {wrong}")  # fmt: skip


def sizes_report(data_dir: Path, corpus: Corpus) -> None:
    """Disk per million lessons, and how much of it the HNSW indexes are
    (what has to stay in memory for fast search)."""
    import psycopg

    from config.embedded import APP_DATABASE, EmbeddedPostgres

    total = sum(t.size for t in corpus.tenants)
    with psycopg.connect(EmbeddedPostgres(data_dir).dsn(dbname=APP_DATABASE)) as conn:
        lesson, terms, graphs = conn.execute(
            "SELECT pg_total_relation_size('memory_lesson'), "
            "pg_total_relation_size('memory_lessonterm'), "
            "(SELECT coalesce(sum(pg_relation_size(indexrelid)), 0) FROM pg_index i "
            " JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'lesson_hnsw_%')"
        ).fetchone()  # type: ignore[misc]
    per = 1_000_000 / total / 2**30
    lesson, terms, graphs = int(lesson), int(terms), int(graphs)
    print(f"disk per million lessons: lessons with their indexes {lesson * per:.2f} GiB "
          f"(of which the tenants' HNSW graphs {graphs * per:.2f} GiB), "
          f"full-text terms {terms * per:.2f} GiB")  # fmt: skip


class BarePgvector:
    """What a user builds in an afternoon: one table, one HNSW index."""

    def __init__(self, data_dir: Path, corpus: Corpus) -> None:
        import psycopg

        from config.embedded import EmbeddedPostgres

        pg = EmbeddedPostgres(data_dir)
        with psycopg.connect(pg.dsn(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE peers_pgvector")
        dsn = pg.dsn(dbname="peers_pgvector")
        started = time.perf_counter()
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE TABLE items (id uuid PRIMARY KEY, tenant text NOT NULL, "
                         "content text NOT NULL, embedding vector(384) NOT NULL)")  # fmt: skip
            with conn.cursor() as cursor, cursor.copy("COPY items FROM STDIN") as copy:
                for t in corpus.tenants:
                    for row in zip(t.ids, t.contents, t.vectors, strict=True):
                        copy.write_row((row[0], t.slug, row[1], literal(row[2])))
            loaded = time.perf_counter() - started
            conn.execute("CREATE INDEX ON items (tenant)")
            conn.execute("SET maintenance_work_mem = '4GB'")
            conn.execute("CREATE INDEX ON items USING hnsw (embedding vector_cosine_ops) "
                         "WITH (m = 16, ef_construction = 64)")  # fmt: skip
            conn.execute("ANALYZE items")
            size = conn.execute("SELECT pg_total_relation_size('items')").fetchone()[0]  # type: ignore[index]
        print(f"bare pgvector: loaded in {loaded:.0f} s, indexed in "
              f"{time.perf_counter() - started - loaded:.0f} s; "
              f"{size * 1_000_000 / sum(t.size for t in corpus.tenants) / 2**30:.2f} GiB "
              "per million with its indexes")  # fmt: skip
        self.ways = {}
        for way, setting in (("relaxed", "relaxed_order"), ("plain", "off"), ("exact", "off")):
            conn = psycopg.connect(dsn, autocommit=True)
            conn.execute(f"SET hnsw.iterative_scan = {setting}")
            conn.execute("SET hnsw.ef_search = 40")
            self.ways[way] = conn
        self.sql = "SELECT id FROM items WHERE tenant = %s ORDER BY {} LIMIT 10"
        self.distance = "embedding <=> %s::vector"

    def search(self, way: str, tenant: Tenant, vector: list[float]) -> list[Any]:
        # "+ 0" keeps the planner off the HNSW index: every distance, exactly.
        order = f"({self.distance}) + 0" if way == "exact" else self.distance
        sql = self.sql.format(order)
        return [r[0] for r in self.ways[way].execute(sql, (tenant.slug, literal(vector)))]


class LangGraphStore:
    """LangGraph's PostgresStore with its vector index, a namespace per tenant."""

    def __init__(self, data_dir: Path, corpus: Corpus) -> None:
        import psycopg
        from langgraph.store.base import PutOp
        from langgraph.store.postgres import PostgresStore
        from psycopg.rows import dict_row

        from config.embedded import EmbeddedPostgres

        pg = EmbeddedPostgres(data_dir)
        with psycopg.connect(pg.dsn(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE peers_langgraph")
        with psycopg.connect(pg.dsn(dbname="peers_langgraph"), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        self.vectors: dict[str, list[float]] = {}  # text → the vector its embed call returns
        # End to end: a model embeds each query instead (an EmbeddingProvider)
        self.model: Any = None
        self.conn = psycopg.connect(
            pg.dsn(dbname="peers_langgraph"), autocommit=True, prepare_threshold=0,
            row_factory=dict_row,
        )  # fmt: skip
        index = {"dims": 384, "embed": self._embed, "fields": ["content"]}
        self.store = PostgresStore(self.conn, index=index)  # type: ignore[arg-type]
        self.store.setup()
        started = time.perf_counter()
        for t in corpus.tenants:
            self.vectors = {c: v.tolist() for c, v in zip(t.contents, t.vectors, strict=True)}
            ops = [
                PutOp(namespace=(t.slug,), key=str(i), value={"content": c})
                for i, c in zip(t.ids, t.contents, strict=True)
            ]
            for chunk in range(0, len(ops), 500):
                self.store.batch(ops[chunk : chunk + 500])
        self.conn.execute("ANALYZE")
        print(f"langgraph store: loaded and indexed in {time.perf_counter() - started:.0f} s")

    def _embed(self, texts: list[str]) -> list[list[float]]:
        if self.model is not None:
            return self.model.encode(texts)  # type: ignore[no-any-return]
        return [self.vectors[text] for text in texts]

    def search(self, tenant: Tenant, text: str, vector: list[float]) -> list[Any]:
        self.vectors = {text: vector}
        return [uuid.UUID(item.key) for item in self.store.search((tenant.slug,), query=text,
                                                                  limit=10)]  # fmt: skip


def measure(
    corpus: Corpus,
    bare: BarePgvector,
    store: LangGraphStore | None,
    queries: int,
    rng: random.Random,
    index_from: int,
) -> None:
    from accounts.tenancy import tenant_context, tenant_reads
    from memory import selectors
    from memory.embeddings import _cached_query

    def tributary_search(
        tenant: Tenant, text: str, vector: list[float], *, scope: Any = tenant_reads
    ) -> list[Any]:
        with scope(tenant.id):
            found = selectors.nearest_lessons(
                tenant_id=tenant.id, kinds=["lesson"], vector=vector, limit=10
            )
        return [i for i, _ in found]

    def tributary_exact(tenant: Tenant, text: str, vector: list[float]) -> list[Any]:
        with tenant_reads(tenant.id):
            found = selectors._exact_neighbours(tenant.id, ["lesson"], vector, 10, None)
        return [i for i, _ in found]

    def tributary_hnsw(tenant: Tenant, text: str, vector: list[float]) -> list[Any]:
        with tenant_reads(tenant.id):
            found = selectors._approximate_neighbours(tenant.id, ["lesson"], vector, 10)
        return [i for i, _ in found]

    def tributary_hybrid(tenant: Tenant, text: str, vector: list[float]) -> list[Any]:
        with tenant_reads(tenant.id):
            return [h.lesson.id for h in selectors.lesson_recall(
                tenant_id=tenant.id, query=text, k=10)]  # fmt: skip

    run: dict[str, Callable[[Tenant, str, list[float]], list[Any]]] = {
        "tributary search": tributary_search,
        "tributary search, transaction": partial(tributary_search, scope=tenant_context),
        "tributary exact": tributary_exact,
        "tributary own HNSW": tributary_hnsw,
        "tributary hybrid": tributary_hybrid,
        "pgvector relaxed": lambda t, _, v: bare.search("relaxed", t, v),
        "pgvector plain": lambda t, _, v: bare.search("plain", t, v),
        "pgvector exact": lambda t, _, v: bare.search("exact", t, v),
    }
    if store is not None:
        run["langgraph store"] = store.search
    for low, high, band in BANDS:
        tenants = [t for t in corpus.tenants if low <= t.size < high]
        if not tenants:
            continue
        times: dict[str, list[float]] = defaultdict(list)
        recalls: dict[str, list[float]] = defaultdict(list)
        shorts: dict[str, int] = defaultdict(int)
        for n in range(queries + 5):
            tenant = rng.choice(tenants)
            text, vector = corpus.query(rng)
            text = f"{text} (question {n})"
            _cached_query(text)  # hybrid's embedding, outside the timing
            truth = set(exact_top(tenant, vector))
            order = [
                s for s in SYSTEMS
                if s in run and (s != "tributary own HNSW" or tenant.size >= index_from)
            ]  # fmt: skip
            rng.shuffle(order)
            for system in order:
                started = time.perf_counter()
                found = run[system](tenant, text, vector)
                elapsed = (time.perf_counter() - started) * 1000
                if n < 5:
                    continue  # warm-up
                times[system].append(elapsed)
                shorts[system] += len(found) < min(10, tenant.size)
                if system != "tributary hybrid":  # fusion ranks differently by design
                    recalls[system].append(len(truth & set(found)) / len(truth))
        sizes = sorted(t.size for t in tenants)
        print(f"\nband {band}: {len(tenants)} tenants ({sizes[0]}-{sizes[-1]} lessons), "
              f"{queries} queries")  # fmt: skip
        base = percentile(times["pgvector relaxed"], 50)
        for system in [s for s in SYSTEMS if times[s]]:
            p50 = percentile(times[system], 50)
            recall = (f"{sum(recalls[system]) / len(recalls[system]):.3f}"
                      if recalls[system] else "  -  ")  # fmt: skip
            p95 = percentile(times[system], 95)
            print(f"  {system:<29} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms  recall@10 {recall}"
                  f"  short {shorts[system]:3d}  x{p50 / base:4.2f}")  # fmt: skip
        hybrid = percentile(times["tributary hybrid"], 50)
        print(
            f"  hybrid / its own search: x{hybrid / percentile(times['tributary search'], 50):.2f}"
        )


def end_to_end(corpus: Corpus, store: LangGraphStore, queries: int, rng: random.Random) -> None:
    """A new question each time: Tributary's recall API over HTTP (a web
    process: key check, embedding, hybrid recall, serialization,
    bookkeeping) against LangGraph's store searched in this process with
    its own embedding — sentence-transformers on PyTorch, what a LangGraph
    user configures for this model — and, for the record, with the same
    ONNX Runtime model call Tributary makes. One model thread each.
    Interleaved, in a shuffled order, on a tenant of each size band."""
    import httpx

    from accounts.models import Agent
    from accounts.services import api_key_issue
    from accounts.tenancy import cross_tenant
    from memory.embeddings import default_model_path, get_provider, load_provider

    picks = []
    for low, high, band in BANDS:
        tenants = [t for t in corpus.tenants if low <= t.size < high]
        if tenants:
            picks.append((band, tenants[len(tenants) // 2]))
    with cross_tenant(reason="benchmark keys"):
        keys = {
            t.slug: api_key_issue(agent=Agent.objects.get(id=t.agent_id)).plaintext
            for _, t in picks
        }
    peers = {"langgraph store": load_provider(default_model_path(), "torch")}
    if get_provider().runtime != "torch":
        peers[f"langgraph store, {get_provider().runtime}"] = get_provider()
    print("\nend to end, embedding included (new question each time; the store embeds with "
          "sentence-transformers on PyTorch, and with Tributary's own model call):")  # fmt: skip
    with web_process() as base, httpx.Client(base_url=base, timeout=30) as client:
        for band, tenant in picks:
            times: dict[str, list[float]] = defaultdict(list)
            for n in range(queries + 5):
                text = f"{corpus.query(rng)[0]} (asked {n} of {tenant.slug})"
                order = ["tributary API", *peers]
                rng.shuffle(order)
                for system in order:
                    started = time.perf_counter()
                    if system == "tributary API":
                        response = client.post(
                            "/api/v1/recall", json={"query": text, "k": 10},
                            headers={"Authorization": f"Bearer {keys[tenant.slug]}"},
                        )  # fmt: skip
                        assert response.status_code == 200, response.text
                    else:
                        store.model = peers[system]
                        store.search(tenant, f"{text} ({system})", [])  # its own embed call
                    if n >= 5:
                        times[system].append((time.perf_counter() - started) * 1000)
            api = percentile(times["tributary API"], 50)
            line = f"  {band:<9} ({tenant.size} lessons): tributary API p50 {api:6.1f} ms"
            for system in peers:
                peer = percentile(times[system], 50)
                line += f", {system} in process p50 {peer:6.1f} ms, x{api / peer:.2f}"
            print(line)


if __name__ == "__main__":
    main()
