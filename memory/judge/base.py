"""The judge interface: what a judge is given and what it answers."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class Relation(StrEnum):
    """How a new lesson relates to the lessons already stored."""

    DUPLICATE = "duplicate"  # restates candidate X
    CONTRADICTS = "contradicts"  # incompatible with candidate X about the same subject
    NOVEL = "novel"  # new


@dataclass(frozen=True)
class Candidate:
    """An existing lesson the new one is compared with.

    ``similarity`` is the cosine similarity of the two lessons' embeddings, in
    [-1, 1]; the caller computes it, the judge only reads it.
    """

    id: uuid.UUID
    content: str
    situation: str  # when the lesson applies; may be ""
    similarity: float


@dataclass(frozen=True)
class Verdict:
    """A judge's answer.

    ``target_id`` names the candidate that is duplicated or contradicted; it
    is ``None`` exactly when ``relation`` is NOVEL. ``confidence`` is in
    [0, 1]. ``rationale`` is one short sentence for humans. ``judge`` is the
    name of the judge that decided.
    """

    relation: Relation
    target_id: uuid.UUID | None
    confidence: float
    rationale: str
    judge: str

    def __post_init__(self) -> None:
        if (self.relation is Relation.NOVEL) != (self.target_id is None):
            raise ValueError("target_id must be None iff relation is NOVEL")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence out of [0, 1]: {self.confidence}")


class Judge(Protocol):
    """Classifies a new lesson against its nearest existing lessons.

    ``candidates`` arrive sorted by similarity, highest first (0 to 10 of
    them). With no candidates the answer is NOVEL. Implementations must be
    deterministic for the same input.
    """

    name: str

    def classify(
        self, *, content: str, situation: str, candidates: Sequence[Candidate]
    ) -> Verdict: ...
