"""``manage.py tenant_export SLUG [-o FILE]``: the tenant's whole memory
as JSON Lines (``regions.transfer``), from the region the directory places
it in."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from regions.directory import placement_of
from regions.management.commands._progress import table_progress
from regions.routing import in_region
from regions.transfer import TransferError, export_tenant


class Command(BaseCommand):
    help = (
        "Write a tenant's whole memory (lessons with vectors, provenance, events, policies, "
        "journal) as JSON Lines."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("-o", "--output", help="file to write (default: stdout)")

    def handle(self, *args: Any, **options: Any) -> None:
        placed = placement_of(options["slug"])
        if placed is None:
            raise CommandError(f"the directory has no tenant {options['slug']!r}")
        output = options["output"]
        try:
            with in_region(placed.region), table_progress(sys.stderr) as progress:
                if output:
                    with open(Path(output), "w", encoding="utf-8") as out:
                        header = export_tenant(placed.slug, out, progress)
                else:
                    header = export_tenant(placed.slug, sys.stdout, progress)
        except TransferError as exc:
            raise CommandError(str(exc)) from exc
        total = sum(header["counts"].values())
        self.stderr.write(f"exported {placed.slug} from region {placed.region}: {total} rows")
