"""Recall and learn of two checkouts side by side: A/B of a change.

    git worktree add /tmp/before <rev>   # and link or build its .venv
    .venv/bin/python bench/checkout_ab_bench.py --a /tmp/before --b . [--queries 600]

Starts ``manage.py up`` from each checkout (one web worker, one pool
process each, as ``bench/_upstack.py``), learns the same facts into each,
then runs learn rounds (24 learns from 8 threads, first request to last
applied) alternating A/B, and sends recall queries to both, alternating
which goes first query by query, so the machine's noise falls on both
alike. Prints learn rates (median of the rounds), recall p50 over HTTP (the
query embedding included; queries are distinct, so no cache answers) and
the ratios B/A.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _upstack import SUBJECTS, Stack, fact, learn_round, post


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--a", type=Path, required=True, help="the checkout before")
    parser.add_argument("--b", type=Path, default=Path("."), help="the checkout after")
    parser.add_argument("--lessons", type=int, default=120)
    parser.add_argument("--queries", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    a, b = Stack("A", {}, args.a.resolve()), Stack("B", {}, args.b.resolve())
    rng = random.Random(5)
    try:
        for stack in (a, b):
            stack.wait()
            stack.keys = [stack.key("ab", None)]
        for stack in (a, b):
            learn_round(stack, [(stack.keys[0], fact(rng, stack.name, i))
                                for i in range(args.lessons)])  # fmt: skip
        rates: dict[str, list[float]] = {"A": [], "B": []}
        for r in range(args.rounds):
            for stack in (a, b) if r % 2 == 0 else (b, a):
                batch = [(stack.keys[0], fact(rng, f"r{r}{stack.name}", i)) for i in range(24)]
                rates[stack.name].append(learn_round(stack, batch))
        timings: dict[str, list[float]] = {"A": [], "B": []}
        with httpx.Client(timeout=60) as client:
            for stack in (a, b):
                post(client, stack, stack.keys[0], "recall", {"query": "warm up"})
            for q in range(args.queries):
                query = (f"{rng.choice(SUBJECTS)} {rng.choice(['port', 'timeout', 'backups'])} "
                         f"{q}")  # fmt: skip
                for stack in (a, b) if q % 2 == 0 else (b, a):
                    started = time.perf_counter()
                    answer = post(client, stack, stack.keys[0], "recall", {"query": query, "k": 10})
                    timings[stack.name].append((time.perf_counter() - started) * 1000)
                    answer.raise_for_status()
        p50a, p50b = statistics.median(timings["A"]), statistics.median(timings["B"])
        print(f"recall p50 over HTTP: A {p50a:.1f} ms, B {p50b:.1f} ms, B/A {p50b / p50a:.3f}")
        la, lb = statistics.median(rates["A"]), statistics.median(rates["B"])
        print(f"learn, lessons/s (median of {args.rounds} rounds of 24): A {la:.1f}, B {lb:.1f}, "
              f"B/A {lb / la:.3f}")  # fmt: skip
    finally:
        a.stop()
        b.stop()


if __name__ == "__main__":
    main()
