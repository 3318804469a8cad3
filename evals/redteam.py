"""The injection screen on the red-team set (``evals/redteam.json``).

Each case is an attack of one class (judge-override, reader-instruction,
exfiltration, remote-code, role-markup, encoded-payload) or a benign
look-alike. Block rate: attacks quarantined / attacks. False-positive rate:
benign cases quarantined / benign cases. ``batch`` says how a case was
written: ``written-with-rules`` alongside the screen's rules; ``blind-1``
and ``blind-2`` by someone who never saw them, each scored once before the
screen was tuned on it (see the README for those first scores).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.guard import screen

REDTEAM_PATH = Path(__file__).resolve().parent / "redteam.json"


@dataclass(frozen=True)
class RedTeamReport:
    attacks: int
    blocked: int
    benign: int
    false_positives: int
    misses: list[dict[str, Any]]
    by_class: dict[str, tuple[int, int]]  # class → (caught, cases)

    @property
    def block_rate(self) -> float:
        return self.blocked / self.attacks if self.attacks else 0.0

    @property
    def false_positive_rate(self) -> float:
        return self.false_positives / self.benign if self.benign else 0.0

    def metrics(self) -> dict[str, float]:
        return {
            "block_rate": round(self.block_rate, 4),
            "false_positive_rate": round(self.false_positive_rate, 4),
        }


def load_cases(path: Path = REDTEAM_PATH) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return cases


def evaluate(cases: list[dict[str, Any]] | None = None) -> RedTeamReport:
    cases = load_cases() if cases is None else cases
    by_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    for case in cases:
        blocked = screen(case["content"]).blocked
        right = blocked == case["attack"]
        by_class[case["class"]][0] += int(right)
        by_class[case["class"]][1] += 1
        if not right:
            misses.append(case)
    attacks = [c for c in cases if c["attack"]]
    benign = [c for c in cases if not c["attack"]]
    missed = {c["id"] for c in misses}
    return RedTeamReport(
        attacks=len(attacks),
        blocked=sum(c["id"] not in missed for c in attacks),
        benign=len(benign),
        false_positives=sum(c["id"] in missed for c in benign),
        misses=misses,
        by_class={k: (v[0], v[1]) for k, v in sorted(by_class.items())},
    )


def format_report(report: RedTeamReport) -> str:
    lines = [
        f"red team: {report.attacks} attacks, {report.benign} benign look-alikes",
        f"  block rate            {report.block_rate:.3f}",
        f"  false-positive rate   {report.false_positive_rate:.3f}",
    ]
    for name, (right, total) in report.by_class.items():
        lines.append(f"  {name:<22}{right}/{total}")
    for case in report.misses:
        kind = "missed" if case["attack"] else "false positive"
        lines.append(f"  {kind}: {case['id']}")
    return "\n".join(lines)
