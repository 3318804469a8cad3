"""Recall as served against variants of it, interleaved query by query:
the cost of the whole hybrid recall, by tenant size (issue 21).

    .venv/bin/python bench/recall_variants_bench.py [--lessons 100000] \
        [--tenants 100] [--big 50000] [--base 6000] [--queries 200] \
        [--load import|copy] [--keep]

The same corpus as ``recall_bench.py`` (skewed tenant sizes, loaded through
``import_lessons`` unless ``--load copy``; the service's own HNSW indexes
for the large tenants). For each query the whole hybrid
recall (vector + full text + fusion + provenance; its query embedding
cached, so server-side time without the model) runs once per variant, back
to back, the order rotating from query to query:

* ``served``: as the service runs it;
* ``absolute common cap``: a query term counted common only from
  ``TERM_DF_CAP`` lessons, whatever the tenant's size (what recall did
  before ``common_from``);
* ``every-word leg``: the full-text leg reading every word of the query
  instead of its identifiers (tried for issue 21 and not adopted: see
  docs/benchmarks.md).

(At fcc4ca2 it also measured the vector pool reordered by shared words,
``memory.lexical``, since taken out.) Queries are corpus sentences, so
every word of them is in some tenant's lessons — the full-text leg's worst
case. Prints p50 / p95 per band and each variant's p50 over ``served``'s.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from _corpus import add_skewed_corpus_arguments, build_corpus, load_into_tributary, skewed_sizes
from _stack import machine, percentile, run_in_stack

BANDS = ((0, 100), (100, 1_000), (1_000, 5_000), (5_000, 10**9))


def every_word(query: str) -> list[str]:
    from memory.selectors import _TOKEN

    return _TOKEN.findall(query)[:32]


def main() -> None:
    parser = argparse.ArgumentParser()
    add_skewed_corpus_arguments(parser, queries_help="timed queries per band")
    run_in_stack("trib-bench-variants-", parser.parse_args(), run)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    from accounts.tenancy import tenant_context
    from memory import hnsw, selectors
    from memory.embeddings import _cached_query

    rng = random.Random(7)
    print(f"machine: {machine()}")
    sizes = skewed_sizes(args)
    corpus = build_corpus({f"t{i:03d}": size for i, size in enumerate(sizes)}, args.base)
    loaded = load_into_tributary(data_dir, corpus, args.load)
    report = hnsw.search_indexes_sync(max_builds=len(corpus.tenants))
    print(
        f"loaded {sum(sizes)} lessons in {len(sizes)} tenants in {loaded:.0f} s; "
        f"{len(report.built)} tenant HNSW index(es)"
    )
    # Each variant: the selectors attributes it replaces while it runs.
    variants: dict[str, dict[str, object]] = {
        "served": {},
        "absolute common cap": {"common_from": lambda size: selectors.TERM_DF_CAP},
        "every-word leg": {"identifier_terms": every_word},
    }
    served = {name: getattr(selectors, name) for v in variants.values() for name in v}
    columns = "  ".join(f"{name + ' p50/p95 ms':<27}" for name in variants)
    print(f"\n{'tenant lessons':<16} {'tenants':>7}  {columns}  p50 / served's")
    for low, high in BANDS:
        band = [t for t in corpus.tenants if low <= t.size < high]
        if not band:
            continue
        timings: dict[str, list[float]] = {name: [] for name in variants}
        names = list(variants)
        for n in range(args.queries):
            tenant = rng.choice(band)
            query = rng.choice(tenant.contents).rsplit(" (note", 1)[0]
            _cached_query(query)
            for name in names[n % len(names) :] + names[: n % len(names)]:
                for attribute, value in variants[name].items():
                    setattr(selectors, attribute, value)
                try:
                    with tenant_context(tenant.id):
                        started = time.perf_counter()
                        selectors.lesson_recall(tenant_id=tenant.id, query=query, k=10)
                        timings[name].append((time.perf_counter() - started) * 1000)
                finally:
                    for attribute, value in served.items():
                        setattr(selectors, attribute, value)
        p50 = {name: percentile(values, 50) for name, values in timings.items()}
        label = f"{low:,}–{high - 1:,}" if high < 10**9 else f"{low:,}+"
        print(
            f"{label:<16} {len(band):>7}  "
            + "  ".join(
                f"{p50[name]:6.2f} / {percentile(timings[name], 95):6.2f}{'':<13}"
                for name in variants
            )
            + "  "
            + " / ".join(f"{p50[name] / p50['served']:.2f}" for name in variants)
        )


if __name__ == "__main__":
    main()
