"""Fit the judge's pair reader (``memory/judge/reader.py``): the embedding
model fine-tuned to read a new lesson and a candidate together and say
whether the new one restates it, contradicts it, or neither.

    python -m evals.judge_reader --fit        # fine-tune, write the weights, set the threshold
    python -m evals.judge_reader --threshold  # set the threshold again on the weights as they are

The training pairs: every case of the judge's golden set but the latest
blind batches (``HELD_BACK``), each new lesson against each of its
candidates in both orders (the target labelled with the case's relation,
the others novel); the cases of ``judge_training.json`` (written to train
it, by writers who never saw the rules or the sets; never a gate's or a
blind figure); those cases' lessons with one word changed
(``evals.judge_flips``): a value (contradicts) or the name of the subject
(novel), and plain requirements written as withheld until met (duplicate)
or as lifted (contradicts); and a long history's facts each against its
nearest earlier facts, labelled novel (real memory is mostly related notes
that are neither; the golden set, a third of each relation, lacks them).

The threshold — a destructive verdict's least probability — is set on the
held-back batches, scored by the reader as the service runs it (ONNX
Runtime, 8-bit weights): the most accurate (strictly: relation and target)
whose destructive precision is at least ``PRECISION``, and whose verdicts
on a long history it was not fitted on (``longmem_conv.json``) add at most
``MAX_NATURAL_ADDITIONS`` destructive verdicts a fact.

PyTorch and transformers fine-tune every layer (~18 minutes an epoch on two
cores at ~23,000 pairs; one fit at a time: two at once thrash); the service
reads the result with the embedding runtime.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evals import judge_report
from evals.judge_learned import MAX_NATURAL_ADDITIONS  # of an unseen history's facts

EPOCHS = 3
LEARNING_RATE = 3e-5  # the layers; the head's is 1e-3
MAX_TOKENS = 160
SEED = 0
# The latest blind batches: held back from the fit, the threshold set on them.
HELD_BACK = ("blind-45", "blind-46", "blind-47", "blind-48")
TRAINING_PATH = Path(__file__).resolve().parent / "judge_training.json"
PRECISION = 0.85  # the least destructive precision on the held-back batches
THRESHOLDS = tuple(round(0.5 + 0.025 * i, 3) for i in range(20))  # 0.5 … 0.975
LABELS = {"novel": 0, "duplicate": 1, "contradicts": 2}  # learned.CLASSES' order
VALUE_FLIPS = 1000  # training lessons with one value flipped (``flip_pairs``)
VALUE_KEEPS = 1000  # and with one value written another way
REQUIREMENT_REWRITES = 1000  # plain requirements written as withheld, and as lifted


def training_cases() -> list[judge_report.GoldenCase]:
    golden = [c for c in judge_report.load_golden() if c.batch not in HELD_BACK]
    return golden + judge_report.load_golden(TRAINING_PATH)


def held_back_cases() -> list[judge_report.GoldenCase]:
    return [c for c in judge_report.load_golden() if c.batch in HELD_BACK]


def _both_orders(a: tuple[str, str], b: tuple[str, str]) -> list[str]:
    """Two lessons (content, situation) as the reader reads them, each order."""
    from memory.judge.reader import pair

    return [pair(*a, *b), pair(*b, *a)]


def case_pairs(cases: Sequence[judge_report.GoldenCase]) -> tuple[list[str], list[int]]:
    """Each case's new lesson against each candidate, in both orders."""
    read: list[str] = []
    labels: list[int] = []
    for case in cases:
        for c in case.candidates:
            label = LABELS[str(case.expected_relation)] if c.key == case.expected_target else 0
            read += _both_orders((case.content, case.situation), (c.content, c.situation))
            labels += [label, label]
    return read, labels


def flip_pairs(cases: Sequence[judge_report.GoldenCase]) -> tuple[list[str], list[int]]:
    """The cases' lessons flipped (``evals.judge_flips``), each pair in both
    orders: ``VALUE_FLIPS`` with one value changed, as contradictions,
    ``VALUE_KEEPS`` with one value written another way ("120 minutes", "2
    hours"), as duplicates, plain requirements written as a permission
    withheld until met ("… are blocked until there is a sign-off"), as
    duplicates, and as lifted ("… are allowed without a sign-off"), as
    contradictions, and every lesson whose subject's name can be changed, as
    novel."""
    from evals.judge_flips import requirement_rewrites, subject_flips, value_flips, value_keeps

    lessons = [(c.content, c.situation) for c in cases] + [
        (x.content, x.situation) for c in cases for x in c.candidates
    ]
    read: list[str] = []
    labels: list[int] = []
    for flips, label in ((value_flips(lessons, VALUE_FLIPS), LABELS["contradicts"]),
                         (value_keeps(lessons, VALUE_KEEPS), LABELS["duplicate"]),
                         (requirement_rewrites(lessons, REQUIREMENT_REWRITES, keep=True),
                          LABELS["duplicate"]),
                         (requirement_rewrites(lessons, REQUIREMENT_REWRITES, keep=False),
                          LABELS["contradicts"]),
                         (subject_flips(lessons), LABELS["novel"])):  # fmt: skip
        for content, situation, flipped in flips:
            read += _both_orders((content, situation), (flipped, situation))
            labels += [label, label]
    return read, labels


