"""Hybrid recall within a tenant, exact or approximate, and time travel."""

from __future__ import annotations

import functools
import platform
import uuid
from collections.abc import Iterator
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone
from pgvector import HalfVector

from accounts.tenancy import tenant_context, tenant_reads
from config.db import prepared
from memory import hnsw, relevance, scope_cache, search_cost, selectors
from memory.embeddings import embed, lesson_text
from memory.models import Lesson, LessonRecallStats, LessonStatus, Scope, SearchCalibration
from memory.selectors import (
    _exact_neighbours,
    approximate_query,
    lesson_candidates_many,
    lesson_recall,
    nearest_lessons,
    recall_judged,
    search_plan,
)
from memory.services.lessons import lessons_mark_recalled, lessons_note_recalled, recalls_flush
from memory.temporal import asks_about_the_past
from tests.conftest import Caller, learn_now, make_caller

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture(autouse=True)
def _no_tenant_index_left(transactional_db: None) -> Iterator[None]:
    """Indexes outlive the flush between tests: each test starts with none."""
    yield
    for name in hnsw.tenant_indexes():
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {name}")


CORPUS = [
    "The deploy API answers 429 Too Many Requests unless the request sends X-Batch: true.",
    "Clear the build cache when the linker exits with code 137; the build then passes.",
    "The config key `cache.ttl` is deprecated; use `cache.expiry_seconds` instead.",
    "Staging database backups run every six hours and are kept for a week.",
    "Rotate the API signing key every 90 days; the old key stays valid for one day.",
    "Use the internal package mirror; the public index is blocked from CI runners.",
    "Integration tests need the fake payment gateway running on port 8089.",
    "Deploys to production are frozen on Fridays after 15:00 UTC.",
    "The search service rebuilds its index at 04:30 UTC; queries are slow meanwhile.",
    "Error E4021 from the billing service means the customer's card was declined.",
    "Requests to the deploy API must carry a service token in the Authorization header.",
    "Batch uploads larger than 50 MB must be split into parts.",
    "The rate limiter allows 100 requests per minute per API key.",
    "Retry failed deploys with exponential backoff, at most five times.",
]


@functools.cache
def _embedded(texts: tuple[str, ...]) -> list[Any]:
    """The real model's vectors, computed once per session for a corpus
    (the large tenant's lessons are seeded by five tests)."""
    return embed([lesson_text(text, "") for text in texts])


def _seed(caller: Caller, texts: list[str]) -> list[uuid.UUID]:
    """Insert active lessons directly (bulk), embedded by the real model."""
    tenant = caller.agent.tenant_id
    vectors = _embedded(tuple(texts))
    now = timezone.now()
    with tenant_context(tenant):
        lessons = Lesson.objects.bulk_create(
            [
                Lesson(tenant_id=tenant, kind="lesson", content=text, embedding=vector,
                       status=LessonStatus.ACTIVE, author=caller.agent, activated_at=now)
                for text, vector in zip(texts, vectors, strict=True)
            ]
        )  # fmt: skip
        scope, _ = Scope.objects.get_or_create(tenant_id=tenant, kind="lesson")
        Scope.objects.filter(id=scope.id).update(active_count=scope.active_count + len(texts))
    return [lesson.id for lesson in lessons]


def _recall(caller: Caller, query: str, **kwargs: object) -> list[str]:
    with tenant_context(caller.agent.tenant_id):
        hits = lesson_recall(tenant_id=caller.agent.tenant_id, query=query, **kwargs)  # type: ignore[arg-type]
    return [hit.lesson.content for hit in hits]


def test_a_term_in_most_of_a_small_tenants_lessons_is_common_however_few_they_are():
    alice = make_caller("acme", "alice")
    dated = [
        f"2024-0{1 + i % 9}-1{i % 10}: on-call handover note {i} for the rota" for i in range(12)
    ]
    ids = _seed(
        alice, [*dated, "Error E4012 from the billing service means the invoice is overdue."]
    )
    tenant = alice.agent.tenant_id
    assert selectors.common_from(13) == selectors.TERM_DF_MIN
    assert selectors.common_from(100_000) == selectors.TERM_DF_CAP
    with tenant_context(tenant):
        # "2024" is in 12 of 13 lessons: common here, though far under 200
        assert selectors._text_matches(tenant, ["lesson"], "2024", 40, None, size=13) == []
        absolute = selectors._text_matches(tenant, ["lesson"], "2024", 40, None)
        assert len(absolute) == 12
        # a rare identifier still leads
        [(found, _)] = selectors._text_matches(
            tenant, ["lesson"], "E4012 in 2024", 40, None, size=13
        )
        assert found == ids[-1]


