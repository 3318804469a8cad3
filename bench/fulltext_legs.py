"""The full-text benchmark's parts: the legs it compares (the term table,
BM25 with and without the tenant in the query), their plans, the loading
helpers, and the quality measures (see ``fulltext_bench.py``)."""

from __future__ import annotations

import re
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
            "scan_cap": 2 * selectors.TERM_DF_CAP,
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
