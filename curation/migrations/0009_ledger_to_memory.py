"""Events, disputes, curator actions and kind policies move to the core
(``memory``): state only here; their tables are renamed by memory 0015."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0014_ledger_from_curation"),
        ("curation", "0008_gardener"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="dispute",
                    name="learn_request",
                ),
                migrations.RemoveField(
                    model_name="dispute",
                    name="lesson",
                ),
                migrations.RemoveField(
                    model_name="dispute",
                    name="opened_by",
                ),
                migrations.RemoveField(
                    model_name="dispute",
                    name="resolved_by",
                ),
                migrations.RemoveField(
                    model_name="dispute",
                    name="target",
                ),
                migrations.RemoveField(
                    model_name="dispute",
                    name="tenant",
                ),
                migrations.RemoveField(
                    model_name="event",
                    name="agent",
                ),
                migrations.RemoveField(
                    model_name="event",
                    name="learn_request",
                ),
                migrations.RemoveField(
                    model_name="event",
                    name="lesson",
                ),
                migrations.RemoveField(
                    model_name="event",
                    name="tenant",
                ),
                migrations.RemoveField(
                    model_name="kindpolicy",
                    name="tenant",
                ),
                migrations.DeleteModel(
                    name="CuratorAction",
                ),
                migrations.DeleteModel(
                    name="Dispute",
                ),
                migrations.DeleteModel(
                    name="Event",
                ),
                migrations.DeleteModel(
                    name="KindPolicy",
                ),
            ],
        ),
    ]
