"""The evaluation sets' vectors, stored: what the bundled embedding model
gives each text of the judge's golden set and the red team, so that an
evaluation (``make test``'s gate, a fit) reads them instead of embedding
~14,600 texts again each run — some 170 s of the offline tier's 365 on two
cores, and the largest part of ``make test``'s time.

    python -m evals.vectors --update   # embed what the store lacks: one more shard
    python -m evals.vectors --check    # re-embed a sample and compare

The store holds no text, only a digest of each and its vector, in shards
(``evals/vectors/NNN.npz``) that are only ever added: adopting a blind
batch writes one of a few hundred kilobytes (``evals.blind adopt`` runs
``--update``). A stored vector is what the learn pipeline computes for that
text and nothing else:

* it is read only while the bundled model is the one configured (as the
  learned weights are: ``memory.fitted``);
* each process re-embeds a sample of the texts it reads from the store
  (``SAMPLE``, the longest among them) with the model as it runs and uses
  the store only if every one agrees within ``TOLERANCE``; otherwise it
  says so and embeds everything — a changed model or runtime cannot pass
  stale vectors off as its own;
* a text the store lacks is embedded (``tests/evals`` fails when the sets
  hold texts the store lacks, so the gate's time does not creep back).
"""

from __future__ import annotations

import argparse
import hashlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

STORE = Path(__file__).resolve().parent / "vectors"
DIMENSIONS = 384
DIGEST = 16  # bytes of a text's SHA-256 that name it
# Re-embedded per process before the store is trusted: the longest texts
# (long inputs drift first), then an even spread of the rest.
SAMPLE = 48
# The same model on ONNX Runtime and PyTorch agree within 2e-7, and ONNX
# Runtime's thread count changes no vector: more than that is another model.
TOLERANCE = 1e-6


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()[:DIGEST]


class Store:
    """Rows of ``width`` numbers (``dtype``) a model gives texts, by each
    text's digest, in shards of a folder that are only ever added
    (``NNN.npz``). Read
    only where a sample of them agrees with the model as it runs within
    ``tolerance``; ``what`` names them in logs."""

    def __init__(
        self, folder: Path, *, width: int, tolerance: float, what: str, dtype: Any = np.float32
    ) -> None:
        self.folder = folder
        self.dtype = dtype
        self.width = width
        self.tolerance = tolerance
        self.what = what
        self._held: tuple[dict[bytes, int], Any] | None = None

    def forget(self) -> None:
        """Read the shards again at the next use."""
        self._held = None

    def held(self) -> tuple[dict[bytes, int], Any]:
        """Every shard's digests (digest → row) and rows, as one array."""
        if self._held is None:
            index: dict[bytes, int] = {}
            blocks: list[Any] = []
            rows = 0
            for shard in sorted(self.folder.glob("*.npz")):
                with np.load(shard) as data:
                    keys, values = data["digests"], data["vectors"]
                if values.shape[1:] != (self.width,) or keys.shape != (len(values), DIGEST):
                    raise ValueError(f"{shard}: not rows of {self.width} with digests")
                for row, key in enumerate(keys):
                    index.setdefault(key.tobytes(), rows + row)
                blocks.append(values.astype(self.dtype, copy=False))
                rows += len(values)
            empty = np.empty((0, self.width), self.dtype)
            self._held = index, np.concatenate(blocks) if blocks else empty
        return self._held

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The texts the store lacks, each once."""
        index = self.held()[0]
        return [t for t in dict.fromkeys(texts) if digest(t) not in index]

    def holds(self, texts: Sequence[str]) -> list[str]:
        """The texts the store holds, each once."""
        index = self.held()[0]
        return [t for t in dict.fromkeys(texts) if digest(t) in index]

    def add(self, texts: Sequence[str], values: Any) -> int:
        """``values`` (a row per text) as a new shard, for the texts the
        store lacks. Returns how many."""
        index = self.held()[0]
        rows = {t: v for t, v in zip(texts, values, strict=True) if digest(t) not in index}
        if not rows:
            return 0
        self.folder.mkdir(parents=True, exist_ok=True)
        number = 1 + max((int(p.stem) for p in self.folder.glob("*.npz")), default=0)
        # bytes as a (n, 16) array: numpy's "S16" would drop a digest's trailing zero bytes
        keys = np.frombuffer(b"".join(map(digest, rows)), dtype=np.uint8).reshape(-1, DIGEST)
        matrix = np.asarray(list(rows.values()), dtype=self.dtype).reshape(-1, self.width)
        np.savez(self.folder / f"{number:03d}.npz", digests=keys, vectors=matrix)
        self.forget()
        return len(rows)

    def check(self, compute: Any, texts: Sequence[str]) -> float:
        """The largest difference between the stored rows and ``compute``'s
        over the sample of ``texts`` a process checks (raises if the store
        holds none of them)."""
        held = sorted(self.holds(texts))
        if not held:
            raise SystemExit(f"the store holds none of these texts' {self.what}: --update")
        return self.worst(compute, sample(held))

    def worst(self, compute: Any, chosen: list[str]) -> float:
        """The largest difference between ``chosen``'s stored rows and the
        model's (``compute``, a function of a list of texts)."""
        index, matrix = self.held()
        live = np.asarray(compute(chosen), dtype=self.dtype)
        return float(np.abs(live - matrix[[index[digest(t)] for t in chosen]]).max())

    def agrees(self, compute: Any, held: Sequence[str]) -> bool:
        """Whether a sample of ``held`` (texts the store holds) is stored as
        ``compute`` gives it now; logged either way."""
        chosen = sample(sorted(held))
        worst = self.worst(compute, chosen)
        if worst > self.tolerance:
            log.warning(
                "the stored %s differ from the model's by %.2g on a sample of %d (more than "
                "%.0g): computing every one instead; store them again after a change of model "
                "or runtime", self.what, worst, len(chosen), self.tolerance,
            )  # fmt: skip
            return False
        log.info("stored %s: a sample of %d agrees within %.2g", self.what, len(chosen), worst)
        return True

    def values(self, compute: Any, texts: Sequence[str]) -> Any:
        """``texts``' rows (an array, in order): from the store where it
        holds them and agrees with ``compute`` on a sample of them; the rest
        from ``compute``."""
        texts = list(texts)
        held = self.holds(texts)
        if held and not self.agrees(compute, held):
            return np.asarray(compute(texts), dtype=self.dtype).reshape(-1, self.width)
        return self.read(compute, texts)

    def read(self, compute: Any, texts: Sequence[str]) -> Any:
        """``texts``' rows from the store where it holds them (trusted: a
        sample was checked before), the rest from ``compute``."""
        texts = list(texts)
        index, matrix = self.held()
        rows = [index.get(digest(t), -1) for t in texts]
        out: Any = np.empty((len(texts), self.width), self.dtype)
        known = [i for i, r in enumerate(rows) if r >= 0]
        out[known] = matrix[[rows[i] for i in known]]
        fresh = [i for i, r in enumerate(rows) if r < 0]
        if fresh:
            out[fresh] = np.asarray(compute([texts[i] for i in fresh]), dtype=self.dtype)
        return out


