"""``python manage.py search_indexes [--list] [--calibrate]``: build and drop
the large tenants' HNSW indexes now (what the beat task does), or list them;
``--calibrate`` measures the exact-search threshold first, whether or not it
is due (``memory.search_cost``), and prints what it timed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from memory import search_cost
from memory.hnsw import hnsw_wanted, search_indexes_sync, tenant_indexes
from memory.models import SearchCalibration
from regions.routing import each_region, multi_region


class Command(BaseCommand):
    help = (
        "Build the HNSW index of every tenant past the exact-search threshold and drop those "
        "no longer needed; --list only shows them; --calibrate measures the threshold first."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--list", action="store_true", help="list the indexes; change nothing")
        parser.add_argument("--max-builds", type=int, default=None, help="build at most this many")
        parser.add_argument(
            "--calibrate",
            action="store_true",
            help="measure exact search against the tenants' indexes now, whether or not it is due",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for region in each_region():
            if multi_region():
                self.stdout.write(f"region {region}:")
            self._region(options)

    def _region(self, options: dict[str, Any]) -> None:
        if options["list"] and options["calibrate"]:
            raise CommandError("--list changes nothing; --calibrate measures: choose one")
        if not options["list"]:
            calibrate = True if options["calibrate"] else None
            self.stdout.write(
                str(search_indexes_sync(max_builds=options["max_builds"], calibrate=calibrate))
            )
        wanted, why = hnsw_wanted()
        self.stdout.write(f"HNSW {'on' if wanted else 'off'}: {why}")
        self._threshold()
        indexes = tenant_indexes()
        with connection.cursor() as cursor:
            for name, valid in sorted(indexes.items()):
                cursor.execute("SELECT pg_relation_size(to_regclass(%s))", [name])
                size = cursor.fetchone()[0]  # type: ignore[index]
                state = "valid" if valid else "INVALID (a build is running or failed)"
                self.stdout.write(f"  {name}  {size / 1048576:8.1f} MB  {state}")
        if not indexes:
            self.stdout.write("  no tenant HNSW index")

    def _threshold(self) -> None:
        """The threshold in force, and what its measurement timed."""
        newest = search_cost.in_force().first()
        latest = SearchCalibration.objects.order_by("-measured_at", "-id").first()
        fixed = search_cost.fixed_exact_max()
        if fixed is not None:
            self.stdout.write(f"exact search up to {fixed} lessons (TRIBUTARY_EXACT_SEARCH_MAX)")
        elif newest is None:
            self.stdout.write(
                f"exact search up to {search_cost.UNCALIBRATED} lessons (not measured yet)"
            )
        else:
            self.stdout.write(f"exact search up to {newest.exact_max} lessons (measured)")
        if latest is not None and latest.exact_max is None:
            self.stdout.write(
                f"  the last measurement, {latest.measured_at:%Y-%m-%d %H:%M}, gave no threshold"
                " (nothing to time, or too little to fit)"
            )
        if newest is None:
            return
        self.stdout.write(
            f"  measured {newest.measured_at:%Y-%m-%d %H:%M}: exact {newest.exact_fixed_ms:.3f} ms"
            f" + {newest.exact_per_1000_ms:.3f} ms per 1,000 lessons; index {newest.hnsw_ms:.3f} ms"
        )
        for sample in newest.samples:
            exact, index = sample["exact_ms"], sample["hnsw_ms"]
            timed = [f"exact {exact:.3f} ms"] if exact is not None else []
            timed += [f"index {index:.3f} ms"] if index is not None else []
            self.stdout.write(f"  {sample['lessons']:>8} lessons: {', '.join(timed)}")