def test_recall_finds_a_lesson_from_a_paraphrase():
    alice = make_caller("acme", "alice")
    _seed(alice, CORPUS)
    found = _recall(alice, "why does my build die with signal 9 while linking?", k=3)
    assert found[0] == CORPUS[1]


LOOKALIKES = [
    "Windows build agents fail with 0x80070005 until the service account can write there.",
    "Windows build agents fail with 0x80070057 when a path is longer than 260 characters.",
    "Windows build agents fail with 0x80004005 when the antivirus locks the output folder.",
    "Error E4012 from the billing service means the invoice is overdue.",
    "Error E4210 from the billing service means the card has expired.",
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [("X-Batch", CORPUS[0]), ("0x80070057", LOOKALIKES[1]), ("E4012", LOOKALIKES[3])],
)
def test_recall_finds_an_exact_rare_token_that_vectors_alone_miss(query, expected):
    alice = make_caller("acme", "alice")
    _seed(alice, CORPUS + LOOKALIKES)
    with tenant_context(alice.agent.tenant_id):
        [vector] = embed([query])
        [(nearest, _)] = nearest_lessons(
            tenant_id=alice.agent.tenant_id, kinds=["lesson"], vector=vector, limit=1
        )
        by_vector = Lesson.objects.get(id=nearest).content
    assert by_vector != expected  # the premise: the embedding blurs the token
    assert _recall(alice, query, k=1) == [expected]


def test_recall_never_returns_another_tenants_lesson():
    alice = make_caller("tenant-a", "alice")
    bob = make_caller("tenant-b", "bob")
    _seed(alice, CORPUS[:3])
    _seed(bob, ["The deploy API answers 429 unless X-Batch: true is sent (tenant B's copy)."])
    for query in ("deploy API 429 X-Batch", "tenant B's copy", "linker 137"):
        found = _recall(alice, query, k=10)
        assert found and all("tenant B" not in text for text in found)
    assert _recall(bob, "linker exit code 137 cache", k=10) == [
        "The deploy API answers 429 unless X-Batch: true is sent (tenant B's copy)."
    ]


# The large tenant: past the thresholds the tests set (1,000; 5), under
# half of the one that drops its index (6,000).
BIG = 1500


def _big_and_small() -> tuple[Caller, Caller]:
    big = make_caller("big", "bulk")
    small = make_caller("small", "solo")
    _seed(
        big,
        [f"Deploy note {i}: service {i % 37} restarts after config push {i}." for i in range(BIG)],
    )
    _seed(small, CORPUS[:6])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memory_lesson")
    return big, small


QUERY = "service restarts after a config push"


def test_a_small_tenant_next_to_a_large_one_gets_k_results_from_exact_search(settings):
    big, small = _big_and_small()
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 10000
    found = _recall(small, QUERY, k=5)
    assert len(found) == 5 and set(found) <= set(CORPUS[:6])
    assert all(text.startswith("Deploy note") for text in _recall(big, QUERY, k=5))


def test_hnsw_answers_on_the_cpu_this_suite_runs_on(superuser_sql):
    """From the extension's own catalogue and a real index scan: pgvector is
    installed, it has the HNSW access method, and a float32 and a halfvec
    HNSW index answer here (a pgvector built for CPU features this machine
    lacks would kill the backend with SIGILL instead)."""
    version = superuser_sql.execute(
        "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
    ).fetchone()
    assert version is not None and version[0].startswith("0.8")
    assert superuser_sql.execute("SELECT 1 FROM pg_am WHERE amname = 'hnsw'").fetchone()
    cpu = platform.processor() or platform.machine()
    superuser_sql.execute(
        "CREATE TEMP TABLE probe (id int, v vector(3), h halfvec(3));"
        "INSERT INTO probe SELECT i, ARRAY[cos(i), sin(i), i % 7]::vector, "
        "ARRAY[cos(i), sin(i), i % 7]::halfvec FROM generate_series(1, 2000) i;"
        "CREATE INDEX ON probe USING hnsw (v vector_cosine_ops);"
        "CREATE INDEX ON probe USING hnsw (h halfvec_cosine_ops);"
        "SET enable_seqscan = off;"
    )
    for column, cast in (("v", "vector"), ("h", "halfvec")):
        query = f"SELECT id FROM probe ORDER BY {column} <=> '[1,0,3]'::{cast} LIMIT 5"  # noqa: S608
        plan = " ".join(r[0] for r in superuser_sql.execute("EXPLAIN " + query).fetchall())
        assert "Index Scan using probe_" in plan, (cpu, plan)
        assert len(superuser_sql.execute(query).fetchall()) == 5, cpu


