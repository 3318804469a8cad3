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
or fitted on.

``reader.safetensors`` holds the tuned layers (float16, ~7 MB) and the head;
``reader.json`` the threshold and how it was chosen. At first use the
bundled model's directory is copied into ``TRIBUTARY_MODEL_CACHE`` with the
tuned layers in place, and that directory is run like the embedding model
(``memory.embeddings.load_provider``: ONNX Runtime by default) — one more
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

import hashlib
import json
import logging
import math
import os
import shutil
import threading
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings

from memory.fitted import BUNDLED_MODEL

log = logging.getLogger(__name__)

WEIGHTS_PATH = Path(__file__).resolve().parent / "reader.safetensors"
META_PATH = Path(__file__).resolve().parent / "reader.json"
SCALE = 10.0  # the pooled unit vector's scale before the head (a temperature)
# The learned signal's score (``learned.score``) from which a lesson is read:
# every attack the reader caught past the rules and the learned signal in
# the red-team set scored 0.29 or more there (blind-29's, before it was
# fitted on, 0.98 or more); 1.9 % of the golden set's lessons score 0.1 or
# more, 4.5 % of a long history's facts, 5 % of the learn benchmark's
# lessons (at 0.01: 10 %, 14 %, 26 % — and learning 18 % slower).
READ_FROM = 0.1

_lock = threading.Lock()


@cache
def meta() -> dict[str, Any] | None:
    """The fitted reader's description, or None where it is off."""
    if (
        not settings.TRIBUTARY_SCREEN_READER
        or settings.TRIBUTARY_EMBEDDING_MODEL
        or not (META_PATH.exists() and WEIGHTS_PATH.exists())
    ):
        return None
    raw: dict[str, Any] = json.loads(META_PATH.read_text(encoding="utf-8"))
    return raw if raw.get("model") == BUNDLED_MODEL else None


def model_dir(cache_dir: Path | None = None) -> Path:
    """The bundled model's directory with the tuned layers in place, made in
    the model cache on first use (named by the weights' digest)."""
    from config.embedded import file_lock
    from memory.embeddings import default_model_path

    cache_dir = cache_dir or settings.TRIBUTARY_MODEL_CACHE
    digest = hashlib.sha256(WEIGHTS_PATH.read_bytes()).hexdigest()[:16]
    target = cache_dir / f"screen-reader-{digest}" / "model"
    if (target / "model.safetensors").is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    with file_lock(cache_dir / ".reader.lock"):
        if (target / "model.safetensors").is_file():
            return target
        partial = target.with_name("model.partial")
        try:
            _build(Path(default_model_path()), partial)
            shutil.rmtree(target, ignore_errors=True)  # one a crash left without its weights
            partial.rename(target)
        finally:
            shutil.rmtree(partial, ignore_errors=True)
        _forget_stale(cache_dir, keep=target.parent)
    return target


def _build(base: Path, partial: Path) -> None:
    """The bundled model's files in ``partial``, the tuned layers in its weights."""
    from safetensors.numpy import load_file, save_file

    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(base, partial, ignore=shutil.ignore_patterns("model.safetensors", "*.md"))
    tensors = load_file(str(base / "model.safetensors"))
    for name, value in load_file(str(WEIGHTS_PATH)).items():
        if not name.startswith("head."):
            tensors[name] = value.astype(tensors[name].dtype)
    save_file(tensors, str(partial / "model.safetensors"), metadata={"format": "pt"})
    with open(partial / "model.safetensors", "rb") as written:
        os.fsync(written.fileno())  # on disk before the directory has its final name


def _forget_stale(cache_dir: Path, keep: Path) -> None:
    """Delete other fits' directories and graphs unused for ``STALE_DAYS`` (a
    refit names a new directory by its weights' digest)."""
    from memory.onnx_model import DAY, STALE_DAYS

    for old in cache_dir.glob("screen-reader-*"):
        if old.name.startswith(keep.name) or time.time() - old.stat().st_mtime <= STALE_DAYS * DAY:
            continue
        if old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)


@cache
def _head() -> tuple[Any, float]:
    from safetensors.numpy import load_file

    weights = load_file(str(WEIGHTS_PATH))
    return weights["head.weight"].astype("float64"), float(weights["head.bias"][0])


_provider: Any = None
_failed = False


def _loaded() -> Any:
    """The tuned model, loaded once; None (logged once) where it cannot be
    made or loaded — a read-only cache, say: the rules and the learned
    signal still screen, and learning goes on."""
    global _provider, _failed
    if _provider is None and not _failed:
        with _lock:
            if _provider is None and not _failed:
                from memory.embeddings import load_provider

                try:
                    _provider = load_provider(str(model_dir()))
                except Exception as exc:
                    _failed = True
                    log.warning("the screen's reader is off: cannot load it (%s)", exc)
    return _provider


def scores(texts: Sequence[str]) -> list[float] | None:
    """The probability that each text is an attack, or None where the
    reader is off. Each text is read as the screen reads it (normalised)."""
    import numpy as np

    from memory.guard.normalise import normalise

    if meta() is None:
        return None
    if not texts:
        return []
    model = _loaded()
    if model is None:
        return None
    vectors = np.asarray(model.encode([normalise(t) for t in texts]), dtype=np.float64)
    weight, bias = _head()
    z = SCALE * vectors @ weight + bias
    return [1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, float(v))))) for v in z]


def blocks(texts: Sequence[str]) -> list[bool]:
    """Which texts the reader quarantines (all False where it is off)."""
    found = scores(texts)
    fitted = meta()
    if found is None or fitted is None:
        return [False] * len(texts)
    return [s >= float(fitted["threshold"]) for s in found]
