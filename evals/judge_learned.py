"""Fit the judge's learned layer (``memory/judge/learned.json``) on the
golden set and on long histories.

    python -m evals.judge_learned --fit      # cross-validate, fit, write the weights
    python -m evals.judge_learned            # the cross-validated figures only

Each case's candidates are read as the service reads them (similarities
from the real embedding model, candidates sorted nearest first); a
candidate's label is the case's relation if it is the case's target, else
novel. The golden set is written to be hard, a third of each relation;
real memory is mostly related notes that are neither, so the facts of long
histories (``--natural``, default ``evals/longmem.json``), each against its
nearest earlier facts, are fitted on as novel pairs (:func:`load_natural`).
The regularisation and the two thresholds are chosen by leave-one-batch-out
cross-validation (each blind batch, the cases written before the batches
and each history held out in turn): among the settings that give a verdict
to at most ``MAX_NATURAL_ADDITIONS`` of a held-out history's facts, the
most accurate on the golden cases whose destructive precision is at least
``--precision-floor`` or the rules' own, whichever is lower (if none, the
most precise). Then the layer is fitted on every case and checked on a
history it never saw (``--natural-check``, default
``evals/longmem_conv.json``). scikit-learn (a dev dependency) fits; the
service only computes a dot product.
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
from pathlib import Path
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
    from memory.judge import OfflineJudge
    from memory.judge.learned import case_features

    judge = OfflineJudge()

    raw = {c["id"]: c for c in json.loads(judge_report.GOLDEN_PATH.read_text(encoding="utf-8"))}
    golden = judge_report.load_golden()
    similarities = judge_report.compute_similarities(judge_report.load_encoder(), golden)
    cases = []
    for case in golden:
        keyed = judge_report.case_candidates(case, similarities[case.id])
        candidates = [c for _, c in keyed]
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
                keys=tuple(k for k, _ in keyed),
                features=tuple(f for _, f in read),
                rules=rules,
            )
        )
    return cases


NATURAL = "natural:"  # the batch name of a long history's cases starts with it
NATURAL_NEAREST = 5  # each fact against its nearest earlier facts …
NATURAL_FROM = 0.3  # … of at least this similarity (the service's candidates are alike)
# At most this share of a held-out history's facts given a destructive
# verdict by the layer where the rules give none.
MAX_NATURAL_ADDITIONS = 0.005


def nearest_earlier(path: Path) -> list[tuple[str, int, str, list[int], list[Any]]]:
    """A long history's facts as the service would judge them, learned in
    order: (history id, index, text, the nearest facts' indices, those as
    candidates) — each fact against its
    ``NATURAL_NEAREST`` nearest earlier facts of at least ``NATURAL_FROM``
    similarity (those with none are left out)."""
    from evals.longmem import fact_text, load
    from memory.embeddings import embed, lesson_text
    from memory.judge import Candidate

    out = []
    for history in load(path)["histories"]:
        texts = [fact_text(f) for f in history["facts"]]
        vectors = np.asarray(embed([lesson_text(t, "") for t in texts]))
        for i in range(1, len(texts)):
            sims = vectors[:i] @ vectors[i]
            nearest = [j for j in np.argsort(-sims)[:NATURAL_NEAREST] if sims[j] >= NATURAL_FROM]
            candidates = [
                Candidate(id=uuid.uuid4(), content=texts[j], situation="",
                          similarity=float(sims[j]))
                for j in nearest
            ]  # fmt: skip
            if candidates:
                out.append((history["id"], i, texts[i], [int(j) for j in nearest], candidates))
    return out


def load_natural(path: Path) -> list[Case]:
    """A long history's facts (:func:`nearest_earlier`), labelled novel;
    each history is a batch of its own. Dated notes
    on one matter ("has a knee replacement date", "had the knee replaced")
    are the pairs the golden
    set, written to be hard, lacks; a layer fitted without them read most
    such pairs as duplicates. A few of them are real updates (the rules'
    verdicts on them are kept, never counted against the layer)."""
    from memory.judge import OfflineJudge
    from memory.judge.learned import case_features

    judge = OfflineJudge()
    cases = []
    for history, i, text, nearest, candidates in nearest_earlier(path):
        read = case_features(text, "", candidates)
        ruled = judge.decide([r for r, _ in read], candidates)
        rules = None
        if ruled.target_id is not None:
            rules = (ruled.relation, [c.id for c in candidates].index(ruled.target_id))
        cases.append(
            Case(
                id=f"{history}:{i}", batch=f"{NATURAL}{path.name}:{history}",
                expected=("novel", None), keys=tuple(str(j) for j in nearest),
                features=tuple(f for _, f in read), rules=rules,
            )
        )  # fmt: skip
    return cases


def additions(verdicts: Sequence[tuple[Case, Any]]) -> float:
    """The share of cases the layer gave a destructive verdict the rules did not."""
    added = sum(1 for case, verdict in verdicts if case.rules is None and verdict is not None)
    return added / max(1, len(verdicts))


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


def _fit(cases: Sequence[Case], names: Sequence[str], c: float) -> Fit:
    """Weights with the standardisation folded in, and each feature's range."""
    from sklearn.linear_model import LogisticRegression

    x, y = _matrix(cases, names)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    coef = model.coef_ / scale
    return Fit(coef, model.intercept_ - coef @ mean, x.min(axis=0), x.max(axis=0))


