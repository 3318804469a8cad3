"""The embedding model on ONNX Runtime gives PyTorch's vectors, loads
without PyTorch once its graph is made, and falls back to PyTorch — saying
so — for a model it cannot reproduce."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings

from memory import onnx_model
from memory.embeddings import default_model_path, load_provider
from memory.onnx_model import UnsupportedModel, fingerprint, read_pipeline

ROOT = Path(__file__).resolve().parents[2]

TEXTS = [
    "",
    " ",
    "deploy",
    "The billing API answers 429 unless the X-Batch header is set; send X-Batch: 1 on bulk calls",
    "Bulk calls to the billing API need the X-Batch header or they get HTTP 429\nbilling",
    "Ünïcödé, emoji 🚀, CJK 漢字, Arabic العربية and a zero\u200bwidth space",
    "word " * 600,  # far past 256 tokens
    "  leading and trailing whitespace  ",
    "UPPER CASE AND lower case",
] + [f"lesson {n}: the staging database listens on port {5400 + n}" for n in range(40)]


@pytest.fixture(scope="module")
def providers():
    path = default_model_path()
    return load_provider(path, "onnx"), load_provider(path, "torch")


def test_onnx_gives_pytorchs_vectors_batched_alone_and_in_any_order(providers):
    onnx, torch = providers
    assert (onnx.runtime, torch.runtime) == ("onnx", "torch")
    expected = np.asarray(torch.encode(TEXTS))
    batched = np.asarray(onnx.encode(TEXTS))
    alone = np.asarray([onnx.encode([text])[0] for text in TEXTS])
    shuffled = list(reversed(TEXTS))
    reordered = np.asarray(onnx.encode(shuffled))[::-1]
    for got in (batched, alone, reordered):
        assert got.shape == expected.shape == (len(TEXTS), 384)
        assert np.abs(got - expected).max() < 1e-5
        assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert onnx.encode([]) == []


def test_a_process_loads_the_exported_graph_without_pytorch(providers):
    onnx, _ = providers
    assert onnx.graph.parent == settings.TRIBUTARY_MODEL_CACHE
    script = (
        "import sys, django; django.setup()\n"
        "from memory.embeddings import get_provider\n"
        "p = get_provider()\n"
        "print(p.runtime, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
           "TRIBUTARY_MODEL_CACHE": str(settings.TRIBUTARY_MODEL_CACHE)}  # fmt: skip
    # the embedding model's graphs (the screen's reader may export its own
    # meanwhile, from the other test worker)
    graphs = f"{Path(onnx.graph).name.rsplit('-', 1)[0]}-*.onnx"
    before = sorted(settings.TRIBUTARY_MODEL_CACHE.glob(graphs))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip
    assert done.stdout.split() == ["onnx", "False", "False"], done.stderr
    assert sorted(settings.TRIBUTARY_MODEL_CACHE.glob(graphs)) == before  # nothing exported


def _model_copy(tmp_path: Path) -> Path:
    """The model directory, its files linked, its configuration copied."""
    source = Path(default_model_path())
    copy = tmp_path / "model"
    for file in source.rglob("*"):
        target = copy / file.relative_to(source)
        if file.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif file.suffix == ".json":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(file.read_bytes())
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(file)
    return copy


def test_the_pipeline_is_read_from_the_model_directory(tmp_path):
    copy = _model_copy(tmp_path)
    pipeline = read_pipeline(copy)
    assert (pipeline.pooling, pipeline.max_tokens, pipeline.lowercase) == ("mean", 256, False)
    pooling = copy / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    config.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    pooling.write_text(json.dumps(config))
    assert read_pipeline(copy).pooling == "cls"
    config.update(pooling_mode_cls_token=False, pooling_mode_max_tokens=True)
    pooling.write_text(json.dumps(config))
    with pytest.raises(UnsupportedModel, match="pooling"):
        read_pipeline(copy)
    (copy / "modules.json").write_text(json.dumps([{"type": "x.Transformer"}, {"type": "x.Dense"}]))
    with pytest.raises(UnsupportedModel, match="pipeline"):
        read_pipeline(copy)
    with pytest.raises(UnsupportedModel):
        read_pipeline(tmp_path / "nothing here")


def test_the_graph_is_made_again_for_another_model_or_library(tmp_path, monkeypatch):
    copy = _model_copy(tmp_path)
    first = fingerprint(copy)
    assert fingerprint(copy) == first
    # Another model of the same size and time (a copy that keeps times).
    config = copy / "config.json"
    stat = config.stat()
    text = config.read_text()
    config.write_text(text.replace('"gelu"', '"relu"') if '"gelu"' in text else text[::-1])
    os.utime(config, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert config.stat().st_size == stat.st_size and config.stat().st_mtime_ns == stat.st_mtime_ns
    second = fingerprint(copy)
    assert second != first
    monkeypatch.setattr(onnx_model, "FORMAT", onnx_model.FORMAT + "-next")
    third = fingerprint(copy)
    assert third != second
    real = onnx_model.metadata.version
    monkeypatch.setattr(
        onnx_model.metadata, "version",
        lambda name: "0.0.1" if name == "onnxruntime" else real(name),
    )  # fmt: skip
    assert fingerprint(copy) != third


def test_without_a_length_the_smaller_of_the_tokenizers_and_the_models_limit(tmp_path):
    copy = _model_copy(tmp_path)
    config = copy / "sentence_bert_config.json"
    config.write_text(json.dumps({"do_lower_case": False}))
    tokenizer = json.loads((copy / "tokenizer_config.json").read_text())
    tokenizer["model_max_length"] = 300
    (copy / "tokenizer_config.json").write_text(json.dumps(tokenizer))
    assert read_pipeline(copy).max_tokens == 300


def test_a_cached_graph_that_does_not_load_is_made_again(tmp_path, settings, caplog):
    settings.TRIBUTARY_MODEL_CACHE = cache = tmp_path / "cache"
    model_dir = Path(default_model_path())
    cache.mkdir()
    broken = onnx_model._target(model_dir, cache)
    broken.write_bytes(b"not a graph")  # e.g. cut short by a crash
    with caplog.at_level(logging.WARNING):
        provider = load_provider(str(model_dir), "onnx")
    assert provider.runtime == "onnx"
    assert "does not load" in caplog.text
    assert broken.stat().st_size > 1_000_000
    assert len(provider.encode(["deploy"])[0]) == 384


def test_a_model_onnx_cannot_reproduce_runs_on_pytorch_and_says_so(tmp_path, settings, caplog):
    copy = _model_copy(tmp_path)
    pooling = copy / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    config.update(pooling_mode_mean_tokens=False, pooling_mode_max_tokens=True)
    pooling.write_text(json.dumps(config))
    settings.TRIBUTARY_MODEL_CACHE = tmp_path / "cache"
    with caplog.at_level(logging.WARNING, logger="memory.embeddings"):
        provider = load_provider(str(copy), "onnx")
    assert provider.runtime == "torch"
    assert "on torch, not ONNX Runtime: pooling" in caplog.text
    assert len(provider.encode(["max pooled"])[0]) == 384


def test_a_graph_that_disagrees_with_pytorch_is_never_kept(tmp_path, settings, caplog, monkeypatch):
    # A real export, checked with a tolerance nothing can meet.
    monkeypatch.setattr(onnx_model, "TOLERANCE", -1.0)
    settings.TRIBUTARY_MODEL_CACHE = cache = tmp_path / "cache"
    with caplog.at_level(logging.WARNING, logger="memory.embeddings"):
        provider = load_provider(default_model_path(), "onnx")
    assert provider.runtime == "torch"
    assert "differs from PyTorch" in caplog.text
    assert [p.name for p in cache.iterdir()] == [".export.lock"]  # no graph, no partial file


def test_the_cache_keeps_the_graphs_in_use_and_drops_stale_ones(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    model_dir = Path(default_model_path())
    prefix = f"{model_dir.parent.name}-{model_dir.name}"
    week_ago = time.time() - 8 * onnx_model.DAY
    stale, recent, other = (cache / f"{prefix}-0000.onnx", cache / f"{prefix}-1111.onnx",
                            cache / "another-model-2222.onnx")  # fmt: skip
    for file in (stale, recent, other):
        file.write_bytes(b"")
    for file in (stale, other):
        os.utime(file, (week_ago, week_ago))
    exported = []

    def export(model_dir, target, pipeline):  # the export itself is tested above
        exported.append(target)
        target.write_bytes(b"graph")

    monkeypatch.setattr(onnx_model, "export", export)
    target = onnx_model.graph_file(model_dir, cache, read_pipeline(model_dir))
    assert exported == [target]
    assert sorted(p.name for p in cache.glob("*.onnx")) == sorted(
        [target.name, recent.name, other.name]
    )  # the same model's stale graph went; a recent one and another model's stay
    os.utime(target, (week_ago, week_ago))
    assert onnx_model.graph_file(model_dir, cache, read_pipeline(model_dir)) == target
    assert exported == [target]  # found, not made again
    assert time.time() - target.stat().st_mtime < 60  # and touched