def _plan(caller: Caller) -> tuple[int, bool]:
    with tenant_context(caller.agent.tenant_id):
        return search_plan(tenant_id=caller.agent.tenant_id, kinds=["lesson"])


def _nearest(caller: Caller, query: str, limit: int, exact: bool = False) -> list[uuid.UUID]:
    tenant = caller.agent.tenant_id
    [vector] = embed([query])
    with tenant_context(tenant):
        if exact:
            found = _exact_neighbours(tenant, ["lesson"], vector, limit, None)
        else:
            found = nearest_lessons(tenant_id=tenant, kinds=["lesson"], vector=vector, limit=limit)
    return [lesson_id for lesson_id, _ in found]


def test_a_large_tenant_gets_an_hnsw_index_of_its_own_and_a_small_one_next_to_it_k_results(
    settings,
):
    big, small = _big_and_small()
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 1000
    name = hnsw.index_name(big.agent.tenant_id)
    # Past the threshold, before the sync: exact search, never short.
    assert _plan(big) == (BIG, False)
    assert len(_recall(big, QUERY, k=5)) == 5

    out = StringIO()
    call_command("search_indexes", stdout=out)
    assert "built 1, dropped 0" in out.getvalue() and f"{name}" in out.getvalue()
    assert hnsw.tenant_indexes() == {name: True}
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [name])
        definition = cursor.fetchone()[0]
    assert f"tenant_id = '{big.agent.tenant_id}'::uuid" in definition
    assert "status)::text = 'active'" in definition and "USING hnsw" in definition
    assert _plan(big) == (BIG, True)
    assert _plan(small) == (6, False)

    # The large tenant's search walks its own index, and agrees with exact.
    [vector] = embed([QUERY])
    with tenant_context(big.agent.tenant_id):
        # as the search runs it: bound on the server, the vector in binary
        sql, params = approximate_query(big.agent.tenant_id, ["lesson"], vector, 10)
        assert isinstance(params["q"], HalfVector)
        [rows] = prepared.run_unprepared_all([("EXPLAIN " + sql, params)])
        plan = " ".join(row[0] for row in rows)
    assert f"Index Scan using {name}" in plan
    approximate = _nearest(big, QUERY, 10)
    truth = _nearest(big, QUERY, 10, exact=True)
    assert len(approximate) == 10 and len(set(approximate) & set(truth)) >= 9
    # As the MCP server reads (each round trip a read-only implicit
    # transaction): the index scan's settings travel with it, a recall
    # answers as in a transaction, and the relevance floor (measured in a
    # savepoint of the recall's transaction) is measured the same.
    tenant = big.agent.tenant_id
    floors = []
    for scope in (tenant_reads, tenant_context):
        relevance._floors.clear()
        with scope(tenant):
            walked = selectors._approximate_neighbours(tenant, ["lesson"], vector, 10)
            recalled = recall_judged(tenant_id=tenant, query=QUERY, k=5)
            floors.append(relevance.relevance_floor(tenant_id=tenant, kinds=["lesson"], size=BIG))
        assert [i for i, _ in walked] == approximate
        assert len(recalled.hits) == 5 and not recalled.nothing_relevant
        assert [h.lesson.content for h in recalled.hits] == _recall(big, QUERY, k=5)
    assert floors[0] == floors[1] < relevance.CEILING  # measured on the tenant's lessons
    # The learn worker's candidate read takes the same path for a batch.
    with tenant_context(big.agent.tenant_id):
        [candidates, again] = lesson_candidates_many(
            tenant_id=big.agent.tenant_id, kind="lesson", vectors=[vector, vector], limit=10
        )
    assert [c.id for c, _ in candidates] == [c.id for c, _ in again] == approximate
    # The small tenant is searched exactly, and gets k results of its own.
    found = _recall(small, QUERY, k=5)
    assert len(found) == 5 and set(found) <= set(CORPUS[:6])

    # A second sync has nothing to do; a tenant below half the threshold
    # loses its index.
    assert str(hnsw.search_indexes_sync()) == (
        "search indexes: built 0, dropped 0, left for the next run 0"
    )
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 6000
    assert hnsw.search_indexes_sync().dropped == [name]
    assert hnsw.tenant_indexes() == {}
    assert len(_recall(big, QUERY, k=5)) == 5


