"""Per-tenant storage quotas: the usage row under row-level security, the
triggers that keep it and enforce the quota, and what each tenant stores
already (accounts/quotas.py)."""

import django.db.models.deletion
from django.db import migrations, models

from accounts.quotas import backfill_sql, drop_triggers_sql, triggers_sql
from accounts.rls import EnableTenantRLS


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_tenant_rate_limit"),
        ("memory", "0013_tenant_hnsw_indexes"),
        ("provenance", "0005_observation_erase"),
    ]

    operations = [
        migrations.CreateModel(
            name="TenantUsage",
            fields=[
                (
                    "tenant",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="usage",
                        serialize=False,
                        to="accounts.tenant",
                    ),
                ),
                ("bytes", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.AddField(
            model_name="tenant",
            name="storage_quota_bytes",
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        EnableTenantRLS("accounts_tenantusage"),
        migrations.RunSQL(sql=triggers_sql(), reverse_sql=drop_triggers_sql()),
        migrations.RunSQL(sql=backfill_sql(), reverse_sql=migrations.RunSQL.noop),
    ]
