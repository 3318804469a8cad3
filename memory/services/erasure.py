"""Erasure: what a forgotten lesson was is gone, everywhere it was written."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from memory.models import CuratorAction, Dispute, LearnRequest, Lesson


def lesson_content_erase(lesson_id: uuid.UUID) -> None:
    """Erase a lesson's text wherever it was written: the lesson row (and
    any lesson the gardener merged into it), the learn requests that made or
    restated it (and their judge rationales), the beliefs those requests
    wrote, the first-hand observations (or, for an import, the file-line
    observations) those requests wrote of it (no one else's, and none
    another belief also rests on), the rationales of
    requests and disputes aimed at it, and curators' reasons about it. What
    it was is gone; that it was (ids, events, edges) stays. Precondition:
    inside the tenant's transaction."""
    from provenance.models import Belief, Edge, EdgeKind, Observation, SourceType

    now = timezone.now()
    Lesson.objects.filter(id=lesson_id).update(
        content="", situation="", embedding=None, erased_at=now, retired_reason=""
    )
    requests = LearnRequest.objects.filter(lesson_id=lesson_id)
    written = list(requests.values_list("belief_id", "agent_id", "content", "situation"))
    beliefs = [belief for belief, *_ in written]
    requests.update(content="", situation="", rationale="")
    LearnRequest.objects.filter(target_lesson_id=lesson_id).update(rationale="")
    Dispute.objects.filter(models.Q(lesson_id=lesson_id) | models.Q(target_id=lesson_id)).update(
        rationale=""
    )
    CuratorAction.objects.filter(target_type="lesson", target_id=str(lesson_id)).exclude(
        reason=""
    ).update(reason="(erased with the lesson)")
    Belief.objects.filter(id__in=beliefs).update(content="")
    for belief_id, agent_id, content, situation in written:
        roots = Edge.objects.filter(
            belief_id=belief_id, kind=EdgeKind.DERIVED_FROM, to_observation__isnull=False
        ).values_list("to_observation_id", flat=True)
        shared = Edge.objects.filter(to_observation_id__in=roots).exclude(belief_id__in=beliefs)
        # A learn's first-hand root, or the file line an import read it from.
        written_root = models.Q(source_type=SourceType.FIRST_HAND) | models.Q(
            source_type=SourceType.DOCUMENT, source_uri__startswith="import:"
        )
        Observation.objects.filter(
            written_root, id__in=list(roots), agent_id=agent_id,
            content__in=[t for t in (content, situation) if t], erased_at__isnull=True,
        ).exclude(id__in=shared.values("to_observation_id")).update(
            content="", content_hash="", erased_at=now
        )  # fmt: skip
    for merged in Lesson.objects.filter(merged_into_id=lesson_id).values_list("id", flat=True):
        lesson_content_erase(merged)
