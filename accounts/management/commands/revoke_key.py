from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import api_key_revoke
from accounts.tenancy import cross_tenant
from config.errors import ApplicationError
from regions.directory import TenantMoving, region_of_key
from regions.routing import in_region


class Command(BaseCommand):
    help = "Revoke the API key with this prefix (or the whole key). Idempotent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("prefix", help="the key's prefix, e.g. 3f9a0c1b2d4e, or the key")

    def handle(self, *args: Any, **options: Any) -> None:
        raw = options["prefix"]
        key_text = raw if raw.startswith("trib_") else f"trib_{raw}_"
        try:
            # The key lives in its tenant's region; the directory knows which.
            with in_region(region_of_key(key_text)), cross_tenant(reason="revoke_key"):
                key = api_key_revoke(prefix=raw)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        except TenantMoving as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"revoked trib_{key.prefix}_… at {key.revoked_at:%Y-%m-%d %H:%M:%S %Z}")
