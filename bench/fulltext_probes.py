"""The full-text benchmark's probes: feasibility of a BM25 index under
row-level security, rollback, speed runs and the write phase (see
``fulltext_bench.py``)."""

from __future__ import annotations

import argparse
import contextlib
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fulltext_legs import (
    INDEX,
    INSERT_SQL,
    TERM_TRIGGER,
    Leg,
    bm25_exact,
    bm25_leg,
    explain_bm25,
    new_tenant,
    term_leg,
    total_docs,
)

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
