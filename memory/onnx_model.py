"""The embedding model run by ONNX Runtime instead of PyTorch.

The same weights give the same vectors (checked when the graph is made, to
1e-4 on every component; in practice ~3e-7): what changes is the cost of a
call. A recall embeds one short query, and PyTorch spends most of that in
Python around a dozen small matrix products per layer; ONNX Runtime runs
the whole graph in C++. On two Xeon cores, one thread: one short query
9.1 → 3.2 ms; batches of 32 lesson-length sentences about the same rate as
PyTorch (336 and 345 sentences/s).

The graph is exported from the sentence-transformers model once per model
(its files' contents) and library versions (``torch.onnx``, the TorchScript
exporter),
checked against PyTorch's own vectors on probe texts, and kept in
``TRIBUTARY_MODEL_CACHE``; after that a process loads only ONNX Runtime
and the tokenizer — PyTorch is never imported. A model whose pipeline is
not a transformer with mean or CLS pooling is refused here, and the caller
(``memory.embeddings.get_provider``) embeds with PyTorch instead, saying so.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

BATCH = 32  # sentences per run, as sentence-transformers batches them
# The export's format: bump when the exported graph or its inputs change.
FORMAT = "1"
LIBRARIES = ("torch", "transformers", "sentence-transformers", "onnx", "onnxruntime", "tokenizers")
DAY = 86_400
STALE_DAYS = 7  # a graph unused this long is deleted after the next export
# What the exported graph must agree with PyTorch on, per vector component.
TOLERANCE = 1e-4
PROBES = [
    "",
    "deploy",
    "The billing API answers 429 unless the X-Batch header is set; send X-Batch: 1 on bulk calls",
    "Ünïcödé, emoji 🚀 and CJK 漢字 in one lesson",
    "retries " * 700,  # past the model's length (and 512): truncated the same way
    "Staging's Postgres listens on 5433, not 5432.\nwhen connecting from the CI runners",
]


class UnsupportedModel(RuntimeError):
    """The model directory is not a pipeline this runtime reproduces."""


@dataclass(frozen=True)
class Pipeline:
    """What sentence-transformers does around the transformer, read from
    the model directory."""

    pooling: str  # "mean" or "cls"
    max_tokens: int
    lowercase: bool


def read_pipeline(path: Path) -> Pipeline:
    """The model directory's sentence-transformers pipeline: a Transformer,
    then mean or CLS pooling, then optionally Normalize (vectors are always
    normalised here). Raises ``UnsupportedModel`` for anything else."""
    try:
        modules = json.loads((path / "modules.json").read_text())
        config = json.loads((path / "sentence_bert_config.json").read_text())
    except (OSError, ValueError) as exc:
        raise UnsupportedModel(f"not a sentence-transformers directory: {exc}") from exc
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise UnsupportedModel(f"pipeline {kinds}")
    try:
        pooling = json.loads((path / modules[1].get("path", "") / "config.json").read_text())
    except (OSError, ValueError) as exc:
        raise UnsupportedModel(f"pooling configuration: {exc}") from exc
    modes = {key for key, value in pooling.items() if key.startswith("pooling_mode") and value}
    if modes == {"pooling_mode_mean_tokens"}:
        mode = "mean"
    elif modes == {"pooling_mode_cls_token"}:
        mode = "cls"
    else:
        raise UnsupportedModel(f"pooling {sorted(modes)}")
    if not (path / "tokenizer.json").is_file():
        raise UnsupportedModel("no tokenizer.json")
    return Pipeline(
        pooling=mode,
        max_tokens=int(config.get("max_seq_length") or _model_limit(path)),
        lowercase=bool(config.get("do_lower_case", False)),
    )


def _model_limit(path: Path) -> int:
    """Without a ``max_seq_length``, what sentence-transformers takes: the
    smaller of the tokenizer's and the model's limits."""
    limits = []
    for name, key in (("tokenizer_config.json", "model_max_length"),
                      ("config.json", "max_position_embeddings")):  # fmt: skip
        try:
            value = json.loads((path / name).read_text()).get(key)
        except (OSError, ValueError):
            continue
        if isinstance(value, int) and 0 < value < 10**6:
            limits.append(value)
    if not limits:
        raise UnsupportedModel("no maximum sequence length")
    return min(limits)


def fingerprint(path: Path) -> str:
    """The model's files (names and contents: a model replaced by another of
    the same size and time is still another model) and the versions of the
    libraries that make and run the graph. Hashing MiniLM's 88 MB takes
    ~0.1 s, once per process."""
    digest = hashlib.sha256(FORMAT.encode())
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        with open(file, "rb") as handle:
            content = hashlib.file_digest(handle, "sha256").hexdigest()
        digest.update(f"{file.relative_to(path)}:{content};".encode())
    for library in LIBRARIES:
        try:
            digest.update(f"{library}={metadata.version(library)};".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library}=none;".encode())
    return digest.hexdigest()[:16]


class OnnxProvider:
    """A sentence-transformers model directory, run by ONNX Runtime;
    L2-normalised output, the same vectors as ``SentenceTransformerProvider``."""

    runtime = "onnx"

    def __init__(self, graph: Path, model_dir: Path, pipeline: Pipeline, threads: int = 1) -> None:
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import onnxruntime
        from tokenizers import Tokenizer

        self.pipeline = pipeline
        self.graph = graph
        self.name = f"sentence-transformers:{model_dir.name}"
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # No spinning between runs: the cores are shared with the web,
        # the worker and the database.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(graph), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=pipeline.max_tokens)
        self._tokenizer.no_padding()
        self.dimensions = int(self._session.get_outputs()[0].shape[-1])
        self._lock = threading.Lock()

    @classmethod
    def load(
        cls, path: str, cache: Path, threads: int = 1, *, quantized: bool = False
    ) -> OnnxProvider:
        """The model directory ``path`` run by ONNX Runtime, its graph
        exported into ``cache`` first if it is not there yet (``quantized``:
        its weights as 8-bit integers, ``quantized_graph``)."""
        model_dir = Path(path)
        pipeline = read_pipeline(model_dir)
        graph = graph_file(model_dir, cache, pipeline)
        if quantized:  # its own retry: the float graph it was made from stays
            small = quantized_graph(graph)
            made = small.stat().st_mtime_ns
            try:
                return cls(small, model_dir, pipeline, threads)
            except Exception as exc:  # an 8-bit graph that does not load: made again, once
                log.warning("the cached graph %s does not load (%s); quantizing again", small, exc)
                return cls(quantized_graph(graph, unreadable=made), model_dir, pipeline, threads)
        made = graph.stat().st_mtime_ns
        try:
            return cls(graph, model_dir, pipeline, threads)
        except Exception as exc:  # a graph ONNX Runtime cannot load: made again, once
            log.warning("the cached graph %s does not load (%s); exporting it again", graph, exc)
            graph = graph_file(model_dir, cache, pipeline, unreadable=made)
            return cls(graph, model_dir, pipeline, threads)

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        import numpy as np

        if not texts:
            return []
        # Longest first, as sentence-transformers batches: little padding.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out: Any = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            # A batch at a time: a recall's query goes between an import's batches.
            with self._lock:
                out[chosen] = self._run([texts[i] for i in chosen])
        return out.tolist()  # type: ignore[no-any-return]

    def _run(self, texts: list[str]) -> Any:
        import numpy as np

        if self.pipeline.lowercase:
            texts = [text.lower() for text in texts]
        encodings = self._tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids: Any = np.zeros((len(texts), width), dtype=np.int64)
        mask: Any = np.zeros((len(texts), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        hidden = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        if self.pipeline.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            weights: Any = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)


def describe(path: str, cache: Path) -> str:
    """What will run the model in ``path``, for ``doctor``: without loading it."""
    model_dir = Path(path)
    try:
        read_pipeline(model_dir)
        import onnxruntime  # noqa: F401
    except (UnsupportedModel, ImportError) as exc:
        return f"PyTorch (ONNX Runtime cannot: {exc})"
    target = _target(model_dir, cache)
    if target.is_file():
        return f"ONNX Runtime, graph {target}"
    return f"ONNX Runtime, graph made on first use in {cache} (needs PyTorch once, ~5 s)"


def _target(model_dir: Path, cache: Path) -> Path:
    # The wheel's directory is called "model": name the file by its parent too.
    return cache / f"{model_dir.parent.name}-{model_dir.name}-{fingerprint(model_dir)}.onnx"


def graph_file(
    model_dir: Path, cache: Path, pipeline: Pipeline, unreadable: int | None = None
) -> Path:
    """The model's ONNX graph in ``cache``, exported (and checked) first if
    it is not there — or if the one there did not load (``unreadable``: its
    modification time then, so that one made since is kept); one process
    exports while the others wait. A graph in use is touched once a day, and
    one of the same model unused for ``STALE_DAYS`` (a replaced model, older
    libraries; its 8-bit graph too) is deleted after an export, so the cache
    holds what is in use."""
    target = _target(model_dir, cache)

    def make() -> None:
        export(model_dir, target, pipeline)
        for old in cache.glob(f"{model_dir.parent.name}-{model_dir.name}-*.onnx"):
            if old != target and time.time() - old.stat().st_mtime > STALE_DAYS * DAY:
                old.unlink(missing_ok=True)

    return _cached(target, make, unreadable)


# The 8-bit graph's file name ends so; the name changed with the graph
# (reduced range, below), so a cache never serves a graph made otherwise.
QUANTIZED_SUFFIX = "-int8r.onnx"


def quantized_graph(graph: Path, unreadable: int | None = None) -> Path:
    """``graph`` with its weights quantized to 8-bit integers (ONNX Runtime's
    dynamic quantization), made beside it on first use — or again if the one
    there did not load (``unreadable``: its modification time then): ~2.5x
    faster on two cores, and its outputs differ from the float graph's by
    more than ``TOLERANCE`` — only for a model whose threshold was set on
    what this graph gives (``memory/answers.py``). Touched and forgotten
    with it.

    The weights take 7 bits of the 8 (``reduce_range``). x86 CPUs without
    VNNI multiply 8-bit activations by 8-bit weights in pairs summed into 16
    bits, which saturates where full-range weights meet large activations;
    CPUs with VNNI sum into 32 bits and do not. Full-range weights read the
    same pair differently by CPU (the judge's pair reader by up to 0.14 on
    a logit between an AMD EPYC with AVX2 only and one with AVX-512 VNNI;
    5 of the golden set's 4,396 verdicts). With 7-bit weights no pair can
    saturate, so every x86 CPU computes the same integers."""
    target = graph.with_name(graph.stem + QUANTIZED_SUFFIX)

    def make() -> None:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with _written(target) as partial:
            quantize_dynamic(
                str(graph), str(partial), weight_type=QuantType.QInt8,
                reduce_range=True, per_channel=True,
            )

    return _cached(target, make, unreadable)


def _cached(target: Path, make: Callable[[], None], unreadable: int | None) -> Path:
    """``target`` in the cache: made by ``make`` under the cache's export lock
    when it is not there (one process makes it while the others wait) or when
    the one there did not load (``unreadable``: its modification time then,
    so that one made since is kept); touched once a day while in use."""
    from config.embedded import file_lock

    lock = target.parent / ".export.lock"
    if unreadable is not None:
        with file_lock(lock):
            if target.is_file() and target.stat().st_mtime_ns == unreadable:
                target.unlink()
    if target.is_file():
        if time.time() - target.stat().st_mtime > DAY:
            with contextlib.suppress(OSError):  # a read-only cache is fine
                os.utime(target)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(lock):
        if not target.is_file():
            make()
    return target


@contextlib.contextmanager
def _written(target: Path) -> Iterator[Path]:
    """A partial file to write ``target`` into: synced and given its name
    only if the block finishes; removed either way."""
    partial = target.with_suffix(f".{os.getpid()}.partial")
    try:
        yield partial
        with open(partial, "rb") as written:
            os.fsync(written.fileno())  # on disk before it has the name others load
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def export(model_dir: Path, target: Path, pipeline: Pipeline) -> None:
    """Export the transformer to ``target`` and check it against PyTorch's
    vectors on ``PROBES`` (alone and batched, so padding and truncation are
    covered); nothing is left at ``target`` unless it agrees."""
    import numpy as np

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the directory is all there is
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu")
    transformer = model[0].auto_model.eval()

    class Graph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.transformer(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    sample = model.tokenizer(["an example sentence"], return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    dynamic = {0: "batch", 1: "tokens"}
    log.info("exporting %s to ONNX (%s)", model_dir, target)
    with _written(target) as partial:
        # The tracer warns about every Python branch in the model's code; the
        # check below is what says whether the graph is right.
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                Graph(),
                (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
                str(partial),
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes={name: dynamic for name in [*names, "last_hidden_state"]},
                opset_version=17,
                dynamo=False,
            )  # fmt: skip
        expected = model.encode(
            PROBES, normalize_embeddings=True, batch_size=BATCH, show_progress_bar=False
        )
        check = OnnxProvider(partial, model_dir, pipeline)
        for got in (check.encode(PROBES), [check.encode([text])[0] for text in PROBES]):
            worst = float(np.abs(np.asarray(got) - expected).max())
            if not worst <= TOLERANCE:
                raise UnsupportedModel(f"the exported graph differs from PyTorch by {worst:.2g}")
