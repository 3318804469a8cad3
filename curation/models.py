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
