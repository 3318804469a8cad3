"""Observations stay undeletable, with one exception: ``tenant_move``
erases a tenant from its old region once the copy in the new region has
verified, inside a transaction that names that tenant in
``app.erasing_tenant`` (``regions.transfer``). The evidence lives on in the
new region; nothing else can delete an observation."""

from django.db import migrations

ALLOW = """
CREATE OR REPLACE FUNCTION provenance_observation_undeletable() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.tenant_id::text = coalesce(current_setting('app.erasing_tenant', true), '') THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'observations are immutable; invalidate instead'
        USING ERRCODE = 'check_violation';
END $$;
"""
REFUSE = """
CREATE OR REPLACE FUNCTION provenance_observation_undeletable() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'observations are immutable; invalidate instead'
        USING ERRCODE = 'check_violation';
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("provenance", "0007_corroboration_low_confidence")]

    operations = [migrations.RunSQL(ALLOW, REFUSE)]
