"""PostgreSQL backend that finds (and if need be starts) the embedded server.

Django's own backend, with one difference: when the configuration uses the
embedded PostgreSQL, the socket directory is read from the running server at
connect time, starting it first if nothing runs. Commands that never touch
the database (``doctor``, ``help``) therefore start nothing.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        # Django turns psycopg's prepared statements off (for poolers); ours
        # are explicit only (config.db.prepared): its client-side binding
        # cursors never prepare, so no threshold is ever reached.
        from django.conf import settings

        if settings.TRIBUTARY_PREPARED_STATEMENTS and params.get("prepare_threshold") is None:
            params["prepare_threshold"] = 2**31 - 1
        embedded = self.settings_dict.get("TRIBUTARY_EMBEDDED")
        if embedded:
            from pathlib import Path

            from config.embedded import ensure_postgres

            server = ensure_postgres(Path(embedded))
            params["host"] = str(server.socket_dir())
            params["port"] = server.port()
        return params
