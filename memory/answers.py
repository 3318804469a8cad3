"""Recall's answer reader: whether any of a recall's best lessons answers
the question.

The relevance floor (``relevance.py``) tells questions about things memory
holds nothing on from questions about things it does; it cannot tell a
question memory can answer from one about a subject it knows but a detail
it was never told ("what breed is Pickle?" of a tenant that knows Pickle
the cat): those share words and similarity with what is there. This reader
reads the question and a lesson together — the embedding model with every
layer fine-tuned on question–fact pairs (``evals/answer_reader.py``) and a
logistic head, run by ``memory.tuned`` — and scores whether the lesson
answers it. A recall whose ``READ`` best lessons all score below the
threshold answers ``nothing_relevant``: its lessons are the nearest ones,
not an answer. It reads only queries asked as questions (it was fitted on
questions; keyword queries are left to the floor).

``answers.safetensors`` holds the tuned layers (float16) and the head,
``answers.json`` the threshold and how it was chosen. Off with
``TRIBUTARY_ANSWER_READER=false``, with another embedding model, or where
the tuned model cannot be made (logged once); recall is then flagged by
the floor alone. A failure to read never fails a recall.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path

from memory.tuned import TunedModel

log = logging.getLogger(__name__)

READ = 3  # the recall's best lessons read
SEPARATOR = " [SEP] "  # the tokenizer's own separator between the question and the lesson
# A query asked as a question — what the reader was fitted on. Keywords
# ("deploy 429 retry") are left to the floor: the reader never saw them.
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|which|who|whom|whose|when|where|why|how|did|does|do|is|are|was|were"
    r"|has|have|had|can|could|should|would|will)\b",
    re.IGNORECASE,
)

MODEL = TunedModel(
    name="answer-reader",
    weights=Path(__file__).resolve().parent / "answers.safetensors",
    meta=Path(__file__).resolve().parent / "answers.json",
    switch="TRIBUTARY_ANSWER_READER",
    what="recall's answer reader",
    quantized=True,  # 2.5x faster; the threshold is set on what this graph gives
)


LESSON_CHARS = 600  # ~128 tokens with the question, as the reader was fitted
# The longest query read: the questions it was fitted on are at most ~155
# characters; a longer one pushes the lesson out of what it reads.
QUESTION_CHARS = 200


def pair(question: str, lesson: str) -> str:
    """The text the reader reads: the question, the separator, the lesson
    (its first ``LESSON_CHARS``: a long lesson costs no more than a short one)."""
    return f"{question}{SEPARATOR}{lesson[:LESSON_CHARS]}"


def scores(question: str, lessons: Sequence[str]) -> list[float] | None:
    """The probability that each lesson answers the question, or None where
    the reader is off (each pair read on its own: ``TunedModel`` on an 8-bit
    graph)."""
    return MODEL.probabilities([pair(question, lesson) for lesson in lessons])


def is_question(query: str) -> bool:
    """Whether a query is asked as a question (ends with "?" or opens with a
    question word) of at most ``QUESTION_CHARS`` — the queries the reader reads."""
    return len(query) <= QUESTION_CHARS and _QUESTION.search(query) is not None


def unanswered(question: str, lessons: Sequence[str]) -> bool:
    """Whether none of the first ``READ`` lessons (a recall's best first)
    answers the question; False for a query that is not a question, and
    where the reader is off or fails. The best lesson is read first and the
    others only when it does not answer: the same verdict as reading all
    of them, at a third of the cost when the first one answers."""
    if not lessons or not is_question(question):
        return False
    try:
        threshold = MODEL.threshold()
        if threshold is None:
            return False
        for chosen in (lessons[:1], lessons[1:READ]):
            found = scores(question, chosen) if chosen else []
            if found is None:
                return False
            if any(s >= threshold for s in found):
                return False
    except Exception:  # the flag must never fail a recall that found its lessons
        log.warning("recall's answer reader failed; answered as relevant", exc_info=True)
        return False
    return True


def warm() -> None:
    """The tuned model made and loaded now (``relevance.load_for_recall``:
    a process that serves recalls, at start), so the first recall does not
    wait for it."""
    try:
        if MODEL.meta() is not None:
            MODEL.probabilities([pair("warm-up", "warm-up")])
    except Exception:  # a process that serves recalls starts without it
        log.warning("recall's answer reader failed to start; recall goes on", exc_info=True)
