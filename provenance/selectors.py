"""Reads over the provenance graph: independence and corroboration.

Corroboration is not repetition (docs/design.md §6): three agents who each read
the previous one's conclusion are one source. For a lesson we report, always
separately, its supporting beliefs, the agents who hold them, and its
**independent evidence roots** — the valid observations reachable through
``derived_from`` from its supporting beliefs (through parent beliefs, and
through a parent lesson's own supporting beliefs), copies of one original
(the same ``source_family``) counted once. One recursive query for any
number of lessons, not a walk in Python.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from config.db.prepared import PreparedRead, fetch_prepared


@dataclass(frozen=True)
class ProvenanceSummary:
    supporting_beliefs: int = 0
    agreeing_agents: int = 0
    independent_sources: int = 0
    # the strongest belief per independent root, averaged over the roots
    root_aware_confidence: float = 0.0
    # the plain average over supporting beliefs (what repetition inflates)
    naive_confidence: float = 0.0
    # independent roots (not among the lesson's own) of confident contradictions
    contradicting_sources: int = 0


def belief_children_sql(parent: str) -> str:
    """The step of every walk down the belief graph, as a lateral join
    yielding ``x.child``: the beliefs derived from the belief ``parent``
    (an SQL expression: a belief id), directly or through a lesson it
    supports (a belief citing a lesson rests on that lesson's supporters).
    ``parent`` is a column reference written in this code, never input."""
    return f"""CROSS JOIN LATERAL (
        SELECT e.belief_id AS child FROM provenance_edge e
        WHERE e.kind = 'derived_from' AND e.to_belief_id = {parent}
        UNION ALL
        SELECT e.belief_id FROM provenance_edge s
        JOIN provenance_edge e ON e.to_lesson_id = s.to_lesson_id AND e.kind = 'derived_from'
        WHERE s.belief_id = {parent} AND s.kind = 'supports'
    ) x"""  # noqa: S608


# Every belief under the lessons' supporters and contradictors (``anc``:
# down derived_from, into a cited lesson through its own supporters), then
# each one's roots computed bottom-up (``reach``: a belief has the roots of
# its own observations and of its parents). Linear in the edges and roots:
# a walk from each supporter would be quadratic on an echo chain. UNION, not
# UNION ALL: cycles end.
_SUMMARY_SQL = """
WITH RECURSIVE anc(belief_id) AS (
    SELECT e.belief_id
    FROM provenance_edge e JOIN provenance_belief b ON b.id = e.belief_id
    WHERE e.kind IN ('supports', 'contradicts') AND e.to_lesson_id = ANY(%(ids)s)
      AND b.status <> 'retracted'
  UNION
    SELECT x.parent FROM anc a CROSS JOIN LATERAL (
        SELECT e.to_belief_id AS parent FROM provenance_edge e
        WHERE e.belief_id = a.belief_id AND e.kind = 'derived_from'
          AND e.to_belief_id IS NOT NULL
        UNION ALL
        SELECT s.belief_id FROM provenance_edge e
        JOIN provenance_edge s ON s.to_lesson_id = e.to_lesson_id AND s.kind = 'supports'
        WHERE e.belief_id = a.belief_id AND e.kind = 'derived_from'
          AND e.to_lesson_id IS NOT NULL
    ) x
),
reach(belief_id, root) AS (
    -- Each belief's own roots, looked up per belief (OFFSET 0 keeps the
    -- lateral a loop): planned as a join, the recursive CTE's row estimate
    -- (hundreds) made the planner scan every derived_from edge of the
    -- table (each tenant's, filtered by row-level security) and probe each
    -- one's observation at some sizes (docs/benchmarks.md: 2.5 -> 0.8 ms a
    -- summary at 21,000 imported lessons).
    SELECT a.belief_id, x.root
    FROM anc a CROSS JOIN LATERAL (
        SELECT coalesce(nullif(o.source_family, ''), o.id::text) AS root
        FROM provenance_edge e
        JOIN provenance_observation o ON o.id = e.to_observation_id AND o.valid
        WHERE e.belief_id = a.belief_id AND e.kind = 'derived_from'
        OFFSET 0
    ) x
  UNION
    SELECT x.child, r.root FROM reach r {children}
    WHERE x.child IN (SELECT belief_id FROM anc)
),
rel AS (
    SELECT e.to_lesson_id AS lesson_id, e.kind, e.belief_id AS origin
    FROM provenance_edge e JOIN provenance_belief b ON b.id = e.belief_id
    WHERE e.kind IN ('supports', 'contradicts') AND e.to_lesson_id = ANY(%(ids)s)
      AND b.status <> 'retracted'
),
reached AS (
    SELECT DISTINCT rel.lesson_id, rel.kind, rel.origin, r.root
    FROM rel JOIN reach r ON r.belief_id = rel.origin
),
direct AS (
    SELECT e.to_lesson_id AS lesson_id, count(DISTINCT b.id) AS beliefs,
           count(DISTINCT b.agent_id) AS agents, avg(b.confidence) AS naive
    FROM provenance_edge e JOIN provenance_belief b ON b.id = e.belief_id
    WHERE e.kind = 'supports' AND e.to_lesson_id = ANY(%(ids)s) AND b.status <> 'retracted'
    GROUP BY e.to_lesson_id
),
rooted AS (
    SELECT r.lesson_id, r.root, max(b.confidence) AS best
    FROM reached r JOIN provenance_belief b ON b.id = r.origin
    WHERE r.kind = 'supports'
    GROUP BY r.lesson_id, r.root
),
roots AS (
    SELECT lesson_id, count(*) AS sources, avg(best) AS root_aware FROM rooted GROUP BY lesson_id
),
against AS (
    SELECT r.lesson_id, count(DISTINCT r.root) AS contra
    FROM reached r JOIN provenance_belief b ON b.id = r.origin
    WHERE r.kind = 'contradicts' AND b.confidence >= %(strong)s
      AND NOT EXISTS (SELECT 1 FROM rooted x WHERE x.lesson_id = r.lesson_id AND x.root = r.root)
    GROUP BY r.lesson_id
)
SELECT d.lesson_id, d.beliefs, d.agents, coalesce(r.sources, 0), coalesce(r.root_aware, 0),
       d.naive, coalesce(a.contra, 0)
