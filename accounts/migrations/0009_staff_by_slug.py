"""Staff memberships name the tenant by slug (people live in the directory
database with Django's users; the tenant's rows in its region's)."""

from django.db import migrations, models

from accounts.rls import drop_tenant_rls_sql, tenant_rls_sql

BACKFILL = """
SELECT set_config('app.cross_tenant', 'on', true);
UPDATE accounts_staffmembership m SET tenant_slug = t.slug
FROM accounts_tenant t WHERE t.id = m.tenant_id;
"""
REVERSE_BACKFILL = """
SELECT set_config('app.cross_tenant', 'on', true);
UPDATE accounts_staffmembership m SET tenant_id = t.id
FROM accounts_tenant t WHERE t.slug = m.tenant_slug;
"""


class Migration(migrations.Migration):
    dependencies = [("accounts", "0008_storage_quota")]

    operations = [
        migrations.AddField(
            model_name="staffmembership",
            name="tenant_slug",
            field=models.SlugField(max_length=63, default=""),
            preserve_default=False,
        ),
        migrations.RunSQL(BACKFILL, REVERSE_BACKFILL),
        migrations.RunSQL(
            drop_tenant_rls_sql("accounts_staffmembership"),
            tenant_rls_sql("accounts_staffmembership"),
        ),
        migrations.RemoveConstraint(model_name="staffmembership", name="staffmembership_unique"),
        migrations.RemoveField(model_name="staffmembership", name="tenant"),
        migrations.AddConstraint(
            model_name="staffmembership",
            constraint=models.UniqueConstraint(
                fields=("tenant_slug", "user"), name="staffmembership_unique"
            ),
        ),
    ]
