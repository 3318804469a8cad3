"""Fit the judge's learned layer (``memory/judge/learned.json``) on the
golden set.

    python -m evals.judge_learned --fit      # cross-validate, fit, write the weights
    python -m evals.judge_learned            # the cross-validated figures only

Each case's candidates are read as the service reads them (similarities
from the real embedding model, candidates sorted nearest first); a
candidate's label is the case's relation if it is the case's target, else
novel. The regularisation and the two thresholds are chosen by
leave-one-batch-out cross-validation (each blind batch, and the cases
written before the batches as one more, held out in turn): the most
accurate setting whose destructive precision across the held-out batches
is at least ``--precision-floor`` (or, if none reaches it, the most
precise). Then the layer is fitted on every case. scikit-learn (a dev
dependency) fits; the service only computes a dot product.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evals import judge_report
from memory.judge.base import Relation

SETTINGS_C = (0.03, 0.1, 0.3, 1.0)
THRESHOLDS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))  # 0.50 … 0.95


@dataclass(frozen=True)
class Case:
    id: str
    batch: str
    expected: tuple[str, str | None]
    keys: tuple[str, ...]  # candidate keys, nearest first
    features: tuple[dict[str, float], ...]
    rules: tuple[Relation, int] | None = None  # the rules' destructive verdict: its index


def load_cases() -> list[Case]:
    from memory.judge import Candidate, OfflineJudge
    from memory.judge.learned import case_features

    judge = OfflineJudge()

    raw = {c["id"]: c for c in json.loads(judge_report.GOLDEN_PATH.read_text(encoding="utf-8"))}
    golden = judge_report.load_golden()
    similarities = judge_report.compute_similarities(judge_report.load_encoder(), golden)
    cases = []
    for case in golden:
        sims = similarities[case.id]
        ordered = sorted(case.candidates, key=lambda c: -sims[c.key])
        candidates = [
            Candidate(id=uuid.uuid4(), content=c.content, situation=c.situation,
                      similarity=sims[c.key])
            for c in ordered
        ]  # fmt: skip
        read = case_features(case.content, case.situation, candidates) if candidates else []
        rules = None
        if read:
            ruled = judge.decide([r for r, _ in read], candidates)
            if ruled.target_id is not None:
                rules = (ruled.relation, [c.id for c in candidates].index(ruled.target_id))
        cases.append(
            Case(
                id=case.id,
                batch=str(raw[case.id].get("batch") or "before the batches"),
                expected=(case.expected_relation.value, case.expected_target),
                keys=tuple(c.key for c in ordered),
                features=tuple(f for _, f in read),
                rules=rules,
            )
        )
    return cases


def _matrix(cases: Sequence[Case], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    from memory.judge.learned import CLASSES

    rows, labels = [], []
    for case in cases:
        relation, target = case.expected
        for key, features in zip(case.keys, case.features, strict=True):
            rows.append([features[n] for n in names])
            label = relation if key == target else "novel"
            labels.append([c.value for c in CLASSES].index(label))
    return np.asarray(rows, dtype=np.float64), np.asarray(labels)


def _fit(cases: Sequence[Case], names: Sequence[str], c: float) -> tuple[np.ndarray, np.ndarray]:
    """Weights with the standardisation folded in: (coef, intercept)."""
    from sklearn.linear_model import LogisticRegression

    x, y = _matrix(cases, names)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    coef = model.coef_ / scale
    return coef, model.intercept_ - coef @ mean


def _given(case: Case, verdict: tuple[Relation, int, Any] | None) -> tuple[str, str | None]:
    return ("novel", None) if verdict is None else (verdict[0].value, case.keys[verdict[1]])


def _verdicts(
    cases: Sequence[Case], coef: np.ndarray, intercept: np.ndarray, names: Sequence[str],
    setting: tuple[float, float],
) -> list[tuple[tuple[str, str | None], tuple[str, str | None]]]:  # fmt: skip
    """(given, expected) per case, decided as the service decides."""
    from memory.judge.learned import Weights, combine, probabilities

    fitted = Weights("", tuple(names), coef, intercept, *setting)
    return [
        (_given(x, combine(x.rules, [probabilities(fitted, f) for f in x.features], fitted)),
         x.expected)
        for x in cases
    ]  # fmt: skip


def figures(verdicts: Sequence[tuple[tuple[str, Any], tuple[str, Any]]]) -> dict[str, Any]:
    destructive = [(g, e) for g, e in verdicts if g[0] != "novel"]
    by_relation = {}
    for relation in ("duplicate", "contradicts", "novel"):
        mine = [(g, e) for g, e in verdicts if e[0] == relation]
        by_relation[relation] = round(sum(g == e for g, e in mine) / max(1, len(mine)), 4)
    return {
        "cases": len(verdicts),
        "strict_accuracy": round(sum(g == e for g, e in verdicts) / max(1, len(verdicts)), 4),
        "destructive_precision": round(
            sum(g == e for g, e in destructive) / len(destructive) if destructive else 1.0, 4
        ),
        "destructive_verdicts": len(destructive),
        "by_relation": by_relation,
    }


def cross_validate(cases: Sequence[Case], names: Sequence[str], floor: float) -> dict[str, Any]:
    """The setting chosen by leave-one-batch-out cross-validation, with its figures."""
    from memory.judge.learned import Weights, combine, probabilities

    batches = sorted({c.batch for c in cases})
    # per C: each held-out case's candidates' probabilities, from a fit without its batch
    results: dict[tuple[float, float, float], dict[str, Any]] = {}
    for c in SETTINGS_C:
        held: list[tuple[Case, list[np.ndarray]]] = []
        for batch in batches:
            coef, intercept = _fit([x for x in cases if x.batch != batch], names, c)
            fitted = Weights("", tuple(names), coef, intercept, 0.5, 0.5)
            held += [
                (x, [probabilities(fitted, f) for f in x.features])
                for x in cases if x.batch == batch
            ]  # fmt: skip
        for setting in itertools.product(THRESHOLDS, THRESHOLDS):
            fitted = Weights("", (), np.zeros((3, 0)), np.zeros(3), *setting)
            results[(c, *setting)] = figures(
                [(_given(x, combine(x.rules, p, fitted)), x.expected) for x, p in held]
            )
    reaching = {s: f for s, f in results.items() if f["destructive_precision"] >= floor}
    if reaching:
        best = max(reaching, key=lambda s: (reaching[s]["strict_accuracy"], s[1:]))
    else:
        best = max(results, key=lambda s: (results[s]["destructive_precision"], s[1:]))
    c, d, k = best
    return {"C": c, "duplicate_at": d, "contradicts_at": k, "batches": len(batches),
            "precision_floor": floor, "figures": results[best]}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--fit", action="store_true", help="write memory/judge/learned.json")
    parser.add_argument("--precision-floor", type=float, default=0.85)
    args = parser.parse_args(argv)
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from memory.judge.learned import DEFAULT_MODEL, WEIGHTS_PATH

    cases = load_cases()
    names = sorted(next(f for c in cases for f in c.features))
    chosen = cross_validate(cases, names, args.precision_floor)
    print(
        f"cross-validated, {chosen['batches']} batches held out in turn: C={chosen['C']} "
        f"duplicate_at={chosen['duplicate_at']} contradicts_at={chosen['contradicts_at']}: "
        f"{json.dumps(chosen['figures'])}"
    )
    if not args.fit:
        return 0
    coef, intercept = _fit(cases, names, chosen["C"])
    setting = (chosen["duplicate_at"], chosen["contradicts_at"])
    trained = figures(_verdicts(cases, coef, intercept, names, setting))
    WEIGHTS_PATH.write_text(
        json.dumps(
            {
                "model": DEFAULT_MODEL,
                "fitted": dt.date.today().isoformat(),
                "golden_cases": len(cases),
                "C": chosen["C"],
                "duplicate_at": chosen["duplicate_at"],
                "contradicts_at": chosen["contradicts_at"],
                "cross_validated": chosen["figures"],
                "training": trained,
                "features": names,
                "coef": [[round(float(v), 8) for v in row] for row in coef],
                "intercept": [round(float(v), 8) for v in intercept],
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"training figures: {json.dumps(trained)}\nwritten: {WEIGHTS_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
