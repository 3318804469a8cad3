"""Recall on long histories (issue 21): ``evals/longmem.json``.

Four teams' operations over six months — dated facts, some of which change
later (owners, limits, vendors, decisions) — and questions of four kinds
with the ids of the facts that hold each answer: ``single``, ``multi-hop``
(several facts), ``temporal`` ("who owned it in March": older, maybe
superseded facts) and ``adversarial`` (the answer is not in memory). The
set was written blind, by a helper who never saw the retrieval code.

Each history is learned into an evaluation tenant of its own, in date
order, through the learn pipeline with the configured judge (so a fact the
judge takes for a restatement is folded, and one it takes for a
contradiction supersedes, as in service). Each fact is stored as
``"<date>: <text>"``. Every question is then recalled with k = 10, and the
same question is answered by **exact vector search over the same facts**
(every fact, as written, by cosine similarity of the same model's
embeddings) — the baseline a user could build in an afternoon. Scores:

* hit@10: at least one evidence fact in the top 10;
* evidence recall@10: the share of a question's evidence facts in the top
  10 (a fact folded into another lesson counts as found with it);
* adversarial: the share of answers that are empty or flagged as not
  answering (``nothing_relevant``: memory/relevance.py and
  memory/answers.py); the same flag on answerable questions is counted too
  (a wrong "nothing here").

``python -m evals.longmem`` prints the report.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accounts.principal import AgentPrincipal

LONGMEM_PATH = Path(__file__).resolve().parent / "longmem.json"
# Four pairs of friends talking over months (written blind on 2026-12-02,
# scored once; training data since): what is scored beside the gate's set.
CONVERSATIONS_PATH = Path(__file__).resolve().parent / "longmem_conv.json"
K = 10
KINDS = ("single", "multi-hop", "temporal", "adversarial")


def load(path: Path = LONGMEM_PATH) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def fact_text(fact: dict[str, Any]) -> str:
    return f"{fact['date']}: {fact['text']}"


@dataclass
class Scores:
    """Sums per question kind: [questions, hits, evidence recall, empty answers]."""

    rows: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0] * 4))

    def add(self, kind: str, evidence: set[str], found: set[str], answered: bool) -> None:
        row = self.rows[kind]
        row[0] += 1
        if evidence:
            row[1] += bool(evidence & found)
            row[2] += len(evidence & found) / len(evidence)
        row[3] += not answered

    def hit(self, kinds: tuple[str, ...]) -> float:
        n = sum(self.rows[k][0] for k in kinds)
        return sum(self.rows[k][1] for k in kinds) / n if n else 0.0

    def evidence_recall(self, kinds: tuple[str, ...]) -> float:
        n = sum(self.rows[k][0] for k in kinds)
        return sum(self.rows[k][2] for k in kinds) / n if n else 0.0

    def abstained(self, kinds: tuple[str, ...] = ("adversarial",)) -> float:
        """The share of ``kinds``' answers that were empty or flagged."""
        n = sum(self.rows[k][0] for k in kinds)
        return sum(self.rows[k][3] for k in kinds) / n if n else 0.0


ANSWERABLE = ("single", "multi-hop", "temporal")


@dataclass
class LongMemReport:
    recall: Scores = field(default_factory=Scores)
    exact: Scores = field(default_factory=Scores)
    facts: int = 0
    lessons: int = 0  # active lessons after learning (folds and supersessions take some)
    superseded: int = 0

    def metrics(self) -> dict[str, float]:
        return {
            "evidence_recall_at_10": round(self.recall.evidence_recall(ANSWERABLE), 4),
            "hit_at_10": round(self.recall.hit(ANSWERABLE), 4),
            # Distinct facts folded into one lesson inflate recall@10 (a few
            # lessons hold everything): a judge that folds them must fail here.
            "lessons_per_fact": round((self.lessons + self.superseded) / max(1, self.facts), 4),
            # questions memory cannot answer, answered empty or nothing_relevant
            "adversarial_flagged": round(self.recall.abstained(), 4),
            # and questions it can, wrongly so (a ceiling)
            "answerable_flagged": round(self.recall.abstained(ANSWERABLE), 4),
        }


def _seed(
    principal: AgentPrincipal, facts: list[dict[str, Any]], judge: Any
) -> dict[uuid.UUID, set[str]]:
    """Learn the history's facts in order; returns lesson id → the fact ids it holds."""
    from accounts.tenancy import tenant_context
    from memory.models import LearnRequest
    from memory.services.learn import learn_pending_drain, lesson_learn

    requests: dict[uuid.UUID, str] = {}
    for fact in sorted(facts, key=lambda f: (f["date"], f["id"])):
        with tenant_context(principal.tenant_id):
            request, _ = lesson_learn(principal=principal, content=fact_text(fact), kind="fact")
        requests[request.id] = fact["id"]
    learn_pending_drain(tenant_id=principal.tenant_id, judge=judge)
    held: dict[uuid.UUID, set[str]] = defaultdict(set)
    with tenant_context(principal.tenant_id):
        rows = LearnRequest.objects.filter(id__in=requests).values_list("id", "lesson_id")
        for request_id, lesson_id in rows:
            if lesson_id is not None:
                held[lesson_id].add(requests[request_id])
    return held


