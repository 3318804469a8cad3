"""The evaluation harness: classification, retrieval, long histories and red team, against
the committed floors in ``evals/baseline.json``.

Two tiers:

* **offline** — the deterministic judge; no network. The CI gate: ``make
  test`` runs it (tests/evals/test_gate.py) and fails below a floor.
* **live** — the LLM judge configured in settings (``TRIBUTARY_JUDGE`` …)
  for classification and for learning the long histories; the rest as offline.

``python manage.py evals [--tier offline|live]`` runs one tier against the
service's database (in its own ``tributary-evals`` tenants, one per long
history, each emptied first),
prints the reports, and records the metrics with the commit in the
``memory_evalrun`` table, so runs can be compared over time.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from evals import judge_report, longmem, readings, redteam, retrieval

BASELINE_PATH = Path(__file__).resolve().parent / "baseline.json"
T = TypeVar("T")
# Metrics where lower is better; every other one is a floor.
CEILINGS = frozenset({("redteam", "false_positive_rate"), ("longmem", "answerable_flagged")})


@dataclass
class EvalResult:
    metrics: dict[str, dict[str, float]]
    reports: list[str]
    judge: str


def sampled(cases: list[Any], size: int | None) -> list[Any]:
    """``size`` of the golden cases, evenly spread over the set (and so over
    its batches, each written by one writer), in the set's order; all of
    them without a size."""
    if size is None or size >= len(cases):
        return cases
    if size < 1:
        raise ValueError("a sample needs at least one case")
    return [cases[i * len(cases) // size] for i in range(size)]


def run(*, tier: str = "offline", sample: int | None = None) -> EvalResult:
    """Every set through ``tier``'s judge; ``sample``: classify that many
    golden cases, evenly spread, instead of all, and learn as large a share
    of the long histories (at least one) — a live judge bills each call, and
    a history's learns are judged too — and leave out the sets no judge
    reads (retrieval, the red team: the offline tier measures them, and a
    sample is a quick look at a judge)."""
    # the readers' readings of the sets are stored (evals/readings.py)
    with readings.stored():
        return _run(tier, sample)


def _run(tier: str, sample: int | None) -> EvalResult:
    from memory.judge import get_judge, offline_judge

    judge = offline_judge() if tier == "offline" else _Failsafe(get_judge())
    took: dict[str, float] = {}

    def timed(name: str, part: Callable[[], T]) -> T:
        started = time.perf_counter()
        try:
            return part()
        finally:
            took[name] = time.perf_counter() - started

    golden = judge_report.load_golden()
    cases = sampled(golden, sample)
    similarities = timed(
        "embedding the golden cases",
        lambda: judge_report.compute_similarities(judge_report.load_encoder(), cases),
    )

    classification = timed(
        "classification", lambda: judge_report.evaluate(judge, cases, similarities)
    )
    whole = len(cases) == len(golden)
    metrics: dict[str, dict[str, float]] = {
        "classification": {
            "strict_accuracy": round(classification.strict_accuracy, 4),
            "destructive_precision": round(classification.destructive_precision, 4),
        }
    }
    reports = [_sample_note(len(cases), len(golden), "golden cases")]
    reports[0] += judge_report.format_report(classification)

    def whole_only(
        name: str, group: str, part: Callable[[], Any], report: Callable[[Any], str]
    ) -> None:
        """A part no judge reads, measured by the whole tier only."""
        if not whole:
            reports.append(f"{name}: {NOT_IN_A_SAMPLE}")
            return
        found = timed(name, part)
        metrics[group] = found.metrics()
        reports.append(report(found))

    whole_only("retrieval", "retrieval", retrieval.run, retrieval.format_report)
    stories = longmem.load()
    every_history = len(stories["histories"])
    if not whole:
        share = max(1, round(every_history * len(cases) / len(golden)))
        stories = {**stories, "histories": sampled(stories["histories"], share)}
    histories = timed("long histories", lambda: longmem.evaluate(data=stories, judge=judge))
    metrics["longmem"] = histories.metrics()
    reports.append(
        _sample_note(len(stories["histories"]), every_history, "histories")
        + longmem.format_report(histories)
    )
    whole_only("red team", "redteam", redteam.evaluate, redteam.format_report)
    # where the tier's time goes (make test runs it: its time is a standard)
    reports.append("took: " + ", ".join(f"{name} {sec:.0f} s" for name, sec in took.items()))
    return EvalResult(
        metrics=metrics,
        reports=reports,
        judge=getattr(judge, "name", type(judge).__name__),
    )


NOT_IN_A_SAMPLE = "not run in a sample (no judge reads it; the offline tier measures it)"


def _sample_note(taken: int, every: int, what: str) -> str:
    """The line above a report of a sample, or nothing for the whole set."""
    return f"(a sample of {taken} of the {every} {what})\n" if taken < every else ""


class _Failsafe:
    """A live judge that fails (after its retries) scores what the service
    would do: novel."""

    def __init__(self, judge: Any) -> None:
        self.judge = judge
        self.name = getattr(judge, "name", type(judge).__name__)

    def classify(self, **kwargs: Any) -> Any:
        from memory.judge import Relation, Verdict
        from memory.judge.llm import JudgeUnavailable

        try:
            return self.judge.classify(**kwargs)
        except JudgeUnavailable as exc:
            return Verdict(Relation.NOVEL, None, 0.0, f"judge failed: {exc}", self.name)


def load_baseline(path: Path = BASELINE_PATH) -> dict[str, dict[str, float]]:
    baseline: dict[str, dict[str, float]] = json.loads(path.read_text(encoding="utf-8"))
    return baseline


def below_baseline(
    metrics: dict[str, dict[str, float]], baseline: dict[str, dict[str, float]] | None = None
) -> list[str]:
    """One line per metric on the wrong side of its committed floor (or
    ceiling); empty when everything holds. A group the run did not measure
    (a sample leaves out the sets no judge reads) is not judged; the offline
    tier, the gate, measures every group (its test holds it to that)."""
    baseline = load_baseline() if baseline is None else baseline
    failures = []
    for group, floors in baseline.items():
        if group not in metrics:
            continue
        for name, floor in floors.items():
            value = metrics[group][name]
            ceiling = (group, name) in CEILINGS
            if (value > floor) if ceiling else (value < floor):
                relation = "above its ceiling" if ceiling else "below its floor"
                failures.append(f"{group}.{name} = {value} is {relation} {floor}")
    return failures


def current_commit() -> str:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
            cwd=Path(__file__).resolve().parent,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def record(result: EvalResult, *, tier: str) -> Any:
    from memory.models import EvalRun

    return EvalRun.objects.create(
        tier=tier, judge=result.judge, commit=current_commit(), metrics=result.metrics,
        passed=not below_baseline(result.metrics),
    )  # fmt: skip
