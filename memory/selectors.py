"""Reads over lessons: nearest neighbours, hybrid recall, time travel.

All of these run inside a tenant's context (row-level security scopes every
query); each also names the tenant explicitly so that PostgreSQL can use the
per-tenant indexes.

Search strategy, chosen per query (docs/design.md §5): a tenant with at most
the exact-search threshold of active lessons in the searched kinds (measured
where the service runs: memory/search_cost.py) is searched exactly through
the (tenant, kind, status) B-tree — exact, and cheaper than an index walk at
that size; a larger one through its own partial HNSW index (memory/hnsw.py)
with pgvector's relaxed iterative scan, falling back to exact while the
index is not built yet or if it comes back short. Time travel is always
exact (the HNSW indexes hold only active lessons).
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache, partial
from typing import Any, TypedDict, TypeVar, Unpack

from django.conf import settings
from django.db import connection
from django.db.models import Q, QuerySet
from pgvector import HalfVector

from accounts.models import Agent
from config.db.base import settings_statement
from config.db.prepared import (
    PreparedRead,
    fetch_prepared,
    fetch_together,
    run_bound,
    run_bound_all,
    run_unprepared_all,
)
from config.errors import NotFound
from config.metrics import RECALL_SECONDS, Timer
from config.telemetry import span
from memory import hnsw, search_cost
from memory.embeddings import Vector, embed_query_soon
from memory.judge import Candidate
from memory.models import Kind, LearnRequest, Lesson, LessonRecallStats, LessonStatus
from memory.scope_cache import ScopeCache, scope_key
from memory.temporal import asks_about_the_past
from provenance.selectors import (
    ProvenanceSummary,
    provenance_summaries,
    provenance_summaries_read,
)

RRF_K = 60  # reciprocal rank fusion constant (Cormack et al.)
TEXT_WEIGHT = 1.0  # the full-text leg's weight in the fusion (the vector leg's is 1)
TERM_DF_CAP = 200  # a query term in this many lessons or more is "common"
TERM_DF_SHARE = 0.1  # … or in this share of the tenant's lessons (a smaller tenant)
TERM_DF_MIN = 8  # … but never fewer than this many


def common_from(size: int) -> int:
    """How many of a tenant's ``size`` lessons make a term common: a year
    in nearly every dated fact of a 200-fact tenant is as common as a stop
    word, though it is in fewer than ``TERM_DF_CAP`` lessons."""
    return min(TERM_DF_CAP, max(TERM_DF_MIN, math.ceil(TERM_DF_SHARE * size)))


def _vector_literal(vector: Vector) -> str:
    return "[" + ",".join(f"{v:.7g}" for v in vector) + "]"


def _halfvec_known() -> bool:
    """Whether the connection can send a halfvec in binary (it registered
    the type: ``config.db.base``)."""
    raw = connection.connection
    return raw is not None and raw.adapters.types.get("halfvec") is not None


def _vector_parameter(vector: Vector) -> HalfVector | str:
    """A query vector for a bound parameter: binary halfvec where the
    connection knows the type (66 → 5 µs to encode, nothing for the server
    to parse), else its text."""
    return HalfVector(vector) if _halfvec_known() else _vector_literal(vector)


def _vectors_cte(vectors: Sequence[Vector]) -> tuple[str, list[HalfVector | str]]:
    """A ``q(v, i)`` CTE of ``vectors`` (i from 1, each parsed once, not once
    per row it is compared with), and its parameter ``qs``: one ``halfvec[]``
    bound in binary where the connection knows the type (32 vectors' text
    was 4–5 % of a worker's time outside the model), else text."""
    bound = "%(qs)b::halfvec[]" if _halfvec_known() else "%(qs)s::text[]"
    cte = (
        "q(v, i) AS MATERIALIZED ("  # noqa: S608 (bound is one of two constants)
        f"SELECT v::halfvec, i FROM unnest({bound}) WITH ORDINALITY AS u(v, i))"
    )
    return cte, [_vector_parameter(v) for v in vectors]


T = TypeVar("T")

PLAN_TTL_SECONDS = 5.0
_plans: ScopeCache[tuple[int, bool]] = ScopeCache(PLAN_TTL_SECONDS)


def cached_search_plan(*, tenant_id: uuid.UUID, kinds: Sequence[str]) -> tuple[int, bool]:
    """``search_plan``, remembered per process for ``PLAN_TTL_SECONDS``: a
    round trip saved on most searches. A stale answer only picks the slower
    path for a few seconds, never a wrong result — exact is always right,
    and the HNSW query on a tenant whose index is gone (or not valid yet)
    runs without it, falling back to exact if it comes back short."""
    plan, _ = cached_search_plan_with(tenant_id=tenant_id, kinds=kinds, read=_NOTHING)
    return plan


def cached_search_plan_with(
    *, tenant_id: uuid.UUID, kinds: Sequence[str], read: PreparedRead[T]
) -> tuple[tuple[int, bool], T]:
    """``cached_search_plan`` and another read: in one round trip when the
    plan is not remembered (a tenant not searched in the last few seconds:
    most tenants of a large installation)."""
    key = scope_key(tenant_id, kinds)
    known = _plans.get(key)
    if known is not None:
        return _through_index(known), read.fetch()
    plan, other = fetch_together([search_plan_read(tenant_id=tenant_id, kinds=kinds), read])
    _plans.put(key, plan)
    return _through_index(plan), other


def search_plan(*, tenant_id: uuid.UUID, kinds: Sequence[str]) -> tuple[int, bool]:
    """(active lessons in ``kinds``, whether to search through the tenant's
    HNSW index: it is valid and the tenant is past the exact-search
    threshold, ``memory.search_cost.threshold``), in one round trip: the
    scope rows' counts and the catalog."""
    return _through_index(search_plan_read(tenant_id=tenant_id, kinds=kinds).fetch())


def _through_index(plan: tuple[int, bool]) -> tuple[int, bool]:
    size, valid = plan
    return size, valid and size > search_cost.threshold()


def search_plan_read(
    *, tenant_id: uuid.UUID, kinds: Sequence[str]
) -> PreparedRead[tuple[int, bool]]:
    """(active lessons in ``kinds``, whether the tenant's HNSW index is valid)."""
    return PreparedRead(
        "SELECT coalesce((SELECT sum(active_count) FROM memory_scope "
        "                 WHERE tenant_id = %(tenant)s AND kind = ANY(%(kinds)s)), 0), "
        "       coalesce((SELECT indisvalid AND indisready FROM pg_index "
        "                 WHERE indexrelid = to_regclass(%(index)s)), false)",
        {"tenant": tenant_id, "kinds": list(kinds), "index": hnsw.index_name(tenant_id)},
        lambda rows: (int(rows[0][0]), bool(rows[0][1])) if rows else (0, False),
    )


_NOTHING: PreparedRead[None] = PreparedRead(None, {}, lambda rows: None)


# A lesson past its expiry is not recalled even before the gardener takes it
# out of use; a pinned one never expires.
NOT_EXPIRED = "(pinned OR expires_at IS NULL OR expires_at > now())"


def _window(
    as_of: datetime | None, prefix: str | None = None, *, history: bool = False
) -> tuple[str, dict[str, Any]]:
    """The lessons a search may return: the active ones (with ``history``,
    the superseded ones too: a question about the past), or — as of an
    instant — those whose validity interval contains it (never the erased;
    ``valid_at`` is the same rule for the ORM); with ``prefix``, only those
    whose situation starts with it."""
    params: dict[str, Any] = {}
    if as_of is None and history:
        window = f"(status = 'active' AND {NOT_EXPIRED} OR status = 'superseded')"
    elif as_of is None:
        window = f"status = 'active' AND {NOT_EXPIRED}"
    else:
        window = (
            "status <> 'erased' AND activated_at <= %(as_of)s "
            "AND (deactivated_at IS NULL OR deactivated_at > %(as_of)s)"
        )
        params["as_of"] = as_of
    if prefix:
        window += " AND starts_with(situation, %(prefix)s)"
        params["prefix"] = prefix
    return window, params


def _exact_neighbours(
    tenant_id: uuid.UUID,
    kinds: Sequence[str],
    vector: Vector,
    limit: int,
    as_of: datetime | None,
    prefix: str | None = None,
    *,
    history: bool = False,
    generic: bool = False,
) -> list[tuple[uuid.UUID, float]]:
    """``generic``: the search plan calls for an exact search (see
    ``_GENERIC_PLAN``)."""
    window, params = _window(as_of, prefix, history=history)
    # The sort is over the subquery's column (OFFSET 0 keeps it a subquery):
    # the planner cannot take the HNSW index for it, so the scan is exact,
    # and each distance is computed once (``ORDER BY (… <=> …) + 0`` beside
    # the selected distance computed it twice: 9–13 % of a 2,000–8,000
    # lesson tenant's search). Prepared (server-side binding): a plan cached
    # per connection, and the vector sent once as a parameter instead of
    # parsed out of the SQL. The generic plan reads the tenant's rows
    # through a B-tree, which is what an exact scan wants at any size.
    sql = f"""
        SELECT id, distance FROM (
            SELECT id, embedding <=> %(q)s::halfvec AS distance
            FROM memory_lesson
            WHERE tenant_id = %(tenant)s AND kind = ANY(%(kinds)s) AND {window}
              AND embedding IS NOT NULL
            OFFSET 0
        ) AS scanned
        ORDER BY distance
        LIMIT %(limit)s
    """  # noqa: S608 (window is one of two constants)
    params = {"q": _vector_parameter(vector), "tenant": tenant_id, "kinds": list(kinds),
              "limit": limit, **params}  # fmt: skip
    if generic and settings.TRIBUTARY_PREPARED_STATEMENTS:
        _, rows, _ = run_bound_all([_GENERIC_PLAN, (sql, params), _PLAN_AS_BEFORE])
    else:
        rows = fetch_prepared(sql, params)
    return [(row[0], float(row[1])) for row in rows]


# A small tenant's exact search cost more to plan than to run: PostgreSQL
# kept planning it for each call's parameters (its generic plan, costed for
# a tenant of average size, never looked cheaper than the custom ones), and
# planning a query on memory_lesson checks every tenant's partial HNSW index.
# Its generic plan — the tenant's rows through the B-tree, every distance —
# is the right one at every size searched exactly (a tenant past the
# threshold only while its index is being built, or with HNSW off): with
# it, 0.66 → 0.57 ms p50 under 100 lessons, 0.90 → 0.77 at 100–999,
# unchanged at 1,000–3,000 (docs/benchmarks.md). So the search runs with ``plan_cache_mode`` forced
# to generic, and the mode is put back as it was in the same round trip.
_GENERIC_PLAN: tuple[str, list[Any]] = (
    "SELECT set_config('plan_cache_mode', 'force_generic_plan', true) FROM "
    "(SELECT set_config('tributary.plan_cache_mode', current_setting('plan_cache_mode'), true))"
    " AS saved",
    [],
)
_PLAN_AS_BEFORE: tuple[str, list[Any]] = (
    "SELECT set_config('plan_cache_mode', current_setting('tributary.plan_cache_mode'), true)",
    [],
)


def probe_similarities(
    tenant_id: uuid.UUID, kinds: Sequence[str], vectors: Sequence[Vector], sample: int
) -> list[float]:
    """Each of ``vectors``' best cosine similarity among (up to ``sample`` of)
    the tenant's active lessons in ``kinds``, in one statement; nothing when
    it has none (``memory.relevance``'s floor)."""
    queries, qs = _vectors_cte(vectors)
    rows = run_bound(
        f"""
        WITH sample AS MATERIALIZED (
            SELECT embedding FROM memory_lesson
            WHERE tenant_id = %(tenant)s AND kind = ANY(%(kinds)s) AND status = 'active'
              AND {NOT_EXPIRED} AND embedding IS NOT NULL
            ORDER BY id  -- random UUIDs: a sample across the tenant's history
            LIMIT %(sample)s
        ), {queries}
        SELECT q.i, 1 - min(s.embedding <=> q.v) FROM q CROSS JOIN sample AS s GROUP BY q.i
        """,  # noqa: S608 (constants)
        {"qs": qs, "tenant": tenant_id, "kinds": list(kinds), "sample": sample},
    )
    return [float(similarity) for _, similarity in rows]


def approximate_query(
    tenant_id: uuid.UUID, kinds: Sequence[str], vector: Vector, limit: int
) -> tuple[str, dict[str, Any]]:
    """The HNSW search, to run bound on the server (``run_unprepared_all``):
    its tenant id is inlined in the text (a UUID's canonical form: nothing
    to escape), so the planner can prove the tenant's partial index applies;
    the query vector goes as a parameter, in binary where the connection
    knows the type."""
    tenant = uuid.UUID(str(tenant_id))
    # relaxed_order may return neighbours slightly out of order: re-sort.
    sql = f"""
        WITH near AS MATERIALIZED (
            SELECT id, embedding <=> %(q)s::halfvec AS distance
            FROM memory_lesson
            WHERE tenant_id = '{tenant}'::uuid AND kind = ANY(%(kinds)s) AND status = 'active'
              AND {NOT_EXPIRED}
            ORDER BY embedding <=> %(q)s::halfvec
            LIMIT %(limit)s
        )
        SELECT id, distance FROM near ORDER BY distance
    """  # noqa: S608 (a UUID's text and a constant)
    return sql, {"q": _vector_parameter(vector), "kinds": list(kinds), "limit": limit}


def _approximate_neighbours(
    tenant_id: uuid.UUID, kinds: Sequence[str], vector: Vector, limit: int
) -> list[tuple[uuid.UUID, float]]:
    # The scan's settings and the search in one round trip: transaction-
    # local, so they stay for the rest of the caller's transaction (they
    # only concern HNSW scans, and every one wants them), or end with the
    # round trip's implicit transaction (``tenant_reads``).
    _, rows = run_unprepared_all(
        [
            settings_statement(
                {
                    "hnsw.iterative_scan": "relaxed_order",
                    "hnsw.ef_search": str(int(settings.TRIBUTARY_HNSW_EF_SEARCH)),
                    "hnsw.max_scan_tuples": "40000",
                }
            ),
            approximate_query(tenant_id, kinds, vector, limit),
        ]
    )
    return [(row[0], float(row[1])) for row in rows]


def nearest_lessons(
    *,
    tenant_id: uuid.UUID,
    kinds: Sequence[str],
    vector: Vector,
    limit: int,
    as_of: datetime | None = None,
    situation_prefix: str | None = None,
    history: bool = False,
) -> list[tuple[uuid.UUID, float]]:
    """(id, cosine distance) of the nearest lessons, never fewer than
    ``limit`` when that many exist. As of an instant, narrowed to a
    situation prefix, or with the superseded lessons (``history``) — filters
    the tenant's HNSW index of active lessons cannot serve without coming
    back short — the search is exact."""
    if as_of is not None or situation_prefix or history:
        return _exact_neighbours(
            tenant_id, kinds, vector, limit, as_of, situation_prefix, history=history
        )
    size, through_index = cached_search_plan(tenant_id=tenant_id, kinds=kinds)
    return _planned_neighbours(tenant_id, kinds, vector, limit, size, through_index)


def _planned_neighbours(
    tenant_id: uuid.UUID,
    kinds: Sequence[str],
    vector: Vector,
    limit: int,
    size: int,
    through_index: bool,
) -> list[tuple[uuid.UUID, float]]:
    """The search ``search_plan``'s answer calls for: exact for a small or
    not yet indexed tenant, else HNSW, exact again if that came back short."""
    if not through_index:
        return _exact_neighbours(tenant_id, kinds, vector, limit, None, generic=True)
    found = _approximate_neighbours(tenant_id, kinds, vector, limit)
    if len(found) < min(limit, size):
        return _exact_neighbours(tenant_id, kinds, vector, limit, None)
    return found


def _exact_neighbours_many(
    tenant_id: uuid.UUID, kind: str, vectors: Sequence[Vector], limit: int
) -> list[list[tuple[uuid.UUID, float]]]:
    """Exact nearest active lessons of one kind for each of ``vectors``, in
    one statement (one round trip for a whole learn batch)."""
    found: list[list[tuple[uuid.UUID, float]]] = [[] for _ in vectors]
    queries, qs = _vectors_cte(vectors)
    rows = run_bound(
        f"""
        WITH {queries}
        SELECT q.i, near.id, near.distance
        FROM q CROSS JOIN LATERAL (
            -- exact, each distance computed once (see _exact_neighbours)
            SELECT id, distance FROM (
                SELECT id, embedding <=> q.v AS distance
                FROM memory_lesson
                WHERE tenant_id = %(tenant)s AND kind = %(kind)s AND status = 'active'
                  AND embedding IS NOT NULL
                OFFSET 0
            ) AS scanned
            ORDER BY distance
            LIMIT %(limit)s
        ) AS near
        ORDER BY q.i, near.distance
        """,  # noqa: S608 (a constant)
        {"qs": qs, "tenant": tenant_id, "kind": kind, "limit": limit},
    )
    for index, lesson_id, distance in rows:
        found[index - 1].append((lesson_id, float(distance)))
    return found


def lesson_candidates_many(
    *, tenant_id: uuid.UUID, kind: str, vectors: Sequence[Vector], limit: int = 8
) -> list[list[tuple[Candidate, uuid.UUID]]]:
    """For each vector, the nearest active lessons of one kind as the judge
    sees them, each with its author. A tenant small enough for exact search
    is searched for the whole batch in one statement."""
    if not vectors:
        return []
    # Never the cached plan: an empty tenant's batch skips the read, and the
    # judge must see a lesson learned a moment ago.
    size, through_index = search_plan(tenant_id=tenant_id, kinds=[kind])
    if not through_index:
        nears = _exact_neighbours_many(tenant_id, kind, vectors, limit) if size else []
        nears = nears or [[] for _ in vectors]
    else:
        nears = [  # one plan for the batch, not one per vector
            _planned_neighbours(tenant_id, [kind], v, limit, size, True) for v in vectors
        ]
    rows = Lesson.objects.only("id", "content", "situation", "author_id").in_bulk(
        {lesson_id for near in nears for lesson_id, _ in near}
    )
    return [
        [
            (
                Candidate(
                    id=lesson_id,
                    content=rows[lesson_id].content,
                    situation=rows[lesson_id].situation,
                    similarity=1.0 - distance,
                ),
                rows[lesson_id].author_id,
            )
            for lesson_id, distance in near
            if lesson_id in rows
        ]
        for near in nears
    ]


def lesson_candidates(
    *, tenant_id: uuid.UUID, kind: str, vector: Vector, limit: int = 8
) -> list[tuple[Candidate, uuid.UUID]]:
    """The nearest active lessons of one kind, as the judge sees them, with
    each one's author."""
    [candidates] = lesson_candidates_many(
        tenant_id=tenant_id, kind=kind, vectors=[vector], limit=limit
    )
    return candidates


# A query token that looks like an identifier: it has a digit, an inner
# - _ . / or :, or a capital after its first letter (X-Batch, E4021,
# 0x80070057, cache.ttl, KAFKA_SASL_MECH, HTTP). Plain words are the vector
# leg's business; identifiers are what embeddings blur.
_TOKEN = re.compile(r"[\w][\w.\-/:]*[\w]|\w")
_IDENTIFIER = re.compile(r"\d|\w[-_./:]\w|^.+[A-Z]")


def identifier_terms(query: str) -> list[str]:
    return [t for t in _TOKEN.findall(query) if _IDENTIFIER.search(t)][:16]


def _text_matches(
    tenant_id: uuid.UUID,
    kinds: Sequence[str],
    query: str,
    limit: int,
    as_of: datetime | None,
    prefix: str | None = None,
    *,
    history: bool = False,
    size: int | None = None,
    lexemes: list[str] | None = None,
) -> list[tuple[uuid.UUID, float]]:
    """Full-text leg: lessons containing the query's rare identifiers,
    ranked by the sum of matched terms' inverse document frequency within
    the tenant (terms in ``common_from(size)`` lessons or more — ``size``:
    the tenant's active lessons in ``kinds``, None for no share — are too
    common to help and are dropped). ``lexemes``: ``lexemes_read(query)``'s
    answer, when the caller read it already."""
    cap = TERM_DF_CAP if size is None else common_from(size)
    if lexemes is None:
        lexemes = lexemes_read(query).fetch()
    if not lexemes:
        return []
    window, params = _window(as_of, prefix, history=history)
    base = f"tenant_id = %(tenant)s AND kind = ANY(%(kinds)s) AND {window}"
    rows = fetch_prepared(
        _TEXT_SQL.format(base=base.replace("tenant_id", "m.tenant_id")),
        {"tenant": tenant_id, "kinds": list(kinds), "cap": float(cap), **params,
         "lexemes": sorted(set(lexemes)), "limit": limit, "scan_cap": 2 * cap},
    )  # fmt: skip
    return [(row[0], float(row[1])) for row in rows]


def lexemes_read(query: str) -> PreparedRead[list[str]]:
    """The lexemes of the query's identifiers (nothing to read without
    any); of a compound (x-batch → x-batch, x, batch) only the compound
    ones."""

    def parse(rows: list[tuple[Any, ...]]) -> list[str]:
        lexemes: list[str] = []
        for (parts,) in rows:
            compound = [p for p in parts if not p.isalpha()]
            lexemes.extend(compound or parts)
        return lexemes

    terms = identifier_terms(query)
    return PreparedRead(_LEXEMES_SQL if terms else None, {"terms": terms}, parse)


_LEXEMES_SQL = (
    "SELECT tsvector_to_array(to_tsvector('english'::regconfig, t)) "
    "FROM unnest(%(terms)s::text[]) t"
)
# The lessons holding each lexeme, from the term table's (tenant, lexeme)
# B-tree: row-level security keeps the planner off the GIN index (@@ is not
# leakproof), not off an equality. A lexeme in twice the common count
# (``common_from``) of the tenant's lessons or more is too common to help
# and is not followed.
_TEXT_SQL = """
WITH terms(lex) AS (SELECT DISTINCT unnest(%(lexemes)s::text[])),
usable AS (
    SELECT lex FROM terms
    WHERE (SELECT count(*) FROM (
              SELECT 1 FROM memory_lessonterm t
              WHERE t.tenant_id = %(tenant)s AND t.lexeme = terms.lex
              LIMIT %(scan_cap)s) c) < %(scan_cap)s
),
hits AS (
    SELECT m.id, u.lex
    FROM usable u
    JOIN memory_lessonterm t ON t.tenant_id = %(tenant)s AND t.lexeme = u.lex
    JOIN memory_lesson m ON m.id = t.lesson_id
    WHERE {base}
),
frequency AS (SELECT lex, count(*) AS df FROM hits GROUP BY lex)
SELECT h.id, sum(ln(1 + %(cap)s::float8 / f.df)) AS score
FROM hits h JOIN frequency f USING (lex)
WHERE f.df < %(cap)s
GROUP BY h.id
ORDER BY score DESC, h.id
LIMIT %(limit)s
"""


@cache
def _load_columns() -> tuple[list[str], list[str], str]:
    lessons = [f for f in Lesson._meta.concrete_fields if f.name != "embedding"]
    agents = list(Agent._meta.concrete_fields)
    columns = ", ".join(
        [f'l."{f.column}"' for f in lessons]
        + [f'a."{f.column}"' for f in agents]
        + ["s.recall_count", "s.last_recalled_at"]
    )
    sql = (
        f"SELECT {columns} FROM {Lesson._meta.db_table} l "  # noqa: S608 (model metadata)
        f"JOIN {Agent._meta.db_table} a ON a.id = l.author_id "
        f"LEFT JOIN {LessonRecallStats._meta.db_table} s ON s.lesson_id = l.id "
        "WHERE l.id = ANY(%(ids)s)"
    )
    return [f.attname for f in lessons], [f.attname for f in agents], sql


LoadedLessons = tuple[dict[uuid.UUID, Lesson], dict[uuid.UUID, LessonRecallStats]]


def lessons_with_authors_read(ids: Sequence[uuid.UUID]) -> PreparedRead[LoadedLessons]:
    """The lessons (their embeddings deferred) with their authors and their
    recall stats, in one prepared statement — what
    ``select_related("author").in_bulk`` and a stats ``in_bulk`` give, a
    millisecond or so cheaper on the recall path — as a read to send with
    others (``fetch_together``)."""
    if not ids:
        return PreparedRead(None, {}, lambda rows: ({}, {}))
    lesson_fields, agent_fields, sql = _load_columns()
    return PreparedRead(sql, {"ids": list(ids)}, partial(_loaded, lesson_fields, agent_fields))


def _loaded(
    lesson_fields: list[str], agent_fields: list[str], rows: list[tuple[Any, ...]]
) -> LoadedLessons:
    split, stats_at = len(lesson_fields), len(lesson_fields) + len(agent_fields)
    found: dict[uuid.UUID, Lesson] = {}
    stats: dict[uuid.UUID, LessonRecallStats] = {}
    for row in rows:
        lesson = Lesson.from_db(connection.alias, lesson_fields, row[:split])
        Lesson.author.field.set_cached_value(
            lesson, Agent.from_db(connection.alias, agent_fields, row[split:stats_at])
        )
        found[lesson.id] = lesson
        if row[stats_at] is not None:
            stats[lesson.id] = LessonRecallStats(
                lesson_id=lesson.id,
                tenant_id=lesson.tenant_id,
                recall_count=row[stats_at],
                last_recalled_at=row[stats_at + 1],
            )
    return found, stats


@dataclass(frozen=True)
class RecallHit:
    lesson: Lesson
    score: float
    similarity: float | None
    provenance: ProvenanceSummary
    stats: LessonRecallStats | None = None


class RecallOptions(TypedDict, total=False):
    """``recall_judged``'s options, for ``lesson_recall``."""

    k: int
    kinds: Sequence[str] | None
    min_independent_sources: int
    as_of: datetime | None
    corroborated_only: bool
    situation_prefix: str | None
    history: bool | None


def lesson_recall(
    *, tenant_id: uuid.UUID, query: str, **options: Unpack[RecallOptions]
) -> list[RecallHit]:
    """``recall_judged``'s hits, without asking whether they are relevant."""
    return recall_judged(tenant_id=tenant_id, query=query, judge_relevance=False, **options).hits


@dataclass(frozen=True)
class Recalled:
    """A recall's hits, and whether nothing in memory bears on the query
    (``memory.relevance``: no rare term matched, the nearest lesson below
    the tenant's floor; or ``memory.answers``: none of the best lessons
    answers it)."""

    hits: list[RecallHit]
    nothing_relevant: bool


def recall_judged(
    *,
    tenant_id: uuid.UUID,
    query: str,
    k: int = 5,
    kinds: Sequence[str] | None = None,
    min_independent_sources: int = 0,
    as_of: datetime | None = None,
    corroborated_only: bool = False,
    situation_prefix: str | None = None,
    history: bool | None = None,
    judge_relevance: bool = True,
) -> Recalled:
    """Hybrid recall: vector neighbours and full-text matches fused by
    reciprocal rank fusion, within the caller's tenant. ``corroborated_only``
    (a tenant's strict policy) keeps only corroborated lessons. ``history``:
    search the superseded lessons too (they come back with their status and
    successor); None decides from the query — a question about the past
    ("who owned it in March", "what was it before") — see
    :func:`memory.temporal.asks_about_the_past`. Unless ``judge_relevance``
    is off, also whether it found anything relevant (as of an instant:
    whether it found anything)."""
    from memory.answers import unanswered
    from memory.relevance import nothing_relevant

    if history is None:
        history = as_of is None and asks_about_the_past(query)
    with Timer() as timer, span("recall", k=k, as_of=as_of is not None, history=history):
        found = _recall(
            tenant_id, query, k, kinds, min_independent_sources, as_of, corroborated_only,
            situation_prefix, history,
        )  # fmt: skip
        unrelated = not found.hits
        if judge_relevance and as_of is None and found.hits:
            unrelated = nothing_relevant(
                tenant_id=tenant_id, kinds=found.kinds, size=found.size,
                best_similarity=found.best_similarity, text_matched=found.text_matched,
            ) or unanswered(query, [hit.lesson.content for hit in found.hits])  # fmt: skip
    RECALL_SECONDS.observe(timer.seconds)
    return Recalled(found.hits, unrelated)


@dataclass(frozen=True)
class _Found:
    hits: list[RecallHit]
    kinds: list[str]
    size: int  # active lessons in kinds
    best_similarity: float | None  # of the nearest lesson searched, before any filter
    text_matched: bool  # a lesson holds one of the query's rare terms


def _recall(
    tenant_id: uuid.UUID,
    query: str,
    k: int,
    kinds: Sequence[str] | None,
    min_independent_sources: int,
    as_of: datetime | None,
    corroborated_only: bool,
    situation_prefix: str | None,
    history: bool = False,
) -> _Found:
    kinds = list(kinds) if kinds else [k.value for k in Kind]
    pool = max(4 * k, 40)
    # The query is embedded on another thread while the full-text leg reads.
    embedding = embed_query_soon(query)
    with span("recall.fulltext"):
        # the plan (when not remembered) and the query's lexemes: one round trip
        (size, _), lexemes = cached_search_plan_with(
            tenant_id=tenant_id, kinds=kinds, read=lexemes_read(query)
        )
        texts = _text_matches(
            tenant_id, kinds, query, pool, as_of, situation_prefix, history=history, size=size,
            lexemes=lexemes,
        )  # fmt: skip
    with span("recall.embedding"):
        vector = embedding()
    with span("recall.vector"):
        near = nearest_lessons(
            tenant_id=tenant_id, kinds=kinds, vector=vector, limit=pool, as_of=as_of,
            situation_prefix=situation_prefix, history=history,
        )  # fmt: skip
    with span("recall.fusion"):
        scores: dict[uuid.UUID, float] = {}
        for ranking, weight in ((near, 1.0), (texts, TEXT_WEIGHT)):
            for lesson_id, rank in _tied_ranks(ranking):
                scores[lesson_id] = scores.get(lesson_id, 0.0) + weight / (RRF_K + rank)
        distances = dict(near)
        text_scores = dict(texts)
        # Equal fused scores (one lesson first by vector, the other first by
        # text) go to the stronger exact match, then the nearer vector.
        ordered = sorted(
            scores,
            key=lambda i: (-scores[i], -text_scores.get(i, 0.0), distances.get(i, 2.0), str(i)),
        )
    with span("recall.provenance"):
        hits = _recall_provenance(
            ordered, k, scores, distances, min_independent_sources, corroborated_only
        )
    best = 1.0 - near[0][1] if near else None
    return _Found(hits, kinds, size, best, bool(texts))


def _tied_ranks(ranking: Sequence[tuple[uuid.UUID, float]]) -> Iterator[tuple[uuid.UUID, int]]:
    """Each lesson of a leg's ranking (sorted by its value) with its rank,
    lessons of equal value sharing the best one ("1, 2, 2, 4"): the text
    leg orders equal scores by the lessons' random ids, and fused by their
    position, equal matches would weigh differently from one tenant's
    history to the same history learned again."""
    rank, previous = 0, None
    for position, (lesson_id, value) in enumerate(ranking, start=1):
        if value != previous:
            rank, previous = position, value
        yield lesson_id, rank


def _recall_provenance(
    ordered: list[uuid.UUID],
    k: int,
    scores: dict[uuid.UUID, float],
    distances: dict[uuid.UUID, float],
    min_independent_sources: int,
    corroborated_only: bool,
) -> list[RecallHit]:
    """The provenance filters and summaries of the fused order, and the hits."""
    if min_independent_sources:
        summaries = provenance_summaries(ordered)
        ordered = [
            i
            for i in ordered
            if summaries.get(i, ProvenanceSummary()).independent_sources >= min_independent_sources
        ]
    if corroborated_only:
        keep = set(
            Lesson.objects.filter(id__in=ordered, corroboration="corroborated").values_list(
                "id", flat=True
            )
        )
        ordered = [i for i in ordered if i in keep]
    top = ordered[:k]
    if min_independent_sources:
        lessons, stats = lessons_with_authors_read(top).fetch()
    else:  # both reads in one round trip
        summaries, (lessons, stats) = fetch_together(
            [provenance_summaries_read(top), lessons_with_authors_read(top)]
        )
    return [
        RecallHit(
            lesson=lessons[i],
            score=round(scores[i], 6),
            similarity=None if i not in distances else round(1.0 - distances[i], 6),
            provenance=summaries.get(i, ProvenanceSummary()),
            stats=stats.get(i),
        )
        for i in top
        if i in lessons
    ]


def recall_counts(lesson_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, int]:
    """How often each lesson was recalled (those never recalled are absent)."""
    return dict(
        LessonRecallStats.objects.filter(lesson_id__in=list(lesson_ids)).values_list(
            "lesson_id", "recall_count"
        )
    )


def valid_at(as_of: datetime) -> Q:
    """Lessons whose validity interval contains ``as_of`` — what the tenant
    believed then (the same rule as ``_window`` writes in SQL for search)."""
    return Q(activated_at__lte=as_of) & (
        Q(deactivated_at__isnull=True) | Q(deactivated_at__gt=as_of)
    )


def visible_lessons(*, curator: bool) -> QuerySet[Lesson]:
    """The tenant's lessons a caller may see, with their authors: never an
    erased one; a quarantined one (kept for audit) only by curators."""
    hidden = [LessonStatus.ERASED] if curator else [LessonStatus.ERASED, LessonStatus.QUARANTINED]
    return Lesson.objects.select_related("author").exclude(status__in=hidden)


def lesson_get(*, lesson_id: uuid.UUID, curator: bool = False) -> Lesson:
    """A lesson of the caller's tenant (another tenant's id: not found)."""
    lesson = visible_lessons(curator=curator).filter(id=lesson_id).first()
    if lesson is None:
        raise NotFound("no such lesson")
    return lesson


def lessons_browse(
    *,
    curator: bool,
    status: str,
    kind: str | None = None,
    situation: str | None = None,
    situation_prefix: str | None = None,
    author: str | None = None,
    page: int = 1,
    limit: int = 50,
) -> tuple[list[Lesson], bool]:
    """A page of the tenant's lessons, newest first, narrowed by exact
    fields (``status`` "all": every visible one); and whether more follow."""
    lessons = visible_lessons(curator=curator)
    if status != "all":
        lessons = lessons.filter(status=status)
    if kind is not None:
        lessons = lessons.filter(kind=kind)
    if situation is not None:
        lessons = lessons.filter(situation=situation)
    if situation_prefix:
        lessons = lessons.filter(situation__startswith=situation_prefix)
    if author is not None:
        lessons = lessons.filter(author__name=author)
    start = (page - 1) * limit
    rows = list(lessons.order_by("-created_at", "-id")[start : start + limit + 1])
    return rows[:limit], len(rows) > limit


def learn_request_get(*, request_id: uuid.UUID) -> LearnRequest:
    """A learn request of the caller's tenant (another tenant's id: not found)."""
    learn_request = LearnRequest.objects.filter(id=request_id).first()
    if learn_request is None:
        raise NotFound("no such learn request")
    return learn_request


def lesson_history(*, lesson_id: uuid.UUID) -> list[Lesson]:
    """The supersede chain through ``lesson_id``, oldest first."""
    anchor = lesson_get(lesson_id=lesson_id)
    chain = [anchor]
    seen = {anchor.id}
    current = anchor
    while True:  # back to the oldest predecessor
        previous = (
            Lesson.objects.select_related("author").filter(superseded_by_id=current.id).first()
        )
        if previous is None or previous.id in seen:
            break
        chain.insert(0, previous)
        seen.add(previous.id)
        current = previous
    current = anchor
    while current.superseded_by_id and current.superseded_by_id not in seen:  # forward
        following = Lesson.objects.select_related("author").get(id=current.superseded_by_id)
        chain.append(following)
        seen.add(following.id)
        current = following
    return [lesson for lesson in chain if lesson.status != LessonStatus.ERASED]
