"""``manage.py migrate``, over every database: the directory (``default``)
and each region's. Every database gets the whole schema; rows are placed
by ``regions.router``. ``--database ALIAS`` migrates that one only."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.commands import migrate
from django.db import DEFAULT_DB_ALIAS

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
        for spec in specs:
            if options["verbosity"]:
                self.stdout.write(f"Region {spec.name}:")
            with in_region(spec.name):
                super().handle(*args, **{**options, "database": region_alias(spec.name)})
