"""Per-tenant policies a curator sets: how each kind forgets (kind
policies, read by the gardener and the learn worker) and what corroboration
takes (read by provenance). Each change is audited; a corroboration change
re-evaluates the tenant's lessons at once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import F
from django.utils import timezone

from accounts.models import Tenant
from accounts.principal import AgentPrincipal
from config.errors import NotFound
from memory.models import Eviction, Kind, KindPolicy, Lesson, LessonStatus
from memory.policies import POLICY_FIELDS, EffectivePolicy, default_policy, kind_policies
from memory.services.events import curator_action_record


def kind_policy_set(
    *, principal: AgentPrincipal, kind: str, reason: str = "", **fields: Any
) -> EffectivePolicy:
    """Replace the tenant's policy for ``kind``: fields left out take the
    default. Precondition: inside the tenant's context; fields validated."""
    principal.require_curator("sets policies")
    tenant_id = principal.tenant_id
    if kind not in Kind.values:
        raise NotFound(f"no kind {kind!r}; kinds are {', '.join(Kind.values)}", code="unknown_kind")
    values = {**default_policy(kind), **{k: v for k, v in fields.items() if k in POLICY_FIELDS}}
    if values["eviction"] not in Eviction.values:
        raise ValueError(f"eviction must be one of {Eviction.values}")
    KindPolicy.objects.update_or_create(
        tenant_id=tenant_id, kind=kind,
        defaults={**values, "updated_by": principal.agent_name, "updated_at": timezone.now()},
    )  # fmt: skip
    # A lesson's expiry follows its kind's TTL now, not the one it was
    # learned under.
    ttl = values["ttl_seconds"]
    Lesson.objects.filter(tenant_id=tenant_id, kind=kind, status=LessonStatus.ACTIVE).update(
        expires_at=None if ttl is None else F("activated_at") + timedelta(seconds=ttl)
    )
    curator_action_record(
        principal=principal, action="set_kind_policy", target_type="kind_policy",
        target_id=kind, reason=reason, policy=values,
    )  # fmt: skip
    return kind_policies(tenant_id)[kind]


def corroboration_policy_set(
    *, principal: AgentPrincipal, reason: str = "", **fields: Any
) -> dict[str, Any]:
    """Replace the tenant's corroboration policy (fields left out take the
    settings' defaults) and re-evaluate every lesson that is not erased, in
    this transaction: a policy change shows in every lesson's status and in
    recall at once, each evaluation audited with trigger ``policy``.
    Returns the policy and how many lessons changed status.
    Precondition: inside the tenant's context; fields validated."""
    from provenance.selectors import corroboration_policy
    from provenance.services import lessons_evaluate

    principal.require_curator("sets policies")
    tenant_id = principal.tenant_id
    overrides = {
        k: v for k, v in fields.items()
        if k in ("min_independent_sources", "min_confidence", "contradiction_confidence", "strict")
    }  # fmt: skip
    Tenant.objects.filter(id=tenant_id).update(corroboration_policy=overrides)
    lesson_ids = list(
        Lesson.objects.filter(tenant_id=tenant_id)
        .exclude(status__in=[LessonStatus.ERASED, LessonStatus.QUARANTINED])
        .values_list("id", flat=True)
    )
    changed = 0
    for start in range(0, len(lesson_ids), 2000):
        changes = lessons_evaluate(
            tenant_id=tenant_id, lesson_ids=lesson_ids[start : start + 2000], trigger="policy"
        )
        changed += sum(1 for before, after in changes.values() if before != after)
    policy = corroboration_policy(tenant_id)
    curator_action_record(
        principal=principal, action="set_corroboration_policy",
        target_type="corroboration_policy", reason=reason, policy=policy,
        reevaluated=len(lesson_ids), changed=changed,
    )  # fmt: skip
    return {"policy": policy, "reevaluated": len(lesson_ids), "changed": changed}
