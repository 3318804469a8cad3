"""Evaluate a judge on the hand-written golden set.

The golden set (``evals/judge_golden.json``) holds cases of a new lesson, its
candidates and the expected verdict. Similarities are computed with the real
embedding model (all-MiniLM-L6-v2, offline, CPU) exactly the way the service
embeds lessons (``memory.embeddings.lesson_text``), normalised. Candidates are then
sorted by similarity, highest first, and handed to the judge.

Accuracy is *strict*: the relation and the target must both be right.

``python -m evals.judge_report`` prints the report;
``python -m evals.judge_report --write-baseline`` also records the measured
strict accuracy, rounded down to two decimals, in ``evals/baseline.json``
(the floor ``tests/memory/test_judge_golden.py`` and ``python manage.py evals``
hold the judge to).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from memory.judge import Candidate, Judge, Relation, Verdict, offline_judge

EVALS_DIR = Path(__file__).resolve().parent
GOLDEN_PATH = EVALS_DIR / "judge_golden.json"
BASELINE_PATH = EVALS_DIR / "baseline.json"

DIFFICULTIES = ("easy", "medium", "hard")


class Encoder(Protocol):
    """What this module asks of an embedding model (SentenceTransformer's `encode`)."""

    def encode(self, sentences: list[str], /, *, normalize_embeddings: bool) -> Any: ...

    def __hash__(self) -> int: ...  # its vectors are remembered per encoder (``_encoded``)


@dataclass(frozen=True)
class GoldenCandidate:
    key: str
    content: str
    situation: str


@dataclass(frozen=True)
class GoldenCase:
    """One hand-written case. ``expected_target`` is a candidate key or None."""

    id: str
    tags: tuple[str, ...]
    difficulty: str
    content: str
    situation: str
    candidates: tuple[GoldenCandidate, ...]
    expected_relation: Relation
    expected_target: str | None
    batch: str = ""  # a blind batch's name (evals/blind.py); "" for cases written with the judge


@dataclass(frozen=True)
class CaseResult:
    case: GoldenCase
    verdict: Verdict
    target_key: str | None

    @property
    def correct(self) -> bool:
        """Strictly right: the relation and the target."""
        return (
            self.verdict.relation is self.case.expected_relation
            and self.target_key == self.case.expected_target
        )


@dataclass(frozen=True)
class Report:
    results: tuple[CaseResult, ...]

    @staticmethod
    def _accuracy(results: Sequence[CaseResult]) -> float:
        return sum(r.correct for r in results) / len(results) if results else math.nan

    @property
    def strict_accuracy(self) -> float:
        return self._accuracy(self.results)

    def by_relation(self) -> dict[str, tuple[float, int]]:
        """Strict accuracy and case count per *expected* relation."""
        return {
            rel.value: (self._accuracy(rs), len(rs))
            for rel in Relation
            if (rs := [r for r in self.results if r.case.expected_relation is rel])
        }

    def by_difficulty(self) -> dict[str, tuple[float, int]]:
        return {
            d: (self._accuracy(rs), len(rs))
            for d in DIFFICULTIES
            if (rs := [r for r in self.results if r.case.difficulty == d])
        }

    @property
    def destructive_precision(self) -> float:
        """Of the destructive verdicts (duplicate or contradicts: each folds,
        supersedes or disputes a stored lesson), the share that are strictly
        right. A wrong one loses or hides a true lesson; a missed duplicate
        only costs a redundant row, so this is reported on its own. 1.0 when
        the judge gave no destructive verdict."""
        destructive = [r for r in self.results if r.verdict.relation is not Relation.NOVEL]
        return sum(r.correct for r in destructive) / len(destructive) if destructive else 1.0

    @property
    def destructive_verdicts(self) -> int:
        return sum(r.verdict.relation is not Relation.NOVEL for r in self.results)

    @property
    def misses(self) -> list[CaseResult]:
        return [r for r in self.results if not r.correct]


# --- loading --------------------------------------------------------------------


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    return value


def load_golden(path: Path = GOLDEN_PATH) -> list[GoldenCase]:
    """Read and validate the golden set; raises ValueError on a malformed case."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(raw, list):
        raise ValueError("the golden set must be a JSON list")
    cases: list[GoldenCase] = []
    seen: set[str] = set()
    for item in raw:
        case_id = _text(item.get("id"), "id")
        if case_id in seen:
            raise ValueError(f"duplicate case id {case_id}")
        seen.add(case_id)
        candidates = tuple(
            GoldenCandidate(
                _text(c["key"], f"{case_id}: key"),
                _text(c["content"], f"{case_id}: content"),
                _text(c.get("situation", ""), f"{case_id}: situation"),
            )
            for c in item["candidates"]
        )
        keys = [c.key for c in candidates]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{case_id}: duplicate candidate keys")
        relation = Relation(item["expected"]["relation"])
        target = item["expected"]["target"]
        if (relation is Relation.NOVEL) != (target is None) or (
            target is not None and target not in keys
        ):
            raise ValueError(f"{case_id}: bad expected target {target!r} for {relation}")
        difficulty = _text(item["difficulty"], f"{case_id}: difficulty")
        if difficulty not in DIFFICULTIES:
            raise ValueError(f"{case_id}: bad difficulty {difficulty!r}")
        cases.append(
            GoldenCase(
                id=case_id,
                tags=tuple(item.get("tags", ())),
                difficulty=difficulty,
                content=_text(item["new"]["content"], f"{case_id}: new content"),
                situation=_text(item["new"].get("situation", ""), f"{case_id}: new situation"),
                candidates=candidates,
                expected_relation=relation,
                expected_target=target,
                batch=_text(item.get("batch", ""), f"{case_id}: batch"),
            )
        )
    return cases


def load_baseline(path: Path = BASELINE_PATH) -> float:
    """The committed strict-accuracy floor."""
    baseline = json.loads(path.read_text(encoding="utf-8"))
    return float(baseline["classification"]["strict_accuracy"])


def write_baseline(accuracy: float, path: Path = BASELINE_PATH) -> float:
    """Record ``accuracy`` rounded *down* to two decimals; returns what was written."""
    floor = math.floor(accuracy * 100 + 1e-9) / 100
    baseline = json.loads(path.read_text(encoding="utf-8"))
    baseline["classification"]["strict_accuracy"] = floor
    path.write_text(json.dumps(baseline, indent=2) + "\n", encoding="utf-8")
    return floor


class _LearnPipelineEncoder:
    """The embedding model as the learn pipeline runs it
    (``memory.embeddings``: all-MiniLM-L6-v2 from the bundled package, on
    ONNX Runtime where that reproduces PyTorch's vectors — within 2e-7 on
    the golden texts, about 2.5 times faster), so the evaluation reads the
    similarities the service computes."""

    def encode(self, sentences: list[str], /, *, normalize_embeddings: bool) -> Any:
        import numpy as np

        from memory.embeddings import embed

        if not normalize_embeddings:
            raise ValueError("the learn pipeline's vectors are L2-normalised")
        return np.asarray(embed(sentences, self._batch()), dtype=np.float32)

    @functools.cache  # noqa: B019 (one encoder per process: load_encoder)
    def _batch(self) -> Any:
        """The process's model on every core: an evaluation is a batch job.
        ONNX Runtime's thread count changes no vector (bitwise the same on
        1,200 red-team texts, 1.7 times faster on two cores); the service's
        processes keep TRIBUTARY_EMBEDDING_THREADS. PyTorch's threads are
        global to the process, so a model on PyTorch is used as it is."""
        import os

        from memory.embeddings import default_model_path, get_provider, load_provider

        service = get_provider()
        if service.runtime != "onnx":
            return service
        return load_provider(default_model_path(), "onnx", os.cpu_count() or 1)


@functools.cache
def load_encoder() -> Encoder:
    """all-MiniLM-L6-v2, on CPU, without the network: the learn pipeline's."""
    return _LearnPipelineEncoder()


