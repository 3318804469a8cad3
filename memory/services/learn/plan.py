"""Planning a batch, outside any transaction: the screen, the candidates,
the judge, and the writes each verdict asks for (layer 3 of
``memory.services.learn``; the rules of docs/design.md §4)."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

import numpy as np
from django.utils import timezone

from accounts.models import Agent, Role
from accounts.tenancy import tenant_context
from config.db.bulk import unsaved
from config.metrics import JUDGE_FALLBACKS
from memory.embeddings import Vector
from memory.guard import Screening, screen_lesson
from memory.judge import Candidate, Judge, Relation, Verdict
from memory.judge.calls import ModelCallRecord, collect_calls
from memory.judge.llm import JudgeUnavailable
from memory.models import (
    EventKind,
    LearnRequest,
    Lesson,
    LessonStatus,
    Outcome,
    Scope,
)
from memory.policies import kind_policies
from memory.selectors import lesson_candidates_many
from provenance.models import Edge, EdgeKind
from provenance.selectors import corroboration_policy
from provenance.services import (
    first_corroboration,
    lessons_evaluate,
)

log = logging.getLogger(__name__)

MAX_REVALIDATIONS = 16  # scope moved under us this often → insert as novel
CANDIDATES = 8


class Applied(Enum):
    DONE = "done"
    SCOPE_MOVED = "scope moved"


@dataclass
class Item:
    """One claimed request on its way through a batch (no vector: it failed
    the injection screen and is never embedded)."""

    request: LearnRequest
    vector: Vector | None
    author: Agent
    screening: Screening | None = None  # screened by the worker (rules, then the vector)
    created_at: datetime | None = None  # an imported lesson's own creation time


@dataclass
class _Decision:
    item: Item
    verdict: Verdict
    outcome: Outcome
    event: EventKind
    lesson_id: uuid.UUID
    target_id: uuid.UUID | None
    judge_ms: float
    event_data: dict[str, str] = field(default_factory=dict)
    fallback: bool = False  # the judge failed; inserted as novel, to be judged again
    calls: list[ModelCallRecord] = field(default_factory=list)


@dataclass
class Plan:
    """What one batch will write, decided outside any transaction: the
    lessons it creates (each as it was decided: one created and superseded
    within the batch is created active, then moved), the lessons it
    reinforces or supersedes, its edges, and the scope versions it read."""

    policy: dict[str, Any]  # the tenant's corroboration policy
    ttls: dict[str, int | None]  # kind → seconds a new lesson lives (kind policies)
    pinned_kinds: set[str]  # kinds whose new lessons are pinned (kind policies)
    seen_versions: dict[int, int | None]  # scope id → version read (None: not checked)
    scope_of_kind: dict[str, int]
    new: dict[uuid.UUID, Lesson] = field(default_factory=dict)
    new_units: dict[uuid.UUID, np.ndarray] = field(default_factory=dict)  # unit vectors
    reinforce: dict[uuid.UUID, int] = field(default_factory=dict)  # existing lesson → times
    # lesson → its successor (an existing lesson, or one created earlier in the batch)
    supersede: dict[uuid.UUID, uuid.UUID] = field(default_factory=dict)
    judged_at_insert: set[uuid.UUID] = field(default_factory=set)  # corroboration set at insert
    created_at: dict[uuid.UUID, datetime] = field(default_factory=dict)  # imported lessons' times
    edges: list[Edge] = field(default_factory=list)
    decisions: list[_Decision] = field(default_factory=list)
    candidates_ms: float = 0.0


@dataclass
class BatchProgress:
    attempts: int = 0
    revalidations: int = 0
    serialization_failures: int = 0
    embed_ms: float = 0.0
    # model calls of plans thrown away (the scope moved): made and paid for,
    # so written with the plan that is finally applied
    calls: list[tuple[uuid.UUID, ModelCallRecord]] = field(default_factory=list)


def plan_evaluate(tenant_id: uuid.UUID, plan: Plan) -> None:
    """Corroboration of every lesson the batch touched, after it committed
    (its own short transaction; audited)."""
    # A new lesson that cites nothing was judged at insert (and audited in
    # the apply transaction): one belief on one root.
    touched = [d.lesson_id for d in plan.decisions if d.lesson_id not in plan.judged_at_insert]
    touched += [d.target_id for d in plan.decisions if d.target_id is not None]
    with tenant_context(tenant_id):
        lessons_evaluate(tenant_id=tenant_id, lesson_ids=touched, trigger="learn")


TRUSTED = "import:trusted"  # the verdict's judge when an import is trusted, not judged


def plan_batch(
    tenant_id: uuid.UUID,
    items: list[Item],
    judge: Judge | None,
    *,
    bounded: bool,
    trusted: bool = False,
) -> Plan:
    """The batch's plan. ``bounded``: the scope moved too often, so every
    item is inserted as novel; ``trusted`` (a bulk import an operator
    vouches for): every item is novel and nothing is read or judged — the
    screen still runs."""
    started = time.perf_counter()
    screenings = {
        i.request.id: i.screening or screen_lesson(i.request.content, i.request.situation, i.vector)
        for i in items
    }
    judged = [i for i in items if not screenings[i.request.id].blocked]
    kinds = sorted({i.request.kind for i in items})
    with tenant_context(tenant_id):
        scopes = {
            kind: Scope.objects.get_or_create(tenant_id=tenant_id, kind=kind)[0] for kind in kinds
        }
        found: dict[uuid.UUID, list[tuple[Candidate, uuid.UUID]]] = {}
        for kind in () if trusted else kinds:  # a trusted batch reads no candidate
            of_kind = [i for i in judged if i.request.kind == kind]
            many = lesson_candidates_many(
                tenant_id=tenant_id, kind=kind, vectors=[_vector(i) for i in of_kind],
                limit=CANDIDATES,
            )  # fmt: skip
            found.update({i.request.id: c for i, c in zip(of_kind, many, strict=True)})
        policy = corroboration_policy(tenant_id)
        forgetting = kind_policies(tenant_id)
    plan = Plan(
        policy=policy,
        ttls={kind: p.ttl_seconds for kind, p in forgetting.items()},
        pinned_kinds={kind for kind, p in forgetting.items() if p.pinned},
        seen_versions={s.id: None if bounded or trusted else s.version for s in scopes.values()},
        scope_of_kind={kind: s.id for kind, s in scopes.items()},
        candidates_ms=(time.perf_counter() - started) * 1000 / len(items),
    )
    authors = {c.id: author for near in found.values() for c, author in near}
    for item in items:
        started = time.perf_counter()
        screening = screenings[item.request.id]
        if screening.blocked:
            _quarantine(plan, item, screening)
            continue
        calls: list[ModelCallRecord] = []
        candidates: list[Candidate] = []  # a verdict of novel needs none
        if trusted:
            verdict = Verdict(
                relation=Relation.NOVEL, target_id=None, confidence=1.0, judge=TRUSTED,
                rationale="imported with --trust: inserted as novel, not judged",
            )  # fmt: skip
        elif bounded:
            verdict = Verdict(
                relation=Relation.NOVEL, target_id=None, confidence=0.0, judge="bound",
                rationale=f"the scope moved {MAX_REVALIDATIONS} times; inserted as novel",
            )  # fmt: skip
        elif judge is None:
            raise ValueError("a batch that is not trusted needs a judge")
        else:
            candidates = _batch_candidates(plan, item, found[item.request.id])
            verdict, calls = _classify(judge, item, candidates)
        offered = {c.id for c in candidates}
        target = verdict.target_id if verdict.target_id in offered else None
        target_author = None
        if target is not None:
            target_author = plan.new[target].author_id if target in plan.new else authors[target]
        _decide(plan, item, verdict, target, target_author, (time.perf_counter() - started) * 1000)
        decision = plan.decisions[-1]
        decision.calls = calls
        if verdict.judge.startswith("fallback:"):
            decision.fallback = True
            plan.new[decision.lesson_id].needs_rejudge = True
    return plan


def _classify(
    judge: Judge, item: Item, candidates: list[Candidate]
) -> tuple[Verdict, list[ModelCallRecord]]:
    """The judge's verdict and the model calls it made. A judge that fails
    (after its own retries) never merges or supersedes anything: the lesson
    goes in as novel, marked for re-judging, and the fallback is counted."""
    with collect_calls() as calls:
        try:
            verdict = judge.classify(
                content=item.request.content,
                situation=item.request.situation,
                candidates=candidates,
            )
        except JudgeUnavailable as exc:
            log.warning("judge failed for learn request %s: %s", item.request.id, exc)
            JUDGE_FALLBACKS.inc()
            verdict = Verdict(
                relation=Relation.NOVEL, target_id=None, confidence=0.0,
                judge=f"fallback:{getattr(judge, 'name', 'judge')}",
                rationale="The judge failed; inserted as novel and marked for re-judging.",
            )  # fmt: skip
    return verdict, list(calls)


def _vector(item: Item) -> Vector:
    if item.vector is None:  # only quarantined items have none
        raise ValueError(f"learn request {item.request.id} was not embedded")
    return item.vector


def _unit(vector: Vector) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else array


def _quarantine(plan: Plan, item: Item, screening: Screening) -> None:
    """Stored for audit, with no embedding: never a candidate, never
    recalled, never shown to a judge."""
    request = item.request
    lesson = Lesson(
        id=uuid.uuid4(), tenant_id=request.tenant_id, kind=request.kind, content=request.content,
        situation=request.situation, embedding=None, status=LessonStatus.QUARANTINED,
        confidence=request.confidence, author_id=request.agent_id,
    )  # fmt: skip
    plan.new[lesson.id] = lesson
    plan.edges.append(
        Edge(tenant_id=request.tenant_id, kind=EdgeKind.SUPPORTS, belief_id=request.belief_id,
             to_lesson_id=lesson.id)
    )  # fmt: skip
    verdict = Verdict(
        relation=Relation.NOVEL, target_id=None, confidence=1.0, rationale=screening.reason,
        judge="guard",
    )  # fmt: skip
    plan.decisions.append(
        _Decision(item=item, verdict=verdict, outcome=Outcome.QUARANTINED,
                  event=EventKind.QUARANTINED, lesson_id=lesson.id, target_id=None, judge_ms=0.0,
                  event_data={"rule": screening.rule})
    )  # fmt: skip


def _batch_candidates(
    plan: Plan, item: Item, stored: list[tuple[Candidate, uuid.UUID]]
) -> list[Candidate]:
    """The item's nearest active lessons: stored ones not superseded by an
    earlier item of the batch, and the batch's own new active lessons."""
    candidates = [c for c, _ in stored if c.id not in plan.supersede]
    mine = _unit(_vector(item))
    ids = [
        lesson_id
        for lesson_id, lesson in plan.new.items()
        if lesson.status == LessonStatus.ACTIVE
        and lesson.kind == item.request.kind
        and lesson_id not in plan.supersede
    ]
    if ids:  # cosine similarity to each, in one product
        similarities = np.stack([plan.new_units[i] for i in ids]) @ mine
        candidates += [
            Candidate(
                id=lesson_id, content=plan.new[lesson_id].content,
                situation=plan.new[lesson_id].situation, similarity=float(similarity),
            )
            for lesson_id, similarity in zip(ids, similarities, strict=True)
        ]  # fmt: skip
    candidates.sort(key=lambda c: -c.similarity)
    return candidates[:CANDIDATES]


