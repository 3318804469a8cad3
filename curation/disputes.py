"""Disputes: a writer's lesson that contradicts another agent's (docs/design.md §7).

A curator resolves one through :func:`dispute_resolve` — the API, the admin
and the dashboard all call it:

* ``keep_old`` — the disputed lesson is retired; the old one stays active.
* ``accept_new`` — the old lesson is superseded by the new one (its
  ``superseded_by`` set: the history chain holds), the new one active.
* ``keep_both`` — the new lesson becomes active beside the old one.
"""

from __future__ import annotations

import uuid

from django.db.models import QuerySet
from django.utils import timezone

from accounts.principal import AgentPrincipal
from accounts.tenancy import run_apply_transaction
from config.errors import ApplicationError, Conflict, NotFound
from memory.models import Dispute, DisputeStatus, EventKind, Lesson, LessonStatus, Resolution
from memory.services.events import curator_action_record, event_record
from memory.services.transitions import Move, lessons_move

KEPT_OLD = "dispute: kept the older lesson"


def disputes_list(*, status: str | None = DisputeStatus.OPEN) -> QuerySet[Dispute]:
    """The caller's tenant's disputes, oldest first. Precondition: inside
    the tenant's context."""
    disputes = Dispute.objects.select_related(
        "lesson__author", "target__author", "opened_by", "resolved_by"
    ).order_by("created_at", "id")
    return disputes.filter(status=status) if status else disputes


def dispute_resolve(
    *, principal: AgentPrincipal, dispute_id: uuid.UUID, resolution: str, note: str = ""
) -> Dispute:
    """Resolve an open dispute of the caller's tenant (curators only)."""
    principal.require_curator("resolves disputes")
    if resolution not in Resolution.values or resolution == Resolution.WITHDRAWN:
        raise ApplicationError(f"unknown resolution {resolution!r}", code="invalid_choice")

    def operation() -> Dispute:
        dispute = Dispute.objects.select_for_update().filter(id=dispute_id).first()
        if dispute is None:
            raise NotFound("no such dispute")
        if dispute.status != DisputeStatus.OPEN:
            raise Conflict(
                f"dispute already resolved ({dispute.resolution})", code="dispute_resolved"
            )
        new = Lesson.objects.select_for_update().get(id=dispute.lesson_id)
        old = Lesson.objects.select_for_update().get(id=dispute.target_id)
        if new.status != LessonStatus.DISPUTED:
            raise Conflict(f"the disputed lesson is {new.status} now", code="lesson_not_disputed")
        if resolution == Resolution.ACCEPT_NEW and old.status != LessonStatus.ACTIVE:
            raise Conflict(
                f"the existing lesson is {old.status} now; keep_both or keep_old",
                code="lesson_not_active",
            )
        # Resolved first: the disputed lesson's move withdraws only open disputes.
        dispute.status, dispute.resolution = DisputeStatus.RESOLVED, resolution
        dispute.resolved_by_id, dispute.resolved_at = principal.agent_id, timezone.now()
        dispute.note = note
        dispute.save(update_fields=["status", "resolution", "resolved_by", "resolved_at", "note"])
        if resolution == Resolution.KEEP_OLD:
            moves = [Move.of(new, LessonStatus.RETIRED, retired_reason=KEPT_OLD)]
        else:
            moves = [Move.of(new, LessonStatus.ACTIVE)]
        if resolution == Resolution.ACCEPT_NEW:
            moves.append(Move.of(old, LessonStatus.SUPERSEDED, superseded_by_id=new.id))
        lessons_move(tenant_id=principal.tenant_id, agent_id=principal.agent_id, moves=moves)
        curator_action_record(
            principal=principal, action=f"resolve_{resolution}", target_type="dispute",
            target_id=dispute.id, reason=note,
        )  # fmt: skip
        event_record(
            tenant_id=principal.tenant_id, kind=EventKind.RESOLVED, lesson_id=new.id,
            agent_id=principal.agent_id, dispute_id=dispute.id, resolution=resolution,
            target_lesson_id=old.id,
        )  # fmt: skip
        return dispute

    return run_apply_transaction(principal.tenant_id, operation, joinable=True)
