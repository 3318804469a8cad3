"""Reads for curators and agents: the tenant's curation state."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db.models import Avg, Count, Max, Sum

from curation.models import GardenerRun, JournalLine
from memory.models import Scope
from memory.policies import kind_policies
from provenance.selectors import corroboration_policy


def gardener_schedule() -> list[dict[str, Any]]:
    """The beat schedule's gardener entries, as settings define them."""
    schedule: dict[str, dict[str, Any]] = settings.CELERY_BEAT_SCHEDULE
    return [
        {"name": name, "step": entry["args"][0], "every_seconds": float(entry["schedule"])}
        for name, entry in schedule.items()
        if entry["task"] == "curation.tasks.garden_task"
    ]


def gardener_last_runs(tenant_id: uuid.UUID) -> dict[str, dict[str, Any]]:
    runs = (
        GardenerRun.objects.filter(tenant_id=tenant_id)
        .order_by("task", "-started_at")
        .distinct("task")
    )
    return {
        run.task: {
            "started_at": run.started_at.isoformat(),
            "finished_at": run.finished_at.isoformat(),
            "trigger": run.trigger,
            "counts": run.counts,
            "error": run.error or None,
        }
        for run in runs
    }


def journal_summary(tenant_id: uuid.UUID) -> list[dict[str, Any]]:
    """The forgetting journal by rule and kind (and what eviction did)."""
    rows = (
        JournalLine.objects.filter(tenant_id=tenant_id)
        .values("rule", "kind", "action")
        .annotate(
            count=Count("id"),
            last_at=Max("created_at"),
            mean_age=Avg("age_seconds"),
            recalled=Sum("times_recalled"),
        )
        .order_by("rule", "kind", "action")
    )
    return [
        {
            "rule": r["rule"],
            "kind": r["kind"],
            "action": r["action"],
            "count": r["count"],
            "last_at": r["last_at"].isoformat(),
            "mean_age_days": round(float(r["mean_age"]) / 86400, 2),
            "times_recalled": r["recalled"],
        }
        for r in rows
    ]


def curation_state(tenant_id: uuid.UUID) -> dict[str, Any]:
    """Policies, the gardener's schedule and last runs, and the journal
    summarised. Precondition: inside the tenant's context."""
    policies = kind_policies(tenant_id)
    active = dict(Scope.objects.filter(tenant_id=tenant_id).values_list("kind", "active_count"))
    return {
        "policies": {k: p.as_dict() for k, p in policies.items()},
        "fullness": {
            kind: {
                "active": active.get(kind, 0),
                "ceiling": policy.ceiling,
                "percent": None
                if policy.ceiling is None
                else round(100 * active.get(kind, 0) / policy.ceiling, 2),
            }
            for kind, policy in policies.items()
        },
        "corroboration_policy": corroboration_policy(tenant_id),
        "gardener": {
            "schedule": gardener_schedule(),
            "last_runs": gardener_last_runs(tenant_id),
        },
        "journal": {
            "retention_days": settings.TRIBUTARY_JOURNAL_RETENTION_DAYS,
            "by_rule": journal_summary(tenant_id),
        },
    }
