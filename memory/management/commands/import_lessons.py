"""``manage.py import_lessons FILE --tenant SLUG``: bulk import with a
progress bar (see ``memory.importing`` for the formats and
``memory.services.learn.imports`` for what an import writes)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from itertools import islice
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import IntegrityError
from tqdm import tqdm

from accounts.models import Tenant
from accounts.tenancy import cross_tenant
from memory.ahead import Ahead, ModelSpec, screen_and_embed_ahead
from memory.embeddings import default_model_path
from memory.importing import FORMATS, ImportRecord, Rejected, read_records
from memory.services.learn.imports import (
    ImportBatch,
    ImportCounts,
    Screener,
    StatisticsRefresh,
    import_batch_read,
    import_batch_write,
)
from regions.directory import placement_of
from regions.routing import in_region


class Command(BaseCommand):
    help = (
        "Import lessons from a file (JSON Lines, a mem0 export or a LangGraph store dump) into "
        "a tenant: screened, embedded unless a vector comes with the record, judged in batches "
        "(or trusted with --trust), with provenance. Idempotent: records imported before are "
        "skipped. Rejected records are listed on stderr; the exit status is 1 if any were."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--tenant", required=True, help="the tenant's slug (it must exist)")
        parser.add_argument("--format", choices=FORMATS, default="tributary")
        parser.add_argument(
            "--author", default="importer",
            help="the agent a record without an author is learned as (created if missing)",
        )  # fmt: skip
        parser.add_argument(
            "--trust", action="store_true",
            help="insert every record as a new lesson without judging it against the tenant's "
            "(the screen still runs): for a corpus known to hold no duplicates or contradictions",
        )  # fmt: skip
        parser.add_argument("--batch", type=int, default=500, help="records per transaction")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument(
            "--screen-processes", type=int, default=1 if (os.cpu_count() or 1) > 1 else 0,
            help="processes that screen the next batch, and embed its records that came "
            "without a vector, while one is written (0: all in this process; default 1 where "
            "there is a second core)",
        )  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
        if not 1 <= options["batch"] <= 5000:
            raise CommandError("--batch is between 1 and 5000")
        slug = options["tenant"]
        placed = placement_of(slug)
        if placed is None:
            raise CommandError(f"no tenant {slug!r} (issue_key creates one)")
        with in_region(placed.region):
            with cross_tenant(reason=f"import_lessons --tenant {slug}"):
                tenant_id = Tenant.objects.filter(slug=slug).values_list("id", flat=True).first()
            if tenant_id is None:
                raise CommandError(f"no tenant {slug!r} in region {placed.region}")
            total, rejected, elapsed = self._import(path, tenant_id, options)
        for reject in rejected[:50]:
            self.stderr.write(f"line {reject.line}: {reject.code}: {reject.message}")
        if len(rejected) > 50:
            self.stderr.write(f"… and {len(rejected) - 50} more rejected")
        outcomes = ", ".join(f"{n} {o}" for o, n in sorted(total.outcomes.items()))
        self.stdout.write(
            f"{slug}: read {total.read + len(rejected)}, imported {total.applied} "
            f"({outcomes or 'nothing new'}), already imported {total.skipped}, "
            f"rejected {len(rejected)}; embedded {total.embedded} here; "
            f"{total.read / max(elapsed, 1e-9):.0f} records/s"
        )
        if rejected:
            raise CommandError(f"{len(rejected)} record(s) rejected; the rest were imported")

    def _import(
        self, path: Path, tenant_id: Any, options: dict[str, Any]
    ) -> tuple[ImportCounts, list[Rejected], float]:
        total = ImportCounts()
        rejected: list[Rejected] = []
        records = read_records(path, options["format"])
        started = time.perf_counter()
        bar = tqdm(
            total=_lines(path), unit="rec", file=sys.stderr, disable=options["no_progress"],
            desc="import",
        )  # fmt: skip
        # One batch is screened and embedded (in a process of its own, where
        # there is a second core) while the batch before it is written.
        statistics = StatisticsRefresh()
        with bar, _screener(options["screen_processes"]) as screener:
            waiting: tuple[ImportBatch, int] | None = None
            while batch := list(islice(records, options["batch"])):
                good = [r for r in batch if isinstance(r, ImportRecord)]
                rejected += [r for r in batch if isinstance(r, Rejected)]
                read = import_batch_read(
                    tenant_id=tenant_id, records=good, default_author=options["author"],
                    screener=screener, coming=waiting[0].marks if waiting else (),
                )  # fmt: skip
                if waiting:
                    total.add(self._write(*waiting, path, options, screener, statistics, bar))
                waiting = (read, len(batch))
                bar.set_postfix(new=total.applied, known=total.skipped, bad=len(rejected))
            if waiting:
                total.add(self._write(*waiting, path, options, screener, statistics, bar))
        return total, rejected, time.perf_counter() - started

    def _write(
        self, batch: ImportBatch, lines: int, path: Path, options: dict[str, Any],
        screener: Screener | None, statistics: StatisticsRefresh, bar: tqdm[Any],
    ) -> ImportCounts:  # fmt: skip
        source = f"import:{path.name}"
        try:
            counts = import_batch_write(batch, source=source, trusted=options["trust"])
        except IntegrityError:
            # Another import of the same records wrote them first: this
            # attempt wrote nothing; read again, and skip what it wrote.
            again = import_batch_read(
                tenant_id=batch.tenant_id, records=batch.fresh,
                default_author=batch.default_author, screener=screener,
            )  # fmt: skip
            again.counts.read = batch.counts.read
            again.counts.skipped += batch.counts.skipped
            counts = import_batch_write(again, source=source, trusted=options["trust"])
        statistics.add(counts.applied)
        bar.update(lines)
        return counts


@contextmanager
def _screener(processes: int) -> Iterator[Screener | None]:
    """Screening, and the embedding of records that came without a vector,
    handed to worker processes (spawned: nothing of this process's
    connections or threads goes with them; ``memory.ahead``), or None: in
    this process, as each batch is written."""
    if processes < 1:
        yield None
        return
    model: ModelSpec = (
        default_model_path(),
        settings.TRIBUTARY_EMBEDDING_RUNTIME,
        settings.TRIBUTARY_EMBEDDING_THREADS,
    )
    with ProcessPoolExecutor(processes, mp_context=get_context("spawn")) as pool:

        def screen_soon(texts: list[tuple[str, str]], unembedded: list[bool]) -> Future[Ahead]:
            return pool.submit(screen_and_embed_ahead, texts, unembedded, model)

        yield screen_soon


def _lines(path: Path) -> int | None:
    """The bar's total: the file's lines (a JSON document's records are
    counted as they come)."""
    with path.open("rb") as stream:
        head = stream.read(1).lstrip()
        if head == b"[":
            return None
        stream.seek(0)
        return sum(1 for line in stream if line.strip())
