"""Fine-tuning the bundled embedding model with a head on its pooled
output (logistic, or over several classes): the loop the tuned readers
(``memory.tuned``) are fitted by — the screen's reader
(``screen_reader.py``), recall's answer reader (``answer_reader.py``) and
the judge's pair reader (``judge_reader.py``). PyTorch and transformers,
on two threads."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

BATCH = 32
HEAD_LEARNING_RATE = 1e-3


def train(
    read: Sequence[str], labels: Sequence[float], *, tuned: Any, model: Any, tokenizer: Any,
    epochs: int, learning_rate: float, max_tokens: int, seed: int, classes: int = 1,
) -> Any:  # fmt: skip
    """Train ``tuned`` (the model's modules whose weights learn) and a new
    head on ``read`` (binary cross-entropy on ``labels``; with ``classes``
    > 1, cross-entropy over that many classes, ``labels`` their indices);
    returns the head. The model is left in evaluation mode."""
    import torch
    from torch.nn import functional

    from memory.tuned import SCALE

    head = torch.nn.Linear(model.config.hidden_size, classes)
    layers_opt = torch.optim.AdamW(tuned.parameters(), lr=learning_rate)
    head_opt = torch.optim.AdamW(head.parameters(), lr=HEAD_LEARNING_RATE)
    rng = np.random.default_rng(seed)
    started = time.monotonic()
    for epoch in range(epochs):
        order = [int(i) for i in rng.permutation(len(read))]
        model.train()
        total = 0.0
        for at in range(0, len(order), BATCH):
            batch = order[at : at + BATCH]
            vectors = pooled(model, tokenizer, [read[i] for i in batch], max_tokens)
            logits = head(vectors * SCALE)
            if classes == 1:
                target = torch.tensor([float(labels[i]) for i in batch])
                loss = functional.binary_cross_entropy_with_logits(logits.squeeze(-1), target)
            else:
                chosen = torch.tensor([int(labels[i]) for i in batch])
                loss = functional.cross_entropy(logits, chosen)
            layers_opt.zero_grad()
            head_opt.zero_grad()
            loss.backward()
            layers_opt.step()
            head_opt.step()
            total += loss.item() * len(batch)
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(order):.4f}, "
              f"{time.monotonic() - started:.0f} s", flush=True)  # fmt: skip
    model.eval()
    return head


def pooled(model: Any, tokenizer: Any, texts: list[str], max_tokens: int) -> Any:
    """Mean-pooled, L2-normalised: what the sentence-transformers model gives."""
    import torch

    batch = tokenizer(texts, padding=True, truncation=True, max_length=max_tokens,
                      return_tensors="pt")  # fmt: skip
    out = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    return torch.nn.functional.normalize((out * mask).sum(1) / mask.sum(1), dim=-1)


def bundled(seed: int) -> tuple[Any, Any]:
    """The bundled model (transformers' BertModel, every weight frozen) and
    its tokenizer, torch seeded and on two threads."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from memory.embeddings import default_model_path

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    path = default_model_path()
    model = AutoModel.from_pretrained(path)
    for p in model.parameters():
        p.requires_grad = False
    return model, AutoTokenizer.from_pretrained(path)


def command(
    doc: str, fit: Any, set_threshold: Any, held_back: str, argv: list[str] | None
) -> None:  # fmt: skip
    """A tuned reader's fit command: ``--fit`` fine-tunes and writes the
    weights, ``--threshold`` sets the threshold again on ``held_back``."""
    import argparse
    import json

    import django

    django.setup()
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--fit", action="store_true", help="fine-tune and write the weights")
    parser.add_argument(
        "--threshold", action="store_true",
        help=f"set the threshold again on {held_back} (the weights as they are)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.fit:
        print(json.dumps(fit(), indent=2))
    elif args.threshold:
        print(json.dumps(set_threshold(), indent=2))
    else:
        parser.print_help()
