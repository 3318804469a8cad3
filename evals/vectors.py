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
import functools
import hashlib
import logging
from collections.abc import Sequence
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


@functools.cache
def _stored() -> tuple[dict[bytes, int], Any]:
    """Every shard's digests (digest → row) and vectors, as one array."""
    index: dict[bytes, int] = {}
    blocks: list[Any] = []
    rows = 0
    for shard in sorted(STORE.glob("*.npz")):
        with np.load(shard) as data:
            keys, vectors = data["digests"], data["vectors"]
        if vectors.shape[1:] != (DIMENSIONS,) or keys.shape != (len(vectors), DIGEST):
            raise ValueError(f"{shard.name}: not {DIMENSIONS}-dimensional vectors with digests")
        for row, key in enumerate(keys):
            index.setdefault(key.tobytes(), rows + row)
        blocks.append(vectors.astype(np.float32, copy=False))
        rows += len(vectors)
    matrix = np.concatenate(blocks) if blocks else np.empty((0, DIMENSIONS), np.float32)
    return index, matrix


def usable() -> bool:
    """Whether stored vectors may stand for the configured model's."""
    from django.conf import settings

    return not settings.TRIBUTARY_EMBEDDING_MODEL and bool(_stored()[0])


def missing(texts: Sequence[str]) -> list[str]:
    """The texts the store lacks, each once."""
    index = _stored()[0]
    return [t for t in dict.fromkeys(texts) if digest(t) not in index]


def encoded(encode: Any, texts: Sequence[str]) -> Any:
    """``texts``' vectors (an array, in order): from the store where it holds
    them and agrees with ``encode`` (the model as it runs, a function of a
    list of texts) on a sample of them; the rest from ``encode``."""
    texts = list(texts)
    if not texts:
        return np.empty((0, DIMENSIONS), np.float32)
    if not usable():
        return np.asarray(encode(texts), dtype=np.float32)
    index, matrix = _stored()
    rows = [index.get(digest(t), -1) for t in texts]
    held = sorted({t for t, r in zip(texts, rows, strict=True) if r >= 0})
    if held and not _agrees(encode, held):
        return np.asarray(encode(texts), dtype=np.float32)
    out: Any = np.empty((len(texts), DIMENSIONS), np.float32)
    known = [i for i, r in enumerate(rows) if r >= 0]
    out[known] = matrix[[rows[i] for i in known]]
    fresh = [i for i, r in enumerate(rows) if r < 0]
    if fresh:
        out[fresh] = np.asarray(encode([texts[i] for i in fresh]), dtype=np.float32)
    return out


def sample(texts: Sequence[str]) -> list[str]:
    """What is re-embedded before ``texts``' stored vectors are used: the
    longest ``SAMPLE // 2``, then an even spread of the rest (``texts``
    sorted: the same sample every run)."""
    longest = sorted(texts, key=lambda t: (-len(t), t))[: SAMPLE // 2]
    chosen = set(longest)
    rest = [t for t in texts if t not in chosen]
    step = max(1, len(rest) // max(1, SAMPLE - len(longest)))
    return longest + rest[::step][: SAMPLE - len(longest)]


def _worst(encode: Any, chosen: list[str]) -> float:
    """The largest difference between ``chosen``'s stored vectors and the
    model's (``encode``)."""
    index, matrix = _stored()
    live = np.asarray(encode(chosen), dtype=np.float32)
    return float(np.abs(live - matrix[[index[digest(t)] for t in chosen]]).max())


def _agrees(encode: Any, held: list[str]) -> bool:
    chosen = sample(held)
    worst = _worst(encode, chosen)
    if worst > TOLERANCE:
        log.warning(
            "the stored evaluation vectors differ from the model's by %.2g on a sample of %d "
            "(more than %.0g): embedding every text instead; `python -m evals.vectors "
            "--update` after a change of model or runtime", worst, len(chosen), TOLERANCE,
        )  # fmt: skip
        return False
    log.info("stored evaluation vectors: a sample of %d agrees within %.2g", len(chosen), worst)
    return True


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

    new = missing(set_texts() if texts is None else texts)
    if not new:
        return 0
    encoder = load_encoder()
    vectors = np.asarray(encoder.encode(new, normalize_embeddings=True), dtype=np.float32)
    STORE.mkdir(exist_ok=True)
    number = 1 + max((int(p.stem) for p in STORE.glob("*.npz")), default=0)
    # bytes as a (n, 16) array: numpy's "S16" would drop a digest's trailing zero bytes
    keys = np.frombuffer(b"".join(digest(t) for t in new), dtype=np.uint8).reshape(-1, DIGEST)
    np.savez(STORE / f"{number:03d}.npz", digests=keys, vectors=vectors)
    _stored.cache_clear()
    return len(new)


def check() -> float:
    """The largest difference between stored and live vectors over a sample
    of the sets' texts (raises if the store lacks them all)."""
    from evals.judge_report import load_encoder

    index = _stored()[0]
    held = sorted(t for t in set_texts() if digest(t) in index)
    if not held:
        raise SystemExit("the store holds none of the sets' texts: --update")
    encoder = load_encoder()
    return _worst(lambda texts: encoder.encode(texts, normalize_embeddings=True), sample(held))


def main(argv: Sequence[str] | None = None) -> int:
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--update", action="store_true", help="store what the store lacks")
    group.add_argument("--check", action="store_true", help="compare a sample with the model")
    args = parser.parse_args(argv)
    if args.update:
        print(f"stored {update()} more vectors in {STORE}")
    else:
        worst = check()
        print(f"a sample of {SAMPLE}: largest difference {worst:.2g} (tolerance {TOLERANCE:g})")
        return int(worst > TOLERANCE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