def natural_cases(path: Path) -> list[tuple[str, list[Any]]]:
    """A long history's facts as the service would judge them: each (its
    text) against its nearest earlier facts (``judge_learned.nearest_earlier``,
    the layer's natural pairs)."""
    from evals.judge_learned import nearest_earlier

    return [(text, candidates) for _, _, text, _, candidates in nearest_earlier(path)]


def natural_pairs(path: Path) -> list[str]:
    from memory.judge.reader import pair

    return [pair(text, "", c.content, "") for text, candidates in natural_cases(path)
            for c in candidates]  # fmt: skip


def fit() -> dict[str, Any]:
    """Fine-tune on the training pairs, write the layers and the head
    (``memory/judge/reader.*``), then set the threshold."""
    from safetensors.numpy import save_file

    from evals.longmem import LONGMEM_PATH
    from evals.tuning import bundled, train
    from memory.judge import reader

    cases = training_cases()
    read, labels = case_pairs(cases)
    flipped = flip_pairs(cases)
    read += flipped[0]
    labels += flipped[1]
    natural = natural_pairs(LONGMEM_PATH)
    read += natural
    labels += [0] * len(natural)
    print(f"fitting on {len(read)} pairs ({np.bincount(labels).tolist()} novel/duplicate/"
          f"contradicts; {len(natural)} from a long history)", flush=True)  # fmt: skip
    model, tokenizer = bundled(SEED)
    for p in model.encoder.parameters():
        p.requires_grad = True
    head = train(
        read, labels, tuned=model.encoder, model=model, tokenizer=tokenizer, epochs=EPOCHS,
        learning_rate=LEARNING_RATE, max_tokens=MAX_TOKENS, seed=SEED, classes=len(LABELS),
    )  # fmt: skip
    tensors = {
        name: value.detach().numpy().astype(np.float16)
        for name, value in model.state_dict().items()
        if name.startswith("encoder.")
    }
    tensors["head.weight"] = head.weight.detach().numpy().astype(np.float32)
    tensors["head.bias"] = head.bias.detach().numpy().astype(np.float32)
    save_file(tensors, str(reader.MODEL.weights_path))
    return set_threshold(epochs=EPOCHS, tuned_layers=model.config.num_hidden_layers,
                         training_pairs=len(read))  # fmt: skip


@dataclass(frozen=True)
class Judged:
    """One case as the service judges it: the new lesson, the verdict
    without the reader, the candidates (nearest first) and what the reader
    read of them."""

    content: str
    expected: tuple[str, str | None]  # relation, target key (None: a long history's fact)
    keys: tuple[str, ...]
    candidates: tuple[Any, ...]
    verdict: Any
    found: dict[int, Any]


def learned_judge() -> Any:
    """The rules with their learned layer: the judge the reader adds to."""
    from memory.judge import offline_judge
    from memory.judge.learned import LearnedJudge

    judge = offline_judge()
    if not isinstance(judge, LearnedJudge):
        raise SystemExit("the judge's learned layer is off: the reader adds to it")
    return judge


def judged_golden(cases: Sequence[judge_report.GoldenCase]) -> list[Judged]:
    judge = learned_judge()
    similarities = judge_report.compute_similarities(judge_report.load_encoder(), cases)
    out = []
    for case in cases:
        keyed = judge_report.case_candidates(case, similarities[case.id])
        candidates = tuple(c for _, c in keyed)
        expected = (str(case.expected_relation), case.expected_target)
        keys = tuple(k for k, _ in keyed)
        out.append(_judged(judge, case.content, case.situation, candidates, expected, keys))
    return out


def judged_natural(path: Path) -> list[Judged]:
    judge = learned_judge()
    out = []
    for text, candidates in natural_cases(path):
        keys = tuple(str(i) for i in range(len(candidates)))
        out.append(_judged(judge, text, "", tuple(candidates), ("novel", None), keys))
    return out


