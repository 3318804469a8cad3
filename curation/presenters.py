"""How disputes, policies and the curation state are shown: the dicts the
curation API answers with, and the output serializers that document them
(named ``...Out`` like ``memory.presenters.LessonOut``)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from memory.models import Dispute
from memory.presenters import LessonOut, lessons_out


class DisputeOut(serializers.Serializer):
    """A dispute (``disputes_out``): both lessons side by side."""

    id = serializers.UUIDField()
    status = serializers.CharField(help_text="open | resolved")
    new_lesson = LessonOut()
    existing_lesson = LessonOut()
    opened_by = serializers.CharField()
    rationale = serializers.CharField()
    created_at = serializers.DateTimeField()
    resolution = serializers.CharField(
        allow_null=True, help_text="keep_old | accept_new | keep_both | withdrawn"
    )
    resolved_by = serializers.CharField(allow_null=True)
    resolved_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField()


class DisputesOut(serializers.Serializer):
    disputes = DisputeOut(many=True)


class KindPolicyOut(serializers.Serializer):
    """A kind's effective forgetting policy (``EffectivePolicy.as_dict``)."""

    kind = serializers.CharField()
    ceiling = serializers.IntegerField(allow_null=True)
    ttl_seconds = serializers.IntegerField(allow_null=True)
    half_life_days = serializers.FloatField(allow_null=True)
    retire_below = serializers.FloatField()
    eviction = serializers.CharField(help_text="retire | erase")
    merge_duplicates = serializers.BooleanField()
    pinned = serializers.BooleanField(help_text="lessons of the kind are pinned when learned")
    # A declared field (DRF's metaclass takes it out of the class), not Field.source.
    source = serializers.CharField(help_text="default | tenant")  # type: ignore[assignment]
    updated_by = serializers.CharField()
    updated_at = serializers.DateTimeField(allow_null=True)


class CorroborationPolicyOut(serializers.Serializer):
    """The tenant's corroboration policy (``provenance.selectors.tenant_policy``)."""

    min_independent_sources = serializers.IntegerField()
    min_confidence = serializers.FloatField()
    contradiction_confidence = serializers.FloatField()
    strict = serializers.BooleanField()


class CorroborationPolicySetOut(serializers.Serializer):
    """``curation.policies.corroboration_policy_set``'s answer."""

    policy = CorroborationPolicyOut()
    reevaluated = serializers.IntegerField()
    changed = serializers.IntegerField()


class GardenerScheduleOut(serializers.Serializer):
    name = serializers.CharField()
    step = serializers.CharField()
    every_seconds = serializers.FloatField()


class GardenerRunOut(serializers.Serializer):
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField()
    trigger = serializers.CharField(help_text="beat | command")
    # Each step counts its own things (GardenerRun.counts, a JSON column):
    # open-ended by design.
    counts = serializers.DictField()
    error = serializers.CharField(allow_null=True)


class GardenerOut(serializers.Serializer):
    schedule = GardenerScheduleOut(many=True)
    # Keyed by step, only steps that have run: a map, not fixed fields.
    last_runs = serializers.DictField(child=GardenerRunOut())


class JournalRuleOut(serializers.Serializer):
    rule = serializers.CharField()
    kind = serializers.CharField()
    action = serializers.CharField()
    count = serializers.IntegerField()
    last_at = serializers.DateTimeField()
    mean_age_days = serializers.FloatField()
    times_recalled = serializers.IntegerField()


class JournalOut(serializers.Serializer):
    retention_days = serializers.IntegerField()
    by_rule = JournalRuleOut(many=True)


class FullnessOut(serializers.Serializer):
    active = serializers.IntegerField(help_text="active lessons of the kind")
    ceiling = serializers.IntegerField(allow_null=True, help_text="null: no ceiling")
    percent = serializers.FloatField(allow_null=True, help_text="active / ceiling, in %")


class CurationStateOut(serializers.Serializer):
    """The tenant's curation state (``curation.selectors.curation_state``)."""

    # Keyed by kind: a map of each kind's policy, and how full each kind is.
    policies = serializers.DictField(child=KindPolicyOut())
    fullness = serializers.DictField(child=FullnessOut())
    corroboration_policy = CorroborationPolicyOut()
    gardener = GardenerOut()
    journal = JournalOut()


def disputes_out(disputes: list[Dispute]) -> list[dict[str, Any]]:
    """Disputes with both lessons side by side (with their provenance)."""
    lessons = {}
    for dispute in disputes:
        lessons[dispute.lesson_id] = dispute.lesson
        lessons[dispute.target_id] = dispute.target
    serialized = dict(zip(lessons, lessons_out(list(lessons.values())), strict=True))
    return [
        {
            "id": str(d.id),
            "status": d.status,
            "new_lesson": serialized[d.lesson_id],
            "existing_lesson": serialized[d.target_id],
            "opened_by": d.opened_by.name,
            "rationale": d.rationale,
            "created_at": d.created_at.isoformat(),
            "resolution": d.resolution or None,
            "resolved_by": d.resolved_by.name if d.resolved_by else None,
            "resolved_at": d.resolved_at.isoformat() if d.resolved_at else None,
            "note": d.note,
        }
        for d in disputes
    ]
