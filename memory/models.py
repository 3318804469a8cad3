"""Lessons, their (tenant, kind) scopes, the durable learn inbox, and what
happens to lessons: events, disputes, curator actions, kind policies.

Events never carry lesson content (a forgotten lesson's event must not keep
what was forgotten).

Every table but the evaluation history and the search calibration (numbers
only) is a tenant table under row-level security; references between
tenant rows are composite ``(id, tenant_id)`` foreign keys (see the
migrations), so nothing can point across tenants.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone
from pgvector.django import HalfVectorField

EMBEDDING_DIMENSIONS = 384


class Kind(models.TextChoices):
    LESSON = "lesson"
    FACT = "fact"
    PROCEDURE = "procedure"
    PREFERENCE = "preference"
    SESSION = "session"


class LessonStatus(models.TextChoices):
    ACTIVE = "active"  # recallable
    SUPERSEDED = "superseded"  # replaced by a contradiction (superseded_by)
    RETIRED = "retired"  # taken out of use by a curator; history kept
    DISPUTED = "disputed"  # contradicts another agent's lesson; awaits a curator
    QUARANTINED = "quarantined"  # failed the injection screen; never recalled
    ERASED = "erased"  # forgotten: content and embedding deleted


class Scope(models.Model):
    """One row per (tenant, kind): the version counter the learn transaction
    re-validates (docs/design.md §11) and the count of active lessons recall uses to
    choose exact or approximate search."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    version = models.BigIntegerField(default=0)
    active_count = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "kind"], name="scope_tenant_kind"),
            models.CheckConstraint(condition=models.Q(active_count__gte=0), name="scope_count"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} v{self.version}"


class LessonManager(models.Manager["Lesson"]):
    def get_queryset(self) -> models.QuerySet[Lesson]:
        # 384 numbers parsed per row are the costliest part of loading a
        # lesson, and almost nothing reads them back (searches run in SQL).
        return super().get_queryset().defer("embedding")


class Lesson(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.LESSON)
    content = models.TextField()
    situation = models.TextField(blank=True)
    # halfvec, not vector: half the storage and index (docs/design.md §11), with
    # recall@10 unchanged (docs/benchmarks.md).
    embedding = HalfVectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    status = models.CharField(max_length=16, choices=LessonStatus.choices)
    confidence = models.FloatField(default=0.7)
    author = models.ForeignKey(
        "accounts.Agent", on_delete=models.PROTECT, related_name="lessons", db_constraint=False
    )
    reinforcement_count = models.IntegerField(default=0)
    last_useful_at = models.DateTimeField(null=True, blank=True)
    pinned = models.BooleanField(default=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # The validity interval: when the tribe believed it (time travel).
    activated_at = models.DateTimeField(null=True, blank=True)
    deactivated_at = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="supersedes",
        db_constraint=False,
    )
    # Retired by the gardener as a duplicate of this lesson: erased with it.
    merged_into = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="merged",
        db_constraint=False,
    )
    # Inserted as novel because the judge failed: to be judged again.
    needs_rejudge = models.BooleanField(default=False)
    # The corroboration policy's last word on this lesson (see
    # provenance.services.lessons_evaluate; every evaluation is audited).
    corroboration = models.CharField(max_length=16, default="single-source")
    corroboration_reason = models.CharField(max_length=500, blank=True)
    retired_reason = models.CharField(max_length=500, blank=True)
    # The gardener's decay has been applied up to this instant (whole days,
    # so a second run in the same day changes nothing).
    decayed_at = models.DateTimeField(null=True, blank=True)
    erased_at = models.DateTimeField(null=True, blank=True)

    objects = LessonManager()

    class Meta:
        indexes = [
            # Exact per-tenant search and every per-tenant listing.
            models.Index(fields=["tenant", "kind", "status"], name="lesson_tenant_kind_status"),
            # Time travel: validity intervals within a tenant.
            models.Index(fields=["tenant", "activated_at"], name="lesson_tenant_activated"),
            # HNSW: one partial index per large tenant, built by the sync in
            # memory/hnsw.py where pgvector's HNSW can run (not a migration).
        ]
        constraints = [
            models.UniqueConstraint(fields=["id", "tenant"], name="lesson_id_tenant"),
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0, confidence__lte=1),
                name="lesson_confidence_range",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="active")
                | models.Q(activated_at__isnull=False, deactivated_at__isnull=True),
                name="lesson_active_is_open",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="superseded")
                | models.Q(superseded_by__isnull=False, deactivated_at__isnull=False),
                name="lesson_superseded_has_successor",
            ),
        ]

    def __str__(self) -> str:
        return f"[{self.status}] {self.content[:60]}"


