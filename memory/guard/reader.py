"""The screen's reader: the embedding model with its last two layers
fine-tuned to tell attacks from ordinary text, and a logistic head on its
pooled output.

The rules need one exact shape and the learned signal (``learned.py``)
reads the frozen embedding, which places text by topic: a look-alike that
warns against pasting a key sits next to the attack that pastes it. Two
layers tuned on the red-team set's attacks and look-alikes, the long
histories' facts and the golden lessons read the words that make the
difference. Fitted before blind-29 was adopted (a batch scored once,
2026-12-04), it lifted the screen on that batch from 17 to 21 of 32
attacks and blocked no more look-alikes. A seventh of the text is held
back from the fit, and the threshold sits above every negative, held back
or fitted on, and every golden lesson.

``reader.safetensors`` holds the tuned layers (float16, ~7 MB) and the head;
``reader.json`` the threshold and how it was chosen; ``memory.tuned`` makes
and runs the tuned model like the embedding model — one more
pass of the model for each lesson the rules let through that the learned
signal scores at least ``READ_FROM``, never for one they quarantined, nor
for an import's lessons that bring their own vectors (screened by the
rules and the learned signal). It reads a lesson's content and its
situation each on its own, as it was fitted on single texts. With another embedding
model configured, without the weights, or with ``TRIBUTARY_SCREEN_READER``
off, the reader is off. Refit with
``python -m evals.screen_reader --fit``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memory.tuned import SCALE, TunedModel

__all__ = ["MODEL", "READ_FROM", "SCALE", "blocks", "read_as", "scores"]

WEIGHTS_PATH = Path(__file__).resolve().parent / "reader.safetensors"
META_PATH = Path(__file__).resolve().parent / "reader.json"
# The learned signal's score (``learned.score``) from which a lesson is read:
# every attack the reader caught past the rules and the learned signal in
# the red-team set scored 0.29 or more there (blind-29's, before it was
# fitted on, 0.98 or more); 1.9 % of the golden set's lessons score 0.1 or
# more, 4.5 % of a long history's facts, 5 % of the learn benchmark's
# lessons (at 0.01: 10 %, 14 %, 26 % — and learning 18 % slower). With the
# signal refit on blind-40 (threshold 0.9954), 10 % of a sixth of
# ``longmem_conv.json``'s facts scored 0.1 or more, 7.2 % 0.15 or more,
# 2.4 % / 1.6 % of the golden set's lessons; of the attacks the reader
# catches past both (the red team and the training writers'), none scores
# between 0.1 and 0.17 — so it reads from 0.15.
READ_FROM = 0.15

MODEL = TunedModel(
    name="screen-reader", weights=WEIGHTS_PATH, meta=META_PATH,
    switch="TRIBUTARY_SCREEN_READER", what="the screen's reader",
)  # fmt: skip


def scores(texts: Sequence[str]) -> list[float] | None:
    """The probability that each text is an attack, or None where the
    reader is off. Each text is read as the screen reads it (normalised),
    without a leading dateline ("2023-05-02: …": when it was written, no
    part of what it asks; the reader was fitted on undated text, and a
    stamped ordinary note scored past its threshold)."""
    return MODEL.probabilities([read_as(t) for t in texts])


def read_as(text: str) -> str:
    """A text as the reader reads it (what ``scores`` says)."""
    from memory.guard.normalise import normalise
    from memory.judge.statement import undated

    return normalise(undated(text))


def blocks(texts: Sequence[str]) -> list[bool]:
    """Which texts the reader quarantines (all False where it is off)."""
    found = scores(texts)
    threshold = MODEL.threshold()
    if found is None or threshold is None:
        return [False] * len(texts)
    return [s >= threshold for s in found]
