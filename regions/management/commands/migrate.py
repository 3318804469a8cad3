"""``manage.py migrate``, over every database: the directory (``default``)
and each region's. Every database gets the whole schema; rows are placed
by ``regions.router``, and the directory's copies of the tenant tables are
sealed (``seal_directory``). ``--database ALIAS`` migrates that one only."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.commands import migrate
from django.db import DEFAULT_DB_ALIAS, connections

from regions.connections import DIRECTORY
from regions.layout import region_alias
from regions.routing import in_region


class Command(migrate.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        specs = settings.TRIBUTARY_REGION_SPECS
        if options["database"] != DEFAULT_DB_ALIAS or not specs:
            super().handle(*args, **options)
            return
        with in_region(None):  # unrouted: `default` is the directory
            super().handle(*args, **options)
            with connections[DIRECTORY].cursor() as cursor:
                seal_directory(cursor)
        for spec in specs:
            if options["verbosity"]:
                self.stdout.write(f"Region {spec.name}:")
            with in_region(spec.name):
                super().handle(*args, **{**options, "database": region_alias(spec.name)})


SEAL = "directory_holds_no_tenant_rows"


def seal_directory(cursor: Any) -> list[str]:
    """With regions, the directory database refuses tenant rows outright: a
    restrictive policy on each of its tenant tables that no row passes, not
    even under ``cross_tenant``. Code that reached tenant tables unrouted
    reads nothing and writes nothing there. Returns the tables sealed now."""
    cursor.execute(
        """
        SELECT c.relname FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
          AND (c.relname = 'accounts_tenant' OR EXISTS (
                SELECT 1 FROM pg_attribute a
                WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped))
          AND NOT EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = %s)
        """,
        [SEAL],
    )
    sealed = [row[0] for row in cursor.fetchall()]
    for table in sealed:
        cursor.execute(
            f'CREATE POLICY {SEAL} ON "{table}" AS RESTRICTIVE USING (false) WITH CHECK (false)'
        )
    return sealed
