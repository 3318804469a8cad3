"""Tenant policies evaluated once per statement, not once per row (see
accounts.rls.tenant_predicate)."""

from django.db import migrations

from accounts.rls import TenantPolicyPerStatement


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_row_level_security")]

    operations = [
        TenantPolicyPerStatement("accounts_tenant", column="id"),
        TenantPolicyPerStatement("accounts_agent"),
        TenantPolicyPerStatement("accounts_apikey"),
    ]
