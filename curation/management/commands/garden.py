"""``python manage.py garden [--tenant SLUG] [--step STEP …]``: one full
gardener pass now, through the same services as the beat schedule."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from curation.gardener import STEPS, garden
from regions.directory import placement_of
from regions.routing import in_region, multi_region, region_names


class Command(BaseCommand):
    help = "Run the gardener now (every step, every tenant unless narrowed) and print what it did."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", metavar="SLUG", help="only this tenant")
        parser.add_argument(
            "--step", action="append", choices=STEPS, help="only these steps (repeatable)"
        )
        parser.add_argument(
            "--region", action="append", help="only this region (repeatable; default: each)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        regions = options["region"] or region_names()
        if options["tenant"]:
            placed = placement_of(options["tenant"])
            if placed is None:
                raise CommandError(f"no tenant {options['tenant']!r}")
            regions = [placed.region] if multi_region() else regions
        results = []
        try:
            for region in regions:
                with in_region(region):
                    results += garden(
                        steps=options["step"] or STEPS,
                        tenant_slug=options["tenant"],
                        trigger="command",
                    )
        except LookupError as exc:
            raise CommandError(str(exc)) from exc
        failed = 0
        for result in results:
            if result.error:
                failed += 1
                self.stdout.write(f"{result.tenant:<24} {result.step:<14} FAILED {result.error}")
            else:
                counts = {k: v for k, v in result.counts.items() if k != "cursor"}
                self.stdout.write(f"{result.tenant:<24} {result.step:<14} {json.dumps(counts)}")
        if failed:
            raise CommandError(f"{failed} gardener step(s) failed")
