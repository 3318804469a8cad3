"""The retraction cascade: a source found wrong, and everything built on it
repaired (docs/design.md §6).

``observation_invalidate`` marks the observation invalid (it is never
edited or deleted), then walks forward in one transaction: every belief
that derives from it — directly, through other beliefs, or through a lesson
it supports — is *retracted* when no valid root is left under it, else
*uncertain*; every lesson those beliefs support or contradict is evaluated
again (under a strict policy a lesson left unsupported leaves ``active``);
every decision resting on those lessons is flagged ``needs_review``. The
repair report lists all of it.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import connection
from django.utils import timezone

from accounts.principal import AgentPrincipal
from accounts.tenancy import run_apply_transaction
from config.errors import Conflict, NotFound
from provenance.models import (
    Belief,
    BeliefStatus,
    Decision,
    DecisionBasis,
    DecisionStatus,
    Observation,
)
from provenance.selectors import belief_children_sql, corroboration_policy
from provenance.services import lessons_evaluate

# Beliefs downstream of an observation: derived from it, from a belief
# downstream of it, or from a lesson such a belief supports.
_DOWNSTREAM_SQL = """
WITH RECURSIVE down(belief_id) AS (
    SELECT e.belief_id FROM provenance_edge e
    WHERE e.kind = 'derived_from' AND e.to_observation_id = %(observation)s
  UNION
    SELECT x.child FROM down d {children_down}
)
SELECT belief_id FROM down
""".replace("{children_down}", belief_children_sql("d.belief_id"))

# Of the affected beliefs, those still resting on valid evidence: bottom-up
# (linear in the edges, unlike a walk from each belief), seeded by affected
# beliefs with a valid observation of their own, or a parent outside the
# affected set that is not retracted (a belief, or a lesson such a belief
# supports), then passed on to affected children.
_ROOTED_SQL = """
WITH RECURSIVE rooted(belief_id) AS (
    SELECT e.belief_id
    FROM provenance_edge e
    LEFT JOIN provenance_observation o ON o.id = e.to_observation_id
    LEFT JOIN provenance_belief p ON p.id = e.to_belief_id
    WHERE e.kind = 'derived_from' AND e.belief_id = ANY(%(beliefs)s)
      AND (o.valid
           OR (p.id IS NOT NULL AND p.status <> 'retracted' AND NOT p.id = ANY(%(beliefs)s))
           OR EXISTS (SELECT 1 FROM provenance_edge s
                      JOIN provenance_belief sb ON sb.id = s.belief_id
                      WHERE s.to_lesson_id = e.to_lesson_id AND s.kind = 'supports'
                        AND sb.status <> 'retracted' AND NOT sb.id = ANY(%(beliefs)s)))
  UNION
    SELECT x.child FROM rooted r {children_rooted}
    WHERE x.child = ANY(%(beliefs)s)
)
SELECT DISTINCT belief_id FROM rooted
""".replace("{children_rooted}", belief_children_sql("r.belief_id"))


def observation_invalidate(
    *, principal: AgentPrincipal, observation_id: uuid.UUID, reason: str
) -> dict[str, Any]:
    """Curators only. Returns the repair report."""
    principal.require_curator("invalidates sources")

    def operation() -> dict[str, Any]:
        from memory.models import EventKind, Lesson, LessonStatus
        from memory.services.transitions import lesson_move

        observation = Observation.objects.select_for_update().filter(id=observation_id).first()
        if observation is None:
            raise NotFound("no such observation")
        if not observation.valid:
            raise Conflict("the observation is already invalid", code="already_invalid")
        now = timezone.now()
        observation.valid, observation.invalid_reason = False, reason
        observation.invalidated_at = now
        observation.save(update_fields=["valid", "invalid_reason", "invalidated_at"])
        with connection.cursor() as cursor:
            cursor.execute(_DOWNSTREAM_SQL, {"observation": observation.id})
            affected = [row[0] for row in cursor.fetchall()]
            cursor.execute(_ROOTED_SQL, {"beliefs": affected})
            rooted = {row[0] for row in cursor.fetchall()}
        retracted = [b for b in affected if b not in rooted]
        uncertain = [b for b in affected if b in rooted]
        Belief.objects.filter(id__in=retracted).update(status=BeliefStatus.RETRACTED)
        Belief.objects.filter(id__in=uncertain).update(status=BeliefStatus.UNCERTAIN)
        from provenance.models import Edge, EdgeKind

        lesson_ids = list(
            Edge.objects.filter(
                belief_id__in=affected, kind__in=[EdgeKind.SUPPORTS, EdgeKind.CONTRADICTS]
            )
            .values_list("to_lesson_id", flat=True)
            .distinct()
        )
        changes = lessons_evaluate(
            tenant_id=principal.tenant_id, lesson_ids=lesson_ids, trigger="invalidate"
        )
        strict = corroboration_policy(principal.tenant_id)["strict"]
        deactivated: list[uuid.UUID] = []
        if strict:
            for lesson in Lesson.objects.filter(
                id__in=[i for i, (_, after) in changes.items() if after == "unsupported"],
                status=LessonStatus.ACTIVE,
            ):
                lesson_move(
                    tenant_id=principal.tenant_id, agent_id=principal.agent_id, lesson=lesson,
                    status=LessonStatus.RETIRED, event=EventKind.RETIRED,
                    event_data={"observation_id": str(observation.id)},
                    retired_reason=f"lost its evidence: observation {observation.id} invalidated",
                )  # fmt: skip
                deactivated.append(lesson.id)
        flagged = list(
            Decision.objects.filter(
                id__in=DecisionBasis.objects.filter(lesson_id__in=lesson_ids).values("decision_id"),
                status=DecisionStatus.OK,
            ).values_list("id", flat=True)
        )
        Decision.objects.filter(id__in=flagged).update(
            status=DecisionStatus.NEEDS_REVIEW,
            review_reason=f"rests on a lesson whose source {observation.id} was invalidated",
        )
        from memory.services.events import curator_action_record, event_record

        curator_action_record(
            principal=principal, action="invalidate", target_type="observation",
            target_id=observation.id, reason=reason,
        )  # fmt: skip
        event_record(
            tenant_id=principal.tenant_id, kind=EventKind.INVALIDATED,
            agent_id=principal.agent_id, observation_id=observation.id,
            retracted=len(retracted), uncertain=len(uncertain), lessons=len(lesson_ids),
            decisions=len(flagged),
        )  # fmt: skip
        return {
            "observation": {"id": str(observation.id), "valid": False, "reason": reason},
            "beliefs_retracted": sorted(str(b) for b in retracted),
            "beliefs_uncertain": sorted(str(b) for b in uncertain),
            "lessons_reevaluated": [
                {"id": str(i), "before": before, "after": after}
                for i, (before, after) in changes.items()
            ],
            "lessons_deactivated": [str(i) for i in deactivated],
            "decisions_flagged": sorted(str(d) for d in flagged),
        }

    return run_apply_transaction(principal.tenant_id, operation, joinable=True)