def _judged(
    judge: Any, content: str, situation: str, candidates: tuple[Any, ...],
    expected: tuple[str, str | None], keys: tuple[str, ...],
) -> Judged:  # fmt: skip
    """One case judged without the reader, and what the reader reads of it."""
    from memory.judge import reader

    found = reader.read(content, situation, candidates)
    if found is None:
        raise SystemExit("the judge's pair reader is off; see the log")
    verdict = judge.without_reader(content, situation, candidates)
    return Judged(content, expected, keys, candidates, verdict, found)


def figures(judged: Sequence[Judged], threshold: float, veto: float) -> dict[str, Any]:
    """Strict accuracy, destructive precision and verdicts by relation of
    the judge with the reader at ``threshold``."""
    from memory.judge.learned import with_reader

    right = destructive = destructive_right = 0
    by: dict[str, list[int]] = {}
    for case in judged:
        v = with_reader(
            case.verdict, case.candidates, case.found, threshold, veto, content=case.content
        )
        key = next((k for k, c in zip(case.keys, case.candidates, strict=True)
                    if c.id == v.target_id), None)  # fmt: skip
        good = (str(v.relation), key) == case.expected
        right += good
        if key is not None:
            destructive += 1
            destructive_right += good
        row = by.setdefault(case.expected[0], [0, 0])
        row[0] += good
        row[1] += 1
    return {
        "cases": len(judged),
        "strict_accuracy": round(right / max(1, len(judged)), 4),
        "destructive_precision": round(destructive_right / max(1, destructive), 4),
        "destructive_verdicts": destructive,
        "by_relation": {k: f"{a}/{n}" for k, (a, n) in sorted(by.items())},
    }


def set_threshold(**described: Any) -> dict[str, Any]:
    """Score the held-back batches and an unseen long history with the
    written reader as the service runs it, set the threshold on them and
    write ``reader.json``."""
    from evals.longmem import CONVERSATIONS_PATH
    from memory.fitted import BUNDLED_MODEL
    from memory.judge import reader

    previous = (json.loads(reader.MODEL.meta_path.read_text(encoding="utf-8"))
                if reader.MODEL.meta_path.exists() else {})  # fmt: skip
    meta: dict[str, Any] = {
        "model": BUNDLED_MODEL,
        **{k: previous.get(k) for k in ("tuned_layers", "epochs", "training_pairs")},
        **described,
        "threshold": 1.01,  # until it is set below: nothing reaches it
        "veto": reader.VETO,
        "read": reader.READ,
        "read_from": reader.READ_FROM,
        "quantized": reader.MODEL.quantized,
    }
    before = reader.MODEL.meta_path.read_text(encoding="utf-8") if previous else None
    reader.MODEL.meta_path.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    reader.MODEL.forget(model=True)
    try:
        held = judged_golden(held_back_cases())
        natural = judged_natural(CONVERSATIONS_PATH)
    except BaseException:  # the reader as it was, not one that only vetoes
        if before is not None:
            reader.MODEL.meta_path.write_text(before, encoding="utf-8")
        raise
    rows = []
    for t in THRESHOLDS:
        row = {"threshold": t, **figures(held, t, reader.VETO)}
        nat = figures(natural, t, reader.VETO)
        row["natural_destructive"] = round(nat["destructive_verdicts"] / max(1, len(natural)), 4)
        rows.append(row)
        print(json.dumps(row), flush=True)
    without = figures(held, 2.0, 2.0)  # the rules and their layer alone
    allowed = MAX_NATURAL_ADDITIONS + baseline(natural)
    quiet = [r for r in rows if r["natural_destructive"] <= allowed]
    precise = [r for r in quiet if r["destructive_precision"] >= PRECISION]
    if precise:
        chosen = max(precise, key=lambda r: (r["strict_accuracy"], r["threshold"]))
    else:
        chosen = max(quiet or rows, key=lambda r: (r["destructive_precision"], r["threshold"]))
    meta["threshold"] = chosen["threshold"]
    meta["fitted"] = dt.date.today().isoformat()
    meta["held_back"] = {"batches": list(HELD_BACK), "without_reader": without, **chosen}
    meta["natural_check"] = {"facts": len(natural), "without_reader": baseline(natural)}
    reader.MODEL.meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    reader.MODEL.forget()
    return meta


def baseline(natural: Sequence[Judged]) -> float:
    """The share of a history's facts the rules and their layer alone give a
    destructive verdict."""
    given = sum(1 for case in natural if case.verdict.target_id is not None)
    return round(given / max(1, len(natural)), 4)


def main(argv: list[str] | None = None) -> None:
    from evals.tuning import command

    command(__doc__ or "", fit, set_threshold, "the held-back batches", argv)


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    main()
