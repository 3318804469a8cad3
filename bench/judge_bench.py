"""Judge benchmark: what the learned layer costs a classification.

    .venv/bin/python bench/judge_bench.py [--rounds 3]

Runs the rules alone (``OfflineJudge``) and the served offline judge (the
rules with their learned layer) on every case of the judge's golden set,
with the service's similarities, alternating judge by judge case by case
(so the machine's noise hits both alike), and prints the time a
classification takes for each (median and mean over the cases, the best of
the rounds) and their ratio, by the number of candidates.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import django

    django.setup()
    from _stack import machine

    from evals import judge_report
    from memory.judge import OfflineJudge, offline_judge

    print(f"machine: {machine()}")
    cases = judge_report.load_golden()
    similarities = judge_report.compute_similarities(judge_report.load_encoder(), cases)
    inputs = [
        (case.content, case.situation,
         [c for _, c in judge_report.case_candidates(case, similarities[case.id])])
        for case in cases
    ]  # fmt: skip
    judges = {"rules": OfflineJudge(), "served": offline_judge()}
    best: dict[str, dict[int, list[float]]] = {}
    for _ in range(args.rounds):
        times: dict[str, dict[int, list[float]]] = {n: defaultdict(list) for n in judges}
        for i, (content, situation, candidates) in enumerate(inputs):
            order = list(judges.items()) if i % 2 else list(judges.items())[::-1]
            for name, judge in order:
                started = time.perf_counter()
                judge.classify(content=content, situation=situation, candidates=candidates)
                times[name][len(candidates)].append(time.perf_counter() - started)
        for name, by_size in times.items():
            total = sum(sum(v) for v in by_size.values())
            if name not in best or total < sum(sum(v) for v in best[name].values()):
                best[name] = by_size
    print(f"{len(inputs)} classifications a judge, best of {args.rounds} rounds")
    print(f"{'candidates':>10} {'cases':>6} {'rules p50 / mean ms':>22} "
          f"{'served p50 / mean ms':>22} {'served / rules (mean)':>22}")  # fmt: skip
    sizes = sorted(best["rules"])
    for size in [*sizes, None]:
        rules = [t for s in sizes if size in (None, s) for t in best["rules"][s]]
        served = [t for s in sizes if size in (None, s) for t in best["served"][s]]
        label = "all" if size is None else str(size)
        print(
            f"{label:>10} {len(rules):>6} "
            f"{1000 * statistics.median(rules):>10.2f} / {1000 * statistics.fmean(rules):<9.2f}"
            f"{1000 * statistics.median(served):>10.2f} / {1000 * statistics.fmean(served):<9.2f}"
            f"{statistics.fmean(served) / statistics.fmean(rules):>14.2f}×"
        )


if __name__ == "__main__":
    main()
