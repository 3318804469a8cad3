"""``python manage.py garden [--tenant SLUG] [--step STEP …]``: one full
gardener pass now, through the same services as the beat schedule."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from curation.gardener import STEPS, garden


class Command(BaseCommand):
    help = "Run the gardener now (every step, every tenant unless narrowed) and print what it did."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", metavar="SLUG", help="only this tenant")
        parser.add_argument(
            "--step", action="append", choices=STEPS, help="only these steps (repeatable)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            results = garden(
                steps=options["step"] or STEPS, tenant_slug=options["tenant"], trigger="command"
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
