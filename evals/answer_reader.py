"""Fit recall's answer reader (``memory/answers.py``): the embedding model
fine-tuned to read a question and a lesson together and say whether the
lesson answers it.

    python -m evals.answer_reader --fit        # fine-tune, write the weights, set the threshold
    python -m evals.answer_reader --threshold  # set the threshold again on the weights as they are

The training pairs come from the long-history sets (``longmem.json``,
``longmem_conv.json`` and ``answers_training.json``, histories written to
train it) and the retrieval golden set (ops lessons, asked as
questions and as keywords): for each question, each fact that holds its
answer (a positive) and the facts exact vector search ranks highest that
do not (negatives: four for a question memory can answer, six for one it
cannot — those are about a subject the history knows, a detail it never
recorded). Every other pair reads its fact without the leading date.
The histories of the latest blind batches (``HELD_BACK``) are held back
from the fit; the threshold is set on them: the highest at which at most
``FLAGGED`` of their answerable questions would be flagged, reading each
question's ``READ`` nearest facts as recall reads its best hits — scored
by the reader as the service runs it (ONNX Runtime, 8-bit weights), not by
the PyTorch model that was trained.

PyTorch and transformers fine-tune every layer (~3 minutes an epoch on two
cores); the service reads the result with the embedding runtime.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

EPOCHS = 3
LEARNING_RATE = 3e-5  # the layers; the head's is 1e-3
NEGATIVES = 4  # per answerable question
NEGATIVES_UNANSWERABLE = 6
CANDIDATES = 10
MAX_TOKENS = 128
SEED = 0
# The histories of the latest blind conversation batches (m, x): held back
# from the fit, the threshold set on them.
HELD_BACK = ("m1", "m2", "x1", "x2", "x3")
FLAGGED = 0.05  # the most of the held-back answerable questions flagged
# Histories written to train the reader (never a gate's or a blind figure):
# ops teams' lessons with questions that paraphrase them.
TRAINING_PATH = Path(__file__).resolve().parent / "answers_training.json"

Question = tuple[dict[str, Any], list[str]]  # a question and its candidates' ids, best first


def histories(
    paths: list[Path] | None = None,
) -> list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """(history id, facts, questions) of every history in the sets."""
    from evals import longmem

    out = []
    every = [longmem.LONGMEM_PATH, longmem.CONVERSATIONS_PATH]
    if TRAINING_PATH.exists():
        every.append(TRAINING_PATH)
    for path in paths or every:
        data = longmem.load(path)
        for history in data["histories"]:
            questions = [q for q in data["questions"] if q["history"] == history["id"]]
            out.append((history["id"], history["facts"], questions))
    return out


def candidates(facts: list[dict[str, Any]], questions: list[dict[str, Any]]) -> list[Question]:
    """Each question with the facts exact vector search ranks first (their ids)."""
    from evals.longmem import fact_text
    from memory.embeddings import embed, embed_query, lesson_text

    vectors = np.asarray(embed([lesson_text(fact_text(f), "") for f in facts]))
    out = []
    for question in questions:
        scores = vectors @ np.asarray(embed_query(question["question"]))
        out.append((question, [facts[i]["id"] for i in np.argsort(-scores)[:CANDIDATES]]))
    return out


def pairs(asked: list[Question], texts: dict[str, str]) -> tuple[list[str], list[float]]:
    """The training pairs (read as the service reads them) and their labels.
    Every other pair reads the fact without its leading date: lessons in
    service rarely open with one, and the reader must not learn that they do."""
    from memory.answers import pair
    from memory.judge.statement import undated

    read: list[str] = []
    labels: list[float] = []
    for question, top in asked:
        evidence = set(question["evidence"])
        wrong = [f for f in top if f not in evidence]
        chosen = [(f, 1.0) for f in sorted(evidence)]
        chosen += [(f, 0.0) for f in wrong[: NEGATIVES if evidence else NEGATIVES_UNANSWERABLE]]
        for fact, label in chosen:
            text = texts[fact]
            if len(read) % 2:
                text = undated(text)
            read.append(pair(question["question"], text))
            labels.append(label)
    return read, labels


def retrieval_questions() -> tuple[list[Question], dict[str, str]]:
    """The retrieval golden set's queries (ops lessons, questions and
    keywords alike) as questions with their candidates, and the lessons' texts."""
    from evals import retrieval
    from memory.embeddings import embed, embed_query, lesson_text

    golden = retrieval.load_golden()
    lessons = golden["lessons"]
    texts = {f"golden-{lesson['key']}": lesson["content"] for lesson in lessons}
    vectors = np.asarray(embed([lesson_text(x["content"], x.get("situation", ""))
                                for x in lessons]))  # fmt: skip
    out: list[Question] = []
    for query in golden["queries"]:
        scores = vectors @ np.asarray(embed_query(query["query"]))
        top = [f"golden-{lessons[i]['key']}" for i in np.argsort(-scores)[:CANDIDATES]]
        asked = {"question": query["query"], "kind": "single",
                 "evidence": [f"golden-{k}" for k in query["expected"]]}  # fmt: skip
        out.append((asked, top))
    return out, texts