FROM direct d
LEFT JOIN roots r ON r.lesson_id = d.lesson_id
LEFT JOIN against a ON a.lesson_id = d.lesson_id
""".replace("{children}", belief_children_sql("r.belief_id"))


def provenance_summaries(
    lesson_ids: list[uuid.UUID], *, strong_contradiction: float | None = None
) -> dict[uuid.UUID, ProvenanceSummary]:
    """Supporting beliefs, agreeing agents, independent evidence roots and
    both confidences for each lesson. Precondition: inside the tenant's
    context."""
    return provenance_summaries_read(lesson_ids, strong_contradiction=strong_contradiction).fetch()


def provenance_summaries_read(
    lesson_ids: list[uuid.UUID], *, strong_contradiction: float | None = None
) -> PreparedRead[dict[uuid.UUID, ProvenanceSummary]]:
    """``provenance_summaries`` as a read to send with others
    (``config.db.prepared.fetch_together``)."""
    if not lesson_ids:
        return PreparedRead(None, {}, lambda rows: {})
    strong = (
        settings.TRIBUTARY_CORROBORATION["contradiction_confidence"]
        if strong_contradiction is None
        else strong_contradiction
    )
    ids = [i if isinstance(i, uuid.UUID) else uuid.UUID(str(i)) for i in lesson_ids]
    return PreparedRead(_SUMMARY_SQL, {"ids": ids, "strong": float(strong)}, _summaries)


def _summaries(rows: list[tuple[Any, ...]]) -> dict[uuid.UUID, ProvenanceSummary]:
    return {
        row[0]: ProvenanceSummary(
            supporting_beliefs=row[1],
            agreeing_agents=row[2],
            independent_sources=row[3],
            root_aware_confidence=round(float(row[4]), 4),
            naive_confidence=round(float(row[5]), 4),
            contradicting_sources=row[6],
        )
        for row in rows
    }


def corroboration_policy(tenant_id: uuid.UUID) -> dict[str, Any]:
    """The tenant's corroboration policy (its overrides on the settings'
    defaults). Precondition: inside the tenant's context."""
    # Prepared: read on every recall and every learn batch.
    rows = fetch_prepared(
        "SELECT corroboration_policy FROM accounts_tenant WHERE id = %(tenant)s",
        {"tenant": tenant_id},
    )
    # Django's connection loads jsonb as text (for JSONField to decode).
    stored = rows[0][0] if rows else None
    return tenant_policy(json.loads(stored) if isinstance(stored, str) else stored)


def tenant_policy(overrides: dict[str, Any] | None) -> dict[str, Any]:
    """The corroboration policy: the settings' defaults, overridden by the
    tenant's ``corroboration_policy`` where a value is of the right type."""
    policy: dict[str, Any] = dict(settings.TRIBUTARY_CORROBORATION)
    for key, value in (overrides or {}).items():
        if (key == "strict" and isinstance(value, bool)) or (
            key == "min_independent_sources" and isinstance(value, int) and value >= 1
        ):
            policy[key] = value
        elif key in ("min_confidence", "contradiction_confidence") and isinstance(
            value, (int, float)
        ):
            policy[key] = min(1.0, max(0.0, float(value)))
    return policy


