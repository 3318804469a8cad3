"""``python manage.py evals [--tier offline|live] [--no-record] [--sample N]`` — the
evaluation harness (evals/run.py): prints the reports, records the run,
exits 1 if a metric falls on the wrong side of evals/baseline.json."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "Run the evaluation harness (classification, retrieval, red team)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tier", choices=["offline", "live"], default="offline")
        parser.add_argument("--no-record", action="store_true", help="do not store the run")
        parser.add_argument("--region", help="the region to evaluate in (default: the first)")
        parser.add_argument(
            "--sample", type=int, metavar="N",
            help="live tier: classify N golden cases, evenly spread over the set, not all "
            "(a live judge bills each call); the other sets are whole",
        )  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        from evals.run import below_baseline, record, run
        from regions.routing import in_region, region_names

        tier = options["tier"]
        if tier == "live" and settings.TRIBUTARY_JUDGE == "offline":
            raise CommandError("the live tier needs TRIBUTARY_JUDGE=openai or anthropic")
        sample = options["sample"]
        if sample is not None and (tier != "live" or sample < 1):
            # the offline tier is the CI gate: always the whole set
            raise CommandError("--sample takes a positive number, and only with --tier live")
        with in_region(options["region"] or region_names()[0]):
            result = run(tier=tier, sample=sample)
        for report in result.reports:
            self.stdout.write(report + "\n")
        self.stdout.write(f"judge: {result.judge}; metrics: {result.metrics}")
        if not options["no_record"]:
            stored = record(result, tier=tier)
            self.stdout.write(f"recorded as run {stored.id} (commit {stored.commit or 'unknown'})")
        failures = below_baseline(result.metrics)
        if failures:
            raise CommandError("below the baseline:\n" + "\n".join(failures))
        self.stdout.write(self.style.SUCCESS("every metric holds its baseline"))
