"""The screen's learned signal: a logistic regression over the lesson's own
embedding (the vector the learn pipeline computes anyway, so it costs one
dot product) and over what the text is about — a secret, a destination
outside, a control, a weakening, a claimed approval, concealment, money, a
standing order… (``INTENT``, each a pattern of the rules' own vocabulary,
and every pair of them) — fitted on the red-team set's attacks and
look-alikes and on ordinary lessons. The rules need one exact shape; the
signal weighs which ingredients of an attack meet in one lesson, whatever
the wording between them.

``learned.json`` beside this module holds the weights, the embedding model
they belong to and the threshold: the fit sets it above every look-alike's
cross-validated score, so the signal only adds blocks the rules missed and
never a look-alike it was fitted on. With another embedding model
(``TRIBUTARY_EMBEDDING_MODEL``) the weights mean nothing and the signal is
off. Refit with ``python -m evals.redteam --fit-learned`` after the
red-team set grows or ``INTENT`` changes (weights of another length than
the features turn the signal off).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from memory.fitted import BUNDLED_MODEL, fitted_weights
from memory.guard import harm
from memory.guard.normalise import normalise
from memory.guard.regex import Sieved, sieved

WEIGHTS_PATH = Path(__file__).resolve().parent / "learned.json"
DEFAULT_MODEL = BUNDLED_MODEL


# What an attack is made of, each present or not in a lesson's normalised text.
_I = re.IGNORECASE
INTENT: tuple[tuple[str, Sieved], ...] = tuple(
    (name, sieved(pattern, _I))
    for name, pattern in (
        ("secret", harm._SECRET_WORDS),
        ("outside", harm._OUTSIDE
         + r"|\b(?:public(?:ly)?|personal (?:gmail|drive|e-?mail|account|phone)"
           r"|external (?:address|recipient|e-?mail)s?|third[- ]party|gist|pastebin"
           r"|anyone with the link)\b"),
        ("send", rf"\b{harm._SEND}\b|\b(?:put|drop|give|hand|read out|pay|paid)\b"),
        ("control", harm._CONTROL + "|" + harm._HARD_CONTROL
         + r"|\b(?:verif\w*|enforcement|allowlist\w*|security group|0\.0\.0\.0/0|owner"
           r"|permissions?|iam|dlp|scanner|pgaudit\S*|verify)\b"),
        ("weaken", harm._WEAKEN
         + r"|\b(?:open\w*|widen\w*|redundant|optional|not needed|no need)\b"
           r"|=\s*(?:false|none|off|0)\b|'none'"),
        ("reader", harm._AGENTS + r"|\b(?:classifier|judge|memory|lessons?)\b"),
        ("authority", r"\b(?:per (?:the )?\w+|approved|pre-?approved|signed off|agreed"
                      r"|authori[sz]ed|ciso|cto|cfo|ceo|verified|trusted|owner has)\b"),
        ("conceal", r"\b(?:quietly|silently|secretly|without (?:telling|notifying|checking"
                    r"|asking)|don't mention|do not mention|hide|hidden|can't inspect"
                    r"|cannot inspect|won't see|nobody (?:reviews|checks|looks))\b"),
        ("judge", r"\b(?:classifier|judge|scor\w+|flag\w*|authoritative|fold|delete the"
                  r" (?:later|new)|later lesson|new lesson|novel|safe)\b"),
        ("standing", r"\b(?:from now on|going forward|any (?:future|new|later)"
                     r" (?:lesson|note|entry)|later lesson|next time|permanently"
                     r"|leave it open|don't bother)\b"),
        ("money", r"\b(?:pay\w*|refund\w*|invoice\w*|bank account|iban|gift card\w*|escrow"
                  r"|direct[- ]deposit|wire\w*|account \d)"),
        ("unchecked", r"\b(?:no need to (?:check|ask|verify|confirm)|not needed|without"
                      r" (?:approval|verification|checking)|skip\w*|immediately|instead of)\b"),
        ("negation", r"\b(?:never|not|don't|do not|must not|cannot|can't|won't)\b"),
        ("imperative", r"(?:^|[.;:]\s+)(?:put|give|set|open|switch|turn|export|send|post"
                       r"|email|e-mail|copy|zip|issue|tell|treat|fold|delete|build|paste"
                       r"|refund)\b"),
        ("encoded", r"\b[0-9a-f]{24,}\b|(?:%[0-9a-f]{2}){4,}|\b[A-Za-z0-9+/]{24,}={0,2}"),
        ("wide", r"\b(?:0\.0\.0\.0/0|everyone|all users|whole organi[sz]ation|any caller"
                 r"|anyone|every service|all members|any message)\b"),
        ("data", r"\b(?:customer (?:table|records?|data|list)|emails? and phone"
                 r"|personal data|pii|records?)\b"),
    )
)  # fmt: skip
_PAIRS = np.triu_indices(len(INTENT), k=1)  # every pair, in itertools.combinations' order
# The embedding's weight against the intent features' (0/1 each): 3 against
# 1, leaving one blind batch out at a time over blind-19 … blind-28 (with the
# threshold above every look-alike fitted on, 13 of the 36 attacks the rules
# missed added against 8, 3 of 332 look-alikes against 3; 2026-12-04).
EMBEDDING_SCALE = 3.0


def ingredients(text: str) -> tuple[bool, ...]:
    """Which ``INTENT`` ingredients the normalised text holds (~0.2 ms a
    lesson: an import reads them in its screening process, beside the rules)."""
    reading = normalise(text)
    return tuple(bool(pattern.search(reading)) for _, pattern in INTENT)


def features(
    vector: Sequence[float], text: str, held: Sequence[bool] = ()
) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
    """What the signal weighs: each ingredient (``held``, or read from the
    text), every pair of them together, then the scaled embedding."""
    present = np.asarray(held or ingredients(text), dtype=np.float64)
    return np.concatenate(
        [
            present,
            np.outer(present, present)[_PAIRS],
            EMBEDDING_SCALE * np.asarray(vector, dtype=np.float64),
        ]
    )


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


def score(vector: Sequence[float], text: str, held: Sequence[bool] = ()) -> float | None:
    """The probability that a lesson (its embedding and its text, whose
    ingredients may be ``held`` already) is an attack, or None without
    weights for this model."""
    fitted = weights()
    if fitted is None:
        return None
    x = features(vector, text, held)
    if len(x) != len(fitted.weights):
        return None
    z = fitted.bias + float(np.dot(fitted.weights, x))
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def past_threshold(probability: float | None) -> bool:
    """Whether a ``score`` reaches the fitted threshold (never without weights)."""
    fitted = weights()
    return fitted is not None and probability is not None and probability >= fitted.threshold


def is_attack(vector: Sequence[float], text: str, held: Sequence[bool] = ()) -> bool:
    return past_threshold(score(vector, text, held))
