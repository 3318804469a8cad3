"""Tenant policies evaluated once per statement, not once per row (see
accounts.rls.tenant_predicate)."""

from django.db import migrations

from accounts.rls import TenantPolicyPerStatement


class Migration(migrations.Migration):
    dependencies = [
        ("provenance", "0002_row_level_security"),
        ("accounts", "0003_policies_per_statement"),
    ]

    operations = [
        TenantPolicyPerStatement("provenance_observation"),
        TenantPolicyPerStatement("provenance_belief"),
        TenantPolicyPerStatement("provenance_edge"),
    ]