def _decide(
    plan: Plan,
    item: Item,
    verdict: Verdict,
    target: uuid.UUID | None,
    target_author: uuid.UUID | None,
    judge_ms: float,
) -> None:
    """Record one verdict's writes in the plan (the rules of docs/design.md §4)."""
    request = item.request
    relation = verdict.relation if target is not None else Relation.NOVEL

    def new_lesson(status: LessonStatus) -> uuid.UUID:
        lesson = unsaved(
            Lesson,
            id=uuid.uuid4(),
            tenant_id=request.tenant_id,
            kind=request.kind,
            content=request.content,
            situation=request.situation,
            embedding=item.vector,
            status=status,
            confidence=request.confidence,
            author_id=request.agent_id,
            pinned=request.kind in plan.pinned_kinds,
        )
        ttl = plan.ttls.get(request.kind)
        if ttl:
            lesson.expires_at = timezone.now() + timedelta(seconds=ttl)
        if not request.derived_from:  # one belief on one first-hand root
            lesson.corroboration, lesson.corroboration_reason = first_corroboration(
                request.confidence, plan.policy
            )
            plan.judged_at_insert.add(lesson.id)
        if item.created_at is not None:
            plan.created_at[lesson.id] = item.created_at
        plan.new[lesson.id] = lesson
        plan.new_units[lesson.id] = _unit(_vector(item))
        return lesson.id

    def edge(kind: EdgeKind, lesson_id: uuid.UUID) -> None:
        plan.edges.append(
            unsaved(Edge, tenant_id=request.tenant_id, kind=kind, belief_id=request.belief_id,
                    to_lesson_id=lesson_id)
        )  # fmt: skip

    if relation == Relation.DUPLICATE and target is not None:
        if target in plan.new:
            plan.new[target].reinforcement_count += 1
        else:
            plan.reinforce[target] = plan.reinforce.get(target, 0) + 1
        edge(EdgeKind.SUPPORTS, target)
        lesson_id, outcome, event = target, Outcome.REINFORCED, EventKind.REINFORCED
    elif relation == Relation.CONTRADICTS and target is not None:
        if target_author == request.agent_id or item.author.role == Role.CURATOR:
            lesson_id = new_lesson(LessonStatus.ACTIVE)
            plan.supersede[target] = lesson_id
            outcome, event = Outcome.SUPERSEDED, EventKind.SUPERSEDED
        else:
            # Another agent's lesson: a writer never overturns it; a
            # curator decides (the old lesson stays active meanwhile).
            lesson_id = new_lesson(LessonStatus.DISPUTED)
            outcome, event = Outcome.DISPUTED, EventKind.DISPUTED
        edge(EdgeKind.SUPPORTS, lesson_id)
        edge(EdgeKind.CONTRADICTS, target)
    else:
        target = None
        lesson_id = new_lesson(LessonStatus.ACTIVE)
        edge(EdgeKind.SUPPORTS, lesson_id)
        outcome, event = Outcome.INSERTED, EventKind.LEARNED
    plan.decisions.append(
        _Decision(item=item, verdict=verdict, outcome=outcome, event=event,
                  lesson_id=lesson_id, target_id=target, judge_ms=judge_ms)
    )  # fmt: skip
