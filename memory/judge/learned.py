"""The judge's learned layer: a multinomial logistic regression over what
the rules read in a pair of lessons, fitted on the judge's golden set and
on long histories.

The rules (:mod:`memory.judge.offline`) decide in a fixed order and stop at
the first rule that fires; on batches written blind they found a third of
the duplicates and contradictions. This layer reads the same evidence side
by side — every rule's signal computed on its own
(:func:`~memory.judge.offline.pair_evidence`), the rules' reading and
confidence, the embeddings' similarity, a few surface counts — and answers
the probability of each relation for each candidate. Then:

- the rules' destructive verdict stands: what they read plainly — one
  value against another in the same sentence, the same sentence twice —
  the layer, fitted on batches written to be hard (their duplicates are all
  paraphrases, their near-identical pairs mostly about different subjects),
  reads worse than they do (a verbatim restatement it calls novel);
- where the rules find nothing, the layer's most probable duplicate or
  contradiction is given if it reaches its threshold;
- otherwise the lesson is novel.

Then the pair reader (:mod:`memory.judge.reader`, a fine-tuned
cross-encoder) reads the nearest candidates, and :func:`with_reader`
joins the two: it withdraws a destructive verdict whose target it reads as
neither, and gives one where there was none.

It is fitted on the golden set and on long histories' dated notes as
novel pairs, and every feature is clipped to its training range; the
thresholds are chosen on cross-validated batches for destructive
precision first and for few verdicts on histories it was not fitted on
(safety by asymmetry: when unsure, insert as novel).

``learned.json`` beside this module holds the weights (the scaler folded
in), the thresholds, the embedding model they belong to and the
cross-validated figures. The similarity is that model's, so with another
model (``TRIBUTARY_EMBEDDING_MODEL``) the layer is off and the rules judge
alone. Refit with ``python -m evals.judge_learned --fit`` after the golden
set grows or a rule changes.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from memory.fitted import BUNDLED_MODEL, fitted_weights
from memory.judge.base import Candidate, Relation, Verdict
from memory.judge.offline import OfflineJudge, Reading, pair_evidence, read_pair, short_id
from memory.judge.statement import analyse, analyse_pair
from memory.language import other_language

log = logging.getLogger(__name__)

WEIGHTS_PATH = Path(__file__).resolve().parent / "learned.json"
DEFAULT_MODEL = BUNDLED_MODEL
# The classes in the weights' row order.
CLASSES = (Relation.NOVEL, Relation.DUPLICATE, Relation.CONTRADICTS)

_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_NEGATION = re.compile(
    r"\b(?:not|never|no|without|n't|cannot|disabled?|off|forbidden|prohibited|optional|only)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Weights:
    model: str
    features: tuple[str, ...]
    coef: np.ndarray[tuple[int, int], np.dtype[np.float64]]  # classes x features, scaler folded in
    intercept: np.ndarray[tuple[int], np.dtype[np.float64]]
    # each feature's range in the training set: a value outside it is
    # clipped, never extrapolated (a linear model read a lesson longer than
    # any it was fitted on as ever more of a duplicate)
    low: np.ndarray[tuple[int], np.dtype[np.float64]]
    high: np.ndarray[tuple[int], np.dtype[np.float64]]
    duplicate_at: float
    contradicts_at: float


@cache
def weights() -> Weights | None:
    """The fitted weights, or None when there are none for the model in use."""
    raw = fitted_weights(WEIGHTS_PATH)
    return None if raw is None else parse(raw)


def parse(raw: dict[str, object]) -> Weights | None:
    """Weights from their JSON form (None for another model's)."""
    if raw.get("model") != DEFAULT_MODEL:
        return None
    features = tuple(str(f) for f in raw["features"])  # type: ignore[attr-defined]
    coef = np.asarray(raw["coef"], dtype=np.float64)
    intercept = np.asarray(raw["intercept"], dtype=np.float64)
    low = np.asarray(raw["low"], dtype=np.float64)
    high = np.asarray(raw["high"], dtype=np.float64)
    if (
        coef.shape != (len(CLASSES), len(features))
        or intercept.shape != (len(CLASSES),)
        or low.shape != (len(features),)
        or high.shape != (len(features),)
    ):
        raise ValueError(f"{WEIGHTS_PATH.name}: weights of the wrong shape {coef.shape}")
    return Weights(
        model=DEFAULT_MODEL, features=features, coef=coef, intercept=intercept, low=low, high=high,
        duplicate_at=float(raw["duplicate_at"]),  # type: ignore[arg-type]
        contradicts_at=float(raw["contradicts_at"]),  # type: ignore[arg-type]
    )  # fmt: skip


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def pair_features(
    *,
    content: str,
    situation: str,
    candidate: Candidate,
    reading: Reading,
    evidence: dict[str, float],
    nearest: bool,
    margin: float,
) -> dict[str, float]:
    """What the layer reads of one candidate (by name; the weights list the
    names they use, in their order)."""
    numbers_n, numbers_c = set(_NUMBER.findall(content)), set(_NUMBER.findall(candidate.content))
    negations_n = {m.lower() for m in _NEGATION.findall(content)}
    negations_c = {m.lower() for m in _NEGATION.findall(candidate.content)}
    features = {
        "similarity": candidate.similarity,
        "margin": margin,
        "nearest": float(nearest),
        "word_overlap": _overlap(_words(content), _words(candidate.content)),
        "situation_overlap": _overlap(_words(situation), _words(candidate.situation)),
        "numbers_same": float(bool(numbers_n) and numbers_n == numbers_c),
        "numbers_differ": float(bool(numbers_n) and bool(numbers_c) and numbers_n != numbers_c),
        "numbers_one_side": float(bool(numbers_n) != bool(numbers_c)),
        "negations_differ": float(len(negations_n ^ negations_c)),
        "length_ratio": len(content) / max(1, len(candidate.content)),
        **evidence,
    }
    for relation in CLASSES:
        said = reading.relation is relation
        features[f"rules_{relation.value}"] = float(said)
        features[f"rules_{relation.value}_confidence"] = reading.confidence if said else 0.0
    for detail in ("coverage", "substitution", "new_only"):
        features[f"rules_{detail}"] = reading.details.get(detail, -1.0)
    return features


def case_features(
    content: str, situation: str, candidates: Sequence[Candidate]
) -> list[tuple[Reading, dict[str, float]]]:
    """Each candidate's rule reading and features (what the fit reads too)."""
    new_sit = analyse(situation) if situation.strip() else None
    nearest = max(range(len(candidates)), key=lambda i: (candidates[i].similarity, -i))
    out = []
    for i, c in enumerate(candidates):
        new, cand = analyse_pair(content, c.content)
        cand_sit = analyse(c.situation) if c.situation.strip() else None
        reading = read_pair(new, cand, c.similarity, new_sit, cand_sit)
        others = [o.similarity for j, o in enumerate(candidates) if j != i]
        features = pair_features(
            content=content, situation=situation, candidate=c, reading=reading,
            evidence=pair_evidence(new, cand, new_sit, cand_sit), nearest=i == nearest,
            margin=c.similarity - max(others, default=0.0),
        )  # fmt: skip
        out.append((reading, features))
    return out


def probabilities(fitted: Weights, features: dict[str, float]) -> np.ndarray:
    """P(novel), P(duplicate), P(contradicts) for one candidate."""
    x = np.asarray([features[name] for name in fitted.features], dtype=np.float64)
    z = fitted.coef @ np.clip(x, fitted.low, fitted.high) + fitted.intercept
    z -= z.max()
    e = np.exp(z)
    return e / e.sum()


def choose(
    scores: Sequence[np.ndarray], duplicate_at: float, contradicts_at: float
) -> tuple[float, int, Relation] | None:
    """The destructive verdict the layer gives, as (probability, candidate
    index, relation): the most probable duplicate or contradiction that
    reaches its bar, ties to the nearer candidate; None: novel."""
    best: tuple[float, int, Relation] | None = None
    for i, p in enumerate(scores):
        for relation, bar in ((Relation.DUPLICATE, duplicate_at),
                              (Relation.CONTRADICTS, contradicts_at)):  # fmt: skip
            score = float(p[CLASSES.index(relation)])
            if score >= bar and (best is None or score > best[0]):
                best = (score, i, relation)
    return best


def combine(
    rules: tuple[Relation, int] | None, scores: Sequence[np.ndarray], fitted: Weights
) -> tuple[Relation, int, float | None] | None:
    """The verdict as (relation, candidate index, the layer's probability or
    None where it is the rules' verdict), or None: novel. ``rules`` is the
    rules' destructive verdict (relation, candidate index), if any."""
    if rules is not None:
        return rules[0], rules[1], None
    best = choose(scores, fitted.duplicate_at, fitted.contradicts_at)
    return None if best is None else (best[2], best[1], best[0])


class LearnedJudge(OfflineJudge):
    """The offline judge with its learned layer (see the module docstring):
    the rules' destructive verdicts stand; where they find none, the layer
    may give one."""

    name = "offline-learned-v1"

    def __init__(self, fitted: Weights) -> None:
        self.fitted = fitted

    def scores(
        self, *, content: str, situation: str, candidates: Sequence[Candidate]
    ) -> list[tuple[Reading, np.ndarray]]:
        """Each candidate's rule reading and the layer's probabilities (for reports)."""
        return [
            (reading, probabilities(self.fitted, features))
            for reading, features in case_features(content, situation, candidates)
        ]

    def classify(self, *, content: str, situation: str, candidates: Sequence[Candidate]) -> Verdict:
        """Classify ``content`` against ``candidates`` (see :class:`memory.judge.Judge`)."""
        verdict = self.without_reader(content, situation, candidates)
        if not candidates:
            return verdict
        from memory.judge import reader

        try:
            threshold = reader.threshold()
            if threshold is None:
                return verdict
            target = next((i for i, c in enumerate(candidates) if c.id == verdict.target_id), None)
            found = reader.read(content, situation, candidates, target)
            if found is None:
                return verdict
            return with_reader(verdict, candidates, found, threshold, reader.VETO, content=content)
        except Exception:  # the rules' verdict stands; reading is an addition
            log.warning("the judge's pair reader failed; the rules judge alone", exc_info=True)
            return verdict

    def without_reader(
        self, content: str, situation: str, candidates: Sequence[Candidate]
    ) -> Verdict:
        """The verdict of the rules and this layer alone."""
        if not candidates:
            return Verdict(Relation.NOVEL, None, 0.95, "No similar lesson exists.", self.name)
        read = case_features(content, situation, candidates)
        readings = [reading for reading, _ in read]
        scores = [probabilities(self.fitted, features) for _, features in read]
        ruled = self.decide(readings, candidates)
        rules = None
        if ruled.target_id is not None:
            rules = (ruled.relation, next(i for i, c in enumerate(candidates)
                                          if c.id == ruled.target_id))  # fmt: skip
        verdict = combine(rules, scores, self.fitted)
        if verdict is not None:
            relation, i, score = verdict
            c = candidates[i]
            if score is None:  # the rules' verdict
                return Verdict(relation, c.id, ruled.confidence, ruled.rationale, self.name)
            verb = "Restates" if relation is Relation.DUPLICATE else "Contradicts"
            text = f"{verb} lesson {short_id(c)} (learned score {score:.2f}; the rules read: "
            text += f"{readings[i].relation.value}, {readings[i].reason})."
            return Verdict(relation, c.id, round(_unit(score), 3), text, self.name)
        destructive = max(float(p[1:].max()) for p in scores)
        nearest = max(range(len(candidates)), key=lambda i: (candidates[i].similarity, -i))
        text = f"Novel: the nearest lesson, {short_id(candidates[nearest])}, is "
        text += f"{readings[nearest].reason} (no learned score reached its bar)."
        return Verdict(Relation.NOVEL, None, round(_unit(1.0 - destructive), 3), text, self.name)


READER_NAME = "offline-reader-v1"  # a verdict the pair reader gave or withdrew


def with_reader(
    verdict: Verdict, candidates: Sequence[Candidate], found: dict[int, np.ndarray],
    threshold: float, veto: float, *, content: str,
) -> Verdict:  # fmt: skip
    """The judge's verdict once the pair reader has read ``found`` (its
    probabilities by candidate index; :mod:`memory.judge.reader`) for the
    new lesson ``content``:

    - a destructive verdict of the rules or their layer stands, unless the
      reader read its target as neither with at least ``veto``;
    - where they gave none, the reader's most probable restatement or
      contradiction among the pairs it read written in English, if it
      reaches ``threshold``;
    - otherwise the verdict as it was (novel).

    The reader's own verdict is no evidence for a pair with a side in
    another language: its model learned English (its word pieces split a
    French or German sentence into fragments), and on batches written
    blind it restated such pairs wrongly as often as rightly ("jedes Jahr"
    against "alle drei Jahre"; two different rules of one French studio at
    0.98). Withdrawing a verdict stays open to it: that destroys nothing."""
    index = {c.id: i for i, c in enumerate(candidates)}
    if verdict.relation is not Relation.NOVEL and verdict.target_id is not None:
        target = index.get(verdict.target_id)
        p = None if target is None else found.get(target)
        if target is None or p is None or float(p[0]) < veto:
            return verdict
        text = f"Novel: the pair reader reads lesson {short_id(candidates[target])} as neither "
        text += f"restated nor contradicted ({float(p[0]):.2f}), against: {verdict.rationale}"
        return Verdict(Relation.NOVEL, None, round(_unit(float(p[0])), 3), text, READER_NAME)
    english = (
        []
        if other_language(content)
        else [i for i in sorted(found) if not other_language(candidates[i].content)]
    )
    best = choose([found[i] for i in english], threshold, threshold)
    if best is None:
        return verdict
    score, at, relation = best
    c = candidates[english[at]]
    verb = "Restates" if relation is Relation.DUPLICATE else "Contradicts"
    text = f"{verb} lesson {short_id(c)} (the pair reader: {score:.2f}; the rules read none)."
    return Verdict(relation, c.id, round(_unit(score), 3), text, READER_NAME)


def _unit(x: float) -> float:
    return 0.0 if math.isnan(x) else max(0.0, min(1.0, x))
