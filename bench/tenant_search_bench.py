"""Where a small tenant's search goes: Tributary's search against the same
statement sent bare, step by step (issue 18, item 1).

    .venv/bin/python bench/tenant_search_bench.py [--tenants 20] [--lessons 60] \
        [--searches 3000]

In a private temporary stack, ``--tenants`` tenants of ``--lessons`` lessons
each (random unit vectors); each search is a new random vector, every
variant run on it back to back in a shuffled order, p50 of each:

- ``service``: ``tenant_reads`` + ``nearest_lessons``, what the MCP
  server's reads and the peers benchmark run (the search plan remembered
  in process): each round trip a read-only implicit transaction;
- ``service in a transaction``: ``tenant_context`` + ``nearest_lessons``
  (``BEGIN`` … ``COMMIT`` around it, as a task's or a write's reads);
- ``bare``: the exact statement by the superuser on an autocommit
  connection, no row-level security (what bare pgvector pays);
- ``implicit``: the application role, the tenant's ``set_config(…, true)``
  and the statement in one pipeline with no ``BEGIN``: the implicit
  transaction that ends at the pipeline's sync takes the setting with it;
- ``one round trip``: ``BEGIN``, the setting, the statement and ``COMMIT``
  in one pipeline;
- ``two round trips``: ``BEGIN``, the setting and the statement in one
  pipeline, ``COMMIT`` after it (the service's round trips, without Django).

The service checks that every variant found the same ten lessons.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _stack import machine, run_in_stack

SQL = """
    SELECT id, distance FROM (
        SELECT id, embedding <=> %(q)s::halfvec AS distance FROM memory_lesson
        WHERE tenant_id = %(tenant)s AND kind = ANY(%(kinds)s) AND status = 'active'
          AND embedding IS NOT NULL
        OFFSET 0
    ) AS scanned
    ORDER BY distance LIMIT 10
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenants", type=int, default=20)
    parser.add_argument("--lessons", type=int, default=60)
    parser.add_argument("--searches", type=int, default=3000)
    parser.add_argument("--keep", action="store_true")
    run_in_stack("trib-bench-tenant-search-", parser.parse_args(), run)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    import numpy as np
    import psycopg
    from django.utils import timezone
    from pgvector import HalfVector
    from pgvector.psycopg import register_vector

    from accounts.services import agent_ensure, tenant_ensure
    from accounts.tenancy import cross_tenant, tenant_context, tenant_reads
    from config.embedded import APP_DATABASE, APP_ROLE, EmbeddedPostgres
    from memory.models import Lesson
    from memory.selectors import nearest_lessons

    print(f"machine: {machine()}")
    rng = np.random.default_rng(7)

    def unit(n: int) -> np.ndarray:
        v = rng.standard_normal((n, 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    with cross_tenant(reason="benchmark set-up"):
        tenants = []
        for t in range(args.tenants):
            made = tenant_ensure(slug=f"small-{t}")
            author = agent_ensure(tenant=made, name="a")
            Lesson.objects.bulk_create(
                Lesson(tenant_id=made.id, kind="lesson", content=f"lesson {i}", situation="",
                       embedding=[float(x) for x in v], status="active", confidence=0.7,
                       author_id=author.id, activated_at=timezone.now())
                for i, v in enumerate(unit(args.lessons))
            )  # fmt: skip
            tenants.append(made.id)
    pg = EmbeddedPostgres(data_dir)
    bare = psycopg.connect(pg.dsn(dbname=APP_DATABASE), autocommit=True)
    app = psycopg.connect(pg.dsn(dbname=APP_DATABASE, user=APP_ROLE), autocommit=True)
    for conn in (bare, app):
        register_vector(conn)
    setting = "SELECT set_config('app.tenant_id', %s, true)"

    def service(tenant: object, v: list, *, scope: Callable = tenant_reads) -> list:
        with scope(tenant):
            found = nearest_lessons(tenant_id=tenant, kinds=["lesson"],  # type: ignore[arg-type]
                                    vector=v, limit=10)  # fmt: skip
        return [i for i, _ in found]

    def params(tenant: object, v: np.ndarray) -> dict:
        return {"q": HalfVector(v), "tenant": tenant, "kinds": ["lesson"]}

    def bare_search(tenant: object, v: np.ndarray) -> list:
        return [r[0] for r in bare.execute(SQL, params(tenant, v)).fetchall()]

    def app_role(tenant: object, v: np.ndarray, *, begin: bool, commit: str) -> list:
        """The application role's search: with or without BEGIN, its COMMIT
        in the pipeline ("with"), after it ("after") or none (implicit)."""
        with app.pipeline():
            if begin:
                app.execute("BEGIN")
            app.execute(setting, [str(tenant)])
            cursor = app.execute(SQL, params(tenant, v))
            if commit == "with":
                app.execute("COMMIT")
        found = [r[0] for r in cursor.fetchall()]
        if commit == "after":
            app.execute("COMMIT")
        return found

    variants: dict[str, Callable[[object, Any], list]] = {
        "service": service, "bare": bare_search,
        "service in a transaction": partial(service, scope=tenant_context),
        "implicit": partial(app_role, begin=False, commit="none"),
        "one round trip": partial(app_role, begin=True, commit="with"),
        "two round trips": partial(app_role, begin=True, commit="after"),
    }  # fmt: skip
    times: dict[str, list[float]] = {name: [] for name in variants}
    order = list(variants)
    warm = min(200, args.searches // 10)
    for n in range(args.searches + warm):
        tenant, v = tenants[n % len(tenants)], unit(1)[0]
        as_list = v.tolist()  # the service takes the model's vector as a list
        random.shuffle(order)
        answers = {}
        for name in order:
            started = time.perf_counter()
            answers[name] = variants[name](tenant, as_list if name.startswith("service") else v)
            if n >= warm:
                times[name].append((time.perf_counter() - started) * 1000)
        # The same lessons (ties aside: distances equal to the last digit).
        assert all(len(a) == 10 for a in answers.values()), answers
        assert len({frozenset(a[:9]) for a in answers.values()}) == 1, answers
    base = statistics.median(times["bare"])
    print(f"{len(tenants)} tenants of {args.lessons} lessons, {args.searches} searches, p50:")
    for name, values in times.items():
        p50 = statistics.median(values)
        print(f"  {name:<24} {p50:6.3f} ms  {p50 / base:5.2f}x bare")
    bare.close()
    app.close()


if __name__ == "__main__":
    main()
