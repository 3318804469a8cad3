"""The judge's pair reader: the new lesson and one candidate read together,
and the probability that the new one restates it, contradicts it, or
neither.

The rules (:mod:`memory.judge.offline`) read claims token by token and
their learned layer (:mod:`memory.judge.learned`) what the rules read; on
batches written blind by people who never saw them they found about a
third of the duplicates and a tenth of the contradictions: a paraphrase
shares few of its target's words, and a contradiction phrased as a change
of policy carries no number or negation that differs. This reader is the
embedding model with every layer fine-tuned as a cross-encoder on
``new [SEP] candidate`` pairs (the judge's golden set and lessons written
to train it; ``evals/judge_reader.py``) with a head over three classes —
novel, duplicate, contradicts — run by :mod:`memory.tuned` on its 8-bit
graph. How its probabilities and the rules' verdict make the judge's
verdict is :mod:`memory.judge.learned`'s.

``reader.safetensors`` holds the tuned layers (float16) and the head,
``reader.json`` the threshold (a destructive verdict's least probability)
and how it was chosen; the ``veto``, ``read`` and ``read_from`` it records
are the constants below as they were when it was set (the code's rule).
Off with ``TRIBUTARY_JUDGE_READER=false``, with another embedding model,
or where the tuned model cannot be made (logged once); the judge is then
the rules with their learned layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory.judge.base import Candidate
from memory.tuned import TunedModel

SEPARATOR = " [SEP] "  # the tokenizer's own separator between the two lessons
LESSON_CHARS = 300  # each side's first characters: ~160 tokens for the pair, as fitted
# The candidates read: the nearest ``READ`` of at least ``READ_FROM``
# similarity. In the golden set the target is the nearest candidate in 89 %
# of its cases and one of the nearest two in 99 %. From 0.4 to 0.6 the
# held-back blind batches 30-33 kept every right verdict (0.663 -> 0.670
# strict, two fewer wrong destructive verdicts) while a long history's
# facts were read 1.13 pairs a fact instead of 1.91 (docs/benchmarks.md);
# from 0.65 right verdicts were lost. From 0.6 to 0.55 (2026-12-06) the
# held-back blind-39 … 43 (330 cases) went 0.715 -> 0.733 strict, destructive
# precision 0.873 -> 0.883 (five more restatements found: paraphrases that
# share few words sit at 0.5-0.6) for 1.13 -> 1.42 pairs a fact of a long
# history and no more destructive verdicts on it (1.9 %); 0.5 gained one
# more case for 1.65 pairs a fact.
READ = 2
READ_FROM = 0.55
# A destructive verdict of the rules (or their learned layer) is withdrawn
# — the lesson is inserted as novel — when the reader reads its target as
# neither a restatement nor a contradiction with at least this probability.
VETO = 0.9
# A pair the reader reads as a restatement or a contradiction with at least
# this probability is read again the other way round (the candidate first)
# and the two readings averaged: both relations are symmetric and the
# reader was fitted on both orders, but one order alone is read with
# confidence it does not have (a paraphrase at 0.97 "contradicts"). Under
# a threshold of 0.75 or more only a pair past this gate can reach it.
AGAIN_FROM = 0.5

MODEL = TunedModel(
    name="judge-reader",
    weights=Path(__file__).resolve().parent / "reader.safetensors",
    meta=Path(__file__).resolve().parent / "reader.json",
    switch="TRIBUTARY_JUDGE_READER",
    what="the judge's pair reader",
    quantized=True,  # its threshold is set on what the 8-bit graph gives
)


def side(content: str, situation: str) -> str:
    """One lesson as the reader reads it: the claim without a leading
    dateline ("2023-05-02: …": when it was written, which the golden set's
    lessons never open with), then when it applies."""
    from memory.judge.statement import undated

    content = undated(content)[:LESSON_CHARS]
    return f"{content} ({situation[:LESSON_CHARS]})" if situation.strip() else content


def pair(content: str, situation: str, candidate_content: str, candidate_situation: str) -> str:
    """The text the reader reads: the new lesson, the separator, the candidate."""
    return f"{side(content, situation)}{SEPARATOR}{side(candidate_content, candidate_situation)}"


def probabilities(
    content: str, situation: str, candidates: Sequence[Candidate]
) -> list[Any] | None:
    """P(novel), P(duplicate), P(contradicts) of each candidate (the order
    of :data:`memory.judge.learned.CLASSES`), or None where the reader is
    off (each pair read on its own: ``TunedModel`` on an 8-bit graph); a
    pair past ``AGAIN_FROM`` is the mean of its two orders."""
    found = MODEL.class_probabilities(
        [pair(content, situation, c.content, c.situation) for c in candidates]
    )
    if not found:
        return found
    again = [i for i, p in enumerate(found) if max(float(p[1]), float(p[2])) >= AGAIN_FROM]
    back = MODEL.class_probabilities(
        [pair(candidates[i].content, candidates[i].situation, content, situation) for i in again]
    )
    for i, p in zip(again, back or (), strict=bool(back)):
        found[i] = (found[i] + p) / 2
    return found


def read(
    content: str, situation: str, candidates: Sequence[Candidate], target: int | None = None
) -> dict[int, Any] | None:
    """The reader's probabilities for the candidates it reads (by their
    index in ``candidates``: the nearest ``READ`` of at least ``READ_FROM``
    similarity, but none whose subject is named apart from the new
    lesson's — "billing service 1" and "billing service 0" are two things
    however alike the rest, and the reader, which reads them as one, is
    not asked), or None where it is off (with nothing to read: ``{}``).
    Given the ``target`` of a destructive verdict, only that candidate is
    read, if it is among them: the reader can then only withdraw it. A
    requirement and its "blocked until" form (``condition_restated``) are
    never read as a contradiction: that reading counts as neither; nor is a
    pair where one tells what the other forbids read as a restatement."""
    from itertools import islice

    from memory.judge.offline import (
        condition_restated,
        named_apart,
        scope_swapped,
        told_and_forbidden,
    )
    from memory.judge.statement import analyse_pair

    nearest = sorted(range(len(candidates)), key=lambda i: (-candidates[i].similarity, i))
    chosen = list(islice((
        i for i in nearest
        if candidates[i].similarity >= READ_FROM
        and named_apart(*analyse_pair(content, candidates[i].content)) is None
        # a scope the writer swapped for another is no restatement to add
        # (a verdict of the rules on it can still be withdrawn)
        and (target is not None or scope_swapped(situation, candidates[i].situation) is None)
    ), READ))  # fmt: skip
    if target is not None:
        chosen = [target] if target in chosen else []
    found = probabilities(content, situation, [candidates[i] for i in chosen])
    if found is None:
        return None
    read = dict(zip(chosen, found, strict=True))
    for i, p in read.items():
        if condition_restated(content, candidates[i].content):
            # a requirement and its "blocked until" form: a restatement or
            # two requirements, never a contradiction
            read[i] = np.asarray([float(p[0]) + float(p[2]), float(p[1]), 0.0])
        elif told_and_forbidden(content, candidates[i].content):
            # one lesson tells the reader to do what the other forbids ("Let
            # waterlogged wood air-dry" against "never let it dry out"): a
            # reversal perhaps, or two rules, never a restatement
            read[i] = np.asarray([float(p[0]) + float(p[1]), 0.0, float(p[2])])
    return read


def threshold() -> float | None:
    return MODEL.threshold()
