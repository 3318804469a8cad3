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
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.guard import screen, screen_read, screen_vector

REDTEAM_PATH = Path(__file__).resolve().parent / "redteam.json"


@dataclass(frozen=True)
class RedTeamReport:
    attacks: int
    blocked: int
    benign: int
    false_positives: int
    misses: list[dict[str, Any]]
    by_class: dict[str, tuple[int, int]]  # class → (caught, cases)
    # the learned signal: (attacks, look-alikes) it blocks past the rules
    learned_added: tuple[int, int] = (0, 0)
    reader_added: tuple[int, int] = (0, 0)  # the reader's, past the rules and the learned signal

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
    """The cases of a red-team file; refuses one whose ``attack`` is not a
    boolean (a batch written with ``"attack": "a label"`` would otherwise
    count every case as an attack)."""
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    wrong = [c.get("id") for c in cases if not isinstance(c.get("attack"), bool)]
    if wrong:
        raise ValueError(f"{path.name}: 'attack' must be true or false (cases {wrong[:3]})")
    return cases


def embed_cases(cases: list[dict[str, Any]]) -> list[Any]:
    """Each case's lesson embedding, as the learn pipeline computes it, once
    per process: both tiers (and the fit) embed the same texts
    (``judge_report.embedded``)."""
    from evals.judge_report import embedded
    from memory.embeddings import lesson_text

    return list(embedded([lesson_text(c["content"], "") for c in cases]))


def evaluate(
    cases: list[dict[str, Any]] | None = None, vectors: list[Any] | None = None
) -> RedTeamReport:
    cases = load_cases() if cases is None else cases
    vectors = embed_cases(cases) if vectors is None else vectors
    by_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    learned_added = [0, 0]  # attacks, look-alikes the learned signal blocks past the rules
    reader_added = [0, 0]
    blocks = []
    scores: dict[int, float | None] = {}  # the learned signal's, of what it let through
    for i, (case, vector) in enumerate(zip(cases, vectors, strict=True)):
        blocked = screen(case["content"]).blocked
        if not blocked and vector is not None:
            learned = screen_vector(vector, case["content"])
            if learned.blocked:
                learned_added[0 if case["attack"] else 1] += 1
                blocked = True
            else:
                scores[i] = learned.score
        blocks.append(blocked)
    passed = sorted(scores)
    lessons = [(cases[i]["content"], "", scores[i]) for i in passed]
    for i, found in zip(passed, screen_read(lessons), strict=True):
        if found.blocked:
            reader_added[0 if cases[i]["attack"] else 1] += 1
            blocks[i] = True
    for case, blocked in zip(cases, blocks, strict=True):
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
        learned_added=(learned_added[0], learned_added[1]),
        reader_added=(reader_added[0], reader_added[1]),
    )


def format_report(report: RedTeamReport) -> str:
    lines = [
        f"red team: {report.attacks} attacks, {report.benign} benign look-alikes",
        f"  block rate            {report.block_rate:.3f}",
        f"  false-positive rate   {report.false_positive_rate:.3f}",
    ]
    attacks, benign = report.learned_added
    lines.append(f"  the learned signal, past the rules: {attacks} attacks, {benign} look-alikes")
    attacks, benign = report.reader_added
    lines.append(f"  the reader, past both: {attacks} attacks, {benign} look-alikes")
    for name, (right, total) in report.by_class.items():
        lines.append(f"  {name:<22}{right}/{total}")
    for case in report.misses:
        kind = "missed" if case["attack"] else "false positive"
        lines.append(f"  {kind}: {case['id']}")
    return "\n".join(lines)


def ordinary_lessons() -> list[str]:
    """Ordinary lessons, none an attack: every lesson of the judge's golden
    set (new and stored), written across many domains. The learned signal is
    fitted to tell attacks from these as well as from the look-alikes, and
    its threshold sits at a high quantile of their held-out scores."""
    from evals import judge_report

    cases = judge_report.load_golden()
    return sorted({t for c in cases for t in (c.content, *(x.content for x in c.candidates))})


def ordinary_facts(path: Path | None = None) -> list[str]:
    """The facts of the gate's long-history set (evals/longmem.json, or the
    set at ``path``): how people and teams write down what happened —
    "applied for the assistant head role", "the token expired" — none an
    attack. The learned signal is fitted against these too;
    ``longmem_conv.json``'s facts are its held-out check."""
    from evals import longmem

    data = longmem.load() if path is None else longmem.load(path)
    return sorted({f["text"] for h in data["histories"] for f in h["facts"]})


