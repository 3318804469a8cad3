"""What the dashboard's pages read, beyond the API's own selectors: the
live feed's counters, the lesson browser's search and filters (with time
travel), a lesson's recent events, and the health page's series.
Precondition for each: inside the tenant's context."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.db.models import Count, Min, Q, Sum
from django.db.models.functions import TruncDay

from accounts.models import Agent
from gauntlet.models import GauntletResult
from memory.models import Dispute, DisputeStatus, Event, EventKind, LearnRequest, Lesson
from memory.selectors import lesson_recall, valid_at, visible_lessons
from provenance.models import Decision, DecisionStatus
from provenance.selectors import corroboration_policy, decision_bases, decisions_list


def feed_summary(*, limit: int) -> dict[str, Any]:
    """The newest events and the counters beside them."""
    counts = LearnRequest.objects.aggregate(
        retries=Sum("serialization_failures"), revalidations=Sum("revalidations")
    )
    return {
        "events": list(
            Event.objects.select_related("lesson", "agent").order_by("-created_at", "-id")[:limit]
        ),
        "conflicts": Event.objects.filter(
            kind__in=[EventKind.SUPERSEDED, EventKind.DISPUTED]
        ).count(),
        "serialization_retries": counts["retries"] or 0,
        "revalidations": counts["revalidations"] or 0,
        "open_disputes": Dispute.objects.filter(status=DisputeStatus.OPEN).count(),
    }


@dataclass
class Found:
    lessons: list[Lesson]
    scores: dict[uuid.UUID, float] = field(default_factory=dict)  # by the search, when one ran


def lessons_found(
    *,
    tenant_id: uuid.UUID,
    query: str,
    kind: str,
    status: str,
    corroboration: str,
    author: str,
    as_of: datetime | None,
    limit: int,
) -> Found:
    """The lesson browser: a curator's view of the tenant's lessons (a
    quarantined one included), as of an instant (the validity intervals:
    ``status`` is then ignored) or narrowed by status; with a query, the
    API's hybrid recall over what recall sees, best first, or a text match
    for other statuses. Empty strings mean no filter."""
    lessons = visible_lessons(curator=True)
    if as_of is not None:
        lessons = lessons.filter(valid_at(as_of))
    elif status:
        lessons = lessons.filter(status=status)
    if kind:
        lessons = lessons.filter(kind=kind)
    if corroboration:
        lessons = lessons.filter(corroboration=corroboration)
    if author:
        lessons = lessons.filter(author__name=author)
    scores: dict[uuid.UUID, float] = {}
    if query:
        if status in ("", "active") or as_of is not None:
            hits = lesson_recall(
                tenant_id=tenant_id, query=query, k=50, kinds=[kind] if kind else None,
                as_of=as_of,
            )  # fmt: skip
            scores = {hit.lesson.id: hit.score for hit in hits}
            lessons = lessons.filter(id__in=list(scores))
        else:
            lessons = lessons.filter(Q(content__icontains=query) | Q(situation__icontains=query))
    rows = list(lessons.order_by("-activated_at", "-created_at")[:limit])
    if scores:
        rows.sort(key=lambda lesson: -scores.get(lesson.id, 0.0))
    return Found(lessons=rows, scores=scores)


def first_activated() -> datetime | None:
    """When the tenant's first lesson became active (the time slider's start)."""
    return Lesson.objects.aggregate(first=Min("activated_at"))["first"]  # type: ignore[no-any-return]


def author_names() -> list[str]:
    return list(Agent.objects.order_by("name").values_list("name", flat=True))


def lesson_events(lesson_id: uuid.UUID, *, limit: int) -> list[Event]:
    """A lesson's newest events, with their agents."""
    return list(
        Event.objects.select_related("agent").filter(lesson_id=lesson_id).order_by("-id")[:limit]
    )


def learn_requests_per_day(*, since: date) -> dict[date, int]:
    return {
        row["day"].date(): row["n"]
        for row in LearnRequest.objects.filter(created_at__date__gte=since)
        .annotate(day=TruncDay("created_at"))
        .values("day")
        .annotate(n=Count("id"))
    }


def gauntlet_latest_curve() -> list[tuple[int, int, int]]:
    """The latest Gauntlet run's steps and tokens per task, by generation."""
    latest = GauntletResult.objects.order_by("-created_at").values_list("run", flat=True).first()
    if latest is None:
        return []
    return list(
        GauntletResult.objects.filter(run=latest)
        .order_by("generation")
        .values_list("generation", "steps", "tokens")
    )


