"""The offline judge's rules on the hand-written golden set, with real similarities.

Similarities come from the real embedding model (all-MiniLM-L6-v2, loaded
offline on CPU once for this module). The rules alone must judge no relation
worse than 60 % on the cases written with them. The judge the service runs
(the rules with their learned layer) on the whole set, blind batches
included, is held to the committed floors (``evals/baseline.json``) by the
CI gate (tests/evals/test_gate.py); ``python -m evals.judge_report`` prints
the same evaluation as a table.
"""

from __future__ import annotations

from collections import Counter

import pytest

from evals.judge_report import (
    Encoder,
    GoldenCase,
    Report,
    compute_similarities,
    evaluate,
    format_report,
    load_encoder,
    load_golden,
)
from memory.judge import OfflineJudge, Relation
from memory.services.learn.plan import CANDIDATES

MIN_PER_RELATION = 0.6


@pytest.fixture(scope="module")
def cases() -> list[GoldenCase]:
    return load_golden()


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return load_encoder()


@pytest.fixture(scope="module")
def written_with(cases: list[GoldenCase]) -> list[GoldenCase]:
    """The cases written alongside the judge; the blind batches
    (evals/blind_scores.json) are scored and reported on their own."""
    return [case for case in cases if not case.batch]


@pytest.fixture(scope="module")
def report(written_with: list[GoldenCase], encoder: Encoder) -> Report:
    """The rules alone."""
    return evaluate(OfflineJudge(), written_with, compute_similarities(encoder, written_with))


def test_the_golden_set_covers_what_the_judge_must_handle(cases: list[GoldenCase]) -> None:
    def count(relation: Relation, *tags: str) -> int:
        return sum(
            c.expected_relation is relation and any(t in c.tags for t in tags) for c in cases
        )

    relations = Counter(c.expected_relation for c in cases)
    tags = Counter(t for c in cases for t in c.tags)
    assert len(cases) >= 48
    assert relations[Relation.DUPLICATE] >= 10
    assert count(Relation.DUPLICATE, "units", "format") >= 4
    assert count(Relation.DUPLICATE, "paraphrase") >= 4
    assert relations[Relation.CONTRADICTS] >= 14
    assert count(Relation.NOVEL, "same-vocabulary") >= 12
    multi = [c for c in cases if len(c.candidates) > 1]
    # no more candidates than learning hands the judge
    assert len(multi) >= 8 and all(2 <= len(c.candidates) <= CANDIDATES for c in multi)
    # the right target is not always the first candidate written down
    assert any(c.expected_target not in (None, c.candidates[0].key) for c in multi)
    for tag in ("units", "port", "version", "time", "negation", "order", "antonym", "subject"):
        assert tags[tag] >= 2, tag
    assert {c.difficulty for c in cases} == {"easy", "medium", "hard"}


def test_similarities_come_from_the_real_model(cases: list[GoldenCase], encoder: Encoder) -> None:
    sims = compute_similarities(encoder, cases[:3])
    for case in cases[:3]:
        for value in sims[case.id].values():
            assert -1.0 <= value <= 1.0
    # the model sees numbers as near-identical: similarity alone cannot judge
    (port_case,) = [c for c in cases if c.id == "con-port"]
    assert compute_similarities(encoder, [port_case])["con-port"]["a"] > 0.95


def test_no_relation_is_judged_worse_than_sixty_percent_on_the_cases_written_with_it(
    cases: list[GoldenCase], report: Report
) -> None:
    assert 140 <= len(report.results) < len(cases)
    for name, (accuracy, count) in report.by_relation().items():
        assert count > 0
        assert accuracy >= MIN_PER_RELATION, f"{name}: {accuracy:.2f}\n{format_report(report)}"