def fine_tune(read: list[str], labels: list[float], *, epochs: int = EPOCHS) -> Any:
    """The fine-tuned model (transformers' BertModel), its tokenizer and head:
    every layer tuned, the token embeddings left as the bundled model's."""
    from evals.tuning import bundled, train

    model, tokenizer = bundled(SEED)
    for p in model.encoder.parameters():
        p.requires_grad = True
    head = train(
        read, labels, tuned=model.encoder, model=model, tokenizer=tokenizer, epochs=epochs,
        learning_rate=LEARNING_RATE, max_tokens=MAX_TOKENS, seed=SEED,
    )  # fmt: skip
    return model, tokenizer, head


def choose_threshold(best: list[tuple[str, float]]) -> float:
    """The highest threshold that flags at most ``FLAGGED`` of the answerable
    questions (``best``: each question's kind and best score)."""
    answerable = sorted(s for k, s in best if k != "adversarial")
    allowed = int(FLAGGED * len(answerable))  # questions that may fall below it
    return float(answerable[allowed]) if answerable else 0.5


def fit() -> dict[str, Any]:
    """Fine-tune on all but the held-back histories, write the layers and
    the head (``memory/answers.*``), then set the threshold on them."""
    from safetensors.numpy import save_file

    from evals.longmem import fact_text
    from memory import answers

    every = histories()
    texts = {f["id"]: fact_text(f) for _, facts, _ in every for f in facts}
    fitted = [q for h, facts, qs in every if h not in HELD_BACK for q in candidates(facts, qs)]
    golden, golden_texts = retrieval_questions()
    fitted += golden
    texts.update(golden_texts)
    read, labels = pairs(fitted, texts)
    print(f"fitting on {len(read)} pairs ({int(sum(labels))} answers) from "
          f"{len(fitted)} questions", flush=True)  # fmt: skip
    model, _, head = fine_tune(read, labels)
    tensors = {
        name: value.detach().numpy().astype(np.float16)
        for name, value in model.state_dict().items()
        if name.startswith("encoder.")
    }
    tensors["head.weight"] = head.weight.detach().numpy().reshape(-1).astype(np.float32)
    tensors["head.bias"] = head.bias.detach().numpy().reshape(-1).astype(np.float32)
    save_file(tensors, str(answers.MODEL.weights_path))
    return set_threshold(epochs=EPOCHS, tuned_layers=model.config.num_hidden_layers)


def set_threshold(**described: Any) -> dict[str, Any]:
    """Score the held-back histories' questions with the written reader as
    the service runs it (its 8-bit graph), set the threshold on them and
    write ``answers.json``."""
    from evals.longmem import fact_text
    from memory import answers
    from memory.fitted import BUNDLED_MODEL

    every = histories()
    texts = {f["id"]: fact_text(f) for _, facts, _ in every for f in facts}
    back = [q for h, facts, qs in every if h in HELD_BACK for q in candidates(facts, qs)]
    previous = (json.loads(answers.MODEL.meta_path.read_text(encoding="utf-8"))
                if answers.MODEL.meta_path.exists() else {})  # fmt: skip
    meta: dict[str, Any] = {
        "model": BUNDLED_MODEL,
        "tuned_layers": previous.get("tuned_layers"),
        "epochs": previous.get("epochs"),
        **described,
        "threshold": 0.5,  # until it is set below
        "read": answers.READ,
        "quantized": answers.MODEL.quantized,
    }
    answers.MODEL.meta_path.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    answers.MODEL.forget(model=True)
    best = []
    for question, top in back:
        found = answers.scores(question["question"], [texts[f] for f in top[: answers.READ]])
        if found is None:
            raise SystemExit("the answer reader is off; see the log")
        best.append((question["kind"], max(found)))
    # stored rounded down: what it flags is at most what is counted here
    threshold = math.floor(choose_threshold(best) * 10_000) / 10_000
    held: dict[str, dict[str, int]] = {}
    for kind, score in best:
        row = held.setdefault(kind, {"flagged": 0, "of": 0})
        row["flagged"] += int(score < threshold)
        row["of"] += 1
    meta["threshold"] = threshold
    meta["fitted"] = dt.date.today().isoformat()
    meta["held_back"] = {"histories": list(HELD_BACK), **held}
    answers.MODEL.meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    answers.MODEL.forget()
    return meta


def main(argv: list[str] | None = None) -> None:
    from evals.tuning import command

    command(__doc__ or "", fit, set_threshold, "the held-back histories", argv)


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    main()
