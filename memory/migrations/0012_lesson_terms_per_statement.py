from django.db import migrations


class Migration(migrations.Migration):
    """Lesson terms on insert: one statement-level trigger over the new rows
    (a learn batch inserts its lessons in one statement) instead of one
    plpgsql call per row — the per-row trigger cost the learn worker ~0.5 ms
    a lesson. Updates of the text (an erase) stay per row."""

    dependencies = [("memory", "0011_lesson_terms_backfill")]

    operations = [
        migrations.RunSQL(
            """
            DROP TRIGGER memory_lesson_terms ON memory_lesson;
            CREATE FUNCTION memory_lesson_terms_inserted() RETURNS trigger
                LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO memory_lessonterm (tenant_id, lesson_id, lexeme)
                SELECT n.tenant_id, n.id, lexeme
                FROM inserted n, unnest(tsvector_to_array(n.search)) AS lexeme;
                RETURN NULL;
            END $$;
            CREATE TRIGGER memory_lesson_terms_insert
                AFTER INSERT ON memory_lesson REFERENCING NEW TABLE AS inserted
                FOR EACH STATEMENT EXECUTE FUNCTION memory_lesson_terms_inserted();
            CREATE TRIGGER memory_lesson_terms_update
                AFTER UPDATE OF content, situation ON memory_lesson
                FOR EACH ROW EXECUTE FUNCTION memory_lesson_terms();
            """,
            """
            DROP TRIGGER memory_lesson_terms_update ON memory_lesson;
            DROP TRIGGER memory_lesson_terms_insert ON memory_lesson;
            DROP FUNCTION memory_lesson_terms_inserted();
            CREATE TRIGGER memory_lesson_terms
                AFTER INSERT OR UPDATE OF content, situation ON memory_lesson
                FOR EACH ROW EXECUTE FUNCTION memory_lesson_terms();
            """,
        ),
    ]
