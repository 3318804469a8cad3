"""``manage.py tenant_import FILE --region REGION``: write a tenant export
into a region, in one transaction, and verify every table's count. Run
again, it only verifies. A tenant the directory does not know is placed in
REGION; one placed elsewhere stays there (``tenant_move`` switches)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from regions.directory import placement_of, tenant_place
from regions.management.commands._progress import table_progress
from regions.routing import UnknownRegion, check_region, in_region, region_names
from regions.transfer import TransferError, import_tenant, read_header


class Command(BaseCommand):
    help = "Import a tenant export (tenant_export) into a region, idempotently, and verify counts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--region", default=None, help="default: the first region")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        region = options["region"] or region_names()[0]
        try:
            check_region(region)
            header = read_header(path)
            with in_region(region), table_progress(sys.stderr, header["counts"]) as progress:
                result = import_tenant(path, region, progress)
        except (TransferError, UnknownRegion, OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        slug = header["tenant"]
        placed = placement_of(slug)
        if placed is None:
            tenant_place(slug=slug, tenant_id=result.tenant_id, region=region)
        elif placed.region != region:
            self.stderr.write(
                f"note: the directory places {slug} in {placed.region}; requests go there "
                "(tenant_move switches a tenant)"
            )
        what = "imported" if result.imported else "already present;"
        self.stdout.write(
            f"{slug}: {what} {sum(result.counts.values())} rows in {region}, "
            f"{len(result.counts)} tables verify"
        )
