from django.db import migrations

from accounts.rls import EnableTenantRLS, SameTenantForeignKey


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0002_initial"),
        ("memory", "0002_initial"),
    ]

    operations = [
        EnableTenantRLS("curation_event"),
        SameTenantForeignKey("curation_event", "lesson_id", "memory_lesson"),
        SameTenantForeignKey("curation_event", "agent_id", "accounts_agent"),
        SameTenantForeignKey("curation_event", "learn_request_id", "memory_learnrequest"),
    ]
