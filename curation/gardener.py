"""The gardener: memory forgets on purpose, by rules a person can read
(docs/design.md §8, §4).

Each step is a service over one tenant, bounded per run
(``TRIBUTARY_GARDENER_BATCH``), idempotent (running it twice in a row does
what running it once does), and recorded as a ``GardenerRun``:

* ``decay`` — a lesson not recalled or reinforced for
  ``TRIBUTARY_DECAY_GRACE_DAYS`` loses confidence by its kind's half-life,
  in whole days (so a second run the same day changes nothing); a decayed
  lesson under its kind's ``retire_below`` is *withered* and evicted.
* ``expire`` — a lesson past ``expires_at`` (its activation plus its kind's
  TTL: set when it is learned, and again when the TTL changes) is evicted.
* ``ceilings`` — a kind over its ceiling evicts its least recently useful
  lessons: the oldest last use (recall or reinforcement; never used: its
  activation), then the fewest uses. Not the oldest lessons.
* ``merge`` — near-duplicates (cosine distance under
  ``TRIBUTARY_MERGE_DISTANCE``) are merged only on the tenant judge's
  *duplicate* verdict; a judge that fails merges nothing. The newer lesson
  is retired into the older (a pinned one always stays), its supporting
  beliefs now support the survivor.
* ``purge_journal`` — journal lines past ``TRIBUTARY_JOURNAL_RETENTION_DAYS``
  (and gardener runs past 30 days) are deleted.
* ``requeue`` — learn requests stuck in ``pending`` are enqueued again.

Eviction does what the kind's policy says: ``retire`` (status change,
history and time travel keep it) or ``erase`` (content and embedding
gone). Every eviction writes one forgetting-journal line, never with
content or lesson id. Pinned lessons are never decayed, expired, evicted or
merged away; a lesson an open dispute is about waits for its curator.

Tenants are walked through the one cross-tenant mechanism; each tenant's
work runs in its own tenant-scoped transaction.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import F, Q, QuerySet, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from accounts.models import Tenant
from accounts.tenancy import cross_tenant, run_apply_transaction, tenant_context
from config.metrics import GARDENER_ACTIONS
from config.telemetry import span
from curation.merging import journal_age, merge_into
from curation.models import GardenerRun, JournalLine
from curation.rejudge import rejudge
from memory.models import Dispute, DisputeStatus, EventKind, Eviction, Lesson, LessonStatus
from memory.policies import EffectivePolicy, kind_policies
from memory.selectors import recall_counts

log = logging.getLogger(__name__)

STEPS = ("decay", "expire", "ceilings", "merge", "rejudge", "purge_journal", "requeue")
RUN_RETENTION = timedelta(days=30)
# Merge looks only at lessons activated at least this long ago: a learn
# stamps activated_at before it commits, so a newer cursor could pass over
# a lesson whose transaction was still open.
MERGE_SETTLE = timedelta(minutes=2)


@dataclass
class StepResult:
    tenant: str
    step: str
    counts: dict[str, Any] = field(default_factory=dict)
    error: str = ""


# --- shared ---------------------------------------------------------------


def _evictable(tenant_id: uuid.UUID) -> QuerySet[Lesson]:
    """Active, unpinned lessons no open dispute is about."""
    disputed = Dispute.objects.filter(status=DisputeStatus.OPEN).values("target_id")
    return Lesson.objects.filter(
        tenant_id=tenant_id, status=LessonStatus.ACTIVE, pinned=False
    ).exclude(id__in=disputed)


def _evict(
    lessons: Sequence[Lesson], *, rule: str, policies: dict[str, EffectivePolicy], now: datetime
) -> int:
    """Take each lesson out of use the way its kind's policy says and write
    its journal line. Precondition: inside the tenant's apply transaction."""
    from memory.services.transitions import lesson_move

    recalls = recall_counts([lesson.id for lesson in lessons])
    lines = []
    for lesson in lessons:
        action = policies[lesson.kind].eviction
        erase = action == Eviction.ERASE
        lesson_move(
            tenant_id=lesson.tenant_id, agent_id=None, lesson=lesson,
            status=LessonStatus.ERASED if erase else LessonStatus.RETIRED,
            event=EventKind.FORGOTTEN if erase else EventKind.RETIRED,
            event_data={"by": "gardener", "rule": rule},
            **({} if erase else {"retired_reason": f"gardener: {rule}"}),
        )  # fmt: skip
        lines.append(
            JournalLine(
                tenant_id=lesson.tenant_id, kind=lesson.kind, rule=rule, action=action,
                age_seconds=journal_age(now, lesson.created_at),
                times_recalled=recalls.get(lesson.id, 0),
                times_reinforced=lesson.reinforcement_count, created_at=now,
            )
        )  # fmt: skip
    JournalLine.objects.bulk_create(lines)
    return len(lines)