def evaluate(data: dict[str, Any] | None = None, judge: Any = None) -> LongMemReport:
    """Learn and ask every history; ``judge``: the learn pipeline's (None:
    the configured one)."""
    import numpy as np

    from accounts.tenancy import tenant_context
    from evals.retrieval import EVAL_TENANT, eval_principal
    from memory.embeddings import embed, embed_query, lesson_text
    from memory.judge import get_judge
    from memory.models import Lesson
    from memory.selectors import recall_judged

    data = load() if data is None else data
    judge = get_judge() if judge is None else judge
    report = LongMemReport()
    by_history: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for question in data["questions"]:
        by_history[question["history"]].append(question)
    for history in data["histories"]:
        principal = eval_principal(f"{EVAL_TENANT}-longmem-{history['id']}")
        facts = history["facts"]
        held = _seed(principal, facts, judge)
        vectors = np.asarray(embed([lesson_text(fact_text(f), "") for f in facts]))
        report.facts += len(facts)
        with tenant_context(principal.tenant_id):
            report.lessons += Lesson.objects.filter(status="active").count()
            report.superseded += Lesson.objects.filter(status="superseded").count()
        for question in by_history[history["id"]]:
            evidence = set(question["evidence"])
            with tenant_context(principal.tenant_id):
                recalled = recall_judged(
                    tenant_id=principal.tenant_id, query=question["question"], k=K
                )
            hits = recalled.hits
            found = set().union(*(held.get(hit.lesson.id, set()) for hit in hits))
            answered = bool(hits) and not recalled.nothing_relevant
            report.recall.add(question["kind"], evidence, found, answered=answered)
            scores = vectors @ np.asarray(embed_query(question["question"]))
            top = {facts[i]["id"] for i in np.argsort(-scores)[:K]}
            report.exact.add(question["kind"], evidence, top, answered=True)
    return report


def format_report(report: LongMemReport) -> str:
    lines = [
        f"long histories: {report.facts} facts learned -> {report.lessons} active lessons "
        f"({report.superseded} superseded); k = {K}",
        "  kind          questions   recall hit / evidence   exact search hit / evidence",
    ]
    for name, kinds in [*((k, (k,)) for k in ANSWERABLE), ("answerable", ANSWERABLE)]:
        n = int(sum(report.recall.rows[k][0] for k in kinds))
        r, e = report.recall, report.exact
        lines.append(
            f"  {name:<13} {n:>9}   {r.hit(kinds):.3f} / {r.evidence_recall(kinds):.3f}"
            f"           {e.hit(kinds):.3f} / {e.evidence_recall(kinds):.3f}"
        )
    adversarial = int(report.recall.rows["adversarial"][0])
    lines.append(
        f"  adversarial   {adversarial:>9}   empty or flagged: {report.recall.abstained():.3f}"
        f" (answerable questions flagged: {report.recall.abstained(ANSWERABLE):.3f})"
    )
    return "\n".join(lines)


def text_weight_sweep(
    weights: list[float], judge: Any = None, data: dict[str, Any] | None = None
) -> list[str]:
    """The fusion's full-text weight (``memory.selectors.TEXT_WEIGHT``) tried
    at each of ``weights`` on this set and the retrieval golden set: how the
    weight is chosen (a line per weight)."""
    from evals import retrieval
    from memory import selectors

    chosen = selectors.TEXT_WEIGHT
    lines = [
        f"text weight   retrieval hit@5 / MRR   long histories evidence recall@10"
        f" (in use: {chosen:g})"
    ]
    try:
        for weight in weights:
            selectors.TEXT_WEIGHT = weight
            recall = retrieval.run().metrics()
            histories = evaluate(data, judge=judge).recall
            kinds = " ".join(f"{k} {histories.evidence_recall((k,)):.3f}" for k in ANSWERABLE)
            lines.append(
                f"  {weight:<11g} {recall['hit_at_5']:.3f} / {recall['mrr']:.3f}"
                f"           {histories.evidence_recall(ANSWERABLE):.3f} ({kinds})"
            )
    finally:
        selectors.TEXT_WEIGHT = chosen
    return lines


def main(argv: list[str] | None = None) -> int:
    import argparse
    import os

    import django

    parser = argparse.ArgumentParser(prog="python -m evals.longmem")
    parser.add_argument(
        "--text-weights", help="comma-separated full-text weights to sweep (e.g. 0,0.5,1,2)"
    )
    parser.add_argument(
        "--set", type=Path, default=LONGMEM_PATH,
        help=f"the histories (default {LONGMEM_PATH.name}; also {CONVERSATIONS_PATH.name})",
    )  # fmt: skip
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from config.embedded import ensure_services

    ensure_services()
    if args.text_weights:
        weights = [float(w) for w in args.text_weights.split(",")]
        print("\n".join(text_weight_sweep(weights, data=load(args.set))))
    else:
        print(format_report(evaluate(load(args.set))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