def test_recall_remembers_the_search_plan_for_a_few_seconds_and_stays_right(settings, monkeypatch):
    big, _ = _big_and_small()
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 1000
    tenant = big.agent.tenant_id

    def remembered() -> tuple[int, bool]:
        with tenant_context(tenant):
            return selectors.cached_search_plan(tenant_id=tenant, kinds=["lesson"])

    assert remembered() == (BIG, False)
    before = _recall(big, QUERY, k=5)
    assert hnsw.search_indexes_sync().built == [hnsw.index_name(tenant)]
    # Within the TTL the plan is the one read before the build: exact, and
    # the same answer; the uncached read sees the index.
    assert remembered() == (BIG, False) and _plan(big) == (BIG, True)
    assert _recall(big, QUERY, k=5) == before
    later = scope_cache.time.monotonic() + selectors.PLAN_TTL_SECONDS + 1
    monkeypatch.setattr(scope_cache.time, "monotonic", lambda: later)
    assert remembered() == (BIG, True)
    assert len(_recall(big, QUERY, k=5)) == 5
    # The learn path never takes the remembered plan: an empty tenant's read
    # is skipped, and a lesson learned a moment ago must be a candidate.
    fresh = make_caller("fresh", "first")
    with tenant_context(fresh.agent.tenant_id):
        selectors.cached_search_plan(tenant_id=fresh.agent.tenant_id, kinds=["lesson"])
    first = learn_now(fresh, "The nightly export job runs at 02:00 UTC.")
    again = learn_now(fresh, "Nightly export job: runs at 2am UTC.")
    assert again.target_lesson_id == first.lesson_id


def test_an_index_a_failed_build_left_invalid_is_not_used_and_is_rebuilt(settings, superuser_sql):
    big, _ = _big_and_small()
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 1000
    name = hnsw.index_name(big.agent.tenant_id)
    assert hnsw.search_indexes_sync().built == [name]
    superuser_sql.execute(
        "UPDATE pg_index SET indisvalid = false WHERE indexrelid = %s::regclass", [name]
    )
    assert hnsw.tenant_indexes() == {name: False}
    assert _plan(big) == (BIG, False)  # searched exactly meanwhile
    assert len(_nearest(big, QUERY, 10)) == 10
    report = hnsw.search_indexes_sync()
    assert report.dropped == [name] and report.built == [name]
    assert hnsw.tenant_indexes() == {name: True}


def test_a_sync_builds_at_most_its_share_and_hnsw_off_drops_every_tenant_index(settings):
    big, small = _big_and_small()
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 5  # both past it now
    report = hnsw.search_indexes_sync(max_builds=1)
    # The largest first; the other waits for the next run.
    assert report.built == [hnsw.index_name(big.agent.tenant_id)]
    assert report.waiting == [hnsw.index_name(small.agent.tenant_id)]
    assert hnsw.search_indexes_sync(max_builds=1).built == [hnsw.index_name(small.agent.tenant_id)]
    assert len(hnsw.tenant_indexes()) == 2
    built = sorted(hnsw.tenant_indexes())
    settings.TRIBUTARY_HNSW = "off"
    assert sorted(hnsw.search_indexes_sync().dropped) == built
    assert hnsw.tenant_indexes() == {}
    assert len(_recall(small, QUERY, k=5)) == 5 and len(_recall(big, QUERY, k=5)) == 5