def corroboration(summary: ProvenanceSummary, policy: dict[str, Any]) -> tuple[str, str]:
    """(status, one-sentence reason) for a lesson under a policy."""
    sources = summary.independent_sources
    need, floor = policy["min_independent_sources"], policy["min_confidence"]
    if summary.supporting_beliefs == 0 or sources == 0:
        return "unsupported", "No supporting belief rests on valid evidence."
    if summary.contradicting_sources:
        return "contested", (
            f"{summary.contradicting_sources} independent source(s) contradict it with "
            f"confidence ≥ {policy['contradiction_confidence']:g}."
        )
    if sources >= need and summary.root_aware_confidence >= floor:
        return "corroborated", (
            f"{sources} independent evidence sources; root-aware confidence "
            f"{summary.root_aware_confidence:.2f}."
        )
    if sources < need:
        beliefs = summary.supporting_beliefs
        return "single-source", (
            f"{beliefs} supporting belief{'s' if beliefs != 1 else ''} "
            f"descend{'s' if beliefs == 1 else ''} from "
            f"{'a single evidence source' if sources == 1 else f'{sources} evidence sources'}; "
            f"the policy needs {need}."
        )
    return "low-confidence", (
        f"{sources} independent sources, but their root-aware confidence "
        f"{summary.root_aware_confidence:.2f} is below {floor:g}."
    )


# The lineage walk, from lessons down: every belief under each lesson in
# ``%(ids)s`` (its supporters and contradictors, down derived_from, into a
# cited lesson through its own supporters), as g(lesson_id, belief_id). The
# lineage (provenance/presenters.py) and the evidence below both start from it.
LINEAGE_WALK = """
g(lesson_id, belief_id) AS (
    SELECT e.to_lesson_id, e.belief_id FROM provenance_edge e
    WHERE e.to_lesson_id = ANY(%(ids)s) AND e.kind IN ('supports', 'contradicts')
  UNION
    SELECT g.lesson_id, x.b FROM g CROSS JOIN LATERAL (
        SELECT e.to_belief_id AS b FROM provenance_edge e
        WHERE e.belief_id = g.belief_id AND e.kind = 'derived_from' AND e.to_belief_id IS NOT NULL
        UNION ALL
        SELECT s.belief_id FROM provenance_edge e
        JOIN provenance_edge s ON s.to_lesson_id = e.to_lesson_id AND s.kind = 'supports'
        WHERE e.belief_id = g.belief_id AND e.kind = 'derived_from' AND e.to_lesson_id IS NOT NULL
    ) x
)
"""
# Where each walk ends: the observations, looked up per belief (OFFSET 0
# keeps the lateral a loop; as a join, the walk's row estimate had the
# planner scan the whole edge table: see _SUMMARY_SQL's reach).
_EVIDENCE_SQL = f"""
WITH RECURSIVE {LINEAGE_WALK}
SELECT DISTINCT g.lesson_id, x.to_observation_id
FROM g CROSS JOIN LATERAL (
    SELECT e.to_observation_id FROM provenance_edge e
    WHERE e.belief_id = g.belief_id AND e.kind = 'derived_from'
      AND e.to_observation_id IS NOT NULL
    OFFSET 0
) x
"""  # noqa: S608 (a constant)


def lessons_evidence(lesson_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[Any]]:
    """The observations under each lesson (what its lineage ends in), oldest
    first: two queries for any number of lessons. Precondition: inside the
    tenant's context."""
    from provenance.models import Observation

    found: dict[uuid.UUID, list[Any]] = {lesson_id: [] for lesson_id in lesson_ids}
    if not lesson_ids:
        return found
    pairs = fetch_prepared(_EVIDENCE_SQL, {"ids": list(lesson_ids)})
    observations = Observation.objects.in_bulk({observation for _, observation in pairs})
    for lesson_id, observation in pairs:
        if observation in observations:
            found[lesson_id].append(observations[observation])
    for evidence in found.values():
        evidence.sort(key=lambda o: (o.created_at, o.id))
    return found


def decisions_list(
    *, status: str = "all", limit: int = 500, newest_first: bool = False
) -> list[Any]:
    """The tenant's decisions, oldest first (or newest), with their agents
    (``status`` ok, needs_review or all). Precondition: inside the tenant's
    context."""
    from provenance.models import Decision

    order = ("-created_at", "-id") if newest_first else ("created_at", "id")
    decisions = Decision.objects.select_related("agent").order_by(*order)
    if status != "all":
        decisions = decisions.filter(status=status)
    return list(decisions[:limit])


def decision_bases(decision_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[uuid.UUID]]:
    """The lessons each decision rests on, for many decisions in one query."""
    from provenance.models import DecisionBasis

    bases: dict[uuid.UUID, list[uuid.UUID]] = {}
    for decision_id, lesson_id in DecisionBasis.objects.filter(
        decision_id__in=decision_ids
    ).values_list("decision_id", "lesson_id"):
        bases.setdefault(decision_id, []).append(lesson_id)
    return bases
