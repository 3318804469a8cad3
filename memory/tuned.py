"""The bundled embedding model with some of its layers fine-tuned and a
head on its pooled output — logistic, or a softmax over several classes: a
reader of text that the frozen embedding places only by topic. The
screen's reader (``guard/reader.py``), recall's answer reader
(``answers.py``) and the judge's pair reader (``judge/reader.py``, three
classes) are three of them.

A reader's ``*.safetensors`` holds its tuned layers (float16) and its head;
its ``*.json`` the threshold and how it was chosen. At first use the
bundled model's directory is copied into ``TRIBUTARY_MODEL_CACHE`` with the
tuned layers in place (named by the weights' digest, so a refit makes a
new one and the old is forgotten after ``STALE_DAYS``), and that directory
is run like the embedding model (``memory.embeddings.load_provider``: ONNX
Runtime by default). With another embedding model configured, without the
weights, or with the reader's setting off, the reader is off; one that
cannot be made or loaded (a read-only cache, say) logs a warning once and
is off — what it adds is lost, nothing else.
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings

from memory.fitted import BUNDLED_MODEL

log = logging.getLogger(__name__)

SCALE = 10.0  # the pooled unit vector's scale before the head (a temperature)


class TunedModel:
    """One fine-tuned reader: ``name`` names its directory in the model
    cache, ``switch`` the setting that turns it off, ``what`` it in logs."""

    def __init__(
        self, *, name: str, weights: Path, meta: Path, switch: str, what: str,
        quantized: bool = False,
    ) -> None:  # fmt: skip
        self.name = name
        self.quantized = quantized  # run on the 8-bit graph (its threshold set on it)
        self.weights_path = weights
        self.meta_path = meta
        self.switch = switch
        self.what = what
        self._lock = threading.Lock()
        self._provider: Any = None
        self._failed = False
        self._meta: dict[str, Any] | None = None
        self._meta_read = False
        self._head: tuple[Any, Any] | None = None
        # logits known ahead, or None: a function of the texts and of the
        # model's own logits for a list of texts that answers both (the
        # evaluations' stored readings of their sets: evals/readings.py)
        self.known: Callable[[Sequence[str], Callable[[Sequence[str]], Any]], Any] | None = None

    def meta(self) -> dict[str, Any] | None:
        """The fitted reader's description, or None where it is off (read once;
        ``forget`` reads it again)."""
        if not self._meta_read:
            self._meta = self._read_meta()
            self._meta_read = True
        return self._meta

    def forget(self, *, model: bool = False) -> None:
        """Read the settings and the description again at the next use (and
        with ``model``, the weights: after a refit)."""
        self._meta_read = False
        self._head = None
        if model:
            self._provider = None
            self._failed = False

    def _read_meta(self) -> dict[str, Any] | None:
        if (
            not getattr(settings, self.switch)
            or settings.TRIBUTARY_EMBEDDING_MODEL
            or not (self.meta_path.exists() and self.weights_path.exists())
        ):
            return None
        raw: dict[str, Any] = json.loads(self.meta_path.read_text(encoding="utf-8"))
        return raw if raw.get("model") == BUNDLED_MODEL else None

    def digest(self) -> str:
        """The tuned weights' digest (16 hex digits): what names this fit."""
        return hashlib.sha256(self.weights_path.read_bytes()).hexdigest()[:16]

    def model_dir(self, cache_dir: Path | None = None) -> Path:
        """The bundled model's directory with the tuned layers in place, made
        in the model cache on first use (named by the weights' digest)."""
        from config.embedded import file_lock
        from memory.embeddings import default_model_path

        cache_dir = cache_dir or settings.TRIBUTARY_MODEL_CACHE
        target = cache_dir / f"{self.name}-{self.digest()}" / "model"
        if (target / "model.safetensors").is_file():
            return target
        cache_dir.mkdir(parents=True, exist_ok=True)
        with file_lock(cache_dir / f".{self.name}.lock"):
            if (target / "model.safetensors").is_file():
                return target
            partial = target.with_name("model.partial")
            try:
                self._build(Path(default_model_path()), partial)
                shutil.rmtree(target, ignore_errors=True)  # one a crash left without its weights
                partial.rename(target)
            finally:
                shutil.rmtree(partial, ignore_errors=True)
            self._forget_stale(cache_dir, keep=target.parent)
        return target

    def _build(self, base: Path, partial: Path) -> None:
        """The bundled model's files in ``partial``, the tuned layers in its weights."""
        from safetensors.numpy import load_file, save_file

        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(base, partial, ignore=shutil.ignore_patterns("model.safetensors", "*.md"))
        tensors = load_file(str(base / "model.safetensors"))
        for name, value in load_file(str(self.weights_path)).items():
            if not name.startswith("head."):
                tensors[name] = value.astype(tensors[name].dtype)
        save_file(tensors, str(partial / "model.safetensors"), metadata={"format": "pt"})
        with open(partial / "model.safetensors", "rb") as written:
            os.fsync(written.fileno())  # on disk before the directory has its final name

    def _forget_stale(self, cache_dir: Path, keep: Path) -> None:
        """Delete other fits' directories and graphs unused for ``STALE_DAYS``."""
        from memory.onnx_model import DAY, STALE_DAYS

        for old in cache_dir.glob(f"{self.name}-*"):
            recent = time.time() - old.stat().st_mtime <= STALE_DAYS * DAY
            if old.name.startswith(keep.name) or recent:
                continue
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.unlink(missing_ok=True)

    def _loaded(self) -> Any:
        """The tuned model, loaded once; None (logged once) where it cannot be
        made or loaded."""
        if self._provider is None and not self._failed:
            with self._lock:
                if self._provider is None and not self._failed:
                    from memory.embeddings import load_provider
                    from memory.onnx_model import QUANTIZED_SUFFIX

                    try:
                        provider = load_provider(str(self.model_dir()), quantized=self.quantized)
                        graph = getattr(provider, "graph", None)
                        if self.quantized and not str(graph).endswith(QUANTIZED_SUFFIX):
                            # its threshold was set on the 8-bit graph's scores
                            raise RuntimeError("it runs only on its 8-bit ONNX graph")
                        self._provider = provider
                    except Exception as exc:
                        self._failed = True
                        log.warning("%s is off: cannot load it (%s)", self.what, exc)
        return self._provider

    def probabilities(self, texts: Sequence[str]) -> list[float] | None:
        """The head's probability for each text, or None where the reader is off."""
        z = self.logits(texts)
        if z is None:
            return None
        if not texts:
            return []
        return [1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, float(v))))) for v in z]

    def class_probabilities(self, texts: Sequence[str]) -> list[Any] | None:
        """A head of several classes: each text's probabilities (a softmax
        over the head's rows), or None where the reader is off."""
        import numpy as np

        z = self.logits(texts)
        if z is None:
            return None
        if not texts:
            return []
        if np.ndim(z) != 2:
            raise ValueError(f"{self.what} has a head of one output: read it with probabilities")
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return list(e / e.sum(axis=1, keepdims=True))

    def logits(self, texts: Sequence[str]) -> Any:
        """The head's logits (one per text, or a row per text for a head of
        several classes), or None where the reader is off."""
        if self.meta() is None:
            return None
        if not texts:
            return ()
        model = self._loaded()
        if model is None:
            return None
        if self.known is not None:
            return self.known(texts, lambda chosen: self._read(model, chosen))
        return self._read(model, texts)

    def _read(self, model: Any, texts: Sequence[str]) -> Any:
        """The logits ``model`` and the head give ``texts``."""
        import numpy as np

        head = self._head
        if head is None:
            from safetensors.numpy import load_file

            weights = load_file(str(self.weights_path))
            head = (weights["head.weight"].astype("float64"),
                    weights["head.bias"].astype("float64"))  # fmt: skip
            self._head = head
        weight, bias = head
        if self.quantized:
            # each text on its own: the 8-bit graph's dynamic quantization
            # scales activations by the whole batch, so a text read beside
            # others (and their padding) scores differently from it alone
            vectors = np.asarray([model.encode([t])[0] for t in texts], dtype=np.float64)
        else:
            vectors = np.asarray(model.encode(list(texts)), dtype=np.float64)
        if weight.ndim == 1:
            return SCALE * vectors @ weight + bias[0]
        return SCALE * vectors @ weight.T + bias

    def threshold(self) -> float | None:
        fitted = self.meta()
        return None if fitted is None else float(fitted["threshold"])