@dataclass(frozen=True)
class Fit:
    coef: np.ndarray
    intercept: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def weights(self, names: Sequence[str], duplicate_at: float, contradicts_at: float) -> Any:
        from memory.judge.learned import Weights

        return Weights(
            "", tuple(names), self.coef, self.intercept, self.low, self.high, duplicate_at,
            contradicts_at,
        )  # fmt: skip


def _given(case: Case, verdict: tuple[Relation, int, Any] | None) -> tuple[str, str | None]:
    return ("novel", None) if verdict is None else (verdict[0].value, case.keys[verdict[1]])


def _verdicts(
    cases: Sequence[Case], fit: Fit, names: Sequence[str], setting: tuple[float, float]
) -> list[tuple[tuple[str, str | None], tuple[str, str | None]]]:
    """(given, expected) per case, decided as the service decides."""
    from memory.judge.learned import combine, probabilities

    fitted = fit.weights(names, *setting)
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


def _fit_free(duplicate_at: float, contradicts_at: float) -> Any:
    """Thresholds alone (what ``combine`` reads once the probabilities are known)."""
    from memory.judge.learned import Weights

    none = np.zeros(0)
    return Weights("", (), np.zeros((3, 0)), np.zeros(3), none, none, duplicate_at, contradicts_at)


