"""Row-level security for the accounts tables, and the SQL functions every
tenant policy uses (see accounts/rls.py and accounts/tenancy.py)."""

from django.db import migrations

from accounts.rls import DROP_FUNCTIONS_SQL, FUNCTIONS_SQL, EnableTenantRLS


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [
        migrations.RunSQL(FUNCTIONS_SQL, DROP_FUNCTIONS_SQL),
        EnableTenantRLS("accounts_tenant", column="id"),
        EnableTenantRLS("accounts_agent"),
        EnableTenantRLS("accounts_apikey"),
        # Authentication must find a key before it knows the tenant: exactly
        # the row whose prefix was presented becomes readable, nothing else.
        migrations.RunSQL(
            "CREATE POLICY key_lookup ON accounts_apikey FOR SELECT "
            "USING (prefix = NULLIF(current_setting('app.auth_key_prefix', true), ''))",
            "DROP POLICY IF EXISTS key_lookup ON accounts_apikey",
        ),
        # A key's tenant is its agent's tenant, held by the database.
        migrations.RunSQL(
            "ALTER TABLE accounts_apikey ADD CONSTRAINT apikey_agent_same_tenant "
            "FOREIGN KEY (agent_id, tenant_id) REFERENCES accounts_agent (id, tenant_id) "
            "ON DELETE CASCADE",
            "ALTER TABLE accounts_apikey DROP CONSTRAINT apikey_agent_same_tenant",
        ),
    ]
