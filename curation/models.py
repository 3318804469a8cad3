"""Events: one row per state change of a lesson, for the live feed and the
audit trail. Events never carry lesson content (a forgotten lesson's event
must not keep what was forgotten)."""

from __future__ import annotations

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
