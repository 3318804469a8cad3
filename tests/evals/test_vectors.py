"""The stored vectors of the evaluation sets (evals/vectors.py): read only
where they are the model's, and covering every text of the sets."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from evals import vectors
from evals.judge_report import load_encoder

TEXTS = [f"Backups of shard {i} run at {i % 24:02d}:00, kept {i + 3} days." for i in range(60)]
FRESH = ["The loading dock closes at 18:00 on Fridays.", "Pallets over 900 kg go on bay 4."]


def live(texts: list[str]) -> np.ndarray:
    return np.asarray(load_encoder().encode(list(texts), normalize_embeddings=True))


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    empty = vectors.Store(
        tmp_path / "vectors", width=vectors.DIMENSIONS, tolerance=vectors.TOLERANCE,
        what="evaluation vectors",
    )  # fmt: skip
    monkeypatch.setattr(vectors, "EMBEDDINGS", empty)
    return tmp_path / "vectors"


class Counting:
    """The model as it runs, recording what it is asked to embed."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.asked += texts
        return live(texts)


def test_the_store_holds_every_text_of_the_sets() -> None:
    lacking = vectors.EMBEDDINGS.missing(vectors.set_texts())
    assert lacking == [], f"{len(lacking)} texts lack vectors: python -m evals.vectors --update"


def test_the_stored_vectors_are_the_models() -> None:
    assert vectors.usable()
    assert vectors.check() <= vectors.TOLERANCE


def test_a_store_that_agrees_is_read_and_only_the_sample_and_new_texts_are_embedded(store):
    assert vectors.update(TEXTS) == len(TEXTS)
    assert vectors.update(TEXTS) == 0  # nothing more to store
    encode = Counting()
    got = vectors.encoded(encode, [*TEXTS, *FRESH])
    assert np.abs(got - live([*TEXTS, *FRESH])).max() <= vectors.TOLERANCE
    sample = vectors.sample(sorted(TEXTS))
    assert len(sample) == vectors.SAMPLE < len(TEXTS)
    assert encode.asked == [*sample, *FRESH]
    assert len(list(store.glob("*.npz"))) == 1


def test_a_store_that_disagrees_with_the_model_is_not_used(store, caplog):
    assert vectors.update(TEXTS) == len(TEXTS)
    shard = next(store.glob("*.npz"))
    with np.load(shard) as data:
        keys, stored = data["digests"], data["vectors"].copy()
    longest = max(TEXTS, key=len)  # in every sample
    row = [k.tobytes() for k in keys].index(vectors.digest(longest))
    stored[row] = -stored[row]  # one stale vector among sixty
    np.savez(shard, digests=keys, vectors=stored)
    vectors.EMBEDDINGS.forget()
    encode = Counting()
    with caplog.at_level(logging.WARNING, logger="evals.vectors"):
        got = vectors.encoded(encode, TEXTS)
    assert np.abs(got - live(TEXTS)).max() <= vectors.TOLERANCE
    assert "differ from the model's" in caplog.text
    assert set(encode.asked) == set(TEXTS)  # every text embedded, none read


def test_another_configured_model_never_reads_the_store(store, settings):
    assert vectors.update(TEXTS[:5]) == 5
    settings.TRIBUTARY_EMBEDDING_MODEL = "/models/another"
    assert not vectors.usable()
    asked: list[str] = []

    def another(texts: list[str]) -> np.ndarray:  # stands for the other model
        asked.extend(texts)
        return np.ones((len(texts), vectors.DIMENSIONS), np.float32)

    assert (vectors.encoded(another, TEXTS[:5]) == 1).all()
    assert asked == TEXTS[:5]
