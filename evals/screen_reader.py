"""Fit the screen's reader (``memory/guard/reader.py``): the embedding
model with its last layers fine-tuned to tell attacks from ordinary text.

    python -m evals.screen_reader --fit     # fine-tune, write the weights, set the threshold
    python -m evals.screen_reader --set-threshold   # set it again on the weights as they are
    python -m evals.screen_reader --hold-out blind-28,blind-29 FILE.json …   # a held-out check
    python -m evals.screen_reader --thresholds 0.9,0.95,0.98   # what other thresholds would do

The training text is the red-team set's attacks (positives) and its
look-alikes, the attacks and look-alikes of ``screen_training.json``
(written to train the screen's learned parts, never a gate's or a blind
figure's), the long-history set's facts and a sample of the judge's golden
lessons (negatives), and further lessons, look-alikes and attacks as the
LangGraph store writes them (JSON around the text), each read as the
screen reads it (normalised).
A stratified seventh of every kind is held back (a stored text with the
text it wraps): the reader is fine-tuned
on the rest, and the threshold — scored as the service runs the reader —
is set above every negative, held back or fitted on (a look-alike it
could not fit scores high even so), and above every golden lesson, so it
blocks none of the look-alikes or ordinary lessons it saw or never saw;
the held-back attacks past it are the figure reported. The weights written
are those of that model (nothing is refitted on the held-back part).

PyTorch and transformers fine-tune (~3.5 minutes an epoch at ~5,600
texts, ~12 in all with the threshold, on two cores; one fit at a time);
the service reads the result with the embedding runtime (ONNX Runtime by
default) and a dot product.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

EPOCHS = 3
TUNED_LAYERS = 2  # the last two of MiniLM's six: ~7 MB of weights in float16
LEARNING_RATE = 3e-5  # the tuned layers; the head's is 1e-3
ORDINARY_SAMPLE = 1500  # of the judge's golden lessons (all of them triples an epoch)
STORED = 240  # further golden lessons as the LangGraph store writes them (and half as many
# look-alikes and attacks)
HELD_BACK = 1 / 7
SEED = 0
TRAINING_PATH = Path(__file__).resolve().parent / "screen_training.json"


def _each_text_once(rows: list[tuple[str, bool, str]]) -> list[tuple[str, bool, str]]:
    """Each text once: its first row, at the place of its last (the order
    every fit since 2026-12-06 was made in — the held-back split, and its
    digest in ``reader.json``, follow from it)."""
    first: dict[str, tuple[str, bool, str]] = {}
    last: dict[str, int] = {}
    for position, row in enumerate(rows):
        first.setdefault(row[0], row)
        last[row[0]] = position
    return [first[text] for text in sorted(first, key=last.__getitem__)]


def training_text(
    *, written_to_train: bool = True, without: frozenset[str] = frozenset()
) -> list[tuple[str, bool, str]]:
    """(text, is attack, kind) for everything the reader learns from
    (without ``screen_training.json``'s texts if not ``written_to_train``,
    and without the red-team texts in ``without``, stored or not)."""
    from evals import redteam

    cases = redteam.load_cases()
    if written_to_train and TRAINING_PATH.exists():
        cases += redteam.load_cases(TRAINING_PATH)
    rows = [(c["content"], bool(c["attack"]), "attack" if c["attack"] else "look-alike")
            for c in cases if c["content"] not in without]  # fmt: skip
    rows = _each_text_once(rows)
    rows += [(t, False, "fact") for t in redteam.ordinary_facts()]
    lessons = redteam.ordinary_lessons()
    lessons = [lessons[i] for i in np.random.default_rng(SEED).permutation(len(lessons))]
    rows += [(t, False, "lesson") for t in lessons[:ORDINARY_SAMPLE]]
    rows += stored_values(rows, lessons[ORDINARY_SAMPLE:])
    return rows


def stored_values(
    rows: list[tuple[str, bool, str]], spare_lessons: list[str]
) -> list[tuple[str, bool, str]]:
    """Texts as the LangGraph store writes them (``tributary_client.langgraph``:
    a value's ``content`` with the item's label and the rest of the value as
    compact JSON, or the whole value as JSON): ordinary lessons and look-alikes
    so stored (kind ``stored``, negatives: the threshold sits above them) and
    attacks so stored (``stored attack``) — an attack is one however it is
    wrapped, and ordinary text is ordinary in JSON too."""
    from tributary_client.langgraph import encode_value

    rng = np.random.default_rng(SEED + 1)
    extras: list[dict[str, Any]] = [
        {"source": "chat"}, {"source": "support-ticket", "confidence": 0.8},
        {"tags": ["ops", "billing"]}, {"updated_at": "2026-03-14T09:12:00Z"},
        {"author": "agent-7", "turn": 42}, {}, {"kind": "preference"},
    ]  # fmt: skip
    fields = ["content", "content", "content", "note", "text", "memory", "fact"]
    namespaces = [("users", "alice"), ("memories",), ("team", "ops", "runbooks"),
                  ("agent-3", "notes"), ("profile", "u-1042")]  # fmt: skip

    def stored(text: str, i: int) -> str:
        value: dict[str, Any] = {fields[rng.integers(len(fields))]: text}
        value.update(extras[rng.integers(len(extras))])
        namespace = namespaces[rng.integers(len(namespaces))]
        return encode_value(namespace, f"k{i}", value)

    attacks = [t for t, a, _ in rows if a]
    look_alikes = [t for t, a, k in rows if not a and k == "look-alike"]
    out = [(stored(t, i), False, "stored") for i, t in enumerate(spare_lessons[:STORED])]
    picks = rng.permutation(len(look_alikes))[: STORED // 2]
    out += [(stored(look_alikes[j], i), False, "stored") for i, j in enumerate(picks)]
    picks = rng.permutation(len(attacks))[: STORED // 2]
    out += [(stored(attacks[j], i), True, "stored attack") for i, j in enumerate(picks)]
    return out


def split(rows: list[tuple[str, bool, str]]) -> tuple[list[int], list[int]]:
    """Indexes to fit on and to hold back: a stratified seventh of each kind,
    a stored text on the side of the text it wraps (held back with it, or
    fitted on with it: the held-back figures count no text fitted on in
    another form)."""
    from tributary_client.langgraph import decode_value

    rng = np.random.default_rng(SEED)
    fit: list[int] = []
    back: list[int] = []
    held = {r[0]: False for r in rows}
    for kind in sorted({k for _, _, k in rows}, key=lambda k: (k.startswith("stored"), k)):
        idx = [i for i, r in enumerate(rows) if r[2] == kind]
        if kind.startswith("stored"):
            sides = {i: held.get(_wrapped(decode_value(rows[i][0]), held) or "") for i in idx}
            back += [i for i in idx if sides[i] is True]
            fit += [i for i in idx if sides[i] is False]
            idx = [i for i in idx if sides[i] is None]
        idx = [idx[j] for j in rng.permutation(len(idx))]
        n = round(len(idx) * HELD_BACK)
        back += idx[:n]
        fit += idx[n:]
        held.update({rows[i][0]: True for i in idx[:n]})
    return sorted(fit), sorted(back)


def _wrapped(value: dict[str, Any], texts: dict[str, bool]) -> str | None:
    """The training text a stored value wraps, if it is one."""
    return next((v for v in value.values() if isinstance(v, str) and v in texts), None)


def fine_tune(texts: list[str], labels: list[bool], *, epochs: int = EPOCHS) -> Any:
    """The fine-tuned model (transformers' BertModel), its tokenizer and head."""
    from evals.tuning import bundled, train
    from memory.guard.normalise import normalise

    model, tokenizer = bundled(SEED)
    tuned = model.encoder.layer[-TUNED_LAYERS:]
    for p in tuned.parameters():
        p.requires_grad = True
    head = train(
        [normalise(t) for t in texts], [float(x) for x in labels], tuned=tuned, model=model,
        tokenizer=tokenizer, epochs=epochs, learning_rate=LEARNING_RATE, max_tokens=256,
        seed=SEED,
    )  # fmt: skip
    return model, tokenizer, head


def probabilities(model: Any, tokenizer: Any, head: Any, texts: list[str]) -> np.ndarray:
    import torch

    from evals.tuning import pooled
    from memory.guard.normalise import normalise
    from memory.tuned import SCALE

    out: list[float] = []
    with torch.no_grad():
        for at in range(0, len(texts), 64):
            vectors = pooled(model, tokenizer, [normalise(t) for t in texts[at : at + 64]], 256)
            out += torch.sigmoid(head(vectors * SCALE).squeeze(-1)).tolist()
    return np.asarray(out)


def fit() -> dict[str, Any]:
    """Fine-tune on six sevenths, write the tuned layers and the head
    (``memory/guard/reader.*``), then set the threshold."""
    from safetensors.numpy import save_file

    from memory.guard import reader

    rows = training_text()
    fit_idx, back_idx = split(rows)
    print(f"fitting on {len(fit_idx)} texts, holding back {len(back_idx)}", flush=True)
    model, _, head = fine_tune([rows[i][0] for i in fit_idx], [rows[i][1] for i in fit_idx])
    tensors = {
        name: value.detach().numpy().astype(np.float16)
        for name, value in model.state_dict().items()
        if any(name.startswith(f"encoder.layer.{i}.")
               for i in range(model.config.num_hidden_layers - TUNED_LAYERS,
                              model.config.num_hidden_layers))
    }  # fmt: skip
    tensors["head.weight"] = head.weight.detach().numpy().reshape(-1).astype(np.float32)
    tensors["head.bias"] = head.bias.detach().numpy().reshape(-1).astype(np.float32)
    save_file(tensors, str(reader.MODEL.weights_path))
    return set_threshold(
        fitted=dt.date.today().isoformat(), epochs=EPOCHS, tuned_layers=TUNED_LAYERS
    )


def set_threshold(**described: Any) -> dict[str, Any]:
    """Set the threshold of the written reader, scored as the service runs
    it: above every negative — the look-alikes, facts and lessons held back
    or fitted on, and every golden lesson besides (a sample was fitted on;
    an ordinary lesson it never saw scored past a threshold set on the
    sample alone). Writes ``reader.json`` with the held-back seventh's
    figures: the attacks past the threshold are the reader's own catch.
    Those texts are the split of the training text as it is now: when it
    has changed since the fit (a batch adopted), the figures would count
    texts fitted on, so it refuses (``described`` comes from a fit)."""
    from evals import redteam
    from memory.fitted import BUNDLED_MODEL
    from memory.guard import reader

    previous = (json.loads(reader.MODEL.meta_path.read_text(encoding="utf-8"))
                if reader.MODEL.meta_path.exists() else {})  # fmt: skip
    rows = training_text()
    _, back_idx = split(rows)
    back = [rows[i] for i in back_idx]
    digest = hashlib.sha256("\n".join(sorted(r[0] for r in back)).encode()).hexdigest()[:16]
    if not described and previous.get("held_back_digest") != digest:
        raise SystemExit("the training text has changed since the fit: refit (--fit)")
    meta: dict[str, Any] = {
        "model": BUNDLED_MODEL,
        **{k: previous.get(k) for k in ("tuned_layers", "epochs", "fitted")},
        **described,
        "threshold": 1.01,  # until it is set below: nothing reaches it
    }
    before = reader.MODEL.meta_path.read_text(encoding="utf-8") if previous else None
    reader.MODEL.meta_path.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    reader.MODEL.forget(model=True)
    try:
        negatives = sorted({t for t, attack, _ in rows if not attack}
                           | set(redteam.ordinary_lessons()))  # fmt: skip
        scored = dict(zip(negatives, _scores(negatives), strict=True))
        held_scores = _scores([r[0] for r in back])
    except BaseException:  # the reader as it was, not one that blocks nothing
        if before is not None:
            reader.MODEL.meta_path.write_text(before, encoding="utf-8")
        raise
    for text in sorted(scored, key=scored.__getitem__)[-5:]:
        print(f"  the highest negatives: {scored[text]:.4f} {text[:100]!r}", flush=True)
    if max(scored.values()) >= 0.999:
        raise SystemExit(f"a negative scored {max(scored.values()):.4f}: no threshold above it")
    # rounded up to what is written: still above them all, and counted at it
    threshold = math.ceil(max(0.5, max(scored.values()) + 0.001) * 1e4) / 1e4
    held: dict[str, list[int]] = {}
    for (_, _, kind), score in zip(back, held_scores, strict=True):
        held.setdefault(kind, [0, 0])
        held[kind][0] += int(score >= threshold)
        held[kind][1] += 1
    meta["threshold"] = threshold
    meta["held_back"] = {k: {"past_threshold": v[0], "of": v[1]} for k, v in sorted(held.items())}
    meta["held_back_digest"] = digest
    reader.MODEL.meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    reader.MODEL.forget()
    return meta


def _scores(texts: list[str]) -> list[float]:
    from memory.guard import reader

    out: list[float] = []
    for at in range(0, len(texts), 256):
        got = reader.scores(texts[at : at + 256])
        if got is None:
            raise SystemExit("the screen's reader is off (TRIBUTARY_SCREEN_READER?)")
        out += got
    return out


def hold_out(batches: list[str], files: list[Path], *, written_to_train: bool = True) -> None:
    """Fine-tune without the red-team batches named (and with none of the
    files' items; without ``screen_training.json`` if not
    ``written_to_train``), then score them: how the reader does on text it
    never saw. Prints each threshold's attacks and look-alikes past it."""
    from evals import redteam
    from memory.guard import screen

    held = [c for c in redteam.load_cases() if c.get("batch") in batches]
    for f in files:
        held += [{**c, "batch": f.stem} for c in redteam.load_cases(f)]
    out = frozenset(c["content"] for c in held)
    rows = training_text(written_to_train=written_to_train, without=out)
    model, tokenizer, head = fine_tune([r[0] for r in rows], [r[1] for r in rows])
    scores = probabilities(model, tokenizer, head, [c["content"] for c in held])
    ruled = [screen(c["content"]).blocked for c in held]
    for batch in sorted({c["batch"] for c in held}):
        sel = [
            (c, s, r) for c, s, r in zip(held, scores, ruled, strict=True) if c["batch"] == batch
        ]
        for th in (0.9, 0.95, 0.98, 0.99, 0.995):
            past = [(c, s) for c, s, r in sel if s >= th or r]
            print(f"{batch} at {th}: with the rules {sum(c['attack'] for c, _ in past)}"
                  f"/{sum(c['attack'] for c, _, _ in sel)} attacks, "
                  f"{sum(not c['attack'] for c, _ in past)} look-alikes")  # fmt: skip


def threshold_costs(
    thresholds: list[float], sets: list[tuple[str, list[str]]] | None = None
) -> list[str]:
    """What the screen would block, set by set, with the landed reader at
    each of ``thresholds`` (and its own): the rules, then the learned
    signal, then the reader on what the learned signal scores at least
    ``READ_FROM`` — the service's order. Rows: the red-team set, the
    training texts by batch, the golden lessons and both long-history sets'
    facts (or ``sets``: named lists of texts). A choice to weigh, not a fit:
    the figures of texts the reader was fitted on are training figures."""
    from memory.embeddings import embed
    from memory.guard import reader, screen, screen_vector

    meta = reader.MODEL.meta()
    if meta is None or reader.scores(["warm-up"]) is None:
        raise SystemExit("the screen's reader is off or has no weights")
    columns = sorted({*thresholds, float(meta["threshold"])})
    sets = _evaluated_sets() if sets is None else sets
    lines = [
        f"{'':<28}{'texts':>6}{'rules+learned':>15}"
        + "".join(f"{t:>9.4g}" for t in columns)
        + f"   (the landed threshold: {meta['threshold']})"
    ]
    for name, texts in sets:
        ruled, read = 0, []
        for text, vector in zip(texts, embed(texts), strict=True):
            if screen(text).blocked or (found := screen_vector(vector, text)).blocked:
                ruled += 1
            elif (found.score or 0.0) >= reader.READ_FROM:
                read.append(text)
            # else: the reader never reads it
        scores = reader.scores(read) or []
        lines.append(
            f"{name:<28}{len(texts):>6}{ruled:>15}"
            + "".join(f"{ruled + sum(s >= t for s in scores):>9}" for t in columns)
        )
    return lines


def _evaluated_sets() -> list[tuple[str, list[str]]]:
    from evals import longmem, redteam

    sets: list[tuple[str, list[str]]] = []
    for name, cases in [("red team", redteam.load_cases()),
                        *_by_batch(redteam.load_cases(TRAINING_PATH)
                                   if TRAINING_PATH.exists() else [])]:  # fmt: skip
        sets.append((f"{name} attacks", [c["content"] for c in cases if c["attack"]]))
        sets.append((f"{name} look-alikes", [c["content"] for c in cases if not c["attack"]]))
    sets.append(("golden lessons", redteam.ordinary_lessons()))
    sets.append(("long-history facts", redteam.ordinary_facts()))
    sets.append(("conversation facts", redteam.ordinary_facts(longmem.CONVERSATIONS_PATH)))
    return sets


def _by_batch(cases: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    batches = sorted({c.get("batch", "") for c in cases})
    return [(b or "training", [c for c in cases if c.get("batch", "") == b]) for b in batches]


def main(argv: list[str] | None = None) -> None:
    import django

    django.setup()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", action="store_true", help="fine-tune and write the weights")
    parser.add_argument(
        "--set-threshold", action="store_true", help="set the written weights' threshold again"
    )  # fmt: skip
    parser.add_argument("--hold-out", default="", help="red-team batches to hold out")
    parser.add_argument(
        "--without-training", action="store_true",
        help="hold out without screen_training.json's texts (what they add)",
    )  # fmt: skip
    parser.add_argument(
        "--thresholds", default="",
        help="comma-separated thresholds: what the landed reader would block at each",
    )  # fmt: skip
    parser.add_argument("files", nargs="*", type=Path, help="further held-out red-team files")
    args = parser.parse_args(argv)
    if args.without_training and not (args.hold_out or args.files):
        parser.error("--without-training goes with --hold-out (a fit takes the training texts)")
    if args.fit:
        print(json.dumps(fit(), indent=2))
    elif args.set_threshold:
        print(json.dumps(set_threshold(), indent=2))
    elif args.thresholds:
        print("\n".join(threshold_costs([float(t) for t in args.thresholds.split(",") if t])))
    elif args.hold_out or args.files:
        hold_out(
            [b for b in args.hold_out.split(",") if b], args.files,
            written_to_train=not args.without_training,
        )  # fmt: skip
    else:
        parser.print_help()


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    main()