EMBEDDINGS = Store(STORE, width=DIMENSIONS, tolerance=TOLERANCE, what="evaluation vectors")


def usable() -> bool:
    """Whether stored vectors may stand for the configured model's."""
    from django.conf import settings

    return not settings.TRIBUTARY_EMBEDDING_MODEL and bool(EMBEDDINGS.held()[0])


def encoded(encode: Any, texts: Sequence[str]) -> Any:
    """``texts``' vectors (an array, in order): from the store where it holds
    them and agrees with ``encode`` (the model as it runs, a function of a
    list of texts) on a sample of them; the rest from ``encode``."""
    if not usable():
        return np.asarray(encode(list(texts)), dtype=np.float32).reshape(-1, DIMENSIONS)
    return EMBEDDINGS.values(encode, texts)


def sample(texts: Sequence[str]) -> list[str]:
    """What is re-computed before stored rows of ``texts`` are used: the
    longest ``SAMPLE // 2``, then an even spread of the rest (``texts``
    sorted: the same sample every run)."""
    longest = sorted(texts, key=lambda t: (-len(t), t))[: SAMPLE // 2]
    chosen = set(longest)
    rest = [t for t in texts if t not in chosen]
    step = max(1, len(rest) // max(1, SAMPLE - len(longest)))
    return longest + rest[::step][: SAMPLE - len(longest)]


def set_texts() -> list[str]:
    """Every text the evaluations embed through the store: the golden
    cases' lessons and candidates, the red team's texts."""
    from evals import judge_report, redteam
    from memory.embeddings import lesson_text

    texts: list[str] = []
    for case in judge_report.load_golden():
        texts.append(judge_report.embedding_text(case.content, case.situation))
        texts += [judge_report.embedding_text(c.content, c.situation) for c in case.candidates]
    texts += [lesson_text(case["content"], "") for case in redteam.load_cases()]
    return list(dict.fromkeys(texts))


def update(texts: Sequence[str] | None = None) -> int:
    """Embed the texts the store lacks (the sets' by default) and write them
    as a new shard. Returns how many."""
    from evals.judge_report import load_encoder

    new = EMBEDDINGS.missing(set_texts() if texts is None else texts)
    if not new:
        return 0
    return EMBEDDINGS.add(new, load_encoder().encode(new, normalize_embeddings=True))


def check() -> float:
    """The largest difference between stored and live vectors over a sample
    of the sets' texts (raises if the store lacks them all)."""
    from evals.judge_report import load_encoder

    encoder = load_encoder()
    return EMBEDDINGS.check(
        lambda texts: encoder.encode(texts, normalize_embeddings=True), set_texts()
    )


def command(
    argv: Sequence[str] | None,
    doc: str | None,
    what: Callable[[], str],
    tolerance: float,
    update: Any,
    check: Any,
) -> int:
    """A store's command line: ``--update`` stores what it lacks (``update``
    returns how many), ``--check`` compares a sample with the model
    (``check`` returns the largest difference; non-zero exit past
    ``tolerance``). ``what`` names what is stored and where, once Django is
    set up."""
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0] if doc else None)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--update", action="store_true", help="store what the store lacks")
    group.add_argument("--check", action="store_true", help="compare a sample with the model")
    args = parser.parse_args(argv)
    if args.update:
        print(f"stored {update()} more {what()}")
        return 0
    worst = check()
    print(f"a sample of {SAMPLE}: largest difference {worst:.2g} (tolerance {tolerance:g})")
    return int(worst > tolerance)


def main(argv: Sequence[str] | None = None) -> int:
    return command(
        argv, __doc__, lambda: f"{EMBEDDINGS.what} in {EMBEDDINGS.folder}", TOLERANCE, update, check
    )


if __name__ == "__main__":
    raise SystemExit(main())
