"""Tenant policies evaluated once per statement, not once per row (see
accounts.rls.tenant_predicate)."""

from django.db import migrations

from accounts.rls import TenantPolicyPerStatement


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0003_row_level_security"),
        ("accounts", "0003_policies_per_statement"),
    ]

    operations = [
        TenantPolicyPerStatement("curation_event"),
    ]