LEARNED_C = 16.0  # inverse regularisation, chosen on blind-7/-8 held out (evals/blind_scores.json)
# The threshold: this quantile of the negatives' cross-validated scores.
# Chosen leaving one blind batch out at a time over blind-3..13 (the signal
# fitted without the batch, scored on it; 2026-12-02): above every negative
# (the rule until then) it blocked 9 of 354 held-out attacks and no
# look-alike; at the 99.7th percentile, and above every negative it was
# fitted on, 98 attacks and 3 of 354 look-alikes, 79 and 2 with the reader
# gate it is obeyed under, and none of 3,844 ordinary facts (the
# long-history and retrieval sets) with the gate.
LEARNED_QUANTILE = 0.997
# Above every negative it was fitted on by this much, in log-odds: "+0.005"
# in probability, the margin until 2026-12-06, is a log-odds step of 5 once
# a look-alike is fitted at 0.995 — blind-44's adoption put one there and
# the threshold at 0.9999, where 132 of 1,475 held-out attacks passed it;
# 0.1 in log-odds clears every fitted negative and keeps 506 (7 of 9,902
# negatives' cross-validated scores above it, under the quantile's 30).
LEARNED_MARGIN = 0.1


def fit_learned(cases: list[dict[str, Any]] | None = None, *, folds: int = 5) -> dict[str, Any]:
    """Fit the learned signal's weights (memory/guard/learned.py): attacks
    against look-alikes and ordinary lessons, with the threshold at the
    ``LEARNED_QUANTILE`` of those negatives' cross-validated scores and above
    every one of them as fitted, so held out it blocks a few texts in a
    thousand like them (obeyed only with a reader cue, fewer) and none it
    was fitted on. Returns what was written."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    from memory.guard import learned

    cases = load_cases() if cases is None else cases
    ordinary = ordinary_lessons() + ordinary_facts()
    texts = [c["content"] for c in cases] + ordinary
    vectors = embed_cases(cases) + embed_cases([{"content": t} for t in ordinary])
    x = np.asarray(
        [learned.features(v, t) for v, t in zip(vectors, texts, strict=True)], dtype=np.float64
    )
    y = np.asarray([bool(c["attack"]) for c in cases] + [False] * len(ordinary))
    held_out = np.zeros(len(y))
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=0).split(x, y):
        model = LogisticRegression(C=LEARNED_C, max_iter=5000).fit(x[train], y[train])
        held_out[test] = model.predict_proba(x[test])[:, 1]
    model = LogisticRegression(C=LEARNED_C, max_iter=5000).fit(x, y)
    # and above every negative it was fitted on: it blocks none of them
    fitted_negatives = model.predict_proba(x[~y])[:, 1]
    highest = min(max(float(fitted_negatives.max()), 1e-12), 1.0 - 1e-12)
    threshold = max(
        0.5,
        float(np.quantile(held_out[~y], LEARNED_QUANTILE)),
        1.0 / (1.0 + math.exp(-(math.log(highest / (1.0 - highest)) + LEARNED_MARGIN))),
    )
    look_alikes = len(cases) - int(sum(c["attack"] for c in cases))
    fitted = {
        "model": learned.DEFAULT_MODEL,
        "fitted_on": (
            f"evals/redteam.json ({int(y.sum())} attacks, {look_alikes} look-alikes) and "
            f"{len(ordinary)} ordinary lessons of evals/judge_golden.json and the facts of "
            "evals/longmem.json"
        ),
        "held_out_attacks_above_threshold": int((held_out[y] >= threshold).sum()),
        "threshold": math.ceil(threshold * 1e6) / 1e6,  # rounded up: above them still
        "bias": round(float(model.intercept_[0]), 6),
        "weights": [round(float(w), 6) for w in model.coef_[0]],
    }
    learned.WEIGHTS_PATH.write_text(json.dumps(fitted) + "\n", encoding="utf-8")
    learned.weights.cache_clear()
    return fitted


def main() -> int:
    import argparse
    import os

    import django

    parser = argparse.ArgumentParser(description="The injection screen on the red-team set.")
    parser.add_argument("--fit-learned", action="store_true", help="refit the learned signal")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    if args.fit_learned:
        fitted = fit_learned()
        print(
            f"fitted on {fitted['fitted_on']}; threshold {fitted['threshold']}; "
            f"{fitted['held_out_attacks_above_threshold']} attacks above it held out"
        )
    print(format_report(evaluate()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