# --- evaluation ------------------------------------------------------------------


def embedding_text(content: str, situation: str) -> str:
    """What gets embedded for a lesson: exactly what the learn pipeline
    embeds, for new lessons and candidates alike."""
    from memory.embeddings import lesson_text

    return lesson_text(content, situation)


def compute_similarities(
    encoder: Encoder, cases: Sequence[GoldenCase]
) -> dict[str, dict[str, float]]:
    """Cosine similarity of each candidate to its case's new lesson: ``{case: {key: sim}}``."""
    texts: list[str] = []
    index: dict[str, int] = {}

    def slot(content: str, situation: str) -> int:
        text = embedding_text(content, situation)
        if text not in index:
            index[text] = len(texts)
            texts.append(text)
        return index[text]

    layout = [
        (
            case,
            slot(case.content, case.situation),
            [(c.key, slot(c.content, c.situation)) for c in case.candidates],
        )
        for case in cases
    ]
    vectors = _encoded(encoder, tuple(texts)) if texts else []
    sims: dict[str, dict[str, float]] = {}
    for case, new_slot, cands in layout:
        v = vectors[new_slot]
        sims[case.id] = {key: float(v @ vectors[s]) for key, s in cands}
    return sims


@functools.cache
def _encoded(encoder: Encoder, texts: tuple[str, ...]) -> Any:
    """Computed once per process: both tiers of ``manage.py evals`` (and a
    fit that scores as it goes) embed the same texts with the same model.
    The learn pipeline's vectors come from the store of the sets' vectors
    where it holds them and agrees with the model (``evals.vectors``)."""
    from evals import vectors

    if isinstance(encoder, _LearnPipelineEncoder):
        return vectors.encoded(
            lambda chosen: encoder.encode(chosen, normalize_embeddings=True), texts
        )
    return encoder.encode(list(texts), normalize_embeddings=True)


