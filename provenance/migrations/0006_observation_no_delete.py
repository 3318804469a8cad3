"""Evidence cannot be deleted either: a ``DELETE`` of an observation is
refused like an edit (invalidate it instead; a forget erases its content,
the one documented exception, by an ``UPDATE`` the immutability trigger
allows). Removing a whole tenant is an operator's task as superuser."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("provenance", "0005_observation_erase")]

    operations = [
        migrations.RunSQL(
            """
            CREATE FUNCTION provenance_observation_undeletable() RETURNS trigger
                LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'observations are immutable; invalidate instead'
                    USING ERRCODE = 'check_violation';
            END $$;
            CREATE TRIGGER provenance_observation_undeletable
                BEFORE DELETE ON provenance_observation
                FOR EACH ROW EXECUTE FUNCTION provenance_observation_undeletable();
            """,
            """
            DROP TRIGGER IF EXISTS provenance_observation_undeletable ON provenance_observation;
            DROP FUNCTION IF EXISTS provenance_observation_undeletable();
            """,
        ),
    ]
