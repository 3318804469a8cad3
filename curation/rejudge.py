"""The gardener's re-judge step: lessons the LLM judge could not classify
are judged again once it answers.

A learn whose judge failed (after its retries) never merges or supersedes
anything: the lesson goes in as novel, marked ``needs_rejudge``. This step
takes the marked active lessons (bounded per run, oldest first), reads
their nearest active lessons of the same kind, asks the tenant's judge
outside any transaction, and applies the verdict the way a learn would:

- *novel*: the mark is cleared;
- *duplicate of L*: the lesson is merged into L (its supporting beliefs now
  support L; one journal line), as the merge step does;
- *contradicts L*, same author or a curator's lesson: L is superseded by it;
- *contradicts L*, another agent's lesson: it becomes ``disputed`` and a
  dispute is opened for a curator (L stays active);
- the judge fails again: the mark stays and the lesson is tried next run.

The apply re-reads both lessons and does nothing when either changed since
the judge saw them (the next run judges it again).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from accounts.models import Agent, Role, Tenant
from accounts.tenancy import run_apply_transaction, tenant_context
from curation.merging import merge_into
from curation.models import GardenerRun
from memory.judge import Relation, Verdict, judge_for
from memory.judge.calls import collect_calls, model_calls_save
from memory.judge.llm import JudgeUnavailable
from memory.models import Dispute, EventKind, Lesson, LessonStatus
from memory.policies import kind_policies
from memory.selectors import lesson_candidates_many
from memory.services.transitions import lesson_move
from provenance.models import Edge, EdgeKind

log = logging.getLogger(__name__)

# Candidates offered to the judge, as in a learn.
CANDIDATES = 8


@dataclass
class _Judged:
    lesson: Lesson
    verdict: Verdict
    target: Lesson | None


def rejudge(tenant_id: uuid.UUID, trigger: str) -> dict:
    """The re-judge step for one tenant (see the module docstring)."""
    started = timezone.now()
    with tenant_context(tenant_id):
        marked = list(
            Lesson.objects.filter(
                tenant_id=tenant_id, needs_rejudge=True, status=LessonStatus.ACTIVE,
                embedding__isnull=False,
            ).order_by("activated_at", "id")[: settings.TRIBUTARY_GARDENER_BATCH]
        )  # fmt: skip
        config = Tenant.objects.filter(id=tenant_id).values_list("judge_config", flat=True).first()
        nearest = {
            lesson.id: near
            for lesson, near in zip(marked, _neighbours(tenant_id, marked), strict=True)
        }
    judge = judge_for(config or {})
    judged: list[_Judged] = []
    failed = 0
    with collect_calls() as calls:
        for lesson in marked:
            candidates = [c for c in nearest[lesson.id] if c.id != lesson.id][:CANDIDATES]
            try:
                verdict = judge.classify(
                    content=lesson.content, situation=lesson.situation, candidates=candidates
                )
            except JudgeUnavailable as exc:
                log.warning("gardener rejudge: judge failed for %s: %s", lesson.id, exc)
                failed += 1
                continue
            offered = {c.id for c in candidates}
            target_id = verdict.target_id if verdict.target_id in offered else None
            judged.append(_Judged(lesson, verdict, None if target_id is None else _stub(target_id)))

    def operation() -> dict:
        now = timezone.now()
        counts = {"judged": len(judged), "judge_failed": failed, "novel": 0, "merged": 0,
                  "superseded": 0, "disputed": 0, "changed_meanwhile": 0}  # fmt: skip
        for item in judged:
            counts[_apply(tenant_id, item)] += 1
        model_calls_save(tenant_id=tenant_id, calls=[(None, c) for c in calls], created_at=now)
        GardenerRun.objects.create(
            tenant_id=tenant_id, task="rejudge", trigger=trigger, counts=counts,
            started_at=started, finished_at=timezone.now(),
        )  # fmt: skip
        return counts

    return run_apply_transaction(tenant_id, operation)


def _neighbours(tenant_id: uuid.UUID, lessons: list[Lesson]) -> list[list]:
    if not lessons:
        return []
    by_kind: dict[str, list[Lesson]] = {}
    for lesson in lessons:
        by_kind.setdefault(lesson.kind, []).append(lesson)
    found: dict[uuid.UUID, list] = {}
    for kind, of_kind in by_kind.items():
        many = lesson_candidates_many(
            tenant_id=tenant_id, kind=kind,
            vectors=[list(lesson.embedding) for lesson in of_kind], limit=CANDIDATES + 1,
        )  # fmt: skip
        for lesson, near in zip(of_kind, many, strict=True):
            found[lesson.id] = [candidate for candidate, _author in near]
    return [found[lesson.id] for lesson in lessons]


def _stub(lesson_id: uuid.UUID) -> Lesson:
    return Lesson(id=lesson_id)


def _apply(tenant_id: uuid.UUID, item: _Judged) -> str:
    """Apply one verdict if both lessons are as the judge saw them. Returns
    the count it adds to. Precondition: inside the tenant's apply transaction."""
    ids = [item.lesson.id] + ([item.target.id] if item.target is not None else [])
    current = Lesson.objects.in_bulk(ids)
    lesson = current.get(item.lesson.id)
    target = current.get(item.target.id) if item.target is not None else None
    if (
        lesson is None
        or lesson.status != LessonStatus.ACTIVE
        or lesson.content != item.lesson.content
        or not lesson.needs_rejudge
        or (item.target is not None and (target is None or target.status != LessonStatus.ACTIVE))
    ):
        return "changed_meanwhile"
    Lesson.objects.filter(id=lesson.id).update(needs_rejudge=False)
    lesson.needs_rejudge = False
    relation = item.verdict.relation
    if target is None or relation is Relation.NOVEL:
        return "novel"
    if relation is Relation.DUPLICATE:
        merged = merge_into(
            tenant_id=tenant_id, survivor=target, merged=lesson, judge_name=item.verdict.judge,
            policies=kind_policies(tenant_id), now=timezone.now(),
        )  # fmt: skip
        return "merged" if merged else "changed_meanwhile"
    _contradiction_edges(tenant_id, lesson, target)
    author = Agent.objects.filter(id=lesson.author_id).values_list("role", flat=True).first()
    event_data = {"by": "gardener", "rule": "rejudge", "judge": item.verdict.judge}
    if target.author_id == lesson.author_id or author == Role.CURATOR:
        lesson_move(
            tenant_id=tenant_id, agent_id=None, lesson=target, status=LessonStatus.SUPERSEDED,
            event=EventKind.SUPERSEDED, event_data={**event_data, "by_lesson": str(lesson.id)},
            superseded_by_id=lesson.id,
        )  # fmt: skip
        return "superseded"
    lesson_move(
        tenant_id=tenant_id, agent_id=None, lesson=lesson, status=LessonStatus.DISPUTED,
        event=EventKind.DISPUTED, event_data={**event_data, "against": str(target.id)},
    )  # fmt: skip
    Dispute.objects.create(
        tenant_id=tenant_id, lesson_id=lesson.id, target_id=target.id,
        opened_by_id=lesson.author_id, rationale=item.verdict.rationale[:2000],
    )  # fmt: skip
    return "disputed"


def _contradiction_edges(tenant_id: uuid.UUID, lesson: Lesson, target: Lesson) -> None:
    """The beliefs behind the lesson now contradict the target, as a learn's would."""
    beliefs = Edge.objects.filter(to_lesson_id=lesson.id, kind=EdgeKind.SUPPORTS).values_list(
        "belief_id", flat=True
    )
    Edge.objects.bulk_create(
        [
            Edge(tenant_id=tenant_id, kind=EdgeKind.CONTRADICTS, belief_id=b,
                 to_lesson_id=target.id)
            for b in beliefs
        ]
    )  # fmt: skip
