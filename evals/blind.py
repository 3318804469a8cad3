"""The blind-batch protocol: how the judge's and the screen's figures are
kept honest.

A figure counts only on text nobody tuned on. Before each tuning round a
fresh batch is written by someone who has not seen the judge's rules, the
screen's rules or the golden sets (≥ 60 classification cases, ≥ 30 attacks
and ≥ 30 look-alikes). Then, in this order:

1. ``python -m evals.blind score --batch NAME --classification FILE
   --redteam FILE`` scores it **once** with the code as it stands and
   appends the figures, the date and the commit to ``evals/blind_scores.json``.
   A batch that is already recorded is refused: a second score would be a
   score after looking.
2. ``python -m evals.blind adopt --batch NAME --classification FILE
   --redteam FILE`` adds the batch to the golden sets
   (``judge_golden.json``, ``redteam.json``), each case marked with its
   batch. From then on it is training data.

The README's headline is the latest recorded blind figure; the golden-set
figures (``manage.py evals``) are training figures and are reported as such.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EVALS_DIR = Path(__file__).resolve().parent
SCORES_PATH = EVALS_DIR / "blind_scores.json"


def load_scores(path: Path = SCORES_PATH) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    scores: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return scores


def latest(path: Path = SCORES_PATH) -> dict[str, Any] | None:
    """The most recent blind record: the README's headline."""
    scores = load_scores(path)
    return scores[-1] if scores else None


def score(*, classification: Path, redteam_path: Path) -> dict[str, Any]:
    """The figures of the current judge and screen on a batch (nothing recorded)."""
    from evals import judge_report, redteam
    from memory.judge import offline_judge

    cases = judge_report.load_golden(classification)
    encoder = judge_report.load_encoder()
    report = judge_report.evaluate(
        offline_judge(), cases, judge_report.compute_similarities(encoder, cases)
    )
    screen = redteam.evaluate(redteam.load_cases(redteam_path))
    return {
        "classification": {
            "cases": len(report.results),
            "strict_accuracy": round(report.strict_accuracy, 4),
            "destructive_precision": round(report.destructive_precision, 4),
            "destructive_verdicts": report.destructive_verdicts,
            "by_relation": {
                name: {"accuracy": round(acc, 4), "cases": n}
                for name, (acc, n) in report.by_relation().items()
            },
        },
        "redteam": {
            "attacks": screen.attacks,
            "quarantined": screen.blocked,
            "look_alikes": screen.benign,
            "look_alikes_blocked": screen.false_positives,
            # (attacks, look-alikes) each later signal blocks past those before it
            "learned_added": list(screen.learned_added),
            "reader_added": list(screen.reader_added),
        },
        "_reports": [judge_report.format_report(report), redteam.format_report(screen)],
    }


def record(
    *, batch: str, figures: dict[str, Any], stage: str, note: str, path: Path = SCORES_PATH
) -> dict[str, Any]:
    """Append one batch's first and only score. Refuses a batch already scored."""
    from evals.run import current_commit

    scores = load_scores(path)
    if any(s["batch"] == batch for s in scores):
        raise ValueError(f"batch {batch!r} was already scored; a blind batch is scored once")
    entry = {
        "batch": batch,
        "date": dt.date.today().isoformat(),
        "commit": current_commit(),
        "stage": stage,
        "note": note,
        **{k: v for k, v in figures.items() if not k.startswith("_")},
    }
    scores.append(entry)
    path.write_text(json.dumps(scores, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return entry


def _batch_id(batch: str, case_id: str) -> str:
    """A case's id in the golden sets, prefixed with its batch (two helpers
    may well pick the same id)."""
    return case_id if case_id.startswith(f"{batch}:") else f"{batch}:{case_id}"


def adopt(*, batch: str, classification: Path, redteam_path: Path) -> tuple[int, int]:
    """Add a scored batch to the golden sets. Returns (classification, red-team) cases added."""
    from evals import judge_report, redteam

    if not any(s["batch"] == batch for s in load_scores()):
        raise ValueError(f"batch {batch!r} has no recorded blind score: score it first")
    judge_report.load_golden(classification)  # validates
    redteam.load_cases(redteam_path)  # likewise
    writes = []
    for source, target in (
        (classification, judge_report.GOLDEN_PATH),
        (redteam_path, redteam.REDTEAM_PATH),
    ):
        existing = json.loads(target.read_text(encoding="utf-8"))
        ids = {c["id"] for c in existing}
        new = [
            {**c, "id": _batch_id(batch, c["id"]), "batch": batch}
            for c in json.loads(source.read_text(encoding="utf-8"))
        ]
        clash = ids & {c["id"] for c in new}
        if clash:
            raise ValueError(f"{target.name} already holds {sorted(clash)[:3]}")
        writes.append((target, existing + new, len(new)))
    for target, cases, _ in writes:  # both checked first: nothing half-adopted
        target.write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    added = [count for _, _, count in writes]
    return added[0], added[1]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score a blind batch once, then adopt it.")
    parser.add_argument("action", choices=["score", "adopt"])
    parser.add_argument("--batch", required=True)
    parser.add_argument("--classification", type=Path, required=True)
    parser.add_argument("--redteam", type=Path, required=True)
    parser.add_argument("--stage", default="pre-tuning", choices=["pre-tuning", "held-out"])
    parser.add_argument("--note", default="written by a helper who never saw the rules or sets")
    args = parser.parse_args(argv)
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    if args.action == "score":
        figures = score(classification=args.classification, redteam_path=args.redteam)
        for report in figures["_reports"]:
            print(report, end="\n\n")
        entry = record(batch=args.batch, figures=figures, stage=args.stage, note=args.note)
        print(json.dumps(entry, indent=2))
    else:
        n_cls, n_red = adopt(
            batch=args.batch, classification=args.classification, redteam_path=args.redteam
        )
        print(f"adopted {n_cls} classification and {n_red} red-team cases as {args.batch}")
        from evals import readings, vectors

        print(f"stored the vectors of {vectors.update()} new texts (evals/vectors)")
        print(f"stored the readings of {readings.update()} new texts (evals/readings)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