# --- the steps (each: tenant id, its policies, now → counts) ---------------

_DECAY_SQL = """
WITH due AS (
    SELECT l.id,
           greatest(l.decayed_at,
                    greatest(l.last_useful_at, s.last_recalled_at, l.activated_at)
                    + %(grace)s * interval '1 day') AS since
    FROM memory_lesson l
    LEFT JOIN memory_lessonrecallstats s ON s.lesson_id = l.id
    WHERE l.tenant_id = %(tenant)s AND l.kind = %(kind)s AND l.status = 'active'
      AND NOT l.pinned
), steps AS (
    SELECT id, since, floor(extract(epoch FROM %(now)s - since) / 86400)::int AS days
    FROM due WHERE since <= %(now)s - interval '1 day'
    ORDER BY since LIMIT %(limit)s
)
UPDATE memory_lesson l
-- float8 throughout, and the exponent capped: 0.5^1000 is already 0 to a
-- double, and a numeric power that small would not fit one.
SET confidence = l.confidence
        * power(0.5::float8, least(steps.days / %(half_life)s::float8, 1000.0)),
    decayed_at = steps.since + steps.days * interval '1 day'
FROM steps WHERE l.id = steps.id AND l.tenant_id = %(tenant)s
"""


def _decay(tenant_id: uuid.UUID, policies: dict[str, EffectivePolicy], now: datetime) -> dict:
    batch = settings.TRIBUTARY_GARDENER_BATCH
    decayed = withered = 0
    for kind, policy in policies.items():
        if policy.half_life_days is None:
            continue
        with connection.cursor() as cursor:
            cursor.execute(
                _DECAY_SQL,
                {"tenant": tenant_id, "kind": kind, "now": now, "limit": batch,
                 "grace": settings.TRIBUTARY_DECAY_GRACE_DAYS,
                 "half_life": policy.half_life_days},
            )  # fmt: skip
            decayed += cursor.rowcount
        # Only decay withers: a lesson learned with low confidence is not.
        dying = list(
            _evictable(tenant_id)
            .filter(kind=kind, decayed_at__isnull=False, confidence__lt=policy.retire_below)
            .order_by("confidence", "id")[:batch]
        )
        withered += _evict(dying, rule="withered", policies=policies, now=now)
    return {"decayed": decayed, "withered": withered}


def _expire(tenant_id: uuid.UUID, policies: dict[str, EffectivePolicy], now: datetime) -> dict:
    lessons = list(
        _evictable(tenant_id)
        .filter(expires_at__lte=now)
        .order_by("expires_at", "id")[: settings.TRIBUTARY_GARDENER_BATCH]
    )
    return {"expired": _evict(lessons, rule="expired", policies=policies, now=now)}


def least_recently_useful(tenant_id: uuid.UUID, kind: str) -> QuerySet[Lesson]:
    """The kind's evictable lessons, least recently useful first: the oldest
    last use (a recall or a reinforcement; never used: since it became
    active), then the fewest uses, then the oldest."""
    return (
        _evictable(tenant_id)
        .filter(kind=kind)
        .annotate(
            used_at=Greatest("last_useful_at", "recall_stats__last_recalled_at", "activated_at"),
            uses=F("reinforcement_count") + Coalesce("recall_stats__recall_count", Value(0)),
        )
        .order_by("used_at", "uses", "created_at", "id")
    )