class LessonRecallStats(models.Model):
    """Recall bookkeeping, kept off the lesson row on purpose: the learn
    transaction updates lessons under snapshot isolation, and a recall
    count written to the same row meanwhile would make it retry. Written
    only by the bookkeeping task, never inside a learn."""

    lesson = models.OneToOneField(
        Lesson,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="recall_stats",
        db_constraint=False,
    )
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    recall_count = models.IntegerField(default=0)
    last_recalled_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.lesson_id}: {self.recall_count} recalls"


class RequestStatus(models.TextChoices):
    PENDING = "pending"
    APPLIED = "applied"
    FAILED = "failed"


class Outcome(models.TextChoices):
    INSERTED = "inserted"
    REINFORCED = "reinforced"
    SUPERSEDED = "superseded"
    DISPUTED = "disputed"
    QUARANTINED = "quarantined"


class LearnRequest(models.Model):
    """The durable inbox: one row per ``learn`` call, written before
    anything else, so nothing an agent sent is lost if a worker dies."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    agent = models.ForeignKey("accounts.Agent", on_delete=models.PROTECT, db_constraint=False)
    content = models.TextField()
    situation = models.TextField(blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    confidence = models.FloatField()
    derived_from = models.JSONField(default=list, blank=True)
    idempotency_key = models.CharField(max_length=200, blank=True, default="")
    belief = models.ForeignKey(
        "provenance.Belief",
        on_delete=models.PROTECT,
        related_name="learn_requests",
        db_constraint=False,
    )
    status = models.CharField(
        max_length=16, choices=RequestStatus.choices, default=RequestStatus.PENDING
    )
    outcome = models.CharField(max_length=16, choices=Outcome.choices, blank=True)
    lesson = models.ForeignKey(
        Lesson,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    target_lesson = models.ForeignKey(
        Lesson,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    judge = models.CharField(max_length=100, blank=True)
    verdict_confidence = models.FloatField(null=True, blank=True)
    rationale = models.TextField(blank=True)
    # Processing: a lease (claim) so two workers rarely do the same work; the
    # apply transaction's status check makes doing it twice harmless anyway.
    lease_until = models.DateTimeField(null=True, blank=True)
    claims = models.IntegerField(default=0)
    attempts = models.IntegerField(default=0)  # apply transactions tried
    revalidations = models.IntegerField(default=0)  # scope moved: back to the candidate read
    serialization_failures = models.IntegerField(default=0)  # 40001 / 40P01 retried
    timings = models.JSONField(default=dict, blank=True)  # ms: embed, candidates, judge, apply
    error = models.TextField(blank=True)
    judge_fallback = models.BooleanField(default=False)  # the judge failed: inserted as novel
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["status", "created_at"],
                name="learnrequest_pending",
                condition=models.Q(status="pending"),
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["id", "tenant"], name="learnrequest_id_tenant"),
            models.UniqueConstraint(
                fields=["agent", "idempotency_key"],
                name="learnrequest_idempotency",
                condition=~models.Q(idempotency_key=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.status} {self.outcome or ''} {self.id}"


class EvalRun(models.Model):
    """One run of the evaluation harness (``python manage.py evals``): its
    tier, judge, commit and metrics, so runs can be compared. Holds no
    tenant data (the harness uses its own tenant and records only numbers)."""

    id = models.BigAutoField(primary_key=True)
    tier = models.CharField(max_length=16)
    judge = models.CharField(max_length=200)
    commit = models.CharField(max_length=40, blank=True)
    metrics = models.JSONField(default=dict)
    passed = models.BooleanField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return f"{self.tier} {self.judge} {self.commit or '?'} {'pass' if self.passed else 'FAIL'}"


class SearchCalibration(models.Model):
    """One measurement of what a search costs on this database server, exact
    against a tenant's own HNSW index (``memory.search_cost``), and the
    crossover it gives: tenants up to ``exact_max`` active lessons are
    searched exactly, larger ones through their index. The newest row is
    the one in force while ``TRIBUTARY_EXACT_SEARCH_MAX`` is ``auto``. Holds
    no tenant data: sizes and times only."""

    id = models.BigAutoField(primary_key=True)
    measured_at = models.DateTimeField(default=timezone.now, editable=False)
    # All four None: a measurement that gave no threshold (it still makes
    # the next one wait); the newest row with a threshold is in force.
    exact_max = models.IntegerField(null=True, blank=True)
    exact_fixed_ms = models.FloatField(null=True, blank=True)  # exact search at no lessons
    exact_per_1000_ms = models.FloatField(null=True, blank=True)  # … per 1,000 lessons
    hnsw_ms = models.FloatField(null=True, blank=True)  # the index search
    samples = models.JSONField(default=list)  # [{lessons, exact_ms, hnsw_ms}]

    class Meta:
        indexes = [models.Index(fields=["-measured_at"], name="searchcalibration_newest")]

    def __str__(self) -> str:
        found = f"exact up to {self.exact_max} lessons" if self.exact_max else "no threshold"
        return f"{found} ({self.measured_at:%Y-%m-%d %H:%M})"


class ModelCall(models.Model):
    """One call to a language model (a judge's), for cost and latency:
    ``GET /api/v1/stats`` and the admin summarise these."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    learn_request = models.ForeignKey(
        LearnRequest,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    provider = models.CharField(max_length=32)
    model = models.CharField(max_length=200)
    purpose = models.CharField(max_length=16)  # classify | escalate
    input_tokens = models.IntegerField(null=True, blank=True)
    output_tokens = models.IntegerField(null=True, blank=True)
    cost = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    latency_ms = models.FloatField()
    outcome = models.CharField(max_length=16)  # ok | malformed | rate_limited | timeout | error
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["tenant", "model", "created_at"], name="modelcall_stats")]

    def __str__(self) -> str:
        return f"{self.provider}:{self.model} {self.purpose} {self.outcome}"


