"""The gardener's record: the forgetting journal and each run's counts.
(Events, disputes, curator actions and kind policies belong to the core:
``memory.models``.)"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from memory.models import Eviction


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
