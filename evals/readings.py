"""The judge's pair reader's readings of the golden set, stored: the logits
its 8-bit graph gives each golden case's lesson read with each of its
candidates, in both orders, so that an evaluation (``make test``'s gate)
reads them instead of running the reader some 6,000 times — about 75 s of
CPU, the largest part of classifying the golden set on two cores.

    python -m evals.readings --update   # read what the store lacks: one more shard
    python -m evals.readings --check    # read a sample again and compare

The store holds no text, only a digest of each pair as the reader reads it
and its logits, in shards that are only ever added
(``evals/readings/<reader>-<weights digest>/NNN.npz``; adopting a blind
batch adds one). It belongs to one fit of the reader: a refit reads from an
empty folder, and ``tests/evals`` fails until ``--update`` fills it. As with
the sets' vectors (``evals/vectors.py``), a stored reading is what the
reader gives that pair and nothing else:

* it is read only inside :func:`stored` (an evaluation), with the reader on;
* a sample (``evals.vectors.sample``) is read again with the reader as it
  runs, and the store is used only if every one agrees within
  ``TOLERANCE`` — another CPU whose 8-bit kernels round otherwise reads
  every pair itself;
* a pair the store lacks is read.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from evals.vectors import Store, command

ROOT = Path(__file__).resolve().parent / "readings"
# The 8-bit graph reads a pair the same way each time on one CPU kind (a
# difference of 0); a logit that moves more reads otherwise.
TOLERANCE = 1e-6


@functools.cache
def _store(name: str, weights: str) -> Store:
    return Store(
        ROOT / f"{name}-{weights}", width=3, tolerance=TOLERANCE,
        what="pair readings", dtype=np.float64,
    )  # fmt: skip


def store() -> Store:
    """The store of the reader's present fit."""
    from memory.judge.reader import MODEL

    return _store(MODEL.name, MODEL.digest())


def pair_texts() -> list[str]:
    """Every pair the gate's judge may read: each golden case's lesson with
    each candidate, in both orders, as the reader reads them."""
    from evals import judge_report
    from memory.judge.reader import pair

    texts: list[str] = []
    for case in judge_report.load_golden():
        for c in case.candidates:
            texts.append(pair(case.content, case.situation, c.content, c.situation))
            texts.append(pair(c.content, c.situation, case.content, case.situation))
    return list(dict.fromkeys(texts))


@contextlib.contextmanager
def stored() -> Iterator[bool]:
    """Inside, the pair reader reads the store's readings (where a sample
    agrees with it); yields whether it does."""
    from memory.judge.reader import MODEL

    if MODEL.meta() is None or MODEL.known is not None:
        yield False  # the reader is off, or a store is already in use
        return
    here = store()
    held = here.holds(pair_texts())
    if not held or not here.agrees(MODEL.logits, held):
        yield False
        return
    MODEL.known = lambda texts, read: here.read(read, texts)
    try:
        yield True
    finally:
        MODEL.known = None


def update(texts: Sequence[str] | None = None) -> int:
    """Read the pairs the store lacks (the golden set's by default) and write
    them as a new shard. Returns how many."""
    from memory.judge.reader import MODEL

    if MODEL.meta() is None:
        raise SystemExit("the judge's pair reader is off: nothing to store")
    here = store()
    new = here.missing(pair_texts() if texts is None else texts)
    if not new:
        return 0
    return here.add(new, MODEL.logits(new))


def check() -> float:
    """The largest difference between stored and live readings over a
    sample of the golden set's pairs (raises if the store lacks them all)."""
    from memory.judge.reader import MODEL

    return store().check(MODEL.logits, pair_texts())


def main(argv: Sequence[str] | None = None) -> int:
    return command(argv, __doc__, store, update, check)


if __name__ == "__main__":
    raise SystemExit(main())
