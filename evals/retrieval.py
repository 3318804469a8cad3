"""Recall on a seeded corpus (``evals/retrieval_golden.json``).

The corpus is 124 lessons in clusters that share vocabulary (one service,
several facts; one fact, several services) and identifiers (error codes,
headers, config keys, flags, ports). The queries are paraphrases — an agent's
question in other words — and exact-token questions that hinge on one
identifier. Each names the lesson(s) that answer it.

The corpus goes in through the real learn pipeline (screen, embedding,
apply) with a seeding judge that calls everything novel — the corpus is
deliberately full of near neighbours, and this measures recall, not merging.
Metrics: hit@5 (an expected lesson in the top 5) and MRR (1/rank of the
first expected lesson in the top 10).

Precondition for every function: Django set up, the database migrated.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import connection, transaction

from accounts.models import Role
from accounts.principal import AgentPrincipal
from accounts.services import agent_ensure, tenant_ensure
from accounts.tenancy import cross_tenant, tenant_context
from memory.judge import Candidate, Relation, Verdict
from regions.transfer import allow_erasing

RETRIEVAL_PATH = Path(__file__).resolve().parent / "retrieval_golden.json"
EVAL_TENANT = "tributary-evals"

# The evaluation tenant's memory: every tenant table but the accounts ones
# (its tenant and agent stay). Read from the catalog, so a table added later
# is emptied too; foreign keys are deferred, so the order does not matter.
_MEMORY_TABLES_SQL = """
SELECT c.relname FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname NOT LIKE 'accounts%'
ORDER BY c.relname
"""


class SeedingJudge:
    """Calls every lesson novel: seeding a corpus, not judging it."""

    name = "seed"

    def classify(self, *, content: str, situation: str, candidates: Sequence[Candidate]) -> Verdict:
        return Verdict(Relation.NOVEL, None, 1.0, "seeded corpus", self.name)


def eval_principal(slug: str = EVAL_TENANT) -> AgentPrincipal:
    """An evaluation tenant's agent, its memory emptied (it holds nothing
    but what the last evaluation seeded)."""
    from accounts.models import Tenant

    with cross_tenant(reason="evaluation set-up"):
        tenant: Tenant = tenant_ensure(slug=slug)
        agent = agent_ensure(tenant=tenant, name="evaluator", role=Role.CURATOR)
    with transaction.atomic(), tenant_context(tenant.id), connection.cursor() as cursor:
        allow_erasing(cursor, tenant.id)
        cursor.execute(_MEMORY_TABLES_SQL)
        for (table,) in cursor.fetchall():
            cursor.execute(f'DELETE FROM "{table}" WHERE tenant_id = %s', [tenant.id])  # noqa: S608
    return AgentPrincipal(
        tenant_id=tenant.id, tenant_slug=tenant.slug, region=tenant.region, agent_id=agent.id,
        agent_name=agent.name, role=Role.CURATOR, key_id=uuid.UUID(int=0),
    )  # fmt: skip


def load_golden(path: Path = RETRIEVAL_PATH) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def seed(principal: AgentPrincipal, lessons: list[dict[str, Any]]) -> dict[str, uuid.UUID]:
    """Learn the corpus; returns lesson key → lesson id."""
    from memory.models import LearnRequest
    from memory.services.learn import learn_pending_drain, lesson_learn

    requests: dict[str, uuid.UUID] = {}
    for lesson in lessons:
        with tenant_context(principal.tenant_id):
            request, _ = lesson_learn(
                principal=principal, content=lesson["content"],
                situation=lesson.get("situation", ""), kind=lesson.get("kind", "lesson"),
            )  # fmt: skip
        requests[lesson["key"]] = request.id
    learn_pending_drain(tenant_id=principal.tenant_id, judge=SeedingJudge())
    with tenant_context(principal.tenant_id):
        lesson_of = dict(
            LearnRequest.objects.filter(id__in=requests.values()).values_list("id", "lesson_id")
        )
    return {key: lesson_of[request_id] for key, request_id in requests.items()}


@dataclass
class RetrievalReport:
    queries: int = 0
    hits_at_5: int = 0
    reciprocal_ranks: float = 0.0
    by_type: dict[str, list[float]] = field(default_factory=dict)  # type → [hits, rr, count]
    misses: list[str] = field(default_factory=list)

    @property
    def hit_at_5(self) -> float:
        return self.hits_at_5 / self.queries if self.queries else 0.0

    @property
    def mrr(self) -> float:
        return self.reciprocal_ranks / self.queries if self.queries else 0.0

    def metrics(self) -> dict[str, float]:
        return {"hit_at_5": round(self.hit_at_5, 4), "mrr": round(self.mrr, 4)}


def evaluate(
    principal: AgentPrincipal, ids: dict[str, uuid.UUID], queries: list[dict[str, Any]]
) -> RetrievalReport:
    from memory.selectors import lesson_recall

    report = RetrievalReport()
    for query in queries:
        expected = {ids[key] for key in query["expected"]}
        with tenant_context(principal.tenant_id):
            hits = lesson_recall(tenant_id=principal.tenant_id, query=query["query"], k=10)
        ranked = [hit.lesson.id for hit in hits]
        rank = next((n for n, i in enumerate(ranked, start=1) if i in expected), None)
        hit = rank is not None and rank <= 5
        rr = 1.0 / rank if rank else 0.0
        report.queries += 1
        report.hits_at_5 += int(hit)
        report.reciprocal_ranks += rr
        row = report.by_type.setdefault(query["type"], [0.0, 0.0, 0.0])
        row[0] += int(hit)
        row[1] += rr
        row[2] += 1
        if not hit:
            report.misses.append(f"{query['id']} (rank {rank or '>10'}): {query['query']}")
    return report


def run() -> RetrievalReport:
    golden = load_golden()
    principal = eval_principal()
    ids = seed(principal, golden["lessons"])
    return evaluate(principal, ids, golden["queries"])


def format_report(report: RetrievalReport) -> str:
    lines = [
        f"retrieval: {report.queries} queries",
        f"  hit@5   {report.hit_at_5:.3f}",
        f"  MRR     {report.mrr:.3f}",
    ]
    for kind, (hits, rr, count) in sorted(report.by_type.items()):
        lines.append(f"  {kind:<12} hit@5 {hits / count:.3f}  MRR {rr / count:.3f}  ({int(count)})")
    lines += [f"  missed {m}" for m in report.misses]
    return "\n".join(lines)