def _ceilings(tenant_id: uuid.UUID, policies: dict[str, EffectivePolicy], now: datetime) -> dict:
    evicted = 0
    budget = settings.TRIBUTARY_GARDENER_BATCH
    for kind, policy in policies.items():
        if policy.ceiling is None or budget <= 0:
            continue
        active = Lesson.objects.filter(
            tenant_id=tenant_id, kind=kind, status=LessonStatus.ACTIVE
        ).count()
        excess = min(active - policy.ceiling, budget)
        if excess <= 0:
            continue
        victims = list(least_recently_useful(tenant_id, kind)[:excess])
        evicted += _evict(victims, rule="ceiling", policies=policies, now=now)
        budget -= len(victims)
    return {"evicted": evicted}


def _purge_journal(
    tenant_id: uuid.UUID, policies: dict[str, EffectivePolicy], now: datetime
) -> dict:
    cutoff = now - timedelta(days=settings.TRIBUTARY_JOURNAL_RETENTION_DAYS)
    purged, _ = JournalLine.objects.filter(tenant_id=tenant_id, created_at__lt=cutoff).delete()
    runs, _ = GardenerRun.objects.filter(
        tenant_id=tenant_id, started_at__lt=now - RUN_RETENTION
    ).delete()
    return {"journal_purged": purged, "runs_purged": runs}


# --- merge: read, judge outside any transaction, then apply ----------------

_NEAREST_SQL = """
SELECT a.id, near.id, near.distance
FROM memory_lesson a CROSS JOIN LATERAL (
    SELECT b.id, a.embedding <=> b.embedding AS distance
    FROM memory_lesson b
    WHERE b.tenant_id = a.tenant_id AND b.kind = a.kind AND b.status = 'active'
      AND b.id <> a.id AND b.embedding IS NOT NULL
    ORDER BY (a.embedding <=> b.embedding) + 0
    LIMIT 1
) AS near
WHERE a.tenant_id = %(tenant)s AND a.id = ANY(%(ids)s) AND near.distance < %(distance)s
"""


@dataclass(frozen=True)
class _Pair:
    survivor: Lesson
    merged: Lesson
    distance: float
    row: int  # index of the fresh lesson that found the pair


def _merge_cursor(tenant_id: uuid.UUID) -> tuple[datetime, str] | None:
    last = (
        GardenerRun.objects.filter(tenant_id=tenant_id, task="merge", error="")
        .order_by("-started_at")
        .values_list("counts", flat=True)
        .first()
    )
    cursor = (last or {}).get("cursor")
    if not isinstance(cursor, dict):
        return None
    return datetime.fromisoformat(cursor["at"]), cursor["id"]


