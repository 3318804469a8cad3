"""``python manage.py mcp``: the MCP server over stdio, for a coding agent
that starts it as a subprocess. The key comes from ``TRIBUTARY_API_KEY``
(checked at start and on every call); stdout is the protocol, so logs go
to stderr."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction


class Command(BaseCommand):
    help = "Serve Tributary's MCP tools over stdio (key from TRIBUTARY_API_KEY)."

    def handle(self, *args: Any, **options: Any) -> None:
        from accounts.services import api_key_authenticate
        from config.embedded import ensure_services
        from memory.relevance import load_for_recall
        from regions.directory import TenantMoving, region_of_key
        from regions.routing import in_region
        from tribal_mcp import server

        key = os.environ.get("TRIBUTARY_API_KEY", "").strip()
        if not key:
            raise CommandError("set TRIBUTARY_API_KEY to an API key (manage.py issue_key)")
        ensure_services()
        # Verified in the key's region (the directory routes its prefix);
        # every call verifies it there again (tribal_mcp.server._authenticate).
        try:
            region = region_of_key(key)
        except TenantMoving as exc:
            raise CommandError(str(exc)) from exc
        with in_region(region), transaction.atomic():
            if api_key_authenticate(key) is None:
                raise CommandError("TRIBUTARY_API_KEY is not a valid, unrevoked key")
        load_for_recall()  # now, not on the first recall
        server.stdio_key = key
        server.mcp.run("stdio")
