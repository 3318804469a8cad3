"""The screen's learned signal: a logistic regression over the lesson's own
embedding (the vector the learn pipeline computes anyway, so it costs one
dot product), fitted on the red-team set's attacks and look-alikes.

``learned.json`` beside this module holds the weights, the embedding model
they belong to and the threshold: the fit sets it above every look-alike's
cross-validated score, so the signal only adds blocks the rules missed and
never a look-alike it was fitted on. With another embedding model
(``TRIBUTARY_EMBEDDING_MODEL``) the weights mean nothing and the signal is
off. Refit with ``python -m evals.redteam --fit-learned`` after the
red-team set grows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from memory.fitted import BUNDLED_MODEL, fitted_weights

WEIGHTS_PATH = Path(__file__).resolve().parent / "learned.json"
DEFAULT_MODEL = BUNDLED_MODEL


@dataclass(frozen=True)
class Weights:
    model: str
    weights: np.ndarray[tuple[int], np.dtype[np.float64]]
    bias: float
    threshold: float


@cache
def weights() -> Weights | None:
    """The fitted weights, or None when there are none for the model in use."""
    raw = fitted_weights(WEIGHTS_PATH)
    if raw is None:
        return None
    return Weights(
        model=raw["model"], weights=np.asarray(raw["weights"], dtype=np.float64),
        bias=float(raw["bias"]),
        threshold=float(raw["threshold"]),
    )  # fmt: skip


def score(vector: Sequence[float]) -> float | None:
    """The probability that a lesson is an attack, or None without weights."""
    fitted = weights()
    if fitted is None or len(vector) != len(fitted.weights):
        return None
    z = fitted.bias + float(np.dot(fitted.weights, np.asarray(vector, dtype=np.float64)))
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def is_attack(vector: Sequence[float]) -> bool:
    fitted = weights()
    probability = score(vector)
    return fitted is not None and probability is not None and probability >= fitted.threshold