def _merge_pairs(
    tenant_id: uuid.UUID, policies: dict[str, EffectivePolicy], started: datetime
) -> tuple[list[_Pair], list[tuple[uuid.UUID, Any]]]:
    """Pairs to ask the judge about, for the lessons activated after the
    last merge run's cursor — a keyset on (activated_at, id), oldest first,
    bounded, and only up to ``MERGE_SETTLE`` ago so that a learn committed
    late with an earlier activation time is not passed over — and those
    lessons (the rows the cursor may move over)."""
    kinds = [k for k, p in policies.items() if p.merge_duplicates]
    fresh = Lesson.objects.filter(
        tenant_id=tenant_id, kind__in=kinds, status=LessonStatus.ACTIVE, embedding__isnull=False,
        activated_at__lte=started - MERGE_SETTLE,
    )  # fmt: skip
    cursor = _merge_cursor(tenant_id)
    if cursor is not None:
        at, last_id = cursor
        fresh = fresh.filter(Q(activated_at__gt=at) | Q(activated_at=at, id__gt=last_id))
    rows = list(
        fresh.order_by("activated_at", "id").values_list("id", "activated_at")[
            : settings.TRIBUTARY_GARDENER_BATCH
        ]
    )
    if not rows:
        return [], rows
    with connection.cursor() as db:
        db.execute(
            _NEAREST_SQL,
            {"tenant": tenant_id, "ids": [r[0] for r in rows],
             "distance": settings.TRIBUTARY_MERGE_DISTANCE},
        )  # fmt: skip
        near = db.fetchall()
    lessons = Lesson.objects.in_bulk({i for a, b, _ in near for i in (a, b)})
    waiting = set(
        Dispute.objects.filter(status=DisputeStatus.OPEN).values_list("target_id", flat=True)
    )
    index = {row[0]: i for i, row in enumerate(rows)}
    pairs, seen = [], set()
    for a_id, b_id, distance in near:
        key = frozenset((a_id, b_id))
        if key in seen:
            continue
        seen.add(key)
        a, b = lessons[a_id], lessons[b_id]
        # The survivor: a pinned lesson, else one a dispute waits on, else
        # the one active first. Neither pinned nor disputed is merged away.
        survivor, merged = sorted(
            (a, b), key=lambda x: (not x.pinned, x.id not in waiting, x.activated_at, x.id)
        )
        if merged.pinned or merged.id in waiting:
            continue
        pairs.append(_Pair(survivor, merged, float(distance), index[a_id]))
    return pairs, rows


def _merge(tenant_id: uuid.UUID, trigger: str) -> dict:
    """The merge step: its own transactions (the judge runs between them).
    The cursor stops before the first lesson whose judge call failed, so
    it is judged again next time."""
    from memory.judge import Candidate, Relation, judge_for
    from memory.judge.calls import collect_calls, model_calls_save
    from memory.judge.llm import JudgeUnavailable

    started = timezone.now()
    with tenant_context(tenant_id):
        policies = kind_policies(tenant_id)
        pairs, rows = _merge_pairs(tenant_id, policies, started)
        previous = _merge_cursor(tenant_id)
        config = Tenant.objects.filter(id=tenant_id).values_list("judge_config", flat=True).first()
    judge = judge_for(config or {})
    confirmed: list[tuple[Lesson, Lesson, str]] = []
    failed_rows = []
    with collect_calls() as calls:
        for pair in pairs:
            try:
                verdict = judge.classify(
                    content=pair.merged.content, situation=pair.merged.situation,
                    candidates=[Candidate(id=pair.survivor.id, content=pair.survivor.content,
                                          situation=pair.survivor.situation,
                                          similarity=1.0 - pair.distance)],
                )  # fmt: skip
            except JudgeUnavailable as exc:
                log.warning("gardener merge: judge failed for %s: %s", pair.merged.id, exc)
                failed_rows.append(pair.row)
                continue
            if verdict.relation is Relation.DUPLICATE and verdict.target_id == pair.survivor.id:
                confirmed.append((pair.survivor, pair.merged, verdict.judge))
    done = min(failed_rows, default=len(rows))  # rows before it are judged
    cursor_at = rows[done - 1] if done else None
    cursor = (
        {"at": cursor_at[1].isoformat(), "id": str(cursor_at[0])}
        if cursor_at
        else ({"at": previous[0].isoformat(), "id": previous[1]} if previous else None)
    )
    unavailable = len(failed_rows)

    def operation() -> dict:
        now = timezone.now()
        merged_count = sum(
            merge_into(
                tenant_id=tenant_id,
                survivor=survivor,
                merged=merged,
                judge_name=judge_name,
                policies=policies,
                now=now,
            )
            for survivor, merged, judge_name in confirmed
        )
        model_calls_save(tenant_id=tenant_id, calls=[(None, c) for c in calls], created_at=now)
        counts = {
            "pairs_judged": len(pairs), "merged": merged_count, "judge_failed": unavailable,
            "cursor": cursor,
        }  # fmt: skip
        GardenerRun.objects.create(
            tenant_id=tenant_id, task="merge", trigger=trigger, counts=counts,
            started_at=started, finished_at=timezone.now(),
        )  # fmt: skip
        return counts

    return run_apply_transaction(tenant_id, operation)


