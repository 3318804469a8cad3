"""Events: one row per state change of a lesson, for the live feed and the
audit trail. Events never carry lesson content (a forgotten lesson's event
must not keep what was forgotten)."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone


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
        "memory.Lesson", on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )
    agent = models.ForeignKey("accounts.Agent", on_delete=models.SET_NULL, null=True, blank=True)
    learn_request = models.ForeignKey(
        "memory.LearnRequest", on_delete=models.SET_NULL, null=True, blank=True
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
        "memory.Lesson", on_delete=models.CASCADE, related_name="disputes_opened"
    )
    target = models.ForeignKey(
        "memory.Lesson", on_delete=models.CASCADE, related_name="disputes_against"
    )
    opened_by = models.ForeignKey("accounts.Agent", on_delete=models.PROTECT, related_name="+")
    learn_request = models.ForeignKey(
        "memory.LearnRequest", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    rationale = models.TextField(blank=True)  # the judge's
    status = models.CharField(
        max_length=16, choices=DisputeStatus.choices, default=DisputeStatus.OPEN
    )
    resolution = models.CharField(max_length=16, choices=Resolution.choices, blank=True)
    resolved_by = models.ForeignKey(
        "accounts.Agent", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
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


class JournalLine(models.Model):
    """The forgetting journal: one line per automatic eviction or deletion.
    Deliberately without the lesson's content and without its id (an id
    could be joined back to content kept elsewhere): what was forgotten
    stays forgotten, that it was forgotten and by which rule stays known."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    kind = models.CharField(max_length=16)
    age_seconds = models.BigIntegerField()  # the lesson's age when forgotten
    times_recalled = models.IntegerField()
    times_reinforced = models.IntegerField(default=0)
    rule = models.CharField(max_length=16)  # withered | expired | ceiling | merged
    action = models.CharField(max_length=8, choices=Eviction.choices)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["tenant", "created_at"], name="journal_tenant_created")]

    def __str__(self) -> str:
        return f"{self.kind} {self.rule} {self.action}"


class GardenerRun(models.Model):
    """One gardener task's work on one tenant: what it did, for
    ``curation/state`` and the admin."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    task = models.CharField(max_length=32)
    trigger = models.CharField(max_length=16)  # beat | command
    counts = models.JSONField(default=dict)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["tenant", "task", "-started_at"], name="gardener_last")]

    def __str__(self) -> str:
        return f"{self.task} {self.started_at:%Y-%m-%d %H:%M}"


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
