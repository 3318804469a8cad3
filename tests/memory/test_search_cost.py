"""The exact-search threshold's fit and choice of tenants to time (the
measurement itself runs on a real database: tests/memory/test_recall.py)."""

from __future__ import annotations

import uuid

import pytest

from memory.search_cost import (
    EXACT_TENANTS,
    HIGHEST,
    HNSW_TENANTS,
    LOWEST,
    PROBE_MIN,
    Sample,
    chosen,
    fit,
    probe_tenant,
)


def _line(fixed: float, per_lesson: float, index_ms: float, sizes: list[int]) -> list[Sample]:
    return [Sample(n, fixed + per_lesson * n, index_ms if n > 1500 else None) for n in sizes]


def test_the_crossover_is_where_exact_search_costs_what_the_index_does():
    # exact 0.2 ms + 1.3 µs a lesson; the index 1.5 ms: equal at 1,000 lessons
    found = fit(_line(0.2, 0.0013, 1.5, [150, 400, 900, 2000, 4000]))
    assert found is not None
    assert found.exact_max == pytest.approx(1000, abs=1)
    assert found.exact_fixed_ms == pytest.approx(0.2)
    assert found.exact_per_1000_ms == pytest.approx(1.3)
    assert found.hnsw_ms == 1.5
    # a faster CPU for distances moves it up
    faster = fit(_line(0.2, 0.0007, 1.5, [150, 400, 900, 2000, 4000]))
    assert faster is not None and faster.exact_max == 1858


def test_noise_and_one_size_still_give_a_threshold_within_bounds():
    noisy = [Sample(200, 0.55, None), Sample(800, 1.2, None), Sample(3000, 4.1, 1.6),
             Sample(6000, 8.0, 1.8)]  # fmt: skip
    found = fit(noisy)
    assert found is not None and 900 < found.exact_max < 1400
    one = fit([Sample(1500, 3.0, 1.5)])  # no fixed cost to tell apart: all per lesson
    assert one is not None and one.exact_max == 750 and one.exact_fixed_ms == 0
    assert fit([Sample(1500, 0.01, 9.0)]).exact_max == HIGHEST  # type: ignore[union-attr]
    assert fit([Sample(1500, 30.0, 0.01)]).exact_max == LOWEST  # type: ignore[union-attr]


def test_no_index_timed_or_exact_not_dearer_with_size_gives_nothing():
    assert fit([]) is None
    assert fit([Sample(500, 1.0, None), Sample(3000, 4.0, None)]) is None
    assert fit([Sample(500, 2.0, 1.0), Sample(3000, 2.0, 1.0)]) is None


def test_the_tenants_timed_spread_over_the_sizes_and_the_smallest_indexed():
    tenants = {uuid.UUID(int=i + 1): size for i, size in enumerate(
        [5, 99, 100, 250, 600, 1200, 2500, 4000, 9000, 30_000])}  # fmt: skip
    by_size = {size: t for t, size in tenants.items()}
    indexed = {by_size[2500], by_size[4000], by_size[9000], by_size[30_000]}
    timed, with_index = chosen(tenants, indexed)
    # exact: EXACT_TENANTS of the 7 tenants of LOWEST..20,000 lessons, both
    # ends in; the index search too: the HNSW_TENANTS smallest indexed
    assert sorted(tenants[t] for t in timed) == [100, 600, 1200, 2500, 4000, 9000]
    assert with_index == {by_size[2500], by_size[4000], by_size[9000]}
    assert (EXACT_TENANTS, HNSW_TENANTS) == (5, 3) and len(timed) == len(set(timed))


def test_the_probe_is_the_largest_tenant_worth_an_index_and_only_when_none_has_one():
    small, mid, large = uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3)
    sizes = {small: PROBE_MIN - 1, mid: PROBE_MIN, large: 5000}
    assert probe_tenant(sizes, set()) == large
    assert probe_tenant(sizes, {mid}) is None
    assert probe_tenant({small: PROBE_MIN - 1}, set()) is None
