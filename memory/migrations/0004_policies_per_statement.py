"""Tenant policies evaluated once per statement, not once per row (see
accounts.rls.tenant_predicate)."""

from django.db import migrations

from accounts.rls import TenantPolicyPerStatement


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0003_row_level_security_and_search"),
        ("accounts", "0003_policies_per_statement"),
    ]

    operations = [
        TenantPolicyPerStatement("memory_scope"),
        TenantPolicyPerStatement("memory_lesson"),
        TenantPolicyPerStatement("memory_lessonrecallstats"),
        TenantPolicyPerStatement("memory_learnrequest"),
    ]
