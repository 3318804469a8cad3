"""The stored readings of the judge's pair reader (evals/readings.py): read
only inside an evaluation, only where they are the reader's, and covering
every pair of the golden set."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evals import readings
from evals.vectors import SAMPLE, Store, digest, sample
from memory.judge.reader import MODEL, pair

PAIRS = [
    pair(f"Shard {i} backs up at {i % 24:02d}:00.", "nightly jobs",
         f"Backups of shard {i} run at {(i + 3) % 24:02d}:00 and are kept {i + 2} days.", "")
    for i in range(60)
]  # fmt: skip
FRESH = [pair("The dock closes at 18:00 on Fridays.", "", "On Fridays the dock shuts at 6 pm.", "")]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """An empty store whose golden set is ``PAIRS``."""
    empty = Store(
        tmp_path / "readings", width=3, tolerance=readings.TOLERANCE, what="pair readings",
        dtype=np.float64,
    )  # fmt: skip
    monkeypatch.setattr(readings, "store", lambda: empty)
    monkeypatch.setattr(readings, "pair_texts", lambda: list(PAIRS))
    return empty


class Counting:
    """The reader's own reading, recording what it is asked to read."""

    def __init__(self, read: Any) -> None:
        self.read = read
        self.asked: list[str] = []

    def __call__(self, model: Any, texts: Sequence[str]) -> Any:
        self.asked += texts
        return self.read(model, texts)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counting]:
    assert MODEL.meta() is not None, "the judge's pair reader is off; see the log"
    spy = Counting(MODEL._read)
    monkeypatch.setattr(MODEL, "_read", spy)
    yield spy
    assert MODEL.known is None  # nothing outlives an evaluation


def test_the_store_holds_every_pair_of_the_golden_set() -> None:
    lacking = readings.store().missing(readings.pair_texts())
    assert lacking == [], f"{len(lacking)} pairs lack readings: python -m evals.readings --update"


def test_the_stored_readings_are_the_readers() -> None:
    assert readings.check() <= readings.TOLERANCE


def test_inside_an_evaluation_only_the_sample_and_new_pairs_are_read(store, counting):
    assert readings.update() == len(PAIRS)
    assert readings.update() == 0  # nothing more to store
    assert len(list(store.folder.glob("*.npz"))) == 1
    texts = [*PAIRS, *FRESH]
    live = np.asarray(MODEL.class_probabilities(texts))
    counting.asked.clear()
    with readings.stored() as used:
        assert used
        got = np.asarray(MODEL.class_probabilities(texts))
    assert np.abs(got - live).max() <= readings.TOLERANCE
    checked = sample(sorted(PAIRS))
    assert len(checked) == SAMPLE < len(PAIRS)
    assert counting.asked == [*checked, *FRESH]
    # outside, the reader reads everything itself again
    counting.asked.clear()
    assert np.abs(np.asarray(MODEL.class_probabilities(PAIRS[:2])) - live[:2]).max() <= 1e-6
    assert counting.asked == PAIRS[:2]


def test_a_store_that_disagrees_with_the_reader_is_not_used(store, counting, caplog):
    assert readings.update() == len(PAIRS)
    shard = next(store.folder.glob("*.npz"))
    with np.load(shard) as data:
        keys, stored = data["digests"], data["vectors"].copy()
    longest = max(PAIRS, key=len)  # in every sample
    row = [k.tobytes() for k in keys].index(digest(longest))
    stored[row] += 1e-3  # one stale reading among sixty
    np.savez(shard, digests=keys, vectors=stored)
    store.forget()
    counting.asked.clear()
    with caplog.at_level(logging.WARNING, logger="evals.vectors"), readings.stored() as used:
        assert not used
        MODEL.class_probabilities(PAIRS)
    assert "pair readings differ from the model's" in caplog.text
    assert set(PAIRS) <= set(counting.asked)  # every pair read, none from the store


def test_with_the_reader_off_nothing_is_stored_or_read(store, settings):
    settings.TRIBUTARY_JUDGE_READER = False
    MODEL.forget()
    try:
        with pytest.raises(SystemExit, match="reader is off"):
            readings.update()
        with readings.stored() as used:
            assert not used
            assert MODEL.known is None
            assert MODEL.class_probabilities(PAIRS[:1]) is None
    finally:
        MODEL.forget()