def cross_validate(cases: Sequence[Case], names: Sequence[str], floor: float) -> dict[str, Any]:
    """The setting chosen by leave-one-batch-out cross-validation, with its figures."""
    from memory.judge.learned import combine, probabilities

    batches = sorted({c.batch for c in cases})
    # per C: each held-out case's candidates' probabilities, from a fit without its batch
    results: dict[tuple[float, float, float], dict[str, Any]] = {}
    for c in SETTINGS_C:
        held: list[tuple[Case, list[np.ndarray]]] = []
        for batch in batches:
            fitted = _fit([x for x in cases if x.batch != batch], names, c).weights(names, 0.5, 0.5)
            held += [
                (x, [probabilities(fitted, f) for f in x.features])
                for x in cases if x.batch == batch
            ]  # fmt: skip
        for setting in itertools.product(THRESHOLDS, THRESHOLDS):
            decide = _fit_free(*setting)
            given = [(x, combine(x.rules, p, decide)) for x, p in held]
            results[(c, *setting)] = figures(
                [(_given(x, v), x.expected) for x, v in given if not x.batch.startswith(NATURAL)]
            )
            natural = [(x, v) for x, v in given if x.batch.startswith(NATURAL)]
            results[(c, *setting)]["natural_additions"] = round(additions(natural), 4)
    quiet = {
        s: f for s, f in results.items() if f["natural_additions"] <= MAX_NATURAL_ADDITIONS
    } or results
    # the floor, or the rules' own precision where that is lower: the layer
    # may not make the judge's destructive verdicts less precise
    never = _fit_free(2.0, 2.0)  # no probability reaches a bar over 1
    rules_alone = figures([(_given(x, combine(x.rules, p, never)), x.expected) for x, p in held
                           if not x.batch.startswith(NATURAL)])  # fmt: skip
    floor = min(floor, rules_alone["destructive_precision"])
    reaching = {s: f for s, f in quiet.items() if f["destructive_precision"] >= floor}
    if reaching:
        best = max(reaching, key=lambda s: (reaching[s]["strict_accuracy"], s[1:]))
    else:
        best = max(quiet, key=lambda s: (quiet[s]["destructive_precision"], s[1:]))
    c, d, k = best
    return {"C": c, "duplicate_at": d, "contradicts_at": k,
            "batches": len([b for b in batches if not b.startswith(NATURAL)]),
            "precision_floor": floor, "rules_alone": rules_alone,
            "figures": results[best]}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--fit", action="store_true", help="write memory/judge/learned.json")
    parser.add_argument("--precision-floor", type=float, default=0.85)
    parser.add_argument(
        "--natural", type=Path, nargs="*", default=None,
        help="long histories fitted on as novel pairs (default: evals/longmem.json)",
    )  # fmt: skip
    parser.add_argument(
        "--natural-check", type=Path, default=None,
        help="a long history held out: how often the fitted layer adds a verdict there "
        "(default: evals/longmem_conv.json)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from evals.longmem import CONVERSATIONS_PATH, LONGMEM_PATH
    from memory.judge.learned import DEFAULT_MODEL, WEIGHTS_PATH, combine, probabilities

    golden = load_cases()
    natural = [x for p in (args.natural or [LONGMEM_PATH]) for x in load_natural(p)]
    check = load_natural(args.natural_check or CONVERSATIONS_PATH)
    cases = golden + natural
    names = sorted(next(f for c in cases for f in c.features))
    chosen = cross_validate(cases, names, args.precision_floor)
    print(
        f"cross-validated, {chosen['batches']} batches held out in turn: C={chosen['C']} "
        f"duplicate_at={chosen['duplicate_at']} contradicts_at={chosen['contradicts_at']}: "
        f"{json.dumps(chosen['figures'])}"
    )
    if not args.fit:
        return 0
    fit = _fit(cases, names, chosen["C"])
    setting = (chosen["duplicate_at"], chosen["contradicts_at"])
    trained = figures(_verdicts(golden, fit, names, setting))
    fitted = fit.weights(names, *setting)
    held_out = additions(
        [(x, combine(x.rules, [probabilities(fitted, f) for f in x.features], fitted))
         for x in check]
    )  # fmt: skip
    print(f"held-out history {check[0].batch if check else '-'}: the layer adds a verdict to "
          f"{held_out:.4f} of {len(check)} facts")  # fmt: skip
    WEIGHTS_PATH.write_text(
        json.dumps(
            {
                "model": DEFAULT_MODEL,
                "fitted": dt.date.today().isoformat(),
                "golden_cases": len(golden),
                "natural_cases": len(natural),
                "natural_held_out": {"facts": len(check), "additions": round(held_out, 4)},
                "C": chosen["C"],
                "duplicate_at": chosen["duplicate_at"],
                "contradicts_at": chosen["contradicts_at"],
                "cross_validated": chosen["figures"],
                "training": trained,
                "features": names,
                "coef": [[round(float(v), 8) for v in row] for row in fit.coef],
                "intercept": [round(float(v), 8) for v in fit.intercept],
                "low": [round(float(v), 8) for v in fit.low],
                "high": [round(float(v), 8) for v in fit.high],
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
