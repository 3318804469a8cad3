import importlib

from django.db import migrations

SHARED = importlib.import_module("memory.migrations.0003_row_level_security_and_search")


class Migration(migrations.Migration):
    """The HNSW index shared by every tenant gives way to one partial index
    per large tenant, kept by ``memory.hnsw.search_indexes_sync`` (the beat
    task builds them for existing tenants on its first run; until then their
    recall is exact)."""

    dependencies = [("memory", "0012_lesson_terms_per_statement")]

    operations = [migrations.RunPython(SHARED.drop_hnsw, SHARED.create_hnsw)]
