"""``unsupported`` named two states; "enough independent sources, root-aware
confidence under the floor" is ``low-confidence`` now. Lessons already
judged so (their reason says it) take the new name; audit rows keep what
was said then."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("provenance", "0006_observation_no_delete"),
        ("memory", "0015_ledger_tables"),
    ]

    operations = [
        migrations.AlterField(
            model_name="corroborationaudit",
            name="status",
            field=models.CharField(
                choices=[
                    ("corroborated", "Corroborated"),
                    ("single-source", "Single Source"),
                    ("contested", "Contested"),
                    ("low-confidence", "Low Confidence"),
                    ("unsupported", "Unsupported"),
                ],
                max_length=16,
            ),
        ),
        migrations.RunSQL(
            """
            -- Every tenant's lessons: a migration has no tenant.
            SELECT set_config('app.cross_tenant', 'on', true);
            UPDATE memory_lesson SET corroboration = 'low-confidence'
            WHERE corroboration = 'unsupported'
              AND corroboration_reason LIKE '% independent sources, but their root-aware %';
            SELECT set_config('app.cross_tenant', '', true);
            """,
            """
            SELECT set_config('app.cross_tenant', 'on', true);
            UPDATE memory_lesson SET corroboration = 'unsupported'
            WHERE corroboration = 'low-confidence';
            SELECT set_config('app.cross_tenant', '', true);
            """,
        ),
    ]
