"""The provenance substrate: observations, beliefs and the typed edges
between them and lessons.

``learn`` writes the agent's belief, a ``derived_from`` edge to each parent
it cites (or to an observation of its own first-hand experience when it
cites nothing), and a ``supports`` / ``contradicts`` edge to the lesson the
judge related it to. The provenance issue extends this (source families,
validity, decisions, independence, cascades).

Every row is a tenant row under row-level security; every reference between
two rows is a composite (id, tenant_id) foreign key, so an edge can never
join two tenants — the database refuses.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from django.db import models
from django.utils import timezone


class SourceType(models.TextChoices):
    FIRST_HAND = "first_hand", "an agent's first-hand experience"
    TOOL_OUTPUT = "tool_output", "tool output"
    LOG = "log", "log line"
    DOCUMENT = "document", "document"
    HUMAN = "human", "a person"


class Observation(models.Model):
    """Evidence from outside. Immutable: only its validity may change."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    agent = models.ForeignKey(
        "accounts.Agent", on_delete=models.PROTECT, null=True, blank=True, db_constraint=False
    )
    source_type = models.CharField(max_length=20, choices=SourceType.choices)
    content = models.TextField()
    source_uri = models.CharField(max_length=2000, blank=True)
    source_family = models.CharField(max_length=200, blank=True)
    content_hash = models.CharField(max_length=64, editable=False)
    reliability = models.FloatField(default=0.8)
    # Validity is the one thing that changes: a source found wrong is
    # invalidated (never edited, never deleted) and the cascade repairs
    # what rests on it.
    valid = models.BooleanField(default=True)
    invalid_reason = models.CharField(max_length=500, blank=True)
    invalidated_at = models.DateTimeField(null=True, blank=True)
    # An agent's first-hand observation holds the text of its lesson; when
    # the lesson is erased its content goes too (the one edit allowed).
    erased_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["id", "tenant"], name="observation_id_tenant"),
            models.CheckConstraint(
                condition=models.Q(reliability__gte=0, reliability__lte=1),
                name="observation_reliability_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source_type}: {self.content[:60]}"

    @staticmethod
    def hash_content(content: str) -> str:
        return hashlib.sha256(content.encode()).hexdigest()


class BeliefStatus(models.TextChoices):
    HELD = "held"
    UNCERTAIN = "uncertain"  # one of its roots was invalidated; others remain
    RETRACTED = "retracted"  # no valid root remains


class Belief(models.Model):
    """One agent's assertion, citing at least one parent."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    agent = models.ForeignKey("accounts.Agent", on_delete=models.PROTECT, db_constraint=False)
    content = models.TextField()
    confidence = models.FloatField()
    status = models.CharField(
        max_length=16, choices=BeliefStatus.choices, default=BeliefStatus.HELD
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["id", "tenant"], name="belief_id_tenant"),
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0, confidence__lte=1),
                name="belief_confidence_range",
            ),
        ]

    def __str__(self) -> str:
        return self.content[:60]


class EdgeKind(models.TextChoices):
    DERIVED_FROM = "derived_from"
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"


class Edge(models.Model):
    """``belief —derived_from→ observation | belief | lesson`` or
    ``belief —supports|contradicts→ lesson``. Exactly one target."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    kind = models.CharField(max_length=16, choices=EdgeKind.choices)
    belief = models.ForeignKey(
        Belief, on_delete=models.CASCADE, related_name="edges", db_constraint=False
    )
    to_observation = models.ForeignKey(
        Observation,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    to_belief = models.ForeignKey(
        Belief,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    to_lesson = models.ForeignKey(
        "memory.Lesson",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="edges",
        db_constraint=False,
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [
            models.Index(fields=["to_lesson", "kind"], name="edge_to_lesson"),
            models.Index(fields=["to_observation"], name="edge_to_observation"),
            models.Index(fields=["to_belief"], name="edge_to_belief"),
        ]
        constraints = [
            models.CheckConstraint(
                name="edge_exactly_one_target",
                condition=(
                    models.Q(
                        to_observation__isnull=False, to_belief__isnull=True, to_lesson__isnull=True
                    )
                    | models.Q(
                        to_observation__isnull=True, to_belief__isnull=False, to_lesson__isnull=True
                    )
                    | models.Q(
                        to_observation__isnull=True, to_belief__isnull=True, to_lesson__isnull=False
                    )
                ),
            ),
            models.CheckConstraint(
                name="edge_kind_matches_target",
                condition=models.Q(kind="derived_from") | models.Q(to_lesson__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.belief_id} {self.kind}"


class DecisionStatus(models.TextChoices):
    OK = "ok"
    NEEDS_REVIEW = "needs_review"  # a lesson it rests on lost its support


class Decision(models.Model):
    """An action an agent took, resting on lessons."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    agent = models.ForeignKey("accounts.Agent", on_delete=models.PROTECT, db_constraint=False)
    action = models.TextField()
    status = models.CharField(
        max_length=16, choices=DecisionStatus.choices, default=DecisionStatus.OK
    )
    review_reason = models.CharField(max_length=500, blank=True)
    based_on: models.ManyToManyField[Any, Any] = models.ManyToManyField(
        "memory.Lesson", through="DecisionBasis", related_name="decisions"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["id", "tenant"], name="decision_id_tenant")]

    def __str__(self) -> str:
        return f"[{self.status}] {self.action[:60]}"


class DecisionBasis(models.Model):
    """``decision —based_on→ lesson``."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    decision = models.ForeignKey(Decision, on_delete=models.CASCADE, db_constraint=False)
    lesson = models.ForeignKey(
        "memory.Lesson", on_delete=models.CASCADE, related_name="+", db_constraint=False
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["decision", "lesson"], name="decision_basis_once")
        ]

    def __str__(self) -> str:
        return f"{self.decision_id} based on {self.lesson_id}"


class Corroboration(models.TextChoices):
    CORROBORATED = "corroborated"
    SINGLE_SOURCE = "single-source"
    CONTESTED = "contested"
    LOW_CONFIDENCE = "low-confidence"  # enough sources, confidence under the floor
    UNSUPPORTED = "unsupported"  # no supporting belief rests on valid evidence


class CorroborationAudit(models.Model):
    """One evaluation of a lesson's corroboration: what the policy said and
    why, with the numbers it decided on."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE)
    lesson = models.ForeignKey(
        "memory.Lesson", on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    status = models.CharField(max_length=16, choices=Corroboration.choices)
    reason = models.CharField(max_length=500)
    independent_sources = models.IntegerField()
    supporting_beliefs = models.IntegerField()
    agreeing_agents = models.IntegerField()
    root_aware_confidence = models.FloatField()
    trigger = models.CharField(max_length=32)  # learn | belief | evidence | invalidate | …
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["lesson", "-created_at"], name="corroboration_latest")]

    def __str__(self) -> str:
        return f"{self.lesson_id}: {self.status}"
