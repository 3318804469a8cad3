from django.db import migrations

from accounts.rls import EnableTenantRLS, SameTenantForeignKey


class Migration(migrations.Migration):
    dependencies = [
        ("provenance", "0001_initial"),
        ("memory", "0002_initial"),
    ]

    operations = [
        EnableTenantRLS("provenance_observation"),
        EnableTenantRLS("provenance_belief"),
        EnableTenantRLS("provenance_edge"),
        SameTenantForeignKey("provenance_observation", "agent_id", "accounts_agent"),
        SameTenantForeignKey("provenance_belief", "agent_id", "accounts_agent"),
        SameTenantForeignKey("provenance_edge", "belief_id", "provenance_belief"),
        SameTenantForeignKey("provenance_edge", "to_observation_id", "provenance_observation"),
        SameTenantForeignKey("provenance_edge", "to_belief_id", "provenance_belief"),
        SameTenantForeignKey("provenance_edge", "to_lesson_id", "memory_lesson"),
    ]
