"""What each Gauntlet agent did, per run and generation: the dashboard's
learning curve reads it."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone


class GauntletResult(models.Model):
    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    run = models.UUIDField(default=uuid.uuid4)
    generation = models.IntegerField()
    agent = models.CharField(max_length=100)
    outcome = models.CharField(max_length=16)
    steps = models.IntegerField()
    tokens = models.IntegerField()
    recalled = models.IntegerField()
    learned = models.IntegerField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["tenant", "-created_at"], name="gauntlet_recent")]

    def __str__(self) -> str:
        return f"{self.agent} gen {self.generation}: {self.steps} steps"