def _requeue(tenant_id: uuid.UUID, trigger: str) -> dict:
    from memory.services.learn import requeue_stale_learn_requests

    started = timezone.now()
    count = requeue_stale_learn_requests(tenant_id=tenant_id)
    counts = {"requeued": count}
    with tenant_context(tenant_id):
        GardenerRun.objects.create(
            tenant_id=tenant_id, task="requeue", trigger=trigger, counts=counts,
            started_at=started, finished_at=timezone.now(),
        )  # fmt: skip
    return counts


_LESSON_STEPS: dict[str, Callable[[uuid.UUID, dict[str, EffectivePolicy], datetime], dict]] = {
    "decay": _decay,
    "expire": _expire,
    "ceilings": _ceilings,
    "purge_journal": _purge_journal,
}


def garden_tenant(tenant_id: uuid.UUID, step: str, *, trigger: str = "beat") -> dict:
    """Run one step for one tenant, recorded as a ``GardenerRun`` in the
    same transaction as its work."""
    if step == "merge":
        return _merge(tenant_id, trigger)
    if step == "requeue":
        return _requeue(tenant_id, trigger)
    if step == "rejudge":
        return rejudge(tenant_id, trigger)
    work = _LESSON_STEPS[step]

    def operation() -> dict:
        started = timezone.now()
        counts = work(tenant_id, kind_policies(tenant_id), started)
        GardenerRun.objects.create(
            tenant_id=tenant_id, task=step, trigger=trigger, counts=counts,
            started_at=started, finished_at=timezone.now(),
        )  # fmt: skip
        return counts

    return run_apply_transaction(tenant_id, operation)


def garden(
    *, steps: Sequence[str] = STEPS, tenant_slug: str | None = None, trigger: str = "beat"
) -> list[StepResult]:
    """Run ``steps`` for every tenant (or one), tenant by tenant. A step
    that fails for one tenant is recorded and logged; the others go on."""
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        raise ValueError(f"unknown gardener step(s): {', '.join(unknown)}")
    with cross_tenant(reason="gardener: tenant walk"):
        tenants = Tenant.objects.order_by("slug")
        if tenant_slug is not None:
            tenants = tenants.filter(slug=tenant_slug)
        walk = list(tenants.values_list("id", "slug"))
    if tenant_slug is not None and not walk:
        raise LookupError(f"no tenant {tenant_slug!r}")
    results = []
    for tenant_id, slug in walk:
        for step in steps:
            began = time.perf_counter()
            try:
                with span("gardener.step", step=step, trigger=trigger):
                    counts = garden_tenant(tenant_id, step, trigger=trigger)
                _count_actions(step, counts)
                results.append(StepResult(slug, step, counts))
            except Exception as exc:  # one tenant's failure must not stop the others
                log.exception("gardener %s failed for tenant %s", step, slug)
                _record_failure(tenant_id, step, trigger, exc)
                results.append(StepResult(slug, step, error=f"{type(exc).__name__}: {exc}"))
            log.debug("gardener %s %s in %.0f ms", step, slug, (time.perf_counter() - began) * 1e3)
    return results


def _count_actions(step: str, counts: dict[str, Any]) -> None:
    """What the step did, in the gardener's metrics: each count is an action."""
    for action, value in counts.items():
        if action != "cursor" and isinstance(value, int) and not isinstance(value, bool) and value:
            GARDENER_ACTIONS.labels(step, action).inc(value)


def _record_failure(tenant_id: uuid.UUID, step: str, trigger: str, exc: Exception) -> None:
    now = timezone.now()
    try:
        with tenant_context(tenant_id):
            GardenerRun.objects.create(
                tenant_id=tenant_id, task=step, trigger=trigger, started_at=now, finished_at=now,
                error=f"{type(exc).__name__}: {exc}"[:2000],
            )  # fmt: skip
    except Exception:  # the database itself may be what failed
        log.exception("could not record the gardener failure")