class LessonTerm(models.Model):
    """The lexemes of each lesson (its full-text vector, one row each),
    kept by a trigger on ``memory_lesson``. Why a table beside the GIN
    index: under row-level security PostgreSQL may not use the GIN index
    (``@@`` is not leakproof), while an equality on (tenant, lexeme) is and
    uses this B-tree — the full-text leg reads a few index entries instead
    of scanning the tenant's lessons. An erased lesson has none."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    lexeme = models.TextField()

    class Meta:
        indexes = [models.Index(fields=["tenant", "lexeme"], name="lessonterm_tenant_lexeme")]

    def __str__(self) -> str:
        return self.lexeme


# The lesson's history and the curators' record, owned by the core: events
# (the feed and audit trail), disputes, curator actions, kind policies.


class EventKind(models.TextChoices):
    LEARNED = "learned"
    REINFORCED = "reinforced"
    SUPERSEDED = "superseded"
    DISPUTED = "disputed"
    QUARANTINED = "quarantined"
    RETIRED = "retired"
    FORGOTTEN = "forgotten"
    RESOLVED = "resolved"  # a curator resolved a dispute
    INVALIDATED = "invalidated"  # a curator invalidated a source; the cascade ran


class Event(models.Model):
    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    kind = models.CharField(max_length=16, choices=EventKind.choices)
    lesson = models.ForeignKey(
        "memory.Lesson",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="events",
        db_constraint=False,
    )
    agent = models.ForeignKey(
        "accounts.Agent", on_delete=models.SET_NULL, null=True, blank=True, db_constraint=False
    )
    learn_request = models.ForeignKey(
        "memory.LearnRequest",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        db_constraint=False,
    )
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["tenant", "-created_at"], name="event_feed")]

    def __str__(self) -> str:
        return f"{self.kind} {self.lesson_id or ''}"


class DisputeStatus(models.TextChoices):
    OPEN = "open"
    RESOLVED = "resolved"


class Resolution(models.TextChoices):
    KEEP_OLD = "keep_old"  # the disputed lesson is retired; the old one stays
    ACCEPT_NEW = "accept_new"  # the old lesson is superseded by the new (a chain)
    KEEP_BOTH = "keep_both"  # both are active (they were not in conflict after all)
    WITHDRAWN = "withdrawn"  # the disputed lesson was retired or forgotten meanwhile


class Dispute(models.Model):
    """A writer's lesson that contradicts another agent's active lesson. A
    writer never overturns someone else's lesson: the new one waits,
    ``disputed``, and the old one stays active until a curator decides."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    lesson = models.ForeignKey(
        "memory.Lesson",
        on_delete=models.CASCADE,
        related_name="disputes_opened",
        db_constraint=False,
    )
    target = models.ForeignKey(
        "memory.Lesson",
        on_delete=models.CASCADE,
        related_name="disputes_against",
        db_constraint=False,
    )
    opened_by = models.ForeignKey(
        "accounts.Agent", on_delete=models.PROTECT, related_name="+", db_constraint=False
    )
    learn_request = models.ForeignKey(
        "memory.LearnRequest",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    rationale = models.TextField(blank=True)  # the judge's
    status = models.CharField(
        max_length=16, choices=DisputeStatus.choices, default=DisputeStatus.OPEN
    )
    resolution = models.CharField(max_length=16, choices=Resolution.choices, blank=True)
    resolved_by = models.ForeignKey(
        "accounts.Agent",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["tenant", "status", "created_at"], name="dispute_queue")]
        constraints = [
            models.UniqueConstraint(fields=["lesson"], name="dispute_one_per_lesson"),
            models.CheckConstraint(
                condition=models.Q(status="open", resolution="")
                | models.Q(status="resolved", resolved_at__isnull=False) & ~models.Q(resolution=""),
                name="dispute_resolved_has_resolution",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.status} {self.resolution or ''} {self.lesson_id}"


class Eviction(models.TextChoices):
    RETIRE = "retire"  # status change: history and time travel keep it
    ERASE = "erase"  # content and embedding deleted; a tombstone stays


class KindPolicy(models.Model):
    """A tenant's override of one kind's forgetting policy (the defaults are
    ``TRIBUTARY_KIND_POLICIES``). A row holds the whole policy: a curator's
    ``PUT`` replaces it, fields left out taking the defaults."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    kind = models.CharField(max_length=16)
    ceiling = models.PositiveIntegerField(null=True, blank=True)  # max active lessons
    ttl_seconds = models.PositiveIntegerField(null=True, blank=True)
    half_life_days = models.FloatField(null=True, blank=True)  # None: no decay
    retire_below = models.FloatField(default=0.2)
    eviction = models.CharField(max_length=8, choices=Eviction.choices, default=Eviction.RETIRE)
    merge_duplicates = models.BooleanField(default=True)
    # Lessons of the kind are pinned when learned: never decayed, expired,
    # evicted or merged away (e.g. a tenant's standing preferences).
    pinned = models.BooleanField(default=False)
    updated_by = models.CharField(max_length=200, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "kind policies"
        constraints = [
            models.UniqueConstraint(fields=["tenant", "kind"], name="kindpolicy_tenant_kind"),
            models.CheckConstraint(
                condition=models.Q(retire_below__gte=0, retire_below__lte=1),
                name="kindpolicy_retire_below_range",
            ),
            models.CheckConstraint(
                condition=models.Q(half_life_days__isnull=True) | models.Q(half_life_days__gt=0),
                name="kindpolicy_half_life_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} policy"


class CuratorAction(models.Model):
    """The audit of what a curator did, who and why: through the API (an
    agent) or the admin (a staff user, as agent ``staff:<username>``)."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    actor = models.CharField(max_length=200)
    action = models.CharField(max_length=32)
    target_type = models.CharField(max_length=32)
    target_id = models.CharField(max_length=64, blank=True)
    reason = models.CharField(max_length=1000, blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["tenant", "-created_at"], name="curatoraction_recent")]

    def __str__(self) -> str:
        return f"{self.actor} {self.action} {self.target_type} {self.target_id}"
