"""What recall's answer reader costs a recall: on against off, query by query.

    .venv/bin/python bench/answer_reader_bench.py [--set evals/longmem_conv.json] \
        [--histories 6] [--keep]

In a private stack, ``--histories`` histories of a long-history set are
learned through the learn pipeline (as ``evals.longmem`` does), each into a
tenant of its own. Every question of those
histories is then recalled in process (``recall_judged``, k = 10, the query
embedded each time as the service does) twice, with the answer reader on
and off in a random order per question, so the machine's noise hits both
alike. Prints p50 / p90 of each, their ratio, and how many answers the
reader read (it reads question-shaped queries the floor did not flag).
"""

from __future__ import annotations

import argparse
import random
import time
import uuid
from pathlib import Path

from _stack import machine, percentile, run_in_stack

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", type=Path, default=ROOT / "evals" / "longmem_conv.json")
    parser.add_argument("--histories", type=int, default=6)
    parser.add_argument("--keep", action="store_true")
    run_in_stack("trib-bench-answers-", parser.parse_args(), run)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    from django.conf import settings

    from accounts.tenancy import tenant_context
    from evals import longmem
    from evals.retrieval import EVAL_TENANT, eval_principal
    from memory import answers, embeddings
    from memory.judge import get_judge
    from memory.selectors import recall_judged

    print(f"machine: {machine()}")
    data = longmem.load(args.set)
    judge = get_judge()
    asked: list[tuple[uuid.UUID, str]] = []
    for history in data["histories"][: args.histories]:
        principal = eval_principal(f"{EVAL_TENANT}-answers-{history['id']}")
        longmem._seed(principal, history["facts"], judge)
        asked += [(principal.tenant_id, q["question"]) for q in data["questions"]
                  if q["history"] == history["id"]]  # fmt: skip
    answers.warm()
    rng = random.Random(7)
    timings: dict[bool, list[float]] = {True: [], False: []}
    read = 0
    for tenant_id, question in asked:
        for on in rng.sample([True, False], 2):
            settings.TRIBUTARY_ANSWER_READER = on
            answers.MODEL.forget()
            with embeddings._queries_lock:  # embedded each time, as a new question is
                embeddings._queries.clear()
            with tenant_context(tenant_id):
                started = time.perf_counter()
                recalled = recall_judged(tenant_id=tenant_id, query=question, k=10)
                timings[on].append((time.perf_counter() - started) * 1000)
            if on and answers.is_question(question) and not _floor_flagged(tenant_id, question):
                read += 1
            del recalled
    settings.TRIBUTARY_ANSWER_READER = True
    answers.MODEL.forget()
    n = len(asked)
    for on in (False, True):
        t = timings[on]
        print(f"reader {'on ' if on else 'off'}: recall p50 {percentile(t, 50):.2f} ms, "
              f"p90 {percentile(t, 90):.2f} ms over {n} questions")  # fmt: skip
    p50 = percentile(timings[True], 50) / percentile(timings[False], 50)
    p90 = percentile(timings[True], 90) / percentile(timings[False], 90)
    print(f"ratio on/off: p50 {p50:.2f}x, p90 {p90:.2f}x; the reader read {read} of {n} answers")


def _floor_flagged(tenant_id: object, question: str) -> bool:
    """Whether the floor alone flags the answer (the reader is then not run)."""
    from django.conf import settings

    from accounts.tenancy import tenant_context
    from memory import answers
    from memory.selectors import recall_judged

    settings.TRIBUTARY_ANSWER_READER = False
    answers.MODEL.forget()
    try:
        with tenant_context(tenant_id):  # type: ignore[arg-type]
            return recall_judged(tenant_id=tenant_id, query=question, k=10).nothing_relevant  # type: ignore[arg-type]
    finally:
        settings.TRIBUTARY_ANSWER_READER = True
        answers.MODEL.forget()


if __name__ == "__main__":
    main()
