"""The judge: is a new lesson a duplicate of, a contradiction of, or novel
with respect to its nearest existing lessons?

Public names: :class:`Relation`, :class:`Candidate`, :class:`Verdict`,
:class:`Judge` (the protocol), :class:`OfflineJudge` (the deterministic,
heuristic default) and :func:`get_judge`.
"""

from __future__ import annotations

from functools import cache

from memory.judge.base import Candidate, Judge, Relation, Verdict
from memory.judge.offline import OfflineJudge

__all__ = ["Candidate", "Judge", "OfflineJudge", "Relation", "Verdict", "get_judge"]


@cache
def get_judge() -> Judge:
    """The process-wide judge. The offline judge for now; LLM judges come later."""
    return OfflineJudge()