def test_auto_measures_where_exact_search_stops_paying_and_acts_on_it(settings):
    """With no index to time, the sync builds the largest tenant's, times
    both searches on its real lessons, records the crossover and keeps or
    drops the index by it; the newest measurement is what every search plan
    and the next sync obey; a number in the setting overrides it."""
    big, small = _big_and_small()
    settings.TRIBUTARY_EXACT_SEARCH_MAX = "auto"
    name = hnsw.index_name(big.agent.tenant_id)
    assert search_cost.exact_search_max() == search_cost.UNCALIBRATED
    assert search_cost.calibration_due()
    assert _plan(big) == (BIG, False)

    report = hnsw.search_indexes_sync()
    measured = SearchCalibration.objects.get()
    assert report.calibrated == measured.exact_max == search_cost.exact_search_max()
    assert report.built == [name]  # built to be timed
    [sample] = measured.samples  # the small tenant (6 lessons) is too small to time
    assert sample["lessons"] == BIG and sample["exact_ms"] > 0 and sample["hnsw_ms"] > 0
    assert measured.hnsw_ms == sample["hnsw_ms"]
    assert measured.exact_max == search_cost.fit([search_cost.Sample(**sample)]).exact_max
    kept = measured.exact_max <= BIG * 2
    assert report.dropped == ([] if kept else [name])
    assert hnsw.tenant_indexes() == ({name: True} if kept else {})
    assert _plan(big) == (BIG, kept and measured.exact_max < BIG)
    assert f"; measured: exact search up to {measured.exact_max} lessons" in str(report)
    assert not search_cost.calibration_due()
    assert hnsw.search_indexes_sync().calibrated is None  # not due again

    # The newest measurement is in force: one that says index from 100
    # lessons indexes the large tenant and searches it through its index …
    SearchCalibration.objects.create(
        exact_max=100, exact_fixed_ms=0.2, exact_per_1000_ms=1.0, hnsw_ms=0.3
    )
    hnsw.search_indexes_sync()
    assert hnsw.tenant_indexes() == {name: True}
    assert _plan(big) == (BIG, True) and _plan(small) == (6, False)
    assert len(_nearest(big, QUERY, 10)) == 10
    # … one that says exact up to 50,000 drops it, and searches exactly.
    SearchCalibration.objects.create(
        exact_max=50_000, exact_fixed_ms=0.2, exact_per_1000_ms=0.01, hnsw_ms=0.7
    )
    assert _plan(big) == (BIG, False)
    assert hnsw.search_indexes_sync().dropped == [name]
    # A measurement older than TRIBUTARY_SEARCH_CALIBRATION_HOURS is due again.
    SearchCalibration.objects.update(measured_at=timezone.now() - timedelta(hours=25))
    assert search_cost.calibration_due()
    # A number fixes the threshold: no measurement is due, none is obeyed.
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 1000
    assert not search_cost.calibration_due() and search_cost.exact_search_max() == 1000
    assert hnsw.search_indexes_sync().built == [name]
    assert _plan(big) == (BIG, True)


def test_auto_times_nothing_without_a_tenant_to_time_and_never_an_index_a_build_left_invalid(
    settings, superuser_sql
):
    settings.TRIBUTARY_EXACT_SEARCH_MAX = "auto"
    small = make_caller("small", "solo")
    _seed(small, CORPUS[:6])
    report = hnsw.search_indexes_sync()  # no index, no tenant worth a probe
    assert report.calibrated is None and report.built == []
    assert not SearchCalibration.objects.exists() and search_cost.calibration_due()

    big, _ = _big_and_small()
    name = hnsw.index_name(big.agent.tenant_id)
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 1000
    hnsw.search_indexes_sync()
    superuser_sql.execute(
        "UPDATE pg_index SET indisvalid = false WHERE indexrelid = %s::regclass", [name]
    )
    settings.TRIBUTARY_EXACT_SEARCH_MAX = "auto"
    report = hnsw.search_indexes_sync()
    # The leftover is dropped before anything is timed, and the probe is
    # built anew, valid, and timed.
    assert report.dropped[0] == name and report.built[0] == name
    [sample] = SearchCalibration.objects.get().samples
    assert sample["lessons"] == BIG and sample["hnsw_ms"] is not None


def test_a_process_reads_the_threshold_once_a_minute_and_its_own_record_at_once(
    settings, monkeypatch
):
    settings.TRIBUTARY_EXACT_SEARCH_MAX = "auto"
    assert search_cost.threshold() == search_cost.UNCALIBRATED
    with connection.cursor() as cursor:  # another process's measurement: no signal here
        cursor.execute(
            "INSERT INTO memory_searchcalibration (measured_at, exact_max, samples) "
            "VALUES (now(), 900, '[]')"
        )
    assert search_cost.threshold() == search_cost.UNCALIBRATED  # remembered
    later = search_cost.time.monotonic() + search_cost.TTL_SECONDS + 1
    monkeypatch.setattr(search_cost.time, "monotonic", lambda: later)
    assert search_cost.threshold() == 900
    SearchCalibration.objects.create(exact_max=1200, samples=[])  # this process's own
    assert search_cost.threshold() == 1200
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 5000
    assert search_cost.threshold() == 5000


