from django.db import migrations

from accounts.rls import EnableTenantRLS, SameTenantForeignKey
from memory import hnsw


# The one HNSW index over every tenant's lessons that this migration made;
# 0013 replaced it with one partial index per large tenant (memory/hnsw.py).
SHARED_INDEX_SQL = (
    "CREATE INDEX IF NOT EXISTS lesson_embedding_hnsw ON memory_lesson "
    "USING hnsw (embedding halfvec_cosine_ops) WITH (m = 16, ef_construction = 64) "
    "WHERE status = 'active'"
)


def create_hnsw(apps, schema_editor):
    if hnsw.hnsw_wanted()[0]:
        schema_editor.execute(SHARED_INDEX_SQL)


def drop_hnsw(apps, schema_editor):
    schema_editor.execute("DROP INDEX IF EXISTS lesson_embedding_hnsw")


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0002_initial"),
        ("provenance", "0001_initial"),
    ]

    operations = [
        EnableTenantRLS("memory_scope"),
        EnableTenantRLS("memory_lesson"),
        EnableTenantRLS("memory_lessonrecallstats"),
        EnableTenantRLS("memory_learnrequest"),
        SameTenantForeignKey("memory_lesson", "author_id", "accounts_agent"),
        SameTenantForeignKey("memory_lesson", "superseded_by_id", "memory_lesson"),
        SameTenantForeignKey("memory_lessonrecallstats", "lesson_id", "memory_lesson"),
        SameTenantForeignKey("memory_learnrequest", "agent_id", "accounts_agent"),
        SameTenantForeignKey("memory_learnrequest", "belief_id", "provenance_belief"),
        SameTenantForeignKey("memory_learnrequest", "lesson_id", "memory_lesson"),
        SameTenantForeignKey("memory_learnrequest", "target_lesson_id", "memory_lesson"),
        # Full-text leg of hybrid recall: a generated tsvector and its GIN
        # index. 'english' stems words; identifiers such as X-Batch or E4021
        # survive as lexemes of their own.
        migrations.RunSQL(
            "ALTER TABLE memory_lesson ADD COLUMN search tsvector GENERATED ALWAYS AS "
            "(to_tsvector('english'::regconfig, content || ' ' || situation)) STORED; "
            "CREATE INDEX lesson_search_gin ON memory_lesson USING gin (search);",
            "DROP INDEX IF EXISTS lesson_search_gin; "
            "ALTER TABLE memory_lesson DROP COLUMN IF EXISTS search;",
        ),
        migrations.RunPython(create_hnsw, drop_hnsw),
    ]
