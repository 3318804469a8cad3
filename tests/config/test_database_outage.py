"""While PostgreSQL refuses the application, requests are answered 503 with
Retry-After — quickly, in the error shape — and the service recovers by
itself when the database comes back."""

from __future__ import annotations

import time

import httpx
import pytest
from django.db import connections

from tests.conftest import make_caller

pytestmark = pytest.mark.django_db(transaction=True)


def _cut_off(sql, *, allowed: bool) -> None:
    sql.execute(f"ALTER ROLE tributary {'LOGIN' if allowed else 'NOLOGIN'}")
    if not allowed:
        sql.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE usename = 'tributary' AND pid <> pg_backend_pid()"
        )


def test_an_outage_answers_503_with_retry_after_and_recovery_needs_nothing(
    live_server, superuser_sql
):
    alice = make_caller("acme", "alice")
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        assert http.get("/api/v1/whoami", headers=alice.headers).status_code == 200
        _cut_off(superuser_sql, allowed=False)
        try:
            started = time.monotonic()
            api = http.get("/api/v1/whoami", headers=alice.headers)
            page = http.get("/dashboard/")
            elapsed = time.monotonic() - started
        finally:
            _cut_off(superuser_sql, allowed=True)
            connections.close_all()
        for response in (api, page):
            assert response.status_code == 503, response.text
            assert response.headers["Retry-After"] == "5"
            assert response.json()["error"]["code"] == "database_unavailable"
        assert elapsed < 20  # not the pool's old 30 s wait per request
        assert http.get("/api/v1/whoami", headers=alice.headers).status_code == 200
