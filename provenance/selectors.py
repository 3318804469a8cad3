"""Reads over the provenance graph."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import connection


@dataclass(frozen=True)
class ProvenanceSummary:
    supporting_beliefs: int = 0
    agreeing_agents: int = 0
    independent_sources: int = 0


# One recursive query for a batch of lessons: walk from each lesson's
# supporting beliefs down derived_from edges (through parent beliefs, and
# through parent lessons' supporting beliefs) to the observations at the
# bottom; copies of one original (same source_family) count once. UNION, not
# UNION ALL, so a cycle ends the walk.
_SUMMARY_SQL = """
WITH RECURSIVE walk(lesson_id, belief_id) AS (
    SELECT e.to_lesson_id, e.belief_id
    FROM provenance_edge e
    WHERE e.kind = 'supports' AND e.to_lesson_id = ANY(%(ids)s)
  UNION
    SELECT w.lesson_id, coalesce(e.to_belief_id, s.belief_id)
    FROM walk w
    JOIN provenance_edge e ON e.belief_id = w.belief_id AND e.kind = 'derived_from'
    LEFT JOIN provenance_edge s
      ON e.to_lesson_id IS NOT NULL AND s.to_lesson_id = e.to_lesson_id AND s.kind = 'supports'
    WHERE coalesce(e.to_belief_id, s.belief_id) IS NOT NULL
),
direct AS (
    SELECT e.to_lesson_id AS lesson_id,
           count(DISTINCT e.belief_id) AS beliefs,
           count(DISTINCT b.agent_id) AS agents
    FROM provenance_edge e JOIN provenance_belief b ON b.id = e.belief_id
    WHERE e.kind = 'supports' AND e.to_lesson_id = ANY(%(ids)s)
    GROUP BY e.to_lesson_id
),
roots AS (
    SELECT w.lesson_id,
           count(DISTINCT coalesce(nullif(o.source_family, ''), o.id::text)) AS sources
    FROM walk w
    JOIN provenance_edge e
      ON e.belief_id = w.belief_id AND e.kind = 'derived_from' AND e.to_observation_id IS NOT NULL
    JOIN provenance_observation o ON o.id = e.to_observation_id
    GROUP BY w.lesson_id
)
SELECT d.lesson_id, d.beliefs, d.agents, coalesce(r.sources, 0)
FROM direct d LEFT JOIN roots r ON r.lesson_id = d.lesson_id
"""


def provenance_summaries(lesson_ids: list[uuid.UUID]) -> dict[uuid.UUID, ProvenanceSummary]:
    """Supporting beliefs, agreeing agents and independent evidence roots
    for each lesson. Precondition: inside the tenant's context."""
    if not lesson_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_SUMMARY_SQL, {"ids": list(lesson_ids)})
        rows = cursor.fetchall()
    return {
        row[0]: ProvenanceSummary(
            supporting_beliefs=row[1], agreeing_agents=row[2], independent_sources=row[3]
        )
        for row in rows
    }
