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

from django.db.models import F, QuerySet
from django.utils import timezone

from accounts.models import Role
from accounts.principal import AgentPrincipal
from accounts.tenancy import run_apply_transaction
from config.errors import ApplicationError, Conflict, Forbidden, NotFound
from curation.models import Dispute, DisputeStatus, EventKind, Resolution
from curation.services import event_record


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
    from memory.models import Lesson, LessonStatus, Scope

    if principal.role != Role.CURATOR:
        raise Forbidden("only a curator resolves disputes")
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
        now = timezone.now()
        new = Lesson.objects.select_for_update().get(id=dispute.lesson_id)
        old = Lesson.objects.select_for_update().get(id=dispute.target_id)
        if new.status != LessonStatus.DISPUTED:
            raise Conflict(f"the disputed lesson is {new.status} now", code="lesson_not_disputed")
        activated = 0
        if resolution == Resolution.KEEP_OLD:
            new.status, new.retired_reason = LessonStatus.RETIRED, "dispute: kept the older lesson"
            new.save(update_fields=["status", "retired_reason"])
        else:
            new.status, new.activated_at = LessonStatus.ACTIVE, now
            new.save(update_fields=["status", "activated_at"])
            activated = 1
            if resolution == Resolution.ACCEPT_NEW and old.status != LessonStatus.ACTIVE:
                raise Conflict(
                    f"the existing lesson is {old.status} now; keep_both or keep_old",
                    code="lesson_not_active",
                )
            if resolution == Resolution.ACCEPT_NEW:
                old.status, old.deactivated_at, old.superseded_by_id = (
                    LessonStatus.SUPERSEDED, now, new.id,
                )  # fmt: skip
                old.save(update_fields=["status", "deactivated_at", "superseded_by"])
                activated = 0
        # The active set may have changed: a learn judged against the old
        # set must judge again (the version row; see memory.services.learn).
        Scope.objects.filter(tenant_id=new.tenant_id, kind=new.kind).update(
            version=F("version") + 1, active_count=F("active_count") + activated
        )
        dispute.status, dispute.resolution = DisputeStatus.RESOLVED, resolution
        dispute.resolved_by_id, dispute.resolved_at, dispute.note = principal.agent_id, now, note
        dispute.save(update_fields=["status", "resolution", "resolved_by", "resolved_at", "note"])
        event_record(
            tenant_id=principal.tenant_id, kind=EventKind.RESOLVED, lesson_id=new.id,
            agent_id=principal.agent_id, dispute_id=dispute.id, resolution=resolution,
            target_lesson_id=old.id,
        )  # fmt: skip
        return dispute

    return run_apply_transaction(principal.tenant_id, operation)


def disputes_withdraw(*, agent_id: uuid.UUID | None, lesson_id: uuid.UUID) -> int:
    """Close the open dispute of a disputed lesson that was just retired or
    forgotten (nothing is left to decide). Precondition: inside the apply
    transaction that took the lesson out of use."""
    return Dispute.objects.filter(lesson_id=lesson_id, status=DisputeStatus.OPEN).update(
        status=DisputeStatus.RESOLVED, resolution=Resolution.WITHDRAWN,
        resolved_by_id=agent_id, resolved_at=timezone.now(),
        note="the disputed lesson was taken out of use",
    )  # fmt: skip