def test_search_indexes_calibrate_measures_now_and_prints_what_it_timed(settings):
    _big_and_small()
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 1000
    hnsw.search_indexes_sync()  # the large tenant's index (past 1,000)
    out = StringIO()
    call_command("search_indexes", "--calibrate", stdout=out)
    measured = SearchCalibration.objects.get()  # recorded even while a number is in force
    printed = out.getvalue()
    assert f"measured: exact search up to {measured.exact_max} lessons" in printed
    assert "exact search up to 1000 lessons (TRIBUTARY_EXACT_SEARCH_MAX)" in printed
    assert f"{BIG:>8} lessons: exact " in printed and ", index " in printed
    settings.TRIBUTARY_EXACT_SEARCH_MAX = "auto"
    out = StringIO()
    call_command("search_indexes", "--list", stdout=out)
    assert f"exact search up to {measured.exact_max} lessons (measured)" in out.getvalue()
    with pytest.raises(CommandError):
        call_command("search_indexes", "--list", "--calibrate")


def test_where_hnsw_cannot_run_a_large_tenant_gets_no_index_and_exact_answers(settings):
    big, _ = _big_and_small()
    settings.TRIBUTARY_EXACT_SEARCH_MAX = 1000
    settings.TRIBUTARY_HNSW = "off"
    with connection.cursor() as cursor:  # an operator's own index, named alike
        cursor.execute("CREATE INDEX lesson_hnsw_by_hand ON memory_lesson (created_at)")
    report = hnsw.search_indexes_sync()
    assert report.built == [] and report.dropped == [] and report.skipped == "TRIBUTARY_HNSW=off"
    assert hnsw.tenant_indexes() == {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('lesson_hnsw_by_hand') IS NOT NULL")
        assert cursor.fetchone()[0] is True
    assert _plan(big) == (BIG, False)
    assert _nearest(big, QUERY, 10) == _nearest(big, QUERY, 10, exact=True)


def test_recall_filters_by_kind():
    alice = make_caller("acme", "alice")
    _seed(alice, CORPUS[:2])
    fact = learn_now(alice, "The primary region is eu-west-1.", kind="fact")
    found = _recall(alice, "which region is primary", k=5, kinds=["fact"])
    assert found == ["The primary region is eu-west-1."]
    assert fact.outcome == "inserted"


def test_as_of_before_a_supersession_answers_the_old_lesson_and_after_it_the_new():
    alice = make_caller("acme", "alice")
    old = learn_now(alice, "The nightly export job runs at 02:00 UTC.")
    between = timezone.now()
    new = learn_now(alice, "The nightly export job runs at 03:00 UTC.")
    assert new.outcome == "superseded"
    after = timezone.now()
    query = "when does the nightly export run"
    assert _recall(alice, query, k=1, as_of=between) == [old.content]
    assert _recall(alice, query, k=1, as_of=after) == [new.content]
    assert _recall(alice, query, k=1) == [new.content]
    before_anything = old.created_at - timedelta(seconds=1)
    assert _recall(alice, query, k=1, as_of=before_anything) == []


def test_a_question_about_the_past_also_finds_what_was_superseded_marked_as_such():
    alice = make_caller("acme", "alice")
    old = learn_now(alice, "The nightly export job runs at 02:00 UTC.")
    new = learn_now(alice, "The nightly export job runs at 03:00 UTC.")
    assert new.outcome == "superseded"
    with tenant_context(alice.agent.tenant_id):
        now = lesson_recall(tenant_id=alice.agent.tenant_id, query="when does the export run")
        past = lesson_recall(
            tenant_id=alice.agent.tenant_id, query="when did the export run before it changed"
        )
        asked = lesson_recall(
            tenant_id=alice.agent.tenant_id, query="when does the export run", history=True
        )
    assert [h.lesson.content for h in now] == [new.content]
    for hits in (past, asked):
        by_content = {h.lesson.content: h.lesson for h in hits}
        assert set(by_content) == {old.content, new.content}
        assert by_content[old.content].status == LessonStatus.SUPERSEDED
        assert by_content[old.content].superseded_by_id == new.lesson_id


@pytest.mark.parametrize(
    ("query", "past"),
    [
        ("Who owned the billing on-call rotation in March?", True),
        ("What was the API limit before it was raised?", True),
        ("Which vendor did we use originally for paging?", True),
        ("back in 2024-03, which region was primary", True),
        ("Who owns the billing on-call rotation?", False),
        ("What limit did the pods have before the February OOM incident?", True),
        ("run migrations before deploying the API", False),
        ("how do I rotate the deploy key", False),
    ],
)
def test_asks_about_the_past(query, past):
    assert asks_about_the_past(query) is past


def test_recalls_are_counted_in_redis_and_written_by_the_flush():
    alice = make_caller("acme", "alice")
    tenant = alice.agent.tenant_id
    ids = _seed(alice, CORPUS[:3])
    recalls_flush()  # what earlier tests of this worker left counted
    lessons_note_recalled(tenant_id=tenant, lesson_ids=ids[:1])
    lessons_note_recalled(tenant_id=tenant, lesson_ids=ids[:2])
    with tenant_context(tenant):
        assert not LessonRecallStats.objects.filter(lesson_id__in=ids).exists()  # not yet
    assert recalls_flush() == 2
    lessons_note_recalled(tenant_id=tenant, lesson_ids=ids[:1])
    assert recalls_flush() == 1 and recalls_flush() == 0
    with tenant_context(tenant):
        stats = {s.lesson_id: s for s in LessonRecallStats.objects.filter(lesson_id__in=ids)}
    assert stats[ids[0]].recall_count == 3 and stats[ids[1]].recall_count == 1
    assert ids[2] not in stats
    assert stats[ids[0]].last_recalled_at >= stats[ids[1]].last_recalled_at


def test_a_recall_through_the_api_is_counted_once_flushed(client):
    alice = make_caller("acme", "alice")
    [lesson_id] = _seed(alice, CORPUS[:1])
    recalls_flush()
    response = client.post(
        "/api/v1/recall", {"query": "deploy API 429", "k": 3}, content_type="application/json",
        headers={"Authorization": f"Bearer {alice.key}"},
    )  # fmt: skip
    assert response.status_code == 200, response.content
    assert recalls_flush() >= 1
    with tenant_context(alice.agent.tenant_id):
        assert LessonRecallStats.objects.get(lesson_id=lesson_id).recall_count == 1


def test_recall_bookkeeping_counts_in_a_side_table():
    alice = make_caller("acme", "alice")
    ids = _seed(alice, CORPUS[:2])
    lessons_mark_recalled(tenant_id=alice.agent.tenant_id, lesson_ids=ids[:1])
    lessons_mark_recalled(tenant_id=alice.agent.tenant_id, lesson_ids=ids[:1])
    with tenant_context(alice.agent.tenant_id):
        stats = LessonRecallStats.objects.get(lesson_id=ids[0])
        assert stats.recall_count == 2 and stats.last_recalled_at is not None
        assert not LessonRecallStats.objects.filter(lesson_id=ids[1]).exists()


def test_a_query_embedded_on_a_worker_thread_is_the_query_embedded_in_place(monkeypatch):
    """Recall starts the query's embedding on another thread while its
    full-text leg reads (memory.embeddings.embed_query_soon): the same
    vector, computed once however many wait for it, and remembered."""
    import threading

    from memory import embeddings

    text = f"how long do staging backups stay {uuid.uuid4()}"
    calls: list[str] = []
    real = embeddings.embed

    def counted(texts, provider=None):
        calls.append(threading.current_thread().name)
        return real(texts, provider)

    monkeypatch.setattr(embeddings, "embed", counted)
    first, second = embeddings.embed_query_soon(text), embeddings.embed_query_soon(text)
    assert first() == second() == real([text])[0]
    assert len(calls) == 1 and calls[0].startswith("query-embedding")
    remembered = embeddings.embed_query_soon(text)
    assert remembered() == first() and len(calls) == 1  # answered from the cache
    assert embeddings.embed_query(text) == first()


def test_a_lessons_written_out_answer_is_drf_s_field_by_field_one():
    """LessonOut writes its declared fields out by hand (speed); every kind
    of value — a superseded lesson's end and successor, a pinned one's
    expiry, recall stats, provenance — comes out as DRF's walk gives it."""
    from rest_framework import serializers

    from memory.presenters import LessonOut
    from provenance.selectors import provenance_summaries

    caller = make_caller("tenant-out", "writer")
    learn_now(caller, "The staging deploy window is Tuesdays 14:00-16:00 UTC.")
    learn_now(caller, "The staging deploy window is Thursdays 09:00-11:00 UTC.")
    learn_now(caller, "Nightly exports land in s3://exports/nightly by 03:00.")
    with tenant_context(caller.agent.tenant_id):
        lessons = list(Lesson.objects.select_related("author"))
        assert {lesson.status for lesson in lessons} >= {"active", "superseded"}
        pinned = next(lesson for lesson in lessons if lesson.status == "active")
        pinned.pinned, pinned.expires_at = True, timezone.now() + timedelta(days=3)
        pinned.last_useful_at = timezone.now()
        lessons_mark_recalled(tenant_id=caller.agent.tenant_id, lesson_ids=[pinned.id])
        ids = [lesson.id for lesson in lessons]
        context = {
            "summaries": provenance_summaries(ids),
            "stats": LessonRecallStats.objects.in_bulk(ids),
        }
        out = LessonOut(context=context)
        for lesson in lessons:
            walked = serializers.Serializer.to_representation(out, lesson)
            assert out.to_representation(lesson) == dict(walked)
            assert list(out.to_representation(lesson)) == list(walked)  # same order


def test_a_recall_reads_a_forgotten_plan_in_the_round_trip_of_its_first_reads(monkeypatch):
    """A tenant not searched for a few seconds (most tenants of a large
    installation) costs its recall no extra round trip: the plan is read in
    one pipeline with the query's lexemes."""
    caller = make_caller("plans", "solo")
    _seed(caller, [f"Deploy note {i}: service {i} restarts after config push." for i in range(30)])
    query = "service-7 restarts after config push"  # an identifier: the full-text leg reads
    # Every read of the recall path goes through _fetch_all: one round trip
    # a call, whatever it sends.
    sent = []
    real = prepared._fetch_all

    def counted(*args: Any, **kwargs: Any) -> Any:
        sent.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(prepared, "_fetch_all", counted)

    def round_trips(*, remembered: bool) -> tuple[int, list[str]]:
        if not remembered:
            selectors._plans.clear()
        sent.clear()
        found = _recall(caller, query, k=5)
        return len(sent), found

    _recall(caller, query, k=5)  # the model's query cache and prepared statements warm
    forgotten, found_cold = round_trips(remembered=False)
    remembered, found_warm = round_trips(remembered=True)
    assert found_cold == found_warm and len(found_cold) == 5
    assert forgotten == remembered > 0


def _search_plans() -> tuple[int, int]:
    """(generic, custom) plans run so far by this connection's prepared
    exact searches."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0) "
            "FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%FROM memory_lesson%OFFSET 0%"],
        )
        generic, custom = cursor.fetchone()
    return int(generic), int(custom)


def test_a_small_tenants_search_runs_its_generic_plan_and_leaves_the_mode_as_it_was():
    alice = make_caller("generic-plan", "alice")
    tenant_id = alice.agent.tenant_id
    learn_now(alice, "The deploy script needs the --force flag on Fridays.")
    learn_now(alice, "Backups of the orders database run at 02:00 UTC.")
    vector = embed(["which flag does the deploy need"])[0]
    for scope in (tenant_context, tenant_reads):
        with scope(tenant_id):
            before = _search_plans()
            found = [
                selectors.nearest_lessons(
                    tenant_id=tenant_id, kinds=["lesson"], vector=vector, limit=5
                )
                for _ in range(3)
            ]
            after = _search_plans()
        assert all(len(answer) == 2 for answer in found)
        assert (after[0] - before[0], after[1] - before[1]) == (3, 0)  # never planned per call
    # Inside a transaction the mode the caller had is back after the search.
    with tenant_context(tenant_id), connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        selectors.nearest_lessons(tenant_id=tenant_id, kinds=["lesson"], vector=vector, limit=5)
        cursor.execute("SHOW plan_cache_mode")
        assert cursor.fetchone()[0] == "force_custom_plan"


def test_equal_scores_in_a_leg_share_a_rank_whatever_the_lessons_ids():
    # The text leg orders equal scores by the lessons' random ids: fused by
    # position, the same history learned twice would recall in two orders
    # (the long-history evaluation's flags moved between runs of one code).
    a, b, c, d = (uuid.uuid4() for _ in range(4))
    ranked = [(a, 3.5), (b, 2.0), (c, 2.0), (d, 1.0)]
    assert list(selectors._tied_ranks(ranked)) == [(a, 1), (b, 2), (c, 2), (d, 4)]
    swapped = [(a, 3.5), (c, 2.0), (b, 2.0), (d, 1.0)]
    assert dict(selectors._tied_ranks(swapped)) == dict(selectors._tied_ranks(ranked))
