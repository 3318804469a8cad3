"""Regions benchmark: one region against two, side by side, and a tenant move.

    .venv/bin/python bench/regions_bench.py [--lessons 150] [--queries 300] [--move 10000]

Starts two stacks with ``manage.py up`` in private data dirs, at once: ONE
(no TRIBUTARY_REGIONS) and TWO (``eu,us``: a directory and two region
databases, a worker pool per region). Each gets two tenants (in TWO, one
per region) and ``--lessons`` facts per tenant, learned through the API.
Then, interleaved so the machine's noise hits both alike:

* learn: rounds of 24 learns (12 per tenant, 8 threads), ONE and TWO in
  turn, each round timed from the first request to the last applied;
* recall: ``--queries`` queries over HTTP, ONE and TWO alternating query by
  query (each to a random tenant of its stack), client-side latency.

Prints p50/p95 and the ratios TWO/ONE. Then, in TWO, a tenant of
``--move`` lessons (made in the EU database from learned ones, each with a
vector of its own) moves to US with ``tenant_move``: its time, and whether
20 recall answers are identical before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _upstack import CLAIMS, SUBJECTS, Stack, fact, learn_round, post  # noqa: E402


def seed_copies(data_dir: Path, tenant: str, copies: int) -> None:
    """``copies`` variants of each of the tenant's lessons, written in the EU
    database as the superuser, each with a vector of its own."""
    sys.path.insert(0, str(ROOT))
    from config.embedded import EmbeddedPostgres

    dsn = EmbeddedPostgres(data_dir / "regions" / "eu").dsn(dbname="tributary")
    with psycopg.connect(dsn, autocommit=True) as db:
        listed = db.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = 'memory_lesson'::regclass "
            "AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum"
        )
        columns = [row[0] for row in listed]
        chosen = ", ".join({
            "id": "gen_random_uuid()",
            "content": "l.content || ' (variant ' || g || ')'",
            "embedding": "(l.embedding::vector + (SELECT array_agg((random() - 0.5) * 0.2) "
                         "FROM generate_series(1, 384) WHERE g > 0)::vector)::halfvec",
        }.get(column, f"l.{column}") for column in columns)  # fmt: skip
        db.execute(
            f"INSERT INTO memory_lesson ({', '.join(columns)}) SELECT {chosen} "
            "FROM memory_lesson l JOIN accounts_tenant t ON t.id = l.tenant_id, "
            "generate_series(1, %s) g WHERE t.slug = %s", [copies, tenant])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lessons", type=int, default=150, help="learned per tenant")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--move", type=int, default=10_000, help="lessons of the moved tenant")
    args = parser.parse_args()
    rng = random.Random(7)
    one = Stack("ONE", {})
    two = Stack("TWO", {"TRIBUTARY_REGIONS": "eu,us"})
    stacks = [one, two]
    try:
        for stack in stacks:
            stack.wait()
        one.keys = [one.key("alpha", None), one.key("beta", None)]
        two.keys = [two.key("alpha", "eu"), two.key("beta", "us")]
        print(f"machine: {os.cpu_count()} cores; both stacks up")
        texts = {s.name: [(k, fact(rng, f"{s.name}{i}", n)) for i, k in enumerate(s.keys)
                          for n in range(args.lessons)] for s in stacks}  # fmt: skip
        for stack in stacks:  # the seed, through the API
            learn_round(stack, texts[stack.name])
        rates: dict[str, list[float]] = {"ONE": [], "TWO": []}
        for r in range(args.rounds):
            for stack in stacks if r % 2 == 0 else reversed(stacks):
                batch = [(stack.keys[i % 2], fact(rng, f"r{r}{stack.name}", i)) for i in range(24)]
                rates[stack.name].append(learn_round(stack, batch))
        timings: dict[str, list[float]] = {"ONE": [], "TWO": []}
        with httpx.Client(timeout=60) as client:
            for stack in stacks:  # warm
                for key in stack.keys:
                    post(client, stack, key, "recall", {"query": "warm up", "k": 10})
            for q in range(args.queries):
                query = f"{rng.choice(SUBJECTS)} {rng.choice(['port', 'timeout', 'backups'])}"
                for stack in stacks if q % 2 == 0 else reversed(stacks):
                    key = rng.choice(stack.keys)
                    started = time.perf_counter()
                    answer = post(client, stack, key, "recall", {"query": query, "k": 10})
                    timings[stack.name].append((time.perf_counter() - started) * 1000)
                    answer.raise_for_status()
        print("\n| | one region | two regions | two / one |\n|---|---|---|---|")
        for label, p in (("recall p50, ms", 50), ("recall p95, ms", 95)):
            a = statistics.quantiles(timings["ONE"], n=100)[p - 1]
            b = statistics.quantiles(timings["TWO"], n=100)[p - 1]
            print(f"| {label} | {a:.1f} | {b:.1f} | {b / a:.2f} |")
        a, b = statistics.median(rates["ONE"]), statistics.median(rates["TWO"])
        print(f"| learn, lessons/s (median of {args.rounds} rounds of 24) | {a:.1f} | {b:.1f} "
              f"| {b / a:.2f} |")  # fmt: skip

        if args.move:
            one.stop()
            stacks = [two]
            key = two.key("mover", "eu")
            base = [(key, fact(rng, "mv", n)) for n in range(50)]
            learn_round(two, base)
            seed_copies(two.data_dir, "mover", max(0, args.move // 50 - 1))
            queries = [f"{subject} {claim.split()[0]}" for subject in SUBJECTS
                       for claim in CLAIMS[:1]]  # fmt: skip

            def answers(client: httpx.Client) -> list[list[str]]:
                found = []
                for query in queries:
                    body = post(client, two, key, "recall", {"query": query, "k": 10}).json()
                    found.append([hit["lesson"]["id"] for hit in body["results"]])
                return found

            with httpx.Client(timeout=60) as client:
                before = answers(client)
                started = time.perf_counter()
                two.manage("tenant_move", "mover", "--to", "us")
                moved = time.perf_counter() - started
                time.sleep(6)  # the web's routing cache
                after = answers(client)
            lessons = 50 * max(1, args.move // 50)
            print(f"\nmove of a {lessons}-lesson tenant eu → us: {moved:.1f} s (with the "
                  f"6 s freeze wait); {len(queries)} recall answers identical after: "
                  f"{before == after}")  # fmt: skip
    finally:
        for stack in stacks:
            stack.stop()


if __name__ == "__main__":
    main()
