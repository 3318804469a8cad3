"""Inserted rows are charged to the tenant's storage once per statement
(a trigger with a transition table) instead of once per row; changes and
deletions stay per row (accounts/quotas.py)."""

from django.db import migrations

from accounts.quotas import triggers_sql


class Migration(migrations.Migration):
    dependencies = [("accounts", "0009_staff_by_slug")]

    # Backwards the new triggers stay: they charge exactly what the old ones
    # did, and 0008's reverse drops them with the rest.
    operations = [migrations.RunSQL(sql=triggers_sql(), reverse_sql=migrations.RunSQL.noop)]
