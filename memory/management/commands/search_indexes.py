"""``python manage.py search_indexes [--list]``: build and drop the large
tenants' HNSW indexes now (what the beat task does), or list them."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connection

from memory.hnsw import hnsw_wanted, search_indexes_sync, tenant_indexes
from regions.routing import each_region, multi_region


class Command(BaseCommand):
    help = (
        "Build the HNSW index of every tenant past TRIBUTARY_EXACT_SEARCH_MAX active lessons "
        "and drop those no longer needed; --list only shows them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--list", action="store_true", help="list the indexes; change nothing")
        parser.add_argument("--max-builds", type=int, default=None, help="build at most this many")

    def handle(self, *args: Any, **options: Any) -> None:
        for region in each_region():
            if multi_region():
                self.stdout.write(f"region {region}:")
            self._region(options)

    def _region(self, options: dict[str, Any]) -> None:
        if not options["list"]:
            self.stdout.write(str(search_indexes_sync(max_builds=options["max_builds"])))
        wanted, why = hnsw_wanted()
        self.stdout.write(f"HNSW {'on' if wanted else 'off'}: {why}")
        indexes = tenant_indexes()
        with connection.cursor() as cursor:
            for name, valid in sorted(indexes.items()):
                cursor.execute("SELECT pg_relation_size(to_regclass(%s))", [name])
                size = cursor.fetchone()[0]  # type: ignore[index]
                state = "valid" if valid else "INVALID (a build is running or failed)"
                self.stdout.write(f"  {name}  {size / 1048576:8.1f} MB  {state}")
        if not indexes:
            self.stdout.write("  no tenant HNSW index")
