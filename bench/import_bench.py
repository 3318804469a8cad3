"""Bulk import benchmark: ``manage.py import_lessons`` records per second.

    .venv/bin/python bench/import_bench.py [--records 20000] [--judged 2000] \
        [--embedded 500] [--batch 500] [--existing 0] [--keep]

In a private temporary stack, writes JSON Lines files of ops lessons (the
recall benchmark's templated sentences; vectors as there: noisy mixes of two
real MiniLM embeddings) and imports them through the command, timing each:

- ``--records`` with vectors, ``--trust`` (no candidate read, no judge);
- the same file again (every record known: the idempotent re-run);
- ``--judged`` with vectors, judged by the offline judge against the tenant;
- ``--embedded`` without vectors (the embedding model's rate bounds it).

``--existing N`` first imports N lessons into a tenant of their own
(untimed), so that the timed imports meet tables of that size, as an
import into a service in use does. Prints records/s for each and the rows
an imported lesson writes.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from pathlib import Path

from _corpus import base_sentences, mixed_vectors
from _stack import cpu_report, cpu_snapshot, machine, run_in_stack


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--judged", type=int, default=2_000)
    parser.add_argument("--embedded", type=int, default=500)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--existing", type=int, default=0, help="lessons imported first, untimed")
    parser.add_argument("--keep", action="store_true", help="keep the data dir")
    run_in_stack("trib-bench-import-", parser.parse_args(), run)


def write_file(path: Path, texts: list[str], base, count: int, rng, *, vectors: bool) -> None:  # type: ignore[no-untyped-def]
    first, mixed = mixed_vectors(base, count, rng)
    with path.open("w") as out:
        for row in range(count):
            record: dict[str, object] = {
                "id": f"{path.stem}-{row}",
                "content": f"{texts[first[row]]} (note {row})",
                "situation": "ops",
            }
            if vectors:
                record["vector"] = [round(float(v), 5) for v in mixed[row]]
            out.write(json.dumps(record) + "\n")


def timed(label: str, path: Path, tenant: str, count: int, *extra: str) -> float:
    from io import StringIO

    from django.core.management import call_command

    if not count:
        return 0.0
    out = StringIO()
    cpu_before, children = cpu_snapshot(), resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    call_command("import_lessons", str(path), "--tenant", tenant, "--no-progress", *extra,
                 stdout=out)  # fmt: skip
    elapsed = time.perf_counter() - started
    cpu_after, reaped = cpu_snapshot(), resource.getrusage(resource.RUSAGE_CHILDREN)
    rate = count / elapsed
    print(f"{label:<44} {count:>7} records {elapsed:7.1f} s {rate:8.0f} records/s")
    print(f"    {out.getvalue().strip()}")
    # The screening process has exited by now: its CPU is this process's
    # reaped children's (and not in the snapshot's processes).
    screener = (reaped.ru_utime + reaped.ru_stime) - (children.ru_utime + children.ru_stime)
    print(f"    CPU per record: screening process {1000 * screener / count:.2f} ms")
    print(cpu_report(cpu_before, cpu_after, elapsed, count).replace("per unit", "per record"))
    return rate


def run(args: argparse.Namespace, data_dir: Path) -> None:
    from io import StringIO

    import numpy as np
    from django.core.management import call_command
    from django.db import connection

    from accounts.services import tenant_ensure
    from accounts.tenancy import cross_tenant
    from memory.embeddings import embed

    print(f"machine: {machine()}")
    texts = base_sentences(2000, random.Random(7))
    base = np.array(embed(texts), dtype=np.float32)
    with cross_tenant(reason="benchmark set-up"):
        for slug in ("existing", "trusted", "judged", "embedded"):
            tenant_ensure(slug=slug)
    rng = np.random.default_rng(7)
    files = data_dir / "files"
    files.mkdir()
    trusted, judged, plain = files / "trusted.jsonl", files / "judged.jsonl", files / "plain.jsonl"
    write_file(trusted, texts, base, args.records, rng, vectors=True)
    write_file(judged, texts, base, args.judged, rng, vectors=True)
    write_file(plain, texts, base, args.embedded, rng, vectors=False)
    batch = ("--batch", str(args.batch))
    if args.existing:
        existing = files / "existing.jsonl"
        write_file(existing, texts, base, args.existing, rng, vectors=True)
        call_command("import_lessons", str(existing), "--tenant", "existing", "--no-progress",
                     "--trust", *batch, stdout=StringIO())  # fmt: skip
        print(f"{args.existing} lessons imported first into a tenant of their own (untimed)")
    print(f"file with vectors: {trusted.stat().st_size / args.records:.0f} bytes a record")
    timed("trusted, vectors supplied", trusted, "trusted", args.records, "--trust", *batch)
    timed("the same file again (all known)", trusted, "trusted", args.records, "--trust", *batch)
    timed("judged (offline judge), vectors supplied", judged, "judged", args.judged, *batch)
    timed("judged, embedded here", plain, "embedded", args.embedded, *batch)
    with cross_tenant(reason="benchmark counts"), connection.cursor() as cursor:
        counts = {}
        for table in ("memory_lesson", "memory_learnrequest", "provenance_belief",
                      "provenance_observation", "provenance_edge", "memory_event",
                      "memory_lessonterm", "provenance_corroborationaudit"):  # fmt: skip
            cursor.execute(f"SELECT count(*) FROM {table}")
            counts[table] = cursor.fetchone()[0]
    lessons = counts["memory_lesson"]
    print("rows per imported lesson: " + ", ".join(
        f"{t.split('_', 1)[1]} {n / lessons:.1f}" for t, n in counts.items()
    ))  # fmt: skip
    sys.stdout.flush()


if __name__ == "__main__":
    main()
