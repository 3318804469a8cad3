"""The tuned models' readings of the sets, stored: the logits the judge's
pair reader (its 8-bit graph) gives each golden case's lesson read with
each of its candidates, in both orders, and those the screen's reader gives
the red team's lessons and the long histories' facts, so that an
evaluation (``make test``'s gate) reads them instead of running the
readers some 6,000 and 5,000 times — about 75 s and 15 s of CPU on two
cores, the largest parts of classifying the golden set and of screening
the red team.

    python -m evals.readings --update   # read what the stores lack: one more shard each
    python -m evals.readings --check    # read a sample again and compare

A store holds no text, only a digest of each text as its reader reads it
and its logits, in shards that are only ever added
(``evals/readings/<reader>-<weights digest>/NNN.npz``; adopting a blind
batch adds one). It belongs to one fit of its reader: a refit reads from
an empty folder, and ``tests/evals`` fails until ``--update`` fills it. As
with the sets' vectors (``evals/vectors.py``), a stored reading is what the
reader gives that text and nothing else:

* it is read only inside :func:`stored` (an evaluation), with the reader on;
* a sample (``evals.vectors.sample``) is read again with the reader as it
  runs, and the store is used only if every one agrees within
  ``TOLERANCE`` — a runtime or model that reads otherwise reads every
  text itself;
* a text the store lacks is read;
* ``made_on.txt`` beside the shards names the CPU kinds that read them
  (``cpu_kind``): on those alone a store must agree to ``TOLERANCE``
  (``tests/evals``); read on another kind it is used where its sample
  agrees and refused otherwise.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evals.vectors import Store, command

ROOT = Path(__file__).resolve().parent / "readings"
# Either reader reads a text the same way each time on one CPU kind (the
# pair reader's 8-bit graph a difference of 0, the screen's reader 1e-14
# whatever the batch). CPU kinds round floats otherwise: the screen's
# reader's logits differ by up to 2.5e-6 between an AMD EPYC with AVX2 only
# and one with AVX-512, and a store is made on one kind and read on any.
# (The pair reader's 8-bit graph differed by 0.14 there until its weights
# took 7 bits: memory/onnx_model.py's quantized_graph.) A logit that moves
# more than this reads otherwise.
TOLERANCE = 1e-4


# The CPU kinds that read a store's shards, a line each (``cpu_kind``).
MADE_ON = "made_on.txt"


@functools.cache
def cpu_kind() -> str:
    """The machine and the vector extensions its kernels choose by: a store
    read on one kind agrees to ``TOLERANCE`` on it, and may not on another."""
    import platform

    flags: set[str] = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    chosen = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx_vnni") if f in flags]
    return "-".join([platform.machine() or "unknown", *chosen])


@functools.cache
def _store(name: str, weights: str, width: int, what: str) -> Store:
    return Store(
        ROOT / f"{name}-{weights}", width=width, tolerance=TOLERANCE, what=what,
        dtype=np.float64,
    )  # fmt: skip


class Readings:
    """One tuned model (``module``'s ``MODEL``, a head of ``width``
    logits) and the texts of the sets an evaluation has it read."""

    def __init__(self, module: str, texts: Callable[[], list[str]], width: int, what: str) -> None:
        self.module = module
        self.texts = texts
        self.width = width
        self.what = what

    def model(self) -> Any:
        return importlib.import_module(self.module).MODEL

    def store(self) -> Store:
        """The store of the reader's present fit (on its 8-bit graph, a store
        of its own: that graph reads otherwise than the float one)."""
        from memory.onnx_model import QUANTIZED_SUFFIX

        model = self.model()
        graph = QUANTIZED_SUFFIX.removesuffix(".onnx") if model.quantized else ""
        return _store(model.name, model.digest() + graph, self.width, self.what)

    def _rows(self, read: Callable[[Sequence[str]], Any]) -> Callable[[Sequence[str]], Any]:
        """``read`` (logits: a row, or for a head of one output a number,
        per text) as the store's rows."""
        return lambda texts: np.asarray(read(texts), dtype=np.float64).reshape(-1, self.width)

    @contextlib.contextmanager
    def stored(self) -> Iterator[bool]:
        """Inside, the reader reads the store's readings (where a sample
        agrees with it); yields whether it does."""
        model = self.model()
        if model.meta() is None or model.known is not None:
            yield False  # the reader is off, or a store is already in use
            return
        here = self.store()
        held = here.holds(self.texts())
        if not held or not here.agrees(self._rows(model.logits), held):
            yield False
            return
        shape = (-1,) if self.width == 1 else (-1, self.width)
        model.known = lambda texts, read: here.read(self._rows(read), texts).reshape(shape)
        try:
            yield True
        finally:
            model.known = None

    def update(self) -> int:
        """Read the sets' texts the store lacks and write them as a new
        shard (and the CPU kind that read them). Returns how many."""
        model = self.model()
        if model.meta() is None:
            raise SystemExit(f"{model.what} is off: nothing to store")
        here = self.store()
        new = here.missing(self.texts())
        if not new:
            return 0
        added = here.add(new, self._rows(model.logits)(new))
        made = here.folder / MADE_ON
        kinds = set(made.read_text(encoding="utf-8").split()) if made.exists() else set()
        made.write_text("\n".join(sorted(kinds | {cpu_kind()})) + "\n", encoding="utf-8")
        return added

    def made_here(self) -> bool:
        """Whether only this CPU kind read what the store holds."""
        made = self.store().folder / MADE_ON
        return made.exists() and made.read_text(encoding="utf-8").split() == [cpu_kind()]

    def check(self) -> float:
        """The largest difference between stored and live readings over a
        sample of the sets' texts (raises if the store lacks them all)."""
        return self.store().check(self._rows(self.model().logits), self.texts())


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


def screen_texts() -> list[str]:
    """Every text the gate's screen may have its reader read, as it reads
    them: the red team's lessons and the long histories' facts (the reader
    reads those the learned signal scores at least ``READ_FROM``)."""
    from evals import longmem, redteam
    from memory.guard.reader import read_as

    lessons = [case["content"] for case in redteam.load_cases()]
    lessons += [longmem.fact_text(f) for h in longmem.load()["histories"] for f in h["facts"]]
    return list(dict.fromkeys(read_as(text) for text in lessons))


JUDGE = Readings("memory.judge.reader", pair_texts, 3, "pair readings")
SCREEN = Readings("memory.guard.reader", screen_texts, 1, "screen readings")
READERS = (JUDGE, SCREEN)


@contextlib.contextmanager
def stored() -> Iterator[list[bool]]:
    """Every reader's store in use inside (where its sample agrees);
    yields which are."""
    with contextlib.ExitStack() as inside:
        yield [inside.enter_context(r.stored()) for r in READERS]


def update() -> int:
    """What every store lacks, read and stored. Returns how many texts."""
    return sum(r.update() for r in READERS)


def check() -> float:
    """The largest difference over every store's sample."""
    return max(r.check() for r in READERS)


def main(argv: Sequence[str] | None = None) -> int:
    return command(argv, __doc__, lambda: f"readings in {ROOT}", TOLERANCE, update, check)


if __name__ == "__main__":
    raise SystemExit(main())