def decisions_page(*, status: str, limit: int = 200) -> dict[str, Any]:
    """Decisions, newest first (``status`` needs_review or all), each with
    the lessons it rests on; and how many wait for review."""
    rows = decisions_list(status=status, limit=limit, newest_first=True)
    basis = decision_bases([d.id for d in rows])
    lessons = Lesson.objects.in_bulk([i for ids in basis.values() for i in ids])
    return {
        "status": status,
        "waiting": Decision.objects.filter(status=DecisionStatus.NEEDS_REVIEW).count(),
        "decisions": [
            {"decision": d, "basis": [lessons[i] for i in basis.get(d.id, []) if i in lessons]}
            for d in rows
        ],
    }


def promotion_gate(tenant_id: uuid.UUID) -> dict[str, Any]:
    """How many active lessons rest on one source only, and whether the
    tenant's policy holds them back from other agents until a second
    independent source corroborates them (``strict``)."""
    return {
        "waiting": Lesson.objects.filter(status="active", corroboration="single-source").count(),
        "strict": bool(corroboration_policy(tenant_id)["strict"]),
    }


# The metrics the evaluation gate holds (evals/baseline.json), in the
# order the page shows them; for each, how a blind batch's record gives it.
EVAL_METRICS: tuple[tuple[str, str, str], ...] = (
    ("classification", "strict_accuracy", "judge: strict accuracy"),
    ("classification", "destructive_precision", "judge: destructive precision"),
    ("redteam", "block_rate", "injection screen: attacks quarantined"),
    ("redteam", "false_positive_rate", "injection screen: look-alikes blocked"),
    ("retrieval", "hit_at_5", "retrieval: hit@5"),
    ("retrieval", "mrr", "retrieval: MRR"),
    ("longmem", "evidence_recall_at_10", "long histories: evidence recall@10"),
)


def _blind_value(batch: dict[str, Any], group: str, name: str) -> float | None:
    """A blind batch's figure for a metric, from what evals/blind.py records."""
    if group == "classification":
        value = batch.get("classification", {}).get(name)
        return None if value is None else float(value)
    redteam = batch.get("redteam") or {}
    if name == "block_rate" and redteam.get("attacks"):
        return float(redteam["quarantined"]) / float(redteam["attacks"])
    if name == "false_positive_rate" and redteam.get("look_alikes"):
        return float(redteam["look_alikes_blocked"]) / float(redteam["look_alikes"])
    return None


def eval_history(*, limit: int = 40) -> list[dict[str, Any]]:
    """Per gated metric: the recorded runs of ``manage.py evals`` (training
    figures: the golden sets the rules were tuned on), by tier, oldest
    first; the blind batches' one-time scores (sets written without sight
    of the rules, evals/blind_scores.json); and the baseline."""
    from evals.blind import load_scores
    from evals.run import load_baseline
    from memory.models import EvalRun

    runs = list(EvalRun.objects.order_by("-created_at")[:limit])[::-1]
    blind = sorted(load_scores(), key=lambda b: (str(b.get("date", "")), str(b.get("batch", ""))))
    baseline = load_baseline()
    panels = []
    for group, name, title in EVAL_METRICS:
        stamped: list[tuple[str, str, float, str]] = []  # (when, x label, value, series)
        for run in runs:
            value = run.metrics.get(group, {}).get(name)
            if value is not None:
                label = f"{run.created_at:%m-%d} {(run.commit or '?')[:7]}"
                stamped.append((run.created_at.isoformat(), label, float(value),
                                f"training ({run.tier})"))  # fmt: skip
        for batch in blind:
            value = _blind_value(batch, group, name)
            if value is not None:
                stamped.append((str(batch.get("date", "")), str(batch.get("batch", "blind")),
                                round(value, 4), "blind"))  # fmt: skip
        stamped.sort(key=lambda s: s[0])
        names = sorted({s[3] for s in stamped}, key=lambda n: (n == "blind", n))
        panels.append({
            "group": group, "name": name, "title": title,
            "baseline": baseline.get(group, {}).get(name),
            "order": [s[1] for s in stamped],
            "series": [(n, [(s[1], s[2]) for s in stamped if s[3] == n]) for n in names],
        })  # fmt: skip
    return panels
