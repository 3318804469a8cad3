"""``manage.py tenant_move SLUG --to REGION``: move a tenant's whole memory
to another region: freeze, copy, verify, switch the directory, erase the
source (``regions.transfer.move_tenant``). Safe to rerun after any stop."""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from regions.management.commands._progress import table_progress
from regions.transfer import TransferError, move_tenant


class Command(BaseCommand):
    help = "Move a tenant to another region (copy, verify, switch, erase the source)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--to", required=True, metavar="REGION")
        parser.add_argument("--reason", default="", help="why (kept in the tenant's audit)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            with table_progress(sys.stderr) as progress:
                report = move_tenant(
                    options["slug"],
                    options["to"],
                    settings.TRIBUTARY_DATA_DIR / "moves",
                    say=lambda line: self.stderr.write(line),
                    progress=progress,
                    reason=options["reason"],
                )
        except TransferError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{report.slug} is in region {report.target}")
