from django.db import migrations


class Migration(migrations.Migration):
    """The terms of the lessons already stored (a separate migration: the
    table's deferred constraints must exist before rows arrive)."""

    dependencies = [("memory", "0010_lesson_terms")]

    operations = [
        migrations.RunSQL(
            """
            -- The lessons there already (every tenant's: a migration has no tenant).
            SELECT set_config('app.cross_tenant', 'on', true);
            INSERT INTO memory_lessonterm (tenant_id, lesson_id, lexeme)
            SELECT l.tenant_id, l.id, lexeme
            FROM memory_lesson l, unnest(tsvector_to_array(l.search)) AS lexeme;
            SELECT set_config('app.cross_tenant', '', true);
            """,
            "SELECT set_config('app.cross_tenant', 'on', true); DELETE FROM memory_lessonterm;",
        ),
    ]