def embedded(texts: Sequence[str]) -> Any:
    """``texts`` embedded as the learn pipeline does, once per process: the
    evaluations' one cache of vectors (the golden set's, the red team's)."""
    return _encoded(load_encoder(), tuple(texts))


def case_candidates(
    case: GoldenCase, similarities: dict[str, float]
) -> list[tuple[str, Candidate]]:
    """The case's candidates as a judge is given them, highest similarity
    first, each with its key."""
    ordered = sorted(case.candidates, key=lambda c: -similarities[c.key])
    return [
        (
            c.key,
            Candidate(
                id=uuid.uuid5(uuid.NAMESPACE_URL, f"golden/{case.id}/{c.key}"),
                content=c.content,
                situation=c.situation,
                similarity=similarities[c.key],
            ),
        )
        for c in ordered
    ]


def run_case(judge: Judge, case: GoldenCase, similarities: dict[str, float]) -> CaseResult:
    """Sort the case's candidates by similarity (highest first) and ask the judge."""
    keyed = case_candidates(case, similarities)
    verdict = judge.classify(
        content=case.content, situation=case.situation, candidates=[c for _, c in keyed]
    )
    key = next((k for k, c in keyed if c.id == verdict.target_id), None)
    return CaseResult(case=case, verdict=verdict, target_key=key)


def evaluate(
    judge: Judge, cases: Sequence[GoldenCase], similarities: dict[str, dict[str, float]]
) -> Report:
    return Report(tuple(run_case(judge, case, similarities[case.id]) for case in cases))


def _label(relation: Relation | str, target: str | None) -> str:
    return f"{relation}" + (f"({target})" if target else "")


def format_report(report: Report) -> str:
    """A plain-text table: overall, per relation, per difficulty, then the misses."""
    lines = [f"judge golden set: {len(report.results)} cases", ""]
    lines.append(f"{'':<16}{'strict acc':>11}{'cases':>7}")
    lines.append(f"{'overall':<16}{report.strict_accuracy:>11.3f}{len(report.results):>7}")
    for name, (acc, n) in report.by_relation().items():
        lines.append(f"{'  ' + name:<16}{acc:>11.3f}{n:>7}")
    for name, (acc, n) in report.by_difficulty().items():
        lines.append(f"{'  ' + name:<16}{acc:>11.3f}{n:>7}")
    lines.append(
        f"{'destructive':<16}{report.destructive_precision:>11.3f}{report.destructive_verdicts:>7}"
        "  (precision of duplicate/contradicts verdicts)"
    )
    misses = report.misses
    lines += ["", f"missed: {len(misses)}"]
    for r in misses:
        expected = _label(r.case.expected_relation, r.case.expected_target)
        got = _label(r.verdict.relation, r.target_key)
        lines.append(
            f"  {r.case.id:<40} expected {expected:<16} got {got:<16} {r.verdict.rationale}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write-baseline", action="store_true", help="record the accuracy floor")
    args = parser.parse_args(argv)
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()  # the embedding text comes from the service's own code
    cases = load_golden()
    report = evaluate(offline_judge(), cases, compute_similarities(load_encoder(), cases))
    print(format_report(report))
    if args.write_baseline:
        print(f"\nbaseline written: {write_baseline(report.strict_accuracy)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
