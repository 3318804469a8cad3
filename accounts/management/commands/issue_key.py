from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import Role
from accounts.services import agent_ensure, api_key_issue, tenant_ensure
from accounts.tenancy import cross_tenant
from config.errors import ApplicationError
from regions.directory import placement_of
from regions.routing import UnknownRegion, in_region, region_names


class Command(BaseCommand):
    help = (
        "Create the tenant and agent if missing and issue a new API key. "
        "The key is printed alone on the last line of stdout, once."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant slug")
        parser.add_argument("--agent", required=True, help="agent name")
        parser.add_argument(
            "--role",
            choices=[r.value for r in Role],
            default=None,
            help="the agent's role (default writer for a new agent; changes an existing one)",
        )
        parser.add_argument(
            "--region",
            default=None,
            help="the region a new tenant lives in (default: the first of TRIBUTARY_REGIONS); "
            "an existing tenant stays where the directory places it",
        )
        parser.add_argument("--label", default="", help="a note about where the key is used")

    def handle(self, *args: Any, **options: Any) -> None:
        role = Role(options["role"]) if options["role"] else None
        placed = placement_of(options["tenant"])
        region = options["region"] or (placed.region if placed else region_names()[0])
        try:
            with in_region(region), cross_tenant(reason=f"issue_key --tenant {options['tenant']}"):
                tenant = tenant_ensure(slug=options["tenant"], region=options["region"])
                agent = agent_ensure(tenant=tenant, name=options["agent"], role=role)
                issued = api_key_issue(agent=agent, label=options["label"])
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        except UnknownRegion as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(
            f"tenant {tenant.slug} (region {tenant.region}), agent {agent.name} ({agent.role}), "
            f"key prefix {issued.key.prefix}. The key is not stored; copy it now."
        )
        self.stdout.write(issued.plaintext)
