"""The moved tables take memory's names (row-level security, policies,
indexes and constraints follow a renamed table)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0014_ledger_from_curation"),
        ("curation", "0009_ledger_to_memory"),
    ]

    operations = [
        migrations.AlterModelTable(
            name="curatoraction",
            table=None,
        ),
        migrations.AlterModelTable(
            name="dispute",
            table=None,
        ),
        migrations.AlterModelTable(
            name="event",
            table=None,
        ),
        migrations.AlterModelTable(
            name="kindpolicy",
            table=None,
        ),
    ]
